/** Granularities, range presets, metrics and limits of the dashboard. */

export const GRANULARITY = { hour: 'hour', day: 'day', week: 'week' } as const;
export type Granularity = (typeof GRANULARITY)[keyof typeof GRANULARITY];

export const HOUR_SECONDS = 3600;
export const DAY_SECONDS = 24 * HOUR_SECONDS;

/** The longest range of the caller's own dashboard (the server refuses more). */
export const SELF_RANGE_DAYS = 30;

/** Range presets: how many hourly buckets up to and including the current hour. */
export const RANGE_PRESETS = { '24h': 24, '7d': 7 * 24, '30d': SELF_RANGE_DAYS * 24 } as const;
export type RangePreset = keyof typeof RANGE_PRESETS;

/** The preset the page opens with for each default granularity (the DataExportDefaultTime setting). */
export const PRESET_FOR_GRANULARITY: Record<Granularity, RangePreset> = { hour: '24h', day: '7d', week: '30d' };

/** What a chart adds up. */
export const METRIC = { quota: 'quota', count: 'count', tokens: 'tokens' } as const;
export type Metric = (typeof METRIC)[keyof typeof METRIC];

/** Series beyond this many (by total) are added up into one "other" series. */
export const TOP_SERIES = 8;

/** The key and name of the "other" series (the page shows a translated label). */
export const OTHER_SERIES = '__other__';

/** Series colours, readable on light and dark backgrounds (antd's preset palette, 6th shade). */
export const SERIES_COLORS = [
  '#1677ff',
  '#52c41a',
  '#faad14',
  '#722ed1',
  '#13c2c2',
  '#eb2f96',
  '#fa8c16',
  '#2f54eb',
  '#a0d911',
] as const;
