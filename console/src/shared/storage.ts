/** The only module that touches window.localStorage; keys of spec 3 §3. */

export const STORAGE_KEY = {
  logsTableColumns: 'logs-table-columns',
  pageSize: 'page-size',
  themeMode: 'theme-mode',
  defaultCollapseSidebar: 'default_collapse_sidebar',
  chats: 'chats',
  status: 'status',
  user: 'user',
  enableDataExport: 'enable_data_export',
  enableDrawing: 'enable_drawing',
  enableTask: 'enable_task',
  footerHtml: 'footer_html',
  mjNotifyEnabled: 'mj_notify_enabled',
  /** Not in the spec's list: the chosen UI language. */
  language: 'language',
  /** Not in the spec's list: invitation code read from ?aff= until registration. */
  aff: 'aff',
  /** Spec 2 §9: the channel list's id sort, tag grouping and visible columns. */
  idSort: 'id-sort',
  channelTagMode: 'channel-tag-mode',
  channelsTableColumns: 'channels-table-columns',
  /** Spec 3 §3 "Playground state": the playground's parameters and its conversation. */
  playgroundParams: 'playground-params',
  playgroundMessages: 'playground-messages',
} as const;
export type StorageKey = (typeof STORAGE_KEY)[keyof typeof STORAGE_KEY];

function store(): Storage | undefined {
  try {
    return typeof window === 'undefined' ? undefined : window.localStorage;
  } catch {
    return undefined;
  }
}

export function readString(key: StorageKey): string | null {
  return store()?.getItem(key) ?? null;
}

export function writeString(key: StorageKey, value: string): void {
  store()?.setItem(key, value);
}

export function remove(key: StorageKey): void {
  store()?.removeItem(key);
}

export function readJson<T>(key: StorageKey): T | null {
  const raw = readString(key);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

export function writeJson(key: StorageKey, value: unknown): void {
  writeString(key, JSON.stringify(value));
}

export function readBool(key: StorageKey, fallback = false): boolean {
  const raw = readString(key);
  return raw === null ? fallback : raw === 'true';
}
