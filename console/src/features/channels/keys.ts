/**
 * Per-key status of multi-key channels: what the channel row says about its keys, and which
 * keys the Keys dialog lists. A key's status uses the channel numbering (1 enabled, 2 disabled
 * by hand, 3 disabled automatically); its index is its position in the channel's key list.
 */
import { CHANNEL_STATUS } from './constants';
import type { Channel, KeyView } from './types';

/** A channel with more keys than this is a multi-key channel. */
export const SINGLE_KEY = 1;

export const isMultiKey = (c: Pick<Channel, 'key_count'>) => c.key_count > SINGLE_KEY;

/** The filter of the Keys dialog. */
export const KEY_FILTER = { all: 'all', enabled: 'enabled', manual: 'manual', auto: 'auto' } as const;
export type KeyFilter = (typeof KEY_FILTER)[keyof typeof KEY_FILTER];

const FILTER_STATUS: Record<Exclude<KeyFilter, 'all'>, number> = {
  enabled: CHANNEL_STATUS.enabled,
  manual: CHANNEL_STATUS.disabled,
  auto: CHANNEL_STATUS.autoDisabled,
};

export function filterKeys(keys: readonly KeyView[], filter: KeyFilter): KeyView[] {
  if (filter === KEY_FILTER.all) return [...keys];
  return keys.filter((k) => k.status === FILTER_STATUS[filter]);
}

/** How the key tag of a channel row looks: none disabled, some, or all (the channel gets no key). */
export type KeyCountLevel = 'ok' | 'some' | 'all';

export const KEY_COUNT_COLOR: Record<KeyCountLevel, string> = { ok: 'blue', some: 'warning', all: 'error' };

/** The key tag of a channel row; null for a channel with a single key. */
export function keyCount(c: Pick<Channel, 'key_count' | 'disabled_key_count'>): {
  total: number;
  disabled: number;
  level: KeyCountLevel;
} | null {
  if (!isMultiKey(c)) return null;
  const disabled = Math.min(Math.max(c.disabled_key_count ?? 0, 0), c.key_count);
  const level: KeyCountLevel = disabled === 0 ? 'ok' : disabled === c.key_count ? 'all' : 'some';
  return { total: c.key_count, disabled, level };
}

/** How many keys "delete disabled keys" removes. */
export const disabledKeys = (v: { manually_disabled: number; auto_disabled: number }) => v.manually_disabled + v.auto_disabled;
