/**
 * The add/edit model form's state: the row's cells plus the per-1M-token prices, kept in step
 * both ways (spec 2 §4.5: ratio = input price / 2, completion ratio = output / input). Pure.
 */
import {
  applyFixedPriceRule,
  completionRatioFromPrices,
  displayPrice,
  inputPriceFromRatio,
  isNumberText,
  numberText,
  outputPriceFromRatios,
  ratioFromInputPrice,
  type PricingRow,
} from './rules';

export interface PriceForm extends PricingRow {
  /** USD per million input tokens. */
  inputPrice: string;
  /** USD per million output tokens. */
  outputPrice: string;
}

export const EMPTY_ROW: PricingRow = { name: '', price: '', ratio: '', completionRatio: '' };

const num = (s: string): number | undefined => (isNumberText(s) ? Number(s) : undefined);

/** The prices the ratios stand for ('' where a ratio is missing). */
function pricesOf(ratio: string, completionRatio: string): Pick<PriceForm, 'inputPrice' | 'outputPrice'> {
  const r = num(ratio);
  if (r === undefined) return { inputPrice: '', outputPrice: '' };
  return {
    inputPrice: numberText(displayPrice(inputPriceFromRatio(r))),
    outputPrice: numberText(displayPrice(outputPriceFromRatios(r, num(completionRatio)))),
  };
}

export function formFromRow(row: PricingRow): PriceForm {
  return { ...row, ...pricesOf(row.ratio, row.completionRatio) };
}

export function editRatio(form: PriceForm, ratio: string): PriceForm {
  return { ...form, ratio, ...pricesOf(ratio, form.completionRatio) };
}

export function editCompletionRatio(form: PriceForm, completionRatio: string): PriceForm {
  return { ...form, completionRatio, ...pricesOf(form.ratio, completionRatio) };
}

/** The ratios the prices stand for; a missing or unparsable price leaves its ratio as it was. */
function ratiosOf(form: PriceForm): PriceForm {
  const input = num(form.inputPrice);
  if (input === undefined) return form;
  const output = num(form.outputPrice);
  const completion = output === undefined ? undefined : completionRatioFromPrices(input, output);
  return {
    ...form,
    ratio: numberText(ratioFromInputPrice(input)),
    completionRatio: completion === undefined ? form.completionRatio : numberText(completion),
  };
}

export function editInputPrice(form: PriceForm, inputPrice: string): PriceForm {
  return ratiosOf({ ...form, inputPrice });
}

export function editOutputPrice(form: PriceForm, outputPrice: string): PriceForm {
  return ratiosOf({ ...form, outputPrice });
}

/** The row the form saves: trimmed, and with a fixed price the ratios dropped. */
export function rowFromForm(form: PriceForm): PricingRow {
  return applyFixedPriceRule({
    name: form.name,
    price: form.price,
    ratio: form.ratio,
    completionRatio: form.completionRatio,
  });
}
