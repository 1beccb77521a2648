import { describe, expect, it } from 'vitest';
import { validation } from '../../../shared/messages';
import { ratio as m } from './messages';
import { editCompletionRatio, editInputPrice, editOutputPrice, editRatio, formFromRow, rowFromForm } from './priceForm';
import {
  applyBatch,
  completionRatioFromPrices,
  filterRows,
  inputPriceFromRatio,
  millionTokenPrices,
  outputPriceFromRatios,
  parseMaps,
  planRatioSave,
  ratioFromInputPrice,
  rowsFromMaps,
  validateBatch,
  validateModelForm,
  validateNumberCell,
  type PricingRow,
} from './rules';

const row = (name: string, more: Partial<PricingRow> = {}): PricingRow => ({
  name,
  price: '',
  ratio: '',
  completionRatio: '',
  ...more,
});

const SAVED = {
  ModelPrice: '{"dall-e-3":0.04}',
  ModelRatio: '{"gpt-4o":1.25,"gpt-4o-mini":0.075}',
  CompletionRatio: '{"gpt-4o":4}',
};

describe('per-token price relation (spec 2 §4.5)', () => {
  it('ratio = input price per 1M tokens / 2', () => {
    expect(ratioFromInputPrice(2.5)).toBe(1.25);
    expect(ratioFromInputPrice(3)).toBe(1.5);
    expect(ratioFromInputPrice(0.15)).toBe(0.075);
  });
  it('completion ratio = output price / input price, without float noise', () => {
    expect(completionRatioFromPrices(2.5, 10)).toBe(4);
    expect(completionRatioFromPrices(0.1, 0.3)).toBe(3);
    expect(completionRatioFromPrices(0, 1)).toBeUndefined();
  });
  it('converts back for display: input = ratio × 2, output = input × completion ratio (1 when unset)', () => {
    expect(inputPriceFromRatio(1.25)).toBe(2.5);
    expect(outputPriceFromRatios(1.25, 4)).toBe(10);
    expect(outputPriceFromRatios(0.075, undefined)).toBe(0.15);
    expect(millionTokenPrices(row('a', { ratio: '1.5', completionRatio: '5' }))).toEqual({ input: 3, output: 15 });
  });
  it('shows prices without the noise of 6-decimal ratios', () => {
    // deepseek-chat: $0.27 / $1.10 stored as ratio 0.135 and completion ratio 4.074074.
    expect(millionTokenPrices(row('d', { ratio: '0.135', completionRatio: '4.074074' }))).toEqual({ input: 0.27, output: 1.1 });
    expect(formFromRow(row('d', { ratio: '0.135', completionRatio: '4.074074' })).outputPrice).toBe('1.1');
  });
  it('a fixed price has no per-token prices', () => {
    expect(millionTokenPrices(row('a', { price: '0.04', ratio: '1' }))).toBeNull();
    expect(millionTokenPrices(row('a'))).toBeNull();
  });
});

describe('the add/edit form keeps ratios and per-1M prices in step', () => {
  it('fills the prices from the saved ratios', () => {
    const f = formFromRow(row('gpt-4o', { ratio: '1.25', completionRatio: '4' }));
    expect([f.inputPrice, f.outputPrice]).toEqual(['2.5', '10']);
  });
  it('typing prices sets the ratios', () => {
    let f = formFromRow(row('x'));
    f = editInputPrice(f, '3');
    expect(f.ratio).toBe('1.5');
    f = editOutputPrice(f, '15');
    expect(f.completionRatio).toBe('5');
  });
  it('typing ratios sets the prices', () => {
    let f = formFromRow(row('x'));
    f = editRatio(f, '0.5');
    expect([f.inputPrice, f.outputPrice]).toEqual(['1', '1']);
    f = editCompletionRatio(f, '3');
    expect(f.outputPrice).toBe('3');
  });
  it('a fixed price disables and drops the ratios', () => {
    const f = formFromRow(row('x', { ratio: '1', completionRatio: '2' }));
    expect(rowFromForm({ ...f, price: ' 0.1 ' })).toEqual(row('x', { price: '0.1' }));
  });
});

describe('pricing editor validation (spec 2 §5.2)', () => {
  it('a non-numeric cell: please enter a number', () => {
    expect(validateNumberCell('abc')?.message).toBe(m.enterNumber);
    expect(validateNumberCell('1e')?.message).toBe(m.enterNumber);
    expect(validateNumberCell('')).toBeNull();
    expect(validateNumberCell('0.5')).toBeNull();
  });
  it('a model name that already exists', () => {
    expect(validateModelForm(row('gpt-4o', { ratio: '1' }), ['gpt-4o'])?.message).toBe(m.nameExists);
    expect(validateModelForm(row(' gpt-4o ', { ratio: '1' }), ['gpt-4o'])?.message).toBe(m.nameExists);
    expect(validateModelForm(row('new', { ratio: '1' }), ['gpt-4o'])).toBeNull();
  });
  it('price 0 is not allowed', () => {
    expect(validateModelForm(row('x', { price: '0' }), [])?.message).toBe(m.priceZero);
    expect(validateModelForm(row('x', { price: '0.01' }), [])).toBeNull();
  });
  it('needs a name and a price or a ratio; cells must be numbers', () => {
    expect(validateModelForm(row('  ', { ratio: '1' }), [])?.message).toBe(m.nameRequired);
    expect(validateModelForm(row('x'), [])?.message).toBe(m.priceOrRatioRequired);
    expect(validateModelForm(row('x', { ratio: '1', completionRatio: 'two' }), [])?.message).toBe(m.enterNumber);
  });
});

describe('unset models batch set (spec 2 §5.2)', () => {
  const b = (mode: 'price' | 'ratio' | 'ratioAndCompletion', value: string, completionRatio = '') => ({
    mode,
    value,
    completionRatio,
  });
  it('models must be selected first', () => {
    expect(validateBatch(0, b('ratio', '1'))?.message).toBe(m.selectFirst);
  });
  it('the both-ratios option needs both', () => {
    expect(validateBatch(2, b('ratioAndCompletion', '1'))?.message).toBe(m.bothRatiosRequired);
    expect(validateBatch(2, b('ratioAndCompletion', '', '2'))?.message).toBe(m.bothRatiosRequired);
    expect(validateBatch(2, b('ratioAndCompletion', '1', '2'))).toBeNull();
  });
  it('a value is required, and must be a valid number', () => {
    expect(validateBatch(1, b('price', ' '))?.message).toBe(m.valueRequired);
    expect(validateBatch(1, b('ratio', 'x'))?.message).toBe(m.validNumber);
    expect(validateBatch(1, b('ratioAndCompletion', '1', 'y'))?.message).toBe(m.validNumber);
    expect(validateBatch(1, b('price', '0'))?.message).toBe(m.priceZero);
    expect(validateBatch(1, b('price', '0.02'))).toBeNull();
  });
  it('sets only the selected rows; a price clears the ratios and a ratio the price', () => {
    const rows = [row('a', { ratio: '2', completionRatio: '3' }), row('b', { price: '1' }), row('c')];
    expect(applyBatch(rows, new Set(['a', 'b']), b('price', '0.5'))).toEqual([
      row('a', { price: '0.5' }),
      row('b', { price: '0.5' }),
      row('c'),
    ]);
    expect(applyBatch(rows, new Set(['b']), b('ratio', '1'))[1]).toEqual(row('b', { ratio: '1' }));
    expect(applyBatch(rows, new Set(['c']), b('ratioAndCompletion', '1', '4'))[2]).toEqual(
      row('c', { ratio: '1', completionRatio: '4' }),
    );
  });
});

describe('the ratio save plan: only changed keys (spec 2 §2.1, §5.1)', () => {
  const rows = () => rowsFromMaps(parseMaps(SAVED));

  it('reads every model of the three maps as a sorted row', () => {
    expect(rows()).toEqual([
      row('dall-e-3', { price: '0.04' }),
      row('gpt-4o', { ratio: '1.25', completionRatio: '4' }),
      row('gpt-4o-mini', { ratio: '0.075' }),
    ]);
  });
  it('unchanged rows: you seem not to have changed anything', () => {
    expect(planRatioSave(SAVED, rows())).toEqual({ problem: { message: validation.nothingChanged } });
  });
  it('a changed ratio sends ModelRatio only, keeping the saved order', () => {
    const edited = rows().map((r) => (r.name === 'gpt-4o' ? { ...r, ratio: '2' } : r));
    const plan = planRatioSave(SAVED, edited);
    expect('updates' in plan && plan.updates.map((u) => u.key)).toEqual(['ModelRatio']);
    expect('updates' in plan && JSON.parse(plan.updates[0].value)).toEqual({ 'gpt-4o': 2, 'gpt-4o-mini': 0.075 });
    expect('updates' in plan && Object.keys(JSON.parse(plan.updates[0].value))).toEqual(['gpt-4o', 'gpt-4o-mini']);
  });
  it('switching a model to a fixed price moves it between the maps', () => {
    const edited = rows().map((r) => (r.name === 'gpt-4o' ? row('gpt-4o', { price: '0.1' }) : r));
    const plan = planRatioSave(SAVED, edited);
    expect('updates' in plan && plan.updates.map((u) => u.key)).toEqual(['ModelPrice', 'ModelRatio', 'CompletionRatio']);
  });
  it('a deleted model leaves every map it was in', () => {
    const plan = planRatioSave(
      SAVED,
      rows().filter((r) => r.name !== 'dall-e-3'),
    );
    expect(plan).toEqual({ updates: [{ key: 'ModelPrice', value: '{}' }] });
  });
  it('refuses a bad cell or a zero price before sending anything', () => {
    const bad = [...rows(), row('x', { ratio: 'abc' })];
    expect(planRatioSave(SAVED, bad)).toEqual({ problem: { message: m.enterNumber } });
    const zero = [...rows(), row('y', { price: '0' })];
    expect(planRatioSave(SAVED, zero)).toEqual({ problem: { message: m.priceZero } });
  });
  it('searches names case-insensitively', () => {
    expect(filterRows(rows(), 'GPT-4O').map((r) => r.name)).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(filterRows(rows(), ' ')).toHaveLength(3);
  });
});
