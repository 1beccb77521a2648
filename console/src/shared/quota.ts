/** Quota and price display helpers (spec 1 §1, §9; spec 3 §9). Pure functions. */
import { DEFAULT_QUOTA_PER_UNIT } from './constants';

export interface QuotaDisplay {
  quotaPerUnit: number;
  displayInCurrency: boolean;
}

/** A usable quota-per-unit: falls back to the default when missing, zero or not a number. */
export function effectiveQuotaPerUnit(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : DEFAULT_QUOTA_PER_UNIT;
}

/** Abbreviates counts: k from 10 thousand, M from 1 million, B from 1 billion. */
export function abbreviateNumber(n: number): string {
  const abs = Math.abs(n);
  const fmt = (v: number, suffix: string) => `${parseFloat(v.toFixed(1))}${suffix}`;
  if (abs >= 1e9) return fmt(n / 1e9, 'B');
  if (abs >= 1e6) return fmt(n / 1e6, 'M');
  if (abs >= 1e4) return fmt(n / 1e3, 'k');
  return String(n);
}

/** Quota converted to dollars (quota / quota-per-unit). */
export function quotaToDollars(quota: number, quotaPerUnit: number): number {
  return quota / effectiveQuotaPerUnit(quotaPerUnit);
}

/** Dollars converted to an integer quota. */
export function dollarsToQuota(dollars: number, quotaPerUnit: number): number {
  return Math.round(dollars * effectiveQuotaPerUnit(quotaPerUnit));
}

/** The display text of a quota: '$1.23' in currency mode, else an abbreviated count. */
export function renderQuota(quota: number, display: QuotaDisplay, digits = 2): string {
  if (display.displayInCurrency) {
    return `$${quotaToDollars(quota, display.quotaPerUnit).toFixed(digits)}`;
  }
  return abbreviateNumber(quota);
}

/** The text shown next to a quota input: '≈ $x.xx' for the typed amount of quota. */
export function renderQuotaHint(quota: number, quotaPerUnit: number): string {
  return `≈ $${quotaToDollars(quota, quotaPerUnit)
    .toFixed(6)
    .replace(/\.?0+$/, '')}`;
}

export type RatioColor = 'green' | 'blue' | 'orange' | 'red';

/** Group ratio tag colour: ≤1 green, >1 blue, >3 orange, >5 red. */
export function groupRatioColor(ratio: number): RatioColor {
  if (ratio > 5) return 'red';
  if (ratio > 3) return 'orange';
  if (ratio > 1) return 'blue';
  return 'green';
}

export interface ModelPriceInput {
  modelRatio: number;
  completionRatio: number;
  groupRatio: number;
}

/** Price per 1M tokens in dollars: prompt = 2 × model ratio × group ratio; completion × completion ratio. */
export function pricePerMillion({ modelRatio, completionRatio, groupRatio }: ModelPriceInput): {
  prompt: number;
  completion: number;
} {
  const prompt = modelRatio * 2 * groupRatio;
  return { prompt, completion: prompt * completionRatio };
}

export interface TextUsage {
  inputTokens: number;
  cachedTokens: number;
  completionTokens: number;
  cacheRatio: number;
}

/** Text total in dollars (spec 1 §9): input with cache discount plus completion. */
export function textTotalPrice(p: ModelPriceInput, u: TextUsage): number {
  const price = 2 * p.modelRatio;
  const nonCached = u.inputTokens - u.cachedTokens;
  const input = ((nonCached + u.cachedTokens * u.cacheRatio) / 1e6) * price * p.groupRatio;
  const completion = (u.completionTokens / 1e6) * price * p.completionRatio * p.groupRatio;
  return input + completion;
}

/** Cost in USD of a log record (spec 3 §9). */
export function logCostUsd(p: ModelPriceInput, promptTokens: number, completionTokens: number): number {
  return (p.groupRatio * p.modelRatio * (promptTokens + completionTokens * p.completionRatio)) / DEFAULT_QUOTA_PER_UNIT;
}
