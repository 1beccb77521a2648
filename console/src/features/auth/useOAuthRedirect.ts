import { useCallback } from 'react';
import type { StatusData } from '../../api/types';
import { useOauthStateMutation } from './api';
import { rememberReturnTo } from './oauthReturnTo';
import { githubAuthorizeUrl, linuxdoAuthorizeUrl, oidcAuthorizeUrl } from './oauthUrls';

export type RedirectProvider = 'github' | 'oidc' | 'linuxdo';

/** A sign-in's extras: the invitation code for a first sign-in, and where to go afterwards. */
export interface RedirectIntent {
  aff?: string;
  returnTo?: string | null;
}

function authorizeUrl(provider: RedirectProvider, status: Partial<StatusData>, state: string): string {
  switch (provider) {
    case 'github':
      return githubAuthorizeUrl(status.github_client_id ?? '', state);
    case 'oidc':
      return oidcAuthorizeUrl(
        status.oidc_authorization_endpoint ?? '',
        status.oidc_client_id ?? '',
        state,
        window.location.origin,
      );
    case 'linuxdo':
      return linuxdoAuthorizeUrl(status.linuxdo_client_id ?? '', state, window.location.origin);
  }
}

/**
 * Gets a state value from the server (which keeps it, and the invitation code, in cookies for
 * the callback), remembers returnTo for the callback page, then sends the browser to the
 * provider's authorize page.
 */
export function useOAuthRedirect(status: Partial<StatusData>) {
  const [getState] = useOauthStateMutation();
  return useCallback(
    async (provider: RedirectProvider, intent: RedirectIntent = {}) => {
      const state = await getState({ aff: intent.aff || undefined })
        .unwrap()
        .catch(() => undefined);
      if (typeof state !== 'string' || !state) return;
      rememberReturnTo(intent.returnTo);
      window.location.assign(authorizeUrl(provider, status, state));
    },
    [getState, status],
  );
}
