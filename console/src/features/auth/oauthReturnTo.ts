/**
 * Where to go after a third-party sign-in: the login page's returnTo, kept in session storage
 * (this tab only) while the browser visits the provider, and read once by the callback page.
 */
import { safeReturnPath } from '../../shared/safePath';

const KEY = 'oauth-return-to';

function store(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}

/** Remembers returnTo for the callback (only a path of this site); forgets any earlier one otherwise. */
export function rememberReturnTo(returnTo: string | null | undefined): void {
  const path = safeReturnPath(returnTo);
  if (path) store()?.setItem(KEY, path);
  else store()?.removeItem(KEY);
}

/** The remembered returnTo, removed as it is read. */
export function takeReturnTo(): string | null {
  const path = store()?.getItem(KEY) ?? null;
  store()?.removeItem(KEY);
  return safeReturnPath(path);
}
