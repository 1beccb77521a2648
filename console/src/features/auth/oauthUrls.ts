/** Authorize URLs of the third-party sign-in starters (spec 1 §7). Pure. */

export function githubAuthorizeUrl(clientId: string, state: string): string {
  const q = new URLSearchParams({ client_id: clientId, state, scope: 'user:email' });
  return `https://github.com/login/oauth/authorize?${q.toString()}`;
}

export function oidcAuthorizeUrl(endpoint: string, clientId: string, state: string, origin: string): string {
  const url = new URL(endpoint);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', `${origin}/oauth/oidc`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'openid profile email');
  url.searchParams.set('state', state);
  return url.toString();
}

/** The server sends the same redirect URI (this page's origin) with the code it exchanges. */
export function linuxdoAuthorizeUrl(clientId: string, state: string, origin: string): string {
  const q = new URLSearchParams({ response_type: 'code', client_id: clientId, state, redirect_uri: `${origin}/oauth/linuxdo` });
  return `https://connect.linux.do/oauth2/authorize?${q.toString()}`;
}
