import { describe, expect, it } from 'vitest';
import { CHANNEL_TYPE, CHANNEL_TYPE_KEYS, channelTypeKey } from './constants';
import { typeForm } from './channelTypes';
import { columnVisibility, DEFAULT_COLUMNS } from './prefs';

describe('column settings (spec 2 §9: channels-table-columns)', () => {
  it('a stored choice overrides the defaults; junk is ignored', () => {
    expect(columnVisibility(null)).toEqual(DEFAULT_COLUMNS);
    expect(columnVisibility({ balance: false, models: true, bogus: true, id: 'no' })).toEqual({
      ...DEFAULT_COLUMNS,
      balance: false,
      models: true,
    });
  });
});

describe('channel types (spec 2 §4.2)', () => {
  it('named constants cover 1–58 except the unused 28–30 and 32', () => {
    const ids = CHANNEL_TYPE_KEYS.map((k) => CHANNEL_TYPE[k]);
    const expected = Array.from({ length: 58 }, (_, i) => i + 1).filter((n) => ![28, 29, 30, 32].includes(n));
    expect(ids).toEqual(expected);
    expect(channelTypeKey(41)).toBe('vertexAi');
    expect(channelTypeKey(28)).toBeUndefined();
  });
  it('type-specific fields: Azure version, custom full URL, Xunfei version, knowledge base, Cloudflare, Vertex region', () => {
    expect(typeForm(CHANNEL_TYPE.azure)).toMatchObject({ other: 'azureApiVersion', baseUrl: 'required' });
    expect(typeForm(CHANNEL_TYPE.custom).baseUrl).toBe('fullUrl');
    expect(typeForm(CHANNEL_TYPE.xunfei)).toMatchObject({ other: 'xunfeiVersion', keyFormat: 'xunfei' });
    expect(typeForm(CHANNEL_TYPE.aiProxyLibrary).other).toBe('knowledgeBaseId');
    expect(typeForm(CHANNEL_TYPE.cloudflare).other).toBe('cloudflareAccountId');
    expect(typeForm(CHANNEL_TYPE.vertexAi)).toMatchObject({ other: 'vertexRegion', keyFormat: 'vertexJson' });
    expect(typeForm(CHANNEL_TYPE.volcEngine).baseUrl).toBe('volcEngine');
    for (const t of [CHANNEL_TYPE.baidu, CHANNEL_TYPE.xunfei, CHANNEL_TYPE.fastGpt, CHANNEL_TYPE.tencent, CHANNEL_TYPE.aws]) {
      expect(typeForm(t).keyFormat).toBeDefined();
    }
    expect(typeForm(CHANNEL_TYPE.openai).organization).toBe(true);
  });
});
