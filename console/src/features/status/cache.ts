/** The public status object, cached in local storage under the keys of spec 3 §3. */
import type { StatusData } from '../../api/types';
import { readJson, readString, STORAGE_KEY, writeJson, writeString } from '../../shared/storage';

/** Stores the status; answers the sidebar default when this browser had no choice stored yet. */
export function cacheStatus(s: StatusData): boolean | undefined {
  writeJson(STORAGE_KEY.status, s);
  writeString(STORAGE_KEY.footerHtml, s.footer_html ?? '');
  writeJson(STORAGE_KEY.chats, s.chats ?? []);
  writeString(STORAGE_KEY.enableDataExport, String(Boolean(s.enable_data_export)));
  writeString(STORAGE_KEY.enableDrawing, String(Boolean(s.enable_drawing)));
  writeString(STORAGE_KEY.enableTask, String(Boolean(s.enable_task)));
  writeString(STORAGE_KEY.mjNotifyEnabled, String(Boolean(s.mj_notify_enabled)));
  if (readString(STORAGE_KEY.defaultCollapseSidebar) !== null) return undefined;
  writeString(STORAGE_KEY.defaultCollapseSidebar, String(Boolean(s.default_collapse_sidebar)));
  return Boolean(s.default_collapse_sidebar);
}

export function cachedStatus(): Partial<StatusData> {
  return readJson<Partial<StatusData>>(STORAGE_KEY.status) ?? {};
}
