import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { IntlProvider } from 'react-intl';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OidcDiscovery } from './extras';

// OidcDiscovery needs no store; it only reads the edited well-known URL.
function renderDiscovery(url: string, onFill = vi.fn()) {
  render(
    <IntlProvider locale="en" messages={{}} onError={() => undefined}>
      <OidcDiscovery edited={{ 'oidc.well_known': url }} onFill={onFill} />
    </IntlProvider>,
  );
  return onFill;
}

afterEach(() => vi.unstubAllGlobals());

/** Waits for the toast that ends every path of the discovery handler. */
async function toastShown() {
  await waitFor(() => expect(document.querySelector('.ant-message-notice')).not.toBeNull());
}

describe('OIDC discovery (spec 1 §5)', () => {
  it('fetches the well-known document and fills the three endpoints', async () => {
    const fetchMock = vi.fn(
      async () =>
        new Response(
          JSON.stringify({
            authorization_endpoint: 'https://id.example/auth',
            token_endpoint: 'https://id.example/token',
            userinfo_endpoint: 'https://id.example/me',
          }),
        ),
    );
    vi.stubGlobal('fetch', fetchMock);
    const onFill = renderDiscovery('https://id.example/.well-known/openid-configuration');
    fireEvent.click(screen.getByRole('button'));
    await waitFor(() =>
      expect(onFill).toHaveBeenCalledWith({
        'oidc.authorization_endpoint': 'https://id.example/auth',
        'oidc.token_endpoint': 'https://id.example/token',
        'oidc.user_info_endpoint': 'https://id.example/me',
      }),
    );
    expect(fetchMock).toHaveBeenCalledWith('https://id.example/.well-known/openid-configuration');
    await toastShown();
  });

  it('refuses a URL that is not http(s) without fetching', async () => {
    const fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    const onFill = renderDiscovery('id.example/.well-known');
    fireEvent.click(screen.getByRole('button'));
    await toastShown();
    expect(fetchMock).not.toHaveBeenCalled();
    expect(onFill).not.toHaveBeenCalled();
  });

  it('fills nothing when the fetch fails', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('nope', { status: 500 })),
    );
    const onFill = renderDiscovery('https://id.example/.well-known/openid-configuration');
    fireEvent.click(screen.getByRole('button'));
    await toastShown();
    expect(onFill).not.toHaveBeenCalled();
  });
});
