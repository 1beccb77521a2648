import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './App';
import { makeStore } from './store';
import { localeChanged } from './uiSlice';
import { signedIn } from './sessionSlice';
import type { User } from '../api/types';
import { stubApi as stubReplies } from '../test/renderWithProviders';

const status = { setup: true, system_name: 'Test Gateway', version: 'v0.1.0', quota_per_unit: 500000, display_in_currency: true };

function stubApi(overrides: Record<string, unknown> = {}) {
  return stubReplies({ 'GET /api/status': status, ...overrides });
}

function renderAt(path: string, store = makeStore()) {
  window.history.pushState({}, '', path);
  store.dispatch(localeChanged('en'));
  render(<App store={store} />);
  return store;
}

// antd's table measures itself (the task log); jsdom has no ResizeObserver.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

beforeEach(() => window.localStorage.clear());
afterEach(() => vi.unstubAllGlobals());

describe('console shell', () => {
  it('shows the expired-session message on /login?expired=true', async () => {
    stubApi();
    renderAt('/login?expired=true&returnTo=%2Fuser');
    expect(await screen.findByText('Not logged in or login expired, please log in again!')).toBeInTheDocument();
  });

  it('refuses an empty login with the spec message', async () => {
    stubApi();
    renderAt('/login');
    await userEvent.click(await screen.findByTestId('login-submit'));
    expect(await screen.findByText('Please enter username and password!')).toBeInTheDocument();
  });

  it('sends protected routes to /login when no user is stored', async () => {
    stubApi();
    renderAt('/personal');
    await waitFor(() => expect(window.location.pathname).toBe('/login'));
    expect(window.location.search).toContain('returnTo=%2Fpersonal');
  });

  it('shows no permission to a normal user on an admin route', async () => {
    stubApi();
    const store = makeStore();
    store.dispatch(signedIn({ id: 2, username: 'u', role: 1 } as User));
    renderAt('/user', store);
    expect(await screen.findByText('No permission')).toBeInTheDocument();
  });

  it('redirects to /setup until the installation is set up', async () => {
    stubApi({
      'GET /api/status': { ...status, setup: false },
      'GET /api/setup': { status: false, root_init: false, database_type: 'sqlite' },
    });
    renderAt('/login');
    await waitFor(() => expect(window.location.pathname).toBe('/setup'));
    expect(await screen.findByTestId('sqlite-warning')).toBeInTheDocument();
  });

  it('routes /task to the task log, empty while there are no tasks', async () => {
    stubApi({ 'GET /api/task/self': { items: [], page: 1, page_size: 100, total: 0 } });
    const store = makeStore();
    store.dispatch(signedIn({ id: 2, username: 'u', role: 1 } as User));
    renderAt('/task', store);
    expect(await screen.findByTestId('task-empty')).toHaveTextContent('No tasks in this time range');
  });

  it('finishes a third-party sign-in on /oauth/{provider} and goes to /token (spec 3 §2.9 calls)', async () => {
    const fetchMock = stubApi({ 'GET /api/oauth/github': { id: 9, username: 'octo', role: 1 } });
    const store = renderAt('/oauth/github?code=abc&state=xyz');
    await waitFor(() => expect(window.location.pathname).toBe('/token'));
    expect(store.getState().session.user).toMatchObject({ id: 9, username: 'octo' });
    const call = fetchMock.mock.calls.map((c) => new URL((c[0] as Request).url)).find((u) => u.pathname === '/api/oauth/github');
    expect(call?.searchParams.get('code')).toBe('abc');
    expect(call?.searchParams.get('state')).toBe('xyz');
  });

  it('renders the not-found page', async () => {
    stubApi();
    renderAt('/no/such/page');
    expect(await screen.findByText('The page does not exist')).toBeInTheDocument();
  });
});
