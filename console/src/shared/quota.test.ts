import { describe, expect, it } from 'vitest';
import {
  abbreviateNumber,
  dollarsToQuota,
  effectiveQuotaPerUnit,
  groupRatioColor,
  logCostUsd,
  pricePerMillion,
  quotaToDollars,
  renderQuota,
  renderQuotaHint,
  textTotalPrice,
} from './quota';

describe('quota display', () => {
  it('falls back to 500000 per unit', () => {
    expect(effectiveQuotaPerUnit(undefined)).toBe(500000);
    expect(effectiveQuotaPerUnit(0)).toBe(500000);
    expect(effectiveQuotaPerUnit('abc')).toBe(500000);
    expect(effectiveQuotaPerUnit('1000')).toBe(1000);
  });
  it('converts between quota and dollars', () => {
    expect(quotaToDollars(500000, 500000)).toBe(1);
    expect(quotaToDollars(250000, 0)).toBe(0.5);
    expect(dollarsToQuota(2.5, 500000)).toBe(1250000);
  });
  it('renders currency or abbreviated counts', () => {
    expect(renderQuota(1250000, { quotaPerUnit: 500000, displayInCurrency: true })).toBe('$2.50');
    expect(renderQuota(1, { quotaPerUnit: 500000, displayInCurrency: true }, 6)).toBe('$0.000002');
    expect(renderQuota(1250000, { quotaPerUnit: 500000, displayInCurrency: false })).toBe('1.3M');
  });
  it('abbreviates k from 10 thousand, M from 1 million, B from 1 billion', () => {
    expect(abbreviateNumber(9999)).toBe('9999');
    expect(abbreviateNumber(10000)).toBe('10k');
    expect(abbreviateNumber(12345)).toBe('12.3k');
    expect(abbreviateNumber(999999)).toBe('1000k');
    expect(abbreviateNumber(1000000)).toBe('1M');
    expect(abbreviateNumber(2500000000)).toBe('2.5B');
  });
  it('hints the dollar value of a quota', () => {
    expect(renderQuotaHint(500000, 500000)).toBe('≈ $1');
    expect(renderQuotaHint(1, 500000)).toBe('≈ $0.000002');
  });
});

describe('group ratio colour', () => {
  it('is green up to 1, blue above 1, orange above 3, red above 5', () => {
    expect(groupRatioColor(0.5)).toBe('green');
    expect(groupRatioColor(1)).toBe('green');
    expect(groupRatioColor(1.1)).toBe('blue');
    expect(groupRatioColor(3)).toBe('blue');
    expect(groupRatioColor(3.5)).toBe('orange');
    expect(groupRatioColor(5)).toBe('orange');
    expect(groupRatioColor(5.01)).toBe('red');
  });
});

describe('prices', () => {
  it('price per 1M is 2 × model ratio × group ratio; completion × completion ratio', () => {
    expect(pricePerMillion({ modelRatio: 15, completionRatio: 4, groupRatio: 1 })).toEqual({ prompt: 30, completion: 120 });
    expect(pricePerMillion({ modelRatio: 1.5, completionRatio: 2, groupRatio: 0.5 })).toEqual({ prompt: 1.5, completion: 3 });
  });
  it('text total applies the cache ratio to cached input', () => {
    const p = { modelRatio: 1, completionRatio: 2, groupRatio: 1 };
    // price = 2 $/M; input: (900k + 100k × 0.1)/1M × 2 = 1.82; completion: 1M/1M × 2 × 2 = 4
    expect(
      textTotalPrice(p, { inputTokens: 1_000_000, cachedTokens: 100_000, cacheRatio: 0.1, completionTokens: 1_000_000 }),
    ).toBeCloseTo(5.82);
    expect(
      textTotalPrice({ ...p, groupRatio: 2 }, { inputTokens: 1_000_000, cachedTokens: 0, cacheRatio: 1, completionTokens: 0 }),
    ).toBeCloseTo(4);
  });
  it('log cost in USD', () => {
    expect(logCostUsd({ modelRatio: 1, completionRatio: 2, groupRatio: 1 }, 250000, 125000)).toBeCloseTo(1);
  });
});
