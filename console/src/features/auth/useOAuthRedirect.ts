import { useCallback } from 'react';
import type { StatusData } from '../../api/types';
import { useOauthStateMutation } from './api';
import { githubAuthorizeUrl, linuxdoAuthorizeUrl, oidcAuthorizeUrl } from './oauthUrls';

export type RedirectProvider = 'github' | 'oidc' | 'linuxdo';

/** Gets a state value from the server, then sends the browser to the provider's authorize page. */
export function useOAuthRedirect(status: Partial<StatusData>) {
  const [getState] = useOauthStateMutation();
  return useCallback(
    async (provider: RedirectProvider, aff?: string) => {
      const state = await getState({ aff })
        .unwrap()
        .catch(() => undefined);
      if (typeof state !== 'string') return;
      const url =
        provider === 'github'
          ? githubAuthorizeUrl(status.github_client_id ?? '', state)
          : provider === 'oidc'
            ? oidcAuthorizeUrl(
                status.oidc_authorization_endpoint ?? '',
                status.oidc_client_id ?? '',
                state,
                window.location.origin,
              )
            : linuxdoAuthorizeUrl(status.linuxdo_client_id ?? '', state);
      window.location.assign(url);
    },
    [getState, status],
  );
}
