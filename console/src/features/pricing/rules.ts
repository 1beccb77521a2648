/** Pure rules of the pricing screen: vendor and endpoint type, filtering, groups, price display. */
import { quotaToDollars, type QuotaDisplay } from '../../shared/quota';
import {
  COPY_SEPARATOR,
  ENDPOINT_PATTERNS,
  ENDPOINT_TYPE,
  OTHER_VENDOR,
  QUOTA_TYPE,
  TOKENS_PER_PRICE,
  VENDOR_PATTERNS,
  type EndpointType,
} from './constants';
import type { PricingData, PricingModel } from './types';

/** The vendor of a model from its name, or OTHER_VENDOR. */
export function vendorOf(modelName: string): string {
  const name = modelName.trim().toLowerCase();
  return VENDOR_PATTERNS.find((v) => v.pattern.test(name))?.vendor ?? OTHER_VENDOR;
}

/** The endpoint type of a model from its name (chat unless a pattern says otherwise). */
export function endpointTypeOf(modelName: string): EndpointType {
  const name = modelName.trim().toLowerCase();
  return ENDPOINT_PATTERNS.find((e) => e.pattern.test(name))?.type ?? ENDPOINT_TYPE.chat;
}

/** Fuzzy name match: every space-separated term of the keyword appears in the name, in any case. */
export function matchesKeyword(modelName: string, keyword: string): boolean {
  const name = modelName.toLowerCase();
  return keyword
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((term) => name.includes(term));
}

export interface PricingFilter {
  keyword: string;
  /** undefined: every vendor; OTHER_VENDOR: models of no known vendor. */
  vendor?: string;
  endpoint?: EndpointType;
}

/** The models the search and the filters keep, in the server's order. */
export function filterModels(models: readonly PricingModel[], f: PricingFilter): PricingModel[] {
  return models.filter(
    (m) =>
      matchesKeyword(m.model_name, f.keyword) &&
      (f.vendor === undefined || vendorOf(m.model_name) === f.vendor) &&
      (f.endpoint === undefined || endpointTypeOf(m.model_name) === f.endpoint),
  );
}

/** The vendors present among the models, by name, the unknown vendor last. */
export function vendorOptions(models: readonly PricingModel[]): string[] {
  const found = new Set(models.map((m) => vendorOf(m.model_name)));
  const named = [...found].filter((v) => v !== OTHER_VENDOR).sort((a, b) => a.localeCompare(b));
  return found.has(OTHER_VENDOR) ? [...named, OTHER_VENDOR] : named;
}

/** The endpoint types present among the models, in the order of ENDPOINT_TYPE. */
export function endpointOptions(models: readonly PricingModel[]): EndpointType[] {
  const found = new Set(models.map((m) => endpointTypeOf(m.model_name)));
  return Object.values(ENDPOINT_TYPE).filter((t) => found.has(t));
}

/** The groups the viewer may view prices for: their own group first, then the others by name. */
export function selectableGroups(data: Pick<PricingData, 'usableGroups'>, viewerGroup: string): string[] {
  const others = Object.keys(data.usableGroups)
    .filter((g) => g !== viewerGroup)
    .sort((a, b) => a.localeCompare(b));
  return [viewerGroup, ...others];
}

/** A group's ratio; 1 when the GroupRatio option does not name it (as the gateway bills). */
export function groupRatioOf(groupRatio: Record<string, number>, group: string): number {
  const r = groupRatio[group];
  return typeof r === 'number' && Number.isFinite(r) ? r : 1;
}

/** Whether a channel of the group serves the model. */
export function isAvailableIn(model: PricingModel, group: string): boolean {
  return model.enable_groups.includes(group);
}

export type PriceView =
  | {
      kind: 'perToken';
      /** Per TOKENS_PER_PRICE tokens, in dollars or in quota as the settings say. */
      input: number;
      output: number;
      /** Input read from the provider's cache; null when the model has no cache ratio. */
      cachedInput: number | null;
    }
  | { kind: 'perCall'; perCall: number };

/**
 * What a model costs in a group of `groupRatio`. Per token the gateway charges
 * tokens × model ratio × group ratio quota (× completion ratio for output); a fixed price is
 * dollars per call × group ratio. Quota is turned into dollars with quota-per-unit, which gives
 * spec 3 §9's "model ratio × 2 × group ratio" dollars per 1M tokens at the default 500000.
 */
export function priceOf(model: PricingModel, groupRatio: number, display: QuotaDisplay): PriceView {
  if (model.quota_type === QUOTA_TYPE.perCall) {
    const dollars = model.model_price * groupRatio;
    return { kind: 'perCall', perCall: display.displayInCurrency ? dollars : dollars * display.quotaPerUnit };
  }
  const quota = model.model_ratio * groupRatio * TOKENS_PER_PRICE;
  const input = display.displayInCurrency ? quotaToDollars(quota, display.quotaPerUnit) : quota;
  const cache = model.cache_ratio;
  return {
    kind: 'perToken',
    input,
    output: input * model.completion_ratio,
    cachedInput: typeof cache === 'number' ? input * cache : null,
  };
}

/** Dollars with up to 6 decimals (at least 2): $0.15, $2.00, $0.000125. */
export function formatDollars(n: number): string {
  const trimmed = parseFloat(n.toFixed(6));
  const decimals = (String(trimmed).split('.')[1] ?? '').length;
  return `$${decimals < 2 ? trimmed.toFixed(2) : String(trimmed)}`;
}

/** Quota with thousands separators and up to 2 decimals: 75,000 or 0.25. */
export function formatQuotaAmount(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** An amount of priceOf in the display unit. */
export function formatAmount(n: number, display: QuotaDisplay): string {
  return display.displayInCurrency ? formatDollars(n) : formatQuotaAmount(n);
}

/** The text copied for the selected models. */
export function copyText(names: readonly string[]): string {
  return names.join(COPY_SEPARATOR);
}
