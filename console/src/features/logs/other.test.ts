import { describe, expect, it } from 'vitest';
import { isFixedPrice, mappedModel, parseOther, retryCount } from './other';

/** What the gateway writes for a token-priced call that was retried once (gateway/src/relay/record.rs). */
const GATEWAY_OTHER = JSON.stringify({
  admin_info: { use_channel: [3, 5] },
  request_path: 'chat',
  conversion: { client: 'openai', provider: 'anthropic' },
  frt: 1234,
  is_model_mapped: true,
  upstream_model_name: 'gpt-4o-2024-08-06',
  model_ratio: 1.25,
  completion_ratio: 4,
  cache_ratio: 0.5,
  group_ratio: 1,
  model_price: -1,
  cache_tokens: 20,
});

describe('reading the other field (spec 3 §3)', () => {
  it('reads what the gateway records', () => {
    expect(parseOther(GATEWAY_OTHER)).toEqual({
      useChannel: [3, 5],
      requestPath: 'chat',
      conversion: { client: 'openai', provider: 'anthropic' },
      frt: 1234,
      isModelMapped: true,
      upstreamModelName: 'gpt-4o-2024-08-06',
      modelRatio: 1.25,
      completionRatio: 4,
      cacheRatio: 0.5,
      groupRatio: 1,
      modelPrice: -1,
      cacheTokens: 20,
    });
  });

  it('never fails: bad JSON, non-objects and wrongly typed fields are dropped', () => {
    expect(parseOther('')).toEqual({});
    expect(parseOther('not json')).toEqual({});
    expect(parseOther('[1,2]')).toEqual({});
    expect(parseOther('null')).toEqual({});
    expect(parseOther('{"frt":"fast","model_ratio":null,"admin_info":{"use_channel":["x",4]}}')).toEqual({ useChannel: [4] });
  });

  it('keeps a context recorded as a list of messages as text', () => {
    expect(parseOther('{"context":[{"role":"user","content":"hi"}]}').context).toBe('[{"role":"user","content":"hi"}]');
  });

  it('has no channel list for a user (the server strips admin_info)', () => {
    const o = parseOther('{"request_path":"chat","frt":10}');
    expect(o.useChannel).toBeUndefined();
    expect(retryCount(o)).toBe(0);
  });

  it('counts retries as the channels tried after the first', () => {
    expect(retryCount(parseOther(GATEWAY_OTHER))).toBe(1);
    expect(retryCount(parseOther('{"admin_info":{"use_channel":[3]}}'))).toBe(0);
  });

  it('tells per-call pricing (model price ≥ 0) from token pricing (-1)', () => {
    expect(isFixedPrice({ modelPrice: 0.02 })).toBe(true);
    expect(isFixedPrice({ modelPrice: 0 })).toBe(true);
    expect(isFixedPrice({ modelPrice: -1 })).toBe(false);
    expect(isFixedPrice({})).toBe(false);
  });

  it('names the upstream model only when a mapping changed it', () => {
    expect(mappedModel(parseOther(GATEWAY_OTHER), 'gpt-4o')).toBe('gpt-4o-2024-08-06');
    expect(mappedModel({ isModelMapped: true, upstreamModelName: 'a' }, 'a')).toBeUndefined();
    expect(mappedModel({ upstreamModelName: 'b' }, 'a')).toBeUndefined();
  });
});
