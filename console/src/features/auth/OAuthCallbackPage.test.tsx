import { act, render, screen } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RawIntlProvider } from 'react-intl';
import { Provider } from 'react-redux';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import type { User } from '../../api/types';
import { signedIn } from '../../app/sessionSlice';
import { makeStore } from '../../app/store';
import { setIntlLocale } from '../../i18n/intl';
import { FAILURE_REDIRECT_MS, OAuthCallbackPage } from './OAuthCallbackPage';
import { rememberReturnTo } from './oauthReturnTo';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  window.sessionStorage.clear();
  window.localStorage.clear();
});

const loginView = { id: 9, username: 'octocat', display_name: 'octocat', role: 1, status: 1, github_id: '583231' };

/** Answers GET /api/oauth/github with `body` and records the calls. */
function stubCallback(body: unknown) {
  const fetchMock = vi.fn(async () => new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } }));
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

function Where() {
  const loc = useLocation();
  return <div data-testid="where">{loc.pathname + loc.search}</div>;
}

function renderAt(url: string, store = makeStore()) {
  // StrictMode outermost: inside the redux Provider it does not run effects twice.
  render(
    <StrictMode>
      <Provider store={store}>
        <RawIntlProvider value={setIntlLocale('en')}>
          <MemoryRouter initialEntries={[url]}>
            <Routes>
              <Route path="/oauth/:provider" element={<OAuthCallbackPage />} />
              <Route path="*" element={<Where />} />
            </Routes>
          </MemoryRouter>
        </RawIntlProvider>
      </Provider>
    </StrictMode>,
  );
  return store;
}

describe('OAuth callback page (spec 3 §2.9)', () => {
  it('sends code and state once (also under StrictMode) and signs in to /token', async () => {
    const fetchMock = stubCallback({ success: true, message: '', data: loginView });
    const store = renderAt('/oauth/github?code=c1&state=s1');
    expect(await screen.findByTestId('where')).toHaveTextContent(/^\/token$/);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const url = new URL((fetchMock.mock.calls[0] as unknown as [Request])[0].url);
    expect(url.pathname).toBe('/api/oauth/github');
    expect(url.searchParams.get('code')).toBe('c1');
    expect(url.searchParams.get('state')).toBe('s1');
    expect(store.getState().session.user?.username).toBe('octocat');
  });

  it('goes to the returnTo remembered before the provider round trip', async () => {
    stubCallback({ success: true, message: '', data: loginView });
    rememberReturnTo('/log?p=2');
    renderAt('/oauth/oidc?code=c1&state=s1');
    expect(await screen.findByTestId('where')).toHaveTextContent('/log?p=2');
  });

  it('prefers the returnTo of its own query, and forgets the remembered one', async () => {
    stubCallback({ success: true, message: '', data: loginView });
    rememberReturnTo('/detail');
    renderAt('/oauth/github?code=c1&state=s1&returnTo=%2Ftopup');
    expect(await screen.findByTestId('where')).toHaveTextContent(/^\/topup$/);
    expect(window.sessionStorage.length).toBe(0);
  });

  it('never follows a returnTo of another site', async () => {
    stubCallback({ success: true, message: '', data: loginView });
    renderAt('/oauth/github?code=c1&state=s1&returnTo=https%3A%2F%2Fevil.test%2F');
    expect(await screen.findByTestId('where')).toHaveTextContent(/^\/token$/);
  });

  it('reads message "bind" as a binding: toast and /personal', async () => {
    stubCallback({ success: true, message: 'bind', data: null });
    const store = makeStore();
    store.dispatch(signedIn({ id: 3, username: 'ada', role: 1 } as User));
    renderAt('/oauth/github?code=c1&state=s1', store);
    expect(await screen.findByTestId('where')).toHaveTextContent(/^\/personal$/);
    expect(screen.getByText('Account bound')).toBeInTheDocument();
    expect(store.getState().session.user?.username).toBe('ada');
  });

  it('shows the server message and the redirect notice, then goes to /login', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    stubCallback({ success: false, message: 'state mismatch', data: null });
    renderAt('/oauth/github?code=x&state=wrong');
    const failure = await screen.findByTestId('oauth-failure');
    expect(failure).toHaveTextContent('state mismatch');
    expect(failure).toHaveTextContent('Operation failed, redirecting to the login page…');
    await act(async () => {
      vi.advanceTimersByTime(FAILURE_REDIRECT_MS);
    });
    expect(screen.getByTestId('where')).toHaveTextContent(/^\/login$/);
  });

  it('sends a signed-in user back to /personal after a failure', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    stubCallback({ success: false, message: 'already bound to another account', data: null });
    const store = makeStore();
    store.dispatch(signedIn({ id: 3, username: 'ada', role: 1 } as User));
    renderAt('/oauth/linuxdo?code=x&state=s', store);
    expect(await screen.findByTestId('oauth-failure')).toHaveTextContent('Operation failed, returning to personal settings…');
    await act(async () => {
      vi.advanceTimersByTime(FAILURE_REDIRECT_MS);
    });
    expect(screen.getByTestId('where')).toHaveTextContent(/^\/personal$/);
  });

  it('calls nothing when the provider sent an error instead of a code', async () => {
    const fetchMock = stubCallback({ success: true, message: '', data: loginView });
    renderAt('/oauth/github?error=access_denied&error_description=The+user+denied+access');
    expect(await screen.findByTestId('oauth-failure')).toHaveTextContent('The user denied access');
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
