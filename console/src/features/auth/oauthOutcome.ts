import type { LoginUser } from '../../api/types';

/** What a provider callback did, read from the server's reply (contract: message "bind" or a LoginView). */
export type OAuthOutcome = { kind: 'bound' } | { kind: 'signedIn'; user: LoginUser } | { kind: 'unknown' };

export function oauthOutcome(data: unknown, message: string | undefined): OAuthOutcome {
  if (message === 'bind') return { kind: 'bound' };
  if (data && typeof data === 'object' && 'id' in data) return { kind: 'signedIn', user: data as LoginUser };
  return { kind: 'unknown' };
}
