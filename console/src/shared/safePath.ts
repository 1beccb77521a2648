/**
 * A path of this site to go to after sign-in, or null. Never an absolute or protocol-relative
 * address (`https://…`, `//host`, `/\host`, or one hidden behind tabs and newlines): an open
 * redirect would hand the fresh session's user to another site.
 */
export function safeReturnPath(value: string | null | undefined, origin = window.location.origin): string | null {
  if (!value || !value.startsWith('/') || value.startsWith('//')) return null;
  if (value.includes('\\') || [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return null;
  try {
    const url = new URL(value, origin);
    return url.origin === origin ? url.pathname + url.search + url.hash : null;
  } catch {
    return null;
  }
}
