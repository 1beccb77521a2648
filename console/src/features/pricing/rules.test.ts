import { describe, expect, it } from 'vitest';
import { foldPricingReply } from './api';
import { ENDPOINT_TYPE, OTHER_VENDOR, QUOTA_TYPE } from './constants';
import {
  copyText,
  endpointOptions,
  endpointTypeOf,
  filterModels,
  formatAmount,
  formatDollars,
  formatQuotaAmount,
  groupRatioOf,
  isAvailableIn,
  matchesKeyword,
  priceOf,
  selectableGroups,
  vendorOf,
  vendorOptions,
} from './rules';
import type { PricingModel } from './types';

const model = (name: string, extra: Partial<PricingModel> = {}): PricingModel => ({
  model_name: name,
  quota_type: QUOTA_TYPE.perToken,
  model_ratio: 1,
  completion_ratio: 1,
  cache_ratio: null,
  model_price: 0,
  enable_groups: ['default'],
  ...extra,
});

const CURRENCY = { quotaPerUnit: 500000, displayInCurrency: true };
const QUOTA = { quotaPerUnit: 500000, displayInCurrency: false };

describe('vendor and endpoint type from the model name', () => {
  it('knows the common vendors and falls back to other', () => {
    expect(vendorOf('gpt-4o-mini')).toBe('OpenAI');
    expect(vendorOf('o3-mini')).toBe('OpenAI');
    expect(vendorOf('text-embedding-3-small')).toBe('OpenAI');
    expect(vendorOf('claude-3-5-sonnet-20241022')).toBe('Anthropic');
    expect(vendorOf('Gemini-2.0-Flash')).toBe('Google');
    expect(vendorOf('deepseek-chat')).toBe('DeepSeek');
    expect(vendorOf('qwen-max')).toBe('Alibaba');
    expect(vendorOf('glm-4')).toBe('Zhipu');
    expect(vendorOf('grok-2')).toBe('xAI');
    expect(vendorOf('meta-llama-3-70b')).toBe('Meta');
    expect(vendorOf('my-private-model')).toBe(OTHER_VENDOR);
  });

  it('reads embeddings, rerank, images, audio and moderation; chat otherwise', () => {
    expect(endpointTypeOf('text-embedding-3-large')).toBe(ENDPOINT_TYPE.embeddings);
    expect(endpointTypeOf('jina-reranker-v2')).toBe(ENDPOINT_TYPE.rerank);
    expect(endpointTypeOf('dall-e-3')).toBe(ENDPOINT_TYPE.image);
    expect(endpointTypeOf('gemini-2.5-flash-image')).toBe(ENDPOINT_TYPE.image);
    expect(endpointTypeOf('whisper-1')).toBe(ENDPOINT_TYPE.audio);
    expect(endpointTypeOf('tts-1-hd')).toBe(ENDPOINT_TYPE.audio);
    expect(endpointTypeOf('omni-moderation-latest')).toBe(ENDPOINT_TYPE.moderation);
    expect(endpointTypeOf('gpt-4o')).toBe(ENDPOINT_TYPE.chat);
    expect(endpointTypeOf('claude-3-haiku')).toBe(ENDPOINT_TYPE.chat);
  });
});

describe('search and filters', () => {
  const models = [model('gpt-4o-mini'), model('claude-3-haiku'), model('text-embedding-3-small'), model('house-model')];

  it('matches every term of the keyword in any case', () => {
    expect(matchesKeyword('gpt-4o-mini', '')).toBe(true);
    expect(matchesKeyword('gpt-4o-mini', 'GPT mini')).toBe(true);
    expect(matchesKeyword('gpt-4o-mini', 'mini 4o')).toBe(true);
    expect(matchesKeyword('gpt-4o-mini', 'gpt claude')).toBe(false);
  });

  it('keeps the models of the keyword, vendor and endpoint type', () => {
    const names = (f: Parameters<typeof filterModels>[1]) => filterModels(models, f).map((m) => m.model_name);
    expect(names({ keyword: '' })).toEqual(['gpt-4o-mini', 'claude-3-haiku', 'text-embedding-3-small', 'house-model']);
    expect(names({ keyword: 'haiku' })).toEqual(['claude-3-haiku']);
    expect(names({ keyword: '', vendor: 'OpenAI' })).toEqual(['gpt-4o-mini', 'text-embedding-3-small']);
    expect(names({ keyword: '', vendor: OTHER_VENDOR })).toEqual(['house-model']);
    expect(names({ keyword: '', endpoint: ENDPOINT_TYPE.embeddings })).toEqual(['text-embedding-3-small']);
    expect(names({ keyword: 'gpt', vendor: 'OpenAI', endpoint: ENDPOINT_TYPE.embeddings })).toEqual([]);
  });

  it('offers the vendors and endpoint types present, unknown vendor last', () => {
    expect(vendorOptions(models)).toEqual(['Anthropic', 'OpenAI', OTHER_VENDOR]);
    expect(vendorOptions([model('gpt-4o')])).toEqual(['OpenAI']);
    expect(endpointOptions(models)).toEqual([ENDPOINT_TYPE.chat, ENDPOINT_TYPE.embeddings]);
  });
});

describe('groups', () => {
  it('puts the viewer group first, then the other usable groups by name', () => {
    expect(selectableGroups({ usableGroups: { vip: 'VIP', default: '', cheap: 'Cheap' } }, 'default')).toEqual([
      'default',
      'cheap',
      'vip',
    ]);
    expect(selectableGroups({ usableGroups: {} }, 'default')).toEqual(['default']);
  });

  it('uses ratio 1 for a group GroupRatio does not name', () => {
    expect(groupRatioOf({ vip: 2 }, 'vip')).toBe(2);
    expect(groupRatioOf({ vip: 2 }, 'default')).toBe(1);
  });

  it('says whether the group serves the model', () => {
    expect(isAvailableIn(model('m', { enable_groups: ['default', 'vip'] }), 'vip')).toBe(true);
    expect(isAvailableIn(model('m'), 'vip')).toBe(false);
  });
});

describe('price display (spec 3 §9)', () => {
  it('per token in dollars: model ratio × 2 × group ratio per 1M, output × completion ratio', () => {
    expect(priceOf(model('m', { model_ratio: 0.075, completion_ratio: 4 }), 1, CURRENCY)).toEqual({
      kind: 'perToken',
      input: 0.15,
      output: 0.6,
      cachedInput: null,
    });
    const p = priceOf(model('m', { model_ratio: 1.5, completion_ratio: 2, cache_ratio: 0.5 }), 2, CURRENCY);
    expect(p).toEqual({ kind: 'perToken', input: 6, output: 12, cachedInput: 3 });
  });

  it('follows quota-per-unit: the quota a token costs turned into dollars', () => {
    const p = priceOf(model('m', { model_ratio: 1 }), 1, { quotaPerUnit: 1_000_000, displayInCurrency: true });
    expect(p).toMatchObject({ input: 1 });
  });

  it('per token in quota: model ratio × group ratio quota per token', () => {
    expect(priceOf(model('m', { model_ratio: 0.075, completion_ratio: 4 }), 2, QUOTA)).toEqual({
      kind: 'perToken',
      input: 150000,
      output: 600000,
      cachedInput: null,
    });
  });

  it('per call: price × group ratio, or that × quota-per-unit in quota', () => {
    const fixed = model('m', { quota_type: QUOTA_TYPE.perCall, model_price: 0.02 });
    expect(priceOf(fixed, 1.5, CURRENCY)).toEqual({ kind: 'perCall', perCall: 0.03 });
    expect(priceOf(fixed, 1.5, QUOTA).kind).toBe('perCall');
    expect((priceOf(fixed, 1.5, QUOTA) as { perCall: number }).perCall).toBeCloseTo(15000);
  });

  it('formats dollars with 2 to 6 decimals and quota with separators', () => {
    expect(formatDollars(0.15)).toBe('$0.15');
    expect(formatDollars(2)).toBe('$2.00');
    expect(formatDollars(2.5)).toBe('$2.50');
    expect(formatDollars(0.000125)).toBe('$0.000125');
    expect(formatDollars(0.1 + 0.2)).toBe('$0.30');
    expect(formatDollars(0)).toBe('$0.00');
    expect(formatQuotaAmount(150000)).toBe('150,000');
    expect(formatQuotaAmount(0.125)).toBe('0.13');
    expect(formatAmount(0.6, CURRENCY)).toBe('$0.60');
    expect(formatAmount(600000, QUOTA)).toBe('600,000');
  });
});

describe('copy and reply', () => {
  it('joins the selected names with commas', () => {
    expect(copyText(['a', 'b'])).toBe('a,b');
  });

  it('folds the maps of the pricing reply into data', () => {
    const reply = {
      success: true,
      message: '',
      data: [model('gpt-4o')],
      group_ratio: { vip: 2 },
      usable_group: { default: '' },
    };
    expect(foldPricingReply(reply)).toEqual({
      success: true,
      message: '',
      data: { models: [model('gpt-4o')], groupRatio: { vip: 2 }, usableGroups: { default: '' } },
    });
    // The viewer's own overrides replace the group ratios they would pay.
    const viewer = { ...reply, group_ratio: { vip: 2, svip: 3 }, group_group_ratio: { vip: 0.5 } };
    expect(foldPricingReply(viewer)).toMatchObject({ data: { groupRatio: { vip: 0.5, svip: 3 } } });
    expect(foldPricingReply({ success: false, message: 'no' })).toEqual({ success: false, message: 'no' });
    expect(foldPricingReply('text')).toBe('text');
  });
});
