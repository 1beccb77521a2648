/** Pure rules of the dashboard's time range: presets, custom days, the query and its limits. */
import dayjs from 'dayjs';
import type { Problem } from '../../shared/validation';
import {
  DAY_SECONDS,
  GRANULARITY,
  HOUR_SECONDS,
  PRESET_FOR_GRANULARITY,
  RANGE_PRESETS,
  SELF_RANGE_DAYS,
  type Granularity,
  type RangePreset,
} from './constants';
import { dashboard as m } from './messages';
import type { DataQuery, TimeRange } from './types';

/** Start of the hour of `ts` (the server files each request under it). */
export function floorHour(ts: number): number {
  return ts - (((ts % HOUR_SECONDS) + HOUR_SECONDS) % HOUR_SECONDS);
}

/**
 * The last N hours of a preset up to `now`, starting at the start of an hour: the first bucket
 * counts whole, and the span stays under the preset's days (30 days is what the server allows).
 */
export function presetRange(preset: RangePreset, now: number): TimeRange {
  return { start: floorHour(now) - (RANGE_PRESETS[preset] - 1) * HOUR_SECONDS, end: now };
}

/** Whole local days from the start of `first` to the end of `last` (not past `now`). */
export function dayRange(first: number, last: number, now: number): TimeRange {
  const start = dayjs.unix(first).startOf('day').unix();
  const end = Math.min(dayjs.unix(last).endOf('day').unix(), now);
  return { start, end };
}

/** The granularity the settings name (DataExportDefaultTime), or hour. */
export function defaultGranularity(setting: unknown): Granularity {
  return Object.values(GRANULARITY).find((g) => g === setting) ?? GRANULARITY.hour;
}

/** The preset the page opens with for a granularity. */
export function defaultPreset(g: Granularity): RangePreset {
  return PRESET_FOR_GRANULARITY[g];
}

/** A range the server takes: not empty, and for the caller's own data at most 30 days. */
export function validateRange(range: TimeRange, allData: boolean): Problem | null {
  if (range.end < range.start) return { message: m.rangeEmpty };
  if (!allData && range.end - range.start > SELF_RANGE_DAYS * DAY_SECONDS) {
    return { message: m.rangeTooLong, values: { days: SELF_RANGE_DAYS } };
  }
  return null;
}

/** The query of a range, with the user name (admin, trimmed) when one is given. */
export function rangeQuery(range: TimeRange, username = ''): DataQuery {
  const name = username.trim();
  return { start_timestamp: range.start, end_timestamp: range.end, ...(name ? { username: name } : {}) };
}
