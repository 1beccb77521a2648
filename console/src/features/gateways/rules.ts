/** The gateways screen's rules as pure functions: times, relative ages, lag warnings, refused quotas. */
import dayjs from 'dayjs';
import { GATEWAY_TIME_FORMAT } from './constants';
import type { Gateway } from './types';

/** Epoch seconds as a local date-time; '-' for 0 (never). */
export function formatTime(t: number): string {
  return t ? dayjs.unix(t).format(GATEWAY_TIME_FORMAT) : '-';
}

export interface RelativeAge {
  /** Negative: in the past, as Intl.RelativeTimeFormat wants it. */
  value: number;
  unit: 'second' | 'minute' | 'hour' | 'day';
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long ago `t` (epoch seconds) was at `nowMs`, in the largest whole unit; a time ahead of the clock counts as now. */
export function relativeAge(t: number, nowMs: number): RelativeAge {
  const ago = Math.max(0, Math.floor(nowMs / 1000) - t);
  if (ago < MINUTE) return { value: ago === 0 ? 0 : -ago, unit: 'second' };
  if (ago < HOUR) return { value: -Math.floor(ago / MINUTE), unit: 'minute' };
  if (ago < DAY) return { value: -Math.floor(ago / HOUR), unit: 'hour' };
  return { value: -Math.floor(ago / DAY), unit: 'day' };
}

/** A connected gateway that has not applied the newest version yet: worth a warning colour. */
export function isLagging(g: Pick<Gateway, 'lag' | 'connected'>): boolean {
  return g.connected && g.lag > 0;
}

/** A refused record that would have credited the user instead of charging. */
export function isNegativeQuota(quota: number): boolean {
  return quota < 0;
}

/** How many of the gateways have their Watch stream open. */
export function connectedCount(items: readonly Pick<Gateway, 'connected'>[]): number {
  return items.filter((g) => g.connected).length;
}
