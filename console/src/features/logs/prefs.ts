/** The usage log's visible columns (spec 3 §2.2), kept locally under `logs-table-columns`. */
import { useCallback, useState } from 'react';
import { readJson, STORAGE_KEY, writeJson } from '../../shared/storage';

/** Every column, in display order. */
export const LOG_COLUMN_KEYS = [
  'time',
  'channel',
  'user',
  'token',
  'group',
  'type',
  'model',
  'useTime',
  'prompt',
  'completion',
  'cost',
  'retry',
  'details',
] as const;
export type LogColumnKey = (typeof LOG_COLUMN_KEYS)[number];
export type LogColumnVisibility = Record<LogColumnKey, boolean>;

/** Shown to admins only, whatever the stored choice says. */
export const ADMIN_COLUMNS: readonly LogColumnKey[] = ['channel', 'user', 'retry'];

/** Every column is shown by default. */
export const DEFAULT_LOG_COLUMNS: LogColumnVisibility = Object.fromEntries(
  LOG_COLUMN_KEYS.map((k) => [k, true]),
) as LogColumnVisibility;

/** The columns a caller may choose from: admin-only ones are left out for everyone else. */
export function choosableColumns(admin: boolean): LogColumnKey[] {
  return LOG_COLUMN_KEYS.filter((k) => admin || !ADMIN_COLUMNS.includes(k));
}

/** The stored choice merged over the defaults (unknown keys and non-booleans ignored). */
export function logColumnVisibility(stored: unknown): LogColumnVisibility {
  const out = { ...DEFAULT_LOG_COLUMNS };
  if (stored && typeof stored === 'object') {
    for (const k of LOG_COLUMN_KEYS) {
      const v = (stored as Record<string, unknown>)[k];
      if (typeof v === 'boolean') out[k] = v;
    }
  }
  return out;
}

/** Whether a column shows: chosen, and not admin-only for a non-admin. */
export function columnShown(v: LogColumnVisibility, key: LogColumnKey, admin: boolean): boolean {
  return v[key] && (admin || !ADMIN_COLUMNS.includes(key));
}

/** Every choosable column on (select all). */
export function allColumns(v: LogColumnVisibility, admin: boolean): LogColumnVisibility {
  const out = { ...v };
  for (const k of choosableColumns(admin)) out[k] = true;
  return out;
}

export function useLogColumns(): [LogColumnVisibility, (v: LogColumnVisibility) => void] {
  const [value, setValue] = useState(() => logColumnVisibility(readJson(STORAGE_KEY.logsTableColumns)));
  const update = useCallback((v: LogColumnVisibility) => {
    writeJson(STORAGE_KEY.logsTableColumns, v);
    setValue(v);
  }, []);
  return [value, update];
}
