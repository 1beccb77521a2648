/** The two ways a chat link leaves the console (kept apart so tests can replace them). */

/** Opens a chat address in a tab that cannot reach back to the console and gets no referrer. */
export function openChatTab(url: string): void {
  window.open(url, '_blank', 'noopener,noreferrer');
}

/** Replaces the current page in the history, so that Back does not come here to leave again. */
export function leaveFor(url: string): void {
  window.location.replace(url);
}
