import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { GRANULARITY, METRIC, OTHER_SERIES } from './constants';
import { formatDollars, formatMetric, formatRate } from './format';
import {
  breakdownOf,
  bucketLabel,
  bucketStart,
  bucketStarts,
  fromModels,
  fromUsers,
  ratesOf,
  shapeSeries,
  shareOf,
  topNames,
  totalsOf,
  type Rollup,
} from './shape';

const t = (s: string) => dayjs(s).unix();
const row = (name: string, at: string, count: number, quota: number, tokens: number): Rollup => ({
  name,
  created_at: t(at),
  count,
  quota,
  token_used: tokens,
});

const ROWS = [
  row('gpt-4o', '2025-03-10T09:00:00', 2, 1000, 300),
  row('claude', '2025-03-10T09:00:00', 1, 4000, 100),
  row('gpt-4o', '2025-03-10T11:00:00', 3, 500, 900),
  row('gpt-4.1', '2025-03-11T02:00:00', 1, 10, 5),
];

describe('buckets', () => {
  it('starts hours, days and Monday weeks in local time', () => {
    const ts = t('2025-03-12T10:17:05'); // a Wednesday
    expect(bucketStart(ts, GRANULARITY.hour)).toBe(t('2025-03-12T10:00:00'));
    expect(bucketStart(ts, GRANULARITY.day)).toBe(t('2025-03-12T00:00:00'));
    expect(bucketStart(ts, GRANULARITY.week)).toBe(t('2025-03-10T00:00:00'));
    expect(bucketStart(t('2025-03-16T23:00:00'), GRANULARITY.week)).toBe(t('2025-03-10T00:00:00')); // Sunday
    expect(bucketStart(t('2025-03-17T00:00:00'), GRANULARITY.week)).toBe(t('2025-03-17T00:00:00')); // Monday
  });

  it('lists every bucket of a range, ends included', () => {
    const range = { start: t('2025-03-10T09:00:00'), end: t('2025-03-10T11:30:00') };
    expect(bucketStarts(range, GRANULARITY.hour)).toEqual([
      t('2025-03-10T09:00:00'),
      t('2025-03-10T10:00:00'),
      t('2025-03-10T11:00:00'),
    ]);
    const days = { start: t('2025-03-09T22:00:00'), end: t('2025-03-11T01:00:00') };
    expect(bucketStarts(days, GRANULARITY.day)).toHaveLength(3);
    expect(bucketStarts(days, GRANULARITY.week)).toEqual([t('2025-03-03T00:00:00'), t('2025-03-10T00:00:00')]);
  });

  it('labels hours with the time and days with the date', () => {
    expect(bucketLabel(t('2025-03-10T09:00:00'), GRANULARITY.hour)).toBe('03-10 09:00');
    expect(bucketLabel(t('2025-03-10T00:00:00'), GRANULARITY.day)).toBe('2025-03-10');
  });
});

describe('series', () => {
  const range = { start: t('2025-03-10T09:00:00'), end: t('2025-03-11T03:00:00') };

  it('adds the rows of a metric into buckets, zero where nothing was used', () => {
    const { points, series } = shapeSeries(ROWS, METRIC.quota, GRANULARITY.day, range);
    expect(series).toEqual([
      { key: 's0', name: 'claude' },
      { key: 's1', name: 'gpt-4o' },
      { key: 's2', name: 'gpt-4.1' },
    ]);
    expect(points.map((p) => [p.label, p.s0, p.s1, p.s2])).toEqual([
      ['2025-03-10', 4000, 1500, 0],
      ['2025-03-11', 0, 0, 10],
    ]);
    const hourly = shapeSeries(ROWS, METRIC.count, GRANULARITY.hour, range);
    expect(hourly.points).toHaveLength(19);
    expect(hourly.series[0].name).toBe('gpt-4o');
    expect(hourly.points[1]).toMatchObject({ label: '03-10 10:00', s0: 0, s1: 0, s2: 0 });
  });

  it('adds names beyond the top ones into the other series', () => {
    const { points, series } = shapeSeries(ROWS, METRIC.tokens, GRANULARITY.week, range, 1);
    expect(series).toEqual([
      { key: 's0', name: 'gpt-4o' },
      { key: 's1', name: OTHER_SERIES },
    ]);
    expect(points).toEqual([{ bucket: t('2025-03-10T00:00:00'), label: '2025-03-10', s0: 1200, s1: 105 }]);
  });

  it('has no series and zero buckets when there are no rows', () => {
    const { points, series } = shapeSeries([], METRIC.quota, GRANULARITY.day, range);
    expect(series).toEqual([]);
    expect(points).toHaveLength(2);
  });

  it('ranks names by the metric then by name', () => {
    expect(topNames(ROWS, METRIC.count, 2)).toEqual({ kept: ['gpt-4o', 'claude'], rest: true });
    expect(topNames(ROWS, METRIC.count)).toEqual({ kept: ['gpt-4o', 'claude', 'gpt-4.1'], rest: false });
  });

  it('shares the metric among the top names and the rest, leaving out empty slices', () => {
    expect(shareOf(ROWS, METRIC.quota, 1)).toEqual([
      { name: 'claude', value: 4000 },
      { name: OTHER_SERIES, value: 1510 },
    ]);
    expect(shareOf([row('a', '2025-03-10T09:00:00', 1, 0, 0)], METRIC.quota)).toEqual([]);
  });
});

describe('totals and breakdown', () => {
  it('sums calls, quota and tokens, and averages per minute', () => {
    const totals = totalsOf(ROWS);
    expect(totals).toEqual({ count: 7, quota: 5510, tokens: 1305 });
    expect(ratesOf(totals, { start: 0, end: 600 })).toEqual({ rpm: 0.7, tpm: 130.5 });
    expect(ratesOf(totals, { start: 0, end: 0 }).rpm).toBe(7);
  });

  it('gives totals per name, the largest consumption first', () => {
    expect(breakdownOf(ROWS)).toEqual([
      { name: 'claude', count: 1, quota: 4000, tokens: 100 },
      { name: 'gpt-4o', count: 5, quota: 1500, tokens: 1200 },
      { name: 'gpt-4.1', count: 1, quota: 10, tokens: 5 },
    ]);
  });

  it('reads model and user rows alike', () => {
    const m = fromModels([{ model_name: 'x', created_at: 1, count: 1, quota: 2, token_used: 3 }]);
    const u = fromUsers([{ username: 'bob', created_at: 1, count: 1, quota: 2, token_used: 3 }]);
    expect(m[0].name).toBe('x');
    expect(u[0].name).toBe('bob');
  });
});

describe('value format', () => {
  const currency = { quotaPerUnit: 500000, displayInCurrency: true };
  const quota = { quotaPerUnit: 500000, displayInCurrency: false };

  it('writes quota as dollars or as quota, counts as numbers', () => {
    expect(formatMetric(1_000_000, METRIC.quota, currency)).toBe('$2.00');
    expect(formatMetric(45, METRIC.quota, currency)).toBe('$0.00009');
    expect(formatMetric(0, METRIC.quota, currency)).toBe('$0.00');
    expect(formatMetric(1_234_567, METRIC.quota, quota)).toBe('1,234,567');
    expect(formatMetric(1_234_567, METRIC.quota, quota, true)).toBe('1.2M');
    expect(formatMetric(12_345, METRIC.tokens, currency)).toBe('12,345');
    expect(formatMetric(12_345, METRIC.count, currency, true)).toBe('12.3k');
  });

  it('writes dollars and rates', () => {
    expect(formatDollars(12.345)).toBe('$12.35');
    expect(formatDollars(0.1234567)).toBe('$0.123457');
    expect(formatRate(0.33333)).toBe('0.333');
    expect(formatRate(0.000297619)).toBe('0.000298');
    expect(formatRate(1234.567)).toBe('1,234.57');
    expect(formatRate(0)).toBe('0');
  });
});
