/** How the dashboard writes a metric's value: quota as the display setting says, counts as numbers. */
import { abbreviateNumber, quotaToDollars, type QuotaDisplay } from '../../shared/quota';
import { METRIC, type Metric } from './constants';

/** Dollars: 2 decimals from $1, else up to 6 (small per-call costs stay visible). */
export function formatDollars(dollars: number): string {
  if (Math.abs(dollars) >= 1 || dollars === 0) return `$${dollars.toFixed(2)}`;
  return `$${parseFloat(dollars.toFixed(6))}`;
}

/**
 * A value of a metric: `compact` for axis ticks (1.2k, 3.4M), else in full (12,345).
 * Quota is shown in dollars when the settings display quota as currency.
 */
export function formatMetric(value: number, metric: Metric, display: QuotaDisplay, compact = false): string {
  if (metric === METRIC.quota && display.displayInCurrency) return formatDollars(quotaToDollars(value, display.quotaPerUnit));
  if (compact) return abbreviateNumber(Math.round(value));
  return value.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** A rate (per minute): 2 decimals from 1, else 3 significant digits (a few calls a week stay visible). */
export function formatRate(value: number): string {
  if (value === 0 || Math.abs(value) >= 1) return value.toLocaleString('en-US', { maximumFractionDigits: 2 });
  return value.toLocaleString('en-US', { maximumSignificantDigits: 3 });
}
