/**
 * Chat links (spec 3 §2.7, §5; spec 2 §3): the `Chats` option is a JSON list of `{name: link}`
 * objects. A link is a template: `{key}` becomes the token's whole key (prefixed `sk-`) and
 * `{address}` the server address (the ServerAddress option, else this page's origin), both
 * URL-encoded. Only http(s) addresses are ever opened or framed.
 */

/** One entry of the `Chats` option. */
export interface ChatLink {
  name: string;
  link: string;
}

/** The template variables. */
export const CHAT_VARS = { key: '{key}', address: '{address}' } as const;

/**
 * The entries of the `Chats` option (the list itself, or its JSON text), in order; each entry
 * is named by its first key, as the server's `chat_link` reads it. `null` when the option is
 * malformed (not a list, or an entry that is not a `{name: link}` object): a config error.
 * An absent option is an empty list.
 */
export function parseChats(raw: unknown): ChatLink[] | null {
  let value = raw;
  if (value === undefined || value === null || value === '') return [];
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return null;
    }
  }
  if (!Array.isArray(value)) return null;
  const out: ChatLink[] = [];
  for (const entry of value as unknown[]) {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return null;
    const first = Object.entries(entry as Record<string, unknown>)[0];
    if (!first || typeof first[1] !== 'string') return null;
    out.push({ name: first[0], link: first[1] });
  }
  return out;
}

/** The entry index of `/chat/:id` (no id: the first entry); `null` when the id is not an index. */
export function chatIndex(id: string | undefined): number | null {
  if (id === undefined || id === '') return 0;
  return /^\d{1,6}$/.test(id) ? Number(id) : null;
}

/** The whole key as a chat page wants it: prefixed `sk-` (once). */
export function withKeyPrefix(key: string): string {
  const k = key.trim();
  return k.startsWith('sk-') ? k : `sk-${k}`;
}

/** The server address placed into links: the ServerAddress option, else the page's origin; no trailing slash. */
export function serverAddressOf(serverAddress: string | undefined, origin: string): string {
  const configured = (serverAddress ?? '').trim();
  return (configured || origin).replace(/\/+$/, '');
}

/** Fills a template: every `{key}` and `{address}`, URL-encoded. */
export function fillChatLink(template: string, values: { key: string; address: string }): string {
  return template
    .replaceAll(CHAT_VARS.address, encodeURIComponent(values.address))
    .replaceAll(CHAT_VARS.key, encodeURIComponent(withKeyPrefix(values.key)));
}

/**
 * The filled link as an absolute http(s) address (a relative link is read against `origin`);
 * `null` for anything else (`javascript:`, `data:`, unparsable), which is never opened.
 */
export function safeChatUrl(link: string, origin: string): string | null {
  const text = link.trim();
  if (!text) return null;
  let url: URL;
  try {
    url = new URL(text, origin);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

/** The address to open for one entry, one key and one server address; `null` when it is not a web address. */
export function chatUrl(chat: ChatLink, key: string, address: string, origin: string): string | null {
  return safeChatUrl(fillChatLink(chat.link, { key, address }), origin);
}

/** Token status of an enabled token (spec 2). */
const ENABLED = 1;

/** The token a chat-link page uses: the first enabled one of the list. */
export function firstEnabledToken<T extends { status: number }>(tokens: readonly T[]): T | undefined {
  return tokens.find((t) => t.status === ENABLED);
}

/** Delay before a chat-link page without an enabled token goes to /token (spec 3 §5). */
export const NO_TOKEN_REDIRECT_MS = 1500;
