/** Pure chart data shaping: the API's hourly rows into buckets of a granularity, series, totals and shares. */
import dayjs from 'dayjs';
import { GRANULARITY, METRIC, OTHER_SERIES, TOP_SERIES, type Granularity, type Metric } from './constants';
import type { ModelPoint, TimeRange, UserPoint } from './types';

/** A row of either series: `name` is the model name or the user name. */
export interface Rollup {
  name: string;
  created_at: number;
  count: number;
  quota: number;
  token_used: number;
}

export const fromModels = (rows: readonly ModelPoint[]): Rollup[] => rows.map((r) => ({ ...r, name: r.model_name }));
export const fromUsers = (rows: readonly UserPoint[]): Rollup[] => rows.map((r) => ({ ...r, name: r.username }));

/** The value a metric reads from a row. */
export function valueOf(row: Rollup, metric: Metric): number {
  if (metric === METRIC.count) return row.count;
  if (metric === METRIC.tokens) return row.token_used;
  return row.quota;
}

/** Start of the local hour, day or week (weeks start on Monday) holding `ts`. */
export function bucketStart(ts: number, g: Granularity): number {
  const t = dayjs.unix(ts);
  if (g === GRANULARITY.hour) return t.startOf('hour').unix();
  const day = t.startOf('day');
  if (g === GRANULARITY.day) return day.unix();
  return day.subtract((day.day() + 6) % 7, 'day').unix();
}

/** Every bucket start from the one holding `range.start` to the one holding `range.end`. */
export function bucketStarts(range: TimeRange, g: Granularity): number[] {
  const out: number[] = [];
  const unit = g === GRANULARITY.hour ? 'hour' : g === GRANULARITY.day ? 'day' : 'week';
  const last = bucketStart(range.end, g);
  for (let b = dayjs.unix(bucketStart(range.start, g)); b.unix() <= last; b = b.add(1, unit)) out.push(b.unix());
  return out;
}

/** The axis label of a bucket. */
export function bucketLabel(ts: number, g: Granularity): string {
  return dayjs.unix(ts).format(g === GRANULARITY.hour ? 'MM-DD HH:00' : 'YYYY-MM-DD');
}

export interface Totals {
  count: number;
  quota: number;
  tokens: number;
}

export function totalsOf(rows: readonly Rollup[]): Totals {
  return rows.reduce((t, r) => ({ count: t.count + r.count, quota: t.quota + r.quota, tokens: t.tokens + r.token_used }), {
    count: 0,
    quota: 0,
    tokens: 0,
  });
}

/** Average requests and tokens per minute over the range. */
export function ratesOf(t: Totals, range: TimeRange): { rpm: number; tpm: number } {
  const minutes = Math.max(range.end - range.start, 60) / 60;
  return { rpm: t.count / minutes, tpm: t.tokens / minutes };
}

export interface BreakdownRow extends Totals {
  name: string;
}

/** Totals per name, the largest consumption first (then more calls, then by name). */
export function breakdownOf(rows: readonly Rollup[]): BreakdownRow[] {
  const by = new Map<string, BreakdownRow>();
  for (const r of rows) {
    const b = by.get(r.name) ?? { name: r.name, count: 0, quota: 0, tokens: 0 };
    b.count += r.count;
    b.quota += r.quota;
    b.tokens += r.token_used;
    by.set(r.name, b);
  }
  return [...by.values()].sort((a, b) => b.quota - a.quota || b.count - a.count || a.name.localeCompare(b.name));
}

/** The names with the largest totals of a metric (ties by name), at most `top`. */
export function topNames(rows: readonly Rollup[], metric: Metric, top = TOP_SERIES): { kept: string[]; rest: boolean } {
  const sums = new Map<string, number>();
  for (const r of rows) sums.set(r.name, (sums.get(r.name) ?? 0) + valueOf(r, metric));
  const names = [...sums.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([n]) => n);
  return { kept: names.slice(0, top), rest: names.length > top };
}

/** A series of the chart: its data key (s0, s1, …: model names may hold dots) and its name. */
export interface Series {
  key: string;
  name: string;
}

/** One bucket of the chart: its start, label and one value per series key. */
export type ChartPoint = { bucket: number; label: string } & Record<string, number | string>;

/**
 * The stacked-bar data of a metric: one point per bucket of the range (zero where nothing was
 * used), one series per top name and one OTHER_SERIES for the rest.
 */
export function shapeSeries(
  rows: readonly Rollup[],
  metric: Metric,
  g: Granularity,
  range: TimeRange,
  top = TOP_SERIES,
): { points: ChartPoint[]; series: Series[] } {
  const { kept, rest } = topNames(rows, metric, top);
  const series: Series[] = kept.map((name, i) => ({ key: `s${i}`, name }));
  if (rest) series.push({ key: `s${kept.length}`, name: OTHER_SERIES });
  const keyOf = new Map(series.map((s) => [s.name, s.key]));
  const otherKey = rest ? `s${kept.length}` : '';
  const empty = () => Object.fromEntries(series.map((s) => [s.key, 0]));
  const points = new Map<number, ChartPoint>();
  for (const b of bucketStarts(range, g)) points.set(b, { bucket: b, label: bucketLabel(b, g), ...empty() });
  for (const r of rows) {
    const b = bucketStart(r.created_at, g);
    let p = points.get(b);
    if (!p) {
      p = { bucket: b, label: bucketLabel(b, g), ...empty() };
      points.set(b, p);
    }
    const key = keyOf.get(r.name) ?? otherKey;
    p[key] = Number(p[key]) + valueOf(r, metric);
  }
  return { points: [...points.values()].sort((a, b) => a.bucket - b.bucket), series };
}

/** The pie data of a metric: the top names and the rest as OTHER_SERIES; zero slices left out. */
export function shareOf(rows: readonly Rollup[], metric: Metric, top = TOP_SERIES): { name: string; value: number }[] {
  const { kept } = topNames(rows, metric, top);
  const keep = new Set(kept);
  const slices = new Map<string, number>();
  for (const r of rows) {
    const name = keep.has(r.name) ? r.name : OTHER_SERIES;
    slices.set(name, (slices.get(name) ?? 0) + valueOf(r, metric));
  }
  const order = [...kept, OTHER_SERIES];
  return order.filter((n) => (slices.get(n) ?? 0) > 0).map((name) => ({ name, value: slices.get(name) ?? 0 }));
}
