/**
 * Pricing editor rules (spec 2 §4.5, §5.2) as pure functions: the price and ratio maps as table
 * rows and back, the per-1M-token price relation, the editor's and the batch set's validation,
 * and the save plan that sends only the changed pricing keys.
 */
import { validation } from '../../../shared/messages';
import type { Problem } from '../../../shared/validation';
import { ratio as m } from './messages';

/** The option keys the visual editor and the unset-models table write. */
export const PRICING_KEYS = ['ModelPrice', 'ModelRatio', 'CompletionRatio'] as const;
export type PricingKey = (typeof PRICING_KEYS)[number];

/** The JSON pricing options of the model ratio settings sub-tab (spec 2 §3.1). */
export const RATIO_JSON_KEYS = [
  'ModelPrice',
  'ModelRatio',
  'CacheRatio',
  'CreateCacheRatio',
  'CompletionRatio',
  'GroupRatio',
  'GroupGroupRatio',
  'UserUsableGroups',
] as const;

/** Ratio 1 costs 2 USD per million input tokens (500000 quota = 1 USD; ratio 1 = 0.002 USD / 1K tokens). */
export const USD_PER_MILLION_TOKENS_AT_RATIO_ONE = 2;

/** An unset completion ratio bills output tokens like input tokens. */
export const DEFAULT_COMPLETION_RATIO = 1;

/** Significant digits kept when converting, enough to drop float noise (0.3 / 0.1 → 3). */
const SIGNIFICANT_DIGITS = 12;

/** Significant digits of a per-1M-token price shown to people ($1.09999998 → $1.1). */
const PRICE_DISPLAY_DIGITS = 6;

/** The visual editor's page size (spec 2 §9). */
export const VISUAL_EDITOR_PAGE_SIZE = 10;

/** One model's pricing as edited: strings like the inputs, '' = not set. */
export interface PricingRow {
  name: string;
  price: string;
  ratio: string;
  completionRatio: string;
}

export type Maps = Record<PricingKey, Record<string, number>>;

const problem = (message: Problem['message'], values?: Problem['values']): Problem => ({ message, values });
const blank = (s: string | undefined) => s === undefined || s.trim() === '';

/** Drops float noise: 2.9999999999999996 → 3. */
export function tidy(x: number): number {
  return Number(x.toPrecision(SIGNIFICANT_DIGITS));
}

/** A per-1M-token price as shown: ratios stored with 6 decimals leave noise in the 8th digit. */
export function displayPrice(x: number): number {
  return Number(x.toPrecision(PRICE_DISPLAY_DIGITS));
}

/** A number as an input shows it ('' for not a finite number). */
export function numberText(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? '' : String(tidy(x));
}

/** A JSON object option of numbers; anything unparsable or non-numeric is left out. */
export function parseNumberMap(text: string | undefined): Record<string, number> {
  try {
    const v: unknown = JSON.parse(text ?? '');
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([, n]) => typeof n === 'number' && Number.isFinite(n))
        .map(([k, n]) => [k, n as number]),
    );
  } catch {
    return {};
  }
}

export function parseMaps(saved: Record<string, string>): Maps {
  return {
    ModelPrice: parseNumberMap(saved.ModelPrice),
    ModelRatio: parseNumberMap(saved.ModelRatio),
    CompletionRatio: parseNumberMap(saved.CompletionRatio),
  };
}

/** Every model named in any of the three maps, as rows sorted by name. */
export function rowsFromMaps(maps: Maps): PricingRow[] {
  const names = new Set([...Object.keys(maps.ModelPrice), ...Object.keys(maps.ModelRatio), ...Object.keys(maps.CompletionRatio)]);
  return [...names].sort().map((name) => ({
    name,
    price: numberText(maps.ModelPrice[name]),
    ratio: numberText(maps.ModelRatio[name]),
    completionRatio: numberText(maps.CompletionRatio[name]),
  }));
}

/** The maps the rows stand for; a row's empty cells have no entry. Cells must be valid numbers. */
export function mapsFromRows(rows: readonly PricingRow[]): Maps {
  const maps: Maps = { ModelPrice: {}, ModelRatio: {}, CompletionRatio: {} };
  for (const r of rows) {
    if (!blank(r.price)) maps.ModelPrice[r.name] = Number(r.price);
    if (!blank(r.ratio)) maps.ModelRatio[r.name] = Number(r.ratio);
    if (!blank(r.completionRatio)) maps.CompletionRatio[r.name] = Number(r.completionRatio);
  }
  return maps;
}

/** A fixed price is set: the ratio and completion-ratio inputs are disabled (spec 2 §4.5). */
export function hasFixedPrice(row: Pick<PricingRow, 'price'>): boolean {
  return !blank(row.price);
}

/** A row with a fixed price or a ratio has a price; one with neither is billed as unset. */
export function isPriced(row: PricingRow): boolean {
  return !blank(row.price) || !blank(row.ratio);
}

/** Ratio from the input price in USD per million tokens: price / 2. */
export function ratioFromInputPrice(usdPerMillion: number): number {
  return tidy(usdPerMillion / USD_PER_MILLION_TOKENS_AT_RATIO_ONE);
}

/** Completion ratio from the two prices: output / input (undefined when the input price is 0). */
export function completionRatioFromPrices(inputUsd: number, outputUsd: number): number | undefined {
  return inputUsd === 0 ? undefined : tidy(outputUsd / inputUsd);
}

/** Input price in USD per million tokens of a ratio: ratio × 2. */
export function inputPriceFromRatio(ratio: number): number {
  return tidy(ratio * USD_PER_MILLION_TOKENS_AT_RATIO_ONE);
}

/** Output price in USD per million tokens: input price × completion ratio (default 1). */
export function outputPriceFromRatios(ratio: number, completionRatio: number | undefined): number {
  return tidy(inputPriceFromRatio(ratio) * (completionRatio ?? DEFAULT_COMPLETION_RATIO));
}

/** The per-1M-token prices a row's ratios stand for, or null with a fixed price or no ratio. */
export function millionTokenPrices(row: PricingRow): { input: number; output: number } | null {
  if (hasFixedPrice(row) || blank(row.ratio) || !isNumberText(row.ratio)) return null;
  const completion = blank(row.completionRatio) || !isNumberText(row.completionRatio) ? undefined : Number(row.completionRatio);
  return {
    input: displayPrice(inputPriceFromRatio(Number(row.ratio))),
    output: displayPrice(outputPriceFromRatios(Number(row.ratio), completion)),
  };
}

export function isNumberText(text: string): boolean {
  return !blank(text) && Number.isFinite(Number(text));
}

/** A cell: empty (not set) or a number, else 'please enter a number'. */
export function validateNumberCell(text: string): Problem | null {
  return blank(text) || isNumberText(text) ? null : problem(m.enterNumber);
}

/** A row's cells: numbers, a fixed price not 0 (spec 2 §5.2). */
export function validateRow(row: PricingRow): Problem | null {
  for (const cell of [row.price, row.ratio, row.completionRatio]) {
    const p = validateNumberCell(cell);
    if (p) return p;
  }
  if (hasFixedPrice(row) && Number(row.price) === 0) return problem(m.priceZero);
  return null;
}

/** A model added or edited in the visual editor: a new, unique name and a price or a ratio. */
export function validateModelForm(row: PricingRow, others: readonly string[]): Problem | null {
  const name = row.name.trim();
  if (name === '') return problem(m.nameRequired);
  if (others.includes(name)) return problem(m.nameExists);
  const cells = validateRow(row);
  if (cells) return cells;
  if (!isPriced(row)) return problem(m.priceOrRatioRequired);
  return null;
}

/** What a save from the editor keeps: the price excludes the ratios on the row being edited. */
export function applyFixedPriceRule(row: PricingRow): PricingRow {
  const trimmed = {
    name: row.name.trim(),
    price: row.price.trim(),
    ratio: row.ratio.trim(),
    completionRatio: row.completionRatio.trim(),
  };
  return hasFixedPrice(trimmed) ? { ...trimmed, ratio: '', completionRatio: '' } : trimmed;
}

export type BatchMode = 'price' | 'ratio' | 'ratioAndCompletion';

export interface BatchInput {
  mode: BatchMode;
  value: string;
  completionRatio: string;
}

/** The batch set of the unset-models table (spec 2 §5.2). */
export function validateBatch(selected: number, b: BatchInput): Problem | null {
  if (selected === 0) return problem(m.selectFirst);
  if (b.mode === 'ratioAndCompletion' && (blank(b.value) || blank(b.completionRatio))) return problem(m.bothRatiosRequired);
  if (blank(b.value)) return problem(m.valueRequired);
  if (!isNumberText(b.value) || (b.mode === 'ratioAndCompletion' && !isNumberText(b.completionRatio))) {
    return problem(m.validNumber);
  }
  if (b.mode === 'price' && Number(b.value) === 0) return problem(m.priceZero);
  return null;
}

/** The selected rows with the batch values set; a price clears the ratios and a ratio the price. */
export function applyBatch(rows: readonly PricingRow[], selected: ReadonlySet<string>, b: BatchInput): PricingRow[] {
  const value = b.value.trim();
  return rows.map((r) => {
    if (!selected.has(r.name)) return r;
    switch (b.mode) {
      case 'price':
        return { ...r, price: value, ratio: '', completionRatio: '' };
      case 'ratio':
        return { ...r, price: '', ratio: value };
      case 'ratioAndCompletion':
        return { ...r, price: '', ratio: value, completionRatio: b.completionRatio.trim() };
    }
  });
}

function sameMap(a: Record<string, number>, b: Record<string, number>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => k in b && a[k] === b[k]);
}

/** The saved map with the edits applied, keeping the saved key order (a diff stays readable). */
function ordered(saved: Record<string, number>, next: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(saved)) if (k in next) out[k] = next[k];
  for (const k of Object.keys(next)) if (!(k in out)) out[k] = next[k];
  return out;
}

export type RatioSavePlan = { problem: Problem } | { updates: { key: PricingKey; value: string }[] };

/** The pricing keys whose map differs from the saved one, every row checked first. */
export function planRatioSave(saved: Record<string, string>, rows: readonly PricingRow[]): RatioSavePlan {
  for (const r of rows) {
    const p = validateRow(r);
    if (p) return { problem: p };
  }
  const before = parseMaps(saved);
  const after = mapsFromRows(rows);
  const updates = PRICING_KEYS.filter((k) => !sameMap(before[k], after[k])).map((key) => ({
    key,
    value: JSON.stringify(ordered(before[key], after[key]), null, 2),
  }));
  return updates.length === 0 ? { problem: { message: validation.nothingChanged } } : { updates };
}

/** Case-insensitive name filter of the visual editor's search box. */
export function filterRows(rows: readonly PricingRow[], search: string): PricingRow[] {
  const q = search.trim().toLowerCase();
  return q === '' ? [...rows] : rows.filter((r) => r.name.toLowerCase().includes(q));
}
