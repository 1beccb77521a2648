import { describe, expect, it } from 'vitest';
import { LOG_TYPE, LOG_TYPE_OPTIONS } from './constants';
import { columns as cm, details as dm, types } from './messages';
import { parseOther } from './other';
import {
  billingFormula,
  channelsTriedText,
  costText,
  detailSummary,
  durationColor,
  formatRatio,
  frtColor,
  frtSeconds,
  isRelayRecord,
  summaryQuotaText,
  logDetails,
  logTypeLabel,
  typeOptionLabel,
  type DetailItem,
} from './rules';
import type { LogRecord } from './types';

const CURRENCY = { quotaPerUnit: 500000, displayInCurrency: true };
const COUNT = { quotaPerUnit: 500000, displayInCurrency: false };

/** A consume record as the admin list carries it. */
const LOG: LogRecord = {
  id: 1,
  created_at: 1900000000,
  type: LOG_TYPE.consume,
  content: '',
  username: 'alice',
  user_id: 2,
  token_name: 'tok',
  token_id: 3,
  group: 'default',
  model_name: 'gpt-4o',
  channel: 5,
  channel_name: 'mock',
  use_time: 2,
  is_stream: true,
  prompt_tokens: 100,
  completion_tokens: 30,
  quota: 99,
  request_id: 'req-1',
  other: '',
};

const keys = (items: DetailItem[]) => items.map((d) => d.key);
const value = (items: DetailItem[], key: string) => items.find((d) => d.key === key)?.value;

describe('log types (spec 3 §2.2, §3)', () => {
  it('offers all, top-up, consume, manage, system, check-in (0 to 5) and failed requests (6)', () => {
    expect(LOG_TYPE_OPTIONS).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(typeOptionLabel(0)).toBe(types.all);
    expect(typeOptionLabel(2)).toBe(types.consume);
  });
  it('labels each type and any other as unknown', () => {
    expect(logTypeLabel(1).text).toBe(types.topUp);
    expect(logTypeLabel(2).text).toBe(types.consume);
    expect(logTypeLabel(3).text).toBe(types.manage);
    expect(logTypeLabel(4).text).toBe(types.system);
    expect(logTypeLabel(5).text).toBe(types.checkIn);
    expect(logTypeLabel(6)).toEqual({ text: types.error, color: 'red' });
    expect(logTypeLabel(42).text).toBe(types.unknown);
  });
  it('treats consume and failed records as relay calls', () => {
    expect(isRelayRecord(LOG_TYPE.consume)).toBe(true);
    expect(isRelayRecord(LOG_TYPE.error)).toBe(true);
    expect(isRelayRecord(LOG_TYPE.topUp)).toBe(false);
  });
});

describe('time badges (spec 3 §9)', () => {
  it('colours the time to complete: green below 101 s, orange below 300 s, red otherwise', () => {
    expect(durationColor(0)).toBe('green');
    expect(durationColor(100)).toBe('green');
    expect(durationColor(101)).toBe('orange');
    expect(durationColor(299)).toBe('orange');
    expect(durationColor(300)).toBe('red');
  });
  it('shows the first-token time in seconds (milliseconds / 1000): green below 3, orange below 10', () => {
    expect(frtSeconds(1234)).toBe(1.2);
    expect(frtSeconds(2960)).toBe(3);
    expect(frtColor(2999)).toBe('green');
    expect(frtColor(3000)).toBe('orange');
    expect(frtColor(9999)).toBe('orange');
    expect(frtColor(10000)).toBe('red');
  });
});

describe('quota display', () => {
  it('shows the cost with 6 decimals in currency, else the quota count as the settings say', () => {
    expect(costText(99, CURRENCY)).toBe('$0.000198');
    expect(costText(500000, CURRENCY)).toBe('$1.000000');
    expect(costText(99, COUNT)).toBe('99');
    expect(costText(1234567, COUNT)).toBe('1.2M');
    expect(costText(99, { quotaPerUnit: 1000, displayInCurrency: true })).toBe('$0.099000');
  });
  it('keeps small totals visible in the summary (6 decimals below one unit), else 2 decimals', () => {
    expect(summaryQuotaText(150, CURRENCY)).toBe('$0.000300');
    expect(summaryQuotaText(500000, CURRENCY)).toBe('$1.00');
    expect(summaryQuotaText(1234567, CURRENCY)).toBe('$2.47');
    expect(summaryQuotaText(150, COUNT)).toBe('150');
  });
  it('prints ratios without float noise', () => {
    expect(formatRatio(0.1 + 0.2)).toBe('0.3');
    expect(formatRatio(1.25)).toBe('1.25');
    expect(formatRatio(4)).toBe('4');
  });
});

describe('details summary and billing', () => {
  const ratioOther = parseOther('{"model_ratio":0.075,"completion_ratio":4,"group_ratio":1.5,"model_price":-1}');

  it('summarises a priced call by its ratios', () => {
    expect(detailSummary(LOG, ratioOther)).toEqual({
      message: cm.ratios,
      values: { model: '0.075', completion: '4', group: '1.5' },
    });
    expect(detailSummary(LOG, { modelPrice: 0.02, groupRatio: 2 })).toEqual({
      message: cm.fixedPrice,
      values: { price: '0.02', group: '2' },
    });
  });

  it('shows the record text for other records', () => {
    const topUp = { ...LOG, type: LOG_TYPE.topUp, content: 'Redeemed $1.00' };
    expect(detailSummary(topUp, {})).toEqual({ text: 'Redeemed $1.00' });
    expect(detailSummary({ ...LOG, content: 'no price' }, {})).toEqual({ text: 'no price' });
  });

  it('writes the token billing formula with the record numbers', () => {
    expect(billingFormula(LOG, ratioOther)).toBe('(100 + 30 × 4) × 0.075 × 1.5 = 99');
  });

  it('splits cached and cache-written prompt tokens out with their ratios', () => {
    const o = parseOther(
      '{"model_ratio":1,"completion_ratio":2,"group_ratio":1,"cache_tokens":40,"cache_ratio":0.1,"cache_creation_tokens":10,"cache_creation_ratio":1.25}',
    );
    expect(billingFormula(LOG, o)).toBe('(50 + 40 × 0.1 + 10 × 1.25 + 30 × 2) × 1 × 1 = 99');
  });

  it('writes the per-call formula in USD', () => {
    expect(billingFormula(LOG, { modelPrice: 0.02, groupRatio: 1.5 })).toBe('$0.02 × 1.5 = $0.03');
  });

  it('has no formula when the record carries no price', () => {
    expect(billingFormula(LOG, {})).toBeNull();
  });
});

describe('expanded details of a record (spec 3 §2.2)', () => {
  const other = parseOther(
    JSON.stringify({
      admin_info: { use_channel: [3, 5] },
      request_path: 'chat',
      conversion: { client: 'openai', provider: 'anthropic' },
      frt: 1500,
      is_model_mapped: true,
      upstream_model_name: 'gpt-4o-2024-08-06',
      model_ratio: 1,
      completion_ratio: 2,
      cache_ratio: 0.1,
      group_ratio: 1,
      model_price: -1,
      cache_tokens: 40,
    }),
  );

  it('lists, in order, what an admin sees of a retried, mapped, cached call', () => {
    const items = logDetails(LOG, other, true);
    expect(keys(items)).toEqual([
      'requestId',
      'channel',
      'channelsTried',
      'retries',
      'endpoint',
      'conversion',
      'mode',
      'useTime',
      'frt',
      'requestedModel',
      'actualModel',
      'modelRatio',
      'completionRatio',
      'groupRatio',
      'cacheTokens',
      'cacheRatio',
      'billing',
    ]);
    expect(value(items, 'channel')).toEqual({ text: '#5 mock' });
    expect(value(items, 'channelsTried')).toEqual({ text: '3 → 5' });
    expect(value(items, 'retries')).toEqual({ text: '1' });
    expect(value(items, 'conversion')).toEqual({ text: 'openai → anthropic' });
    expect(value(items, 'frt')).toEqual({ message: cm.seconds, values: { seconds: 1.5 } });
    expect(value(items, 'useTime')).toEqual({ message: cm.seconds, values: { seconds: 2 } });
    expect(value(items, 'mode')).toEqual({ message: cm.stream });
    expect(value(items, 'requestedModel')).toEqual({ text: 'gpt-4o' });
    expect(value(items, 'actualModel')).toEqual({ text: 'gpt-4o-2024-08-06' });
    expect(items.find((d) => d.key === 'billing')).toEqual({
      key: 'billing',
      value: { text: '(60 + 40 × 0.1 + 30 × 2) × 1 × 1 = 99' },
      hint: dm.billingRatioHint,
    });
  });

  it('leaves channel data out for a user', () => {
    const items = logDetails({ ...LOG, channel: 0, channel_name: '' }, parseOther('{"frt":10}'), false);
    expect(keys(items)).not.toContain('channel');
    expect(keys(items)).not.toContain('channelsTried');
    // even if a list were there, a non-admin does not see it
    expect(keys(logDetails(LOG, other, false))).not.toContain('channelsTried');
  });

  it('shows a per-call price instead of the token ratios', () => {
    const items = logDetails(LOG, { modelPrice: 0.02, groupRatio: 1 }, false);
    expect(keys(items)).toContain('modelPrice');
    expect(keys(items)).not.toContain('modelRatio');
    expect(keys(items)).not.toContain('completionRatio');
    expect(items.find((d) => d.key === 'billing')?.hint).toBe(dm.billingFixedHint);
  });

  it('shows the error text and code of a failed request, without billing', () => {
    const failed = { ...LOG, type: LOG_TYPE.error, quota: 0, content: 'upstream refused', request_id: '' };
    const items = logDetails(failed, parseOther('{"error_code":"upstream_error","request_path":"chat"}'), false);
    expect(keys(items)).toEqual(['content', 'endpoint', 'mode', 'useTime', 'errorCode']);
    expect(value(items, 'content')).toEqual({ text: 'upstream refused' });
  });

  it('shows no relay fields for an account event', () => {
    const topUp = { ...LOG, type: LOG_TYPE.topUp, content: 'Redeemed', request_id: '', channel: 0 };
    expect(keys(logDetails(topUp, {}, true))).toEqual(['content']);
  });

  it('marks long texts as collapsible and flags local counts and disconnects', () => {
    const o = parseOther(
      JSON.stringify({
        system_prompt: 'x'.repeat(500),
        input_content: 'short',
        local_count_tokens: true,
        client_disconnected: true,
      }),
    );
    const items = logDetails(LOG, o, false);
    expect(items.find((d) => d.key === 'systemPrompt')?.long).toBe(true);
    expect(items.find((d) => d.key === 'inputContent')?.long).toBe(false);
    expect(value(items, 'localCount')).toEqual({ message: dm.localCountValue });
    expect(value(items, 'clientGone')).toEqual({ message: dm.clientGoneValue });
  });

  it('joins the channels tried with arrows', () => {
    expect(channelsTriedText({ useChannel: [1, 2, 3] })).toBe('1 → 2 → 3');
    expect(channelsTriedText({})).toBe('');
  });
});
