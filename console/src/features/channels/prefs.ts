/** Locally kept preferences of the channel list (spec 2 §9): id sort, tag mode and visible columns. */
import { useCallback, useState } from 'react';
import { readBool, readJson, STORAGE_KEY, writeJson, writeString, type StorageKey } from '../../shared/storage';

/** The table's optional columns, in display order (actions is always shown). */
export const COLUMN_KEYS = [
  'id',
  'name',
  'group',
  'type',
  'status',
  'responseTime',
  'balance',
  'priority',
  'weight',
  'tag',
  'models',
] as const;
export type ColumnKey = (typeof COLUMN_KEYS)[number];
export type ColumnVisibility = Record<ColumnKey, boolean>;

/** Shown unless switched off; the models column is off by default (it is wide). */
export const DEFAULT_COLUMNS: ColumnVisibility = {
  id: true,
  name: true,
  group: true,
  type: true,
  status: true,
  responseTime: true,
  balance: true,
  priority: true,
  weight: true,
  tag: true,
  models: false,
};

/** The stored choice merged over the defaults (unknown keys and non-booleans ignored). */
export function columnVisibility(stored: unknown): ColumnVisibility {
  const out = { ...DEFAULT_COLUMNS };
  if (stored && typeof stored === 'object') {
    for (const k of COLUMN_KEYS) {
      const v = (stored as Record<string, unknown>)[k];
      if (typeof v === 'boolean') out[k] = v;
    }
  }
  return out;
}

function useStoredBool(key: StorageKey): [boolean, (v: boolean) => void] {
  const [value, setValue] = useState(() => readBool(key));
  const update = useCallback(
    (v: boolean) => {
      writeString(key, String(v));
      setValue(v);
    },
    [key],
  );
  return [value, update];
}

export const useIdSort = () => useStoredBool(STORAGE_KEY.idSort);
export const useTagMode = () => useStoredBool(STORAGE_KEY.channelTagMode);

export function useColumnVisibility(): [ColumnVisibility, (v: ColumnVisibility) => void] {
  const [value, setValue] = useState(() => columnVisibility(readJson(STORAGE_KEY.channelsTableColumns)));
  const update = useCallback((v: ColumnVisibility) => {
    writeJson(STORAGE_KEY.channelsTableColumns, v);
    setValue(v);
  }, []);
  return [value, update];
}
