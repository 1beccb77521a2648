/** Lets non-React code (the API layer) navigate through the router. */
type Navigate = (to: string, opts?: { replace?: boolean }) => void;

let navigateFn: Navigate = (to) => window.location.assign(to);

export function setNavigator(fn: Navigate): void {
  navigateFn = fn;
}

export function navigate(to: string, opts?: { replace?: boolean }): void {
  navigateFn(to, opts);
}

/** The login address after a 401: expired=true and the page to come back to (spec 1 §4). */
export function expiredLoginPath(current: { pathname: string; search: string }): string {
  const returnTo = current.pathname + current.search;
  const q = new URLSearchParams({ expired: 'true' });
  if (returnTo && !returnTo.startsWith('/login')) q.set('returnTo', returnTo);
  return `/login?${q.toString()}`;
}
