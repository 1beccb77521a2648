import { describe, expect, it } from 'vitest';
import { CHANNEL_TYPE, MJ_MODELS, SUNO_MODELS, XUNFEI_DEFAULT_VERSION } from './constants';
import { defaultModels, modelsAfterTypeChange } from './defaultModels';
import { rules as m } from './messages';
import {
  addCustomModels,
  autoDisableInfo,
  baseUrlEndsWithV1,
  channelBody,
  fetchedModelList,
  isMultiKeyInput,
  isValidRegion,
  keyDestinationChanged,
  normalizeBaseUrl,
  parsePriority,
  parseWeight,
  responseTimeColor,
  splitKeys,
  tagEditBody,
  validateBatchDelete,
  validateBatchTag,
  validateChannelSubmit,
  validateFetchModels,
  type ChannelFormValues,
  type TagEditValues,
} from './rules';
import { tableRows } from './tagRows';
import type { Channel } from './types';

const form = (over: Partial<ChannelFormValues> = {}): ChannelFormValues => ({
  type: CHANNEL_TYPE.openai,
  name: 'mock',
  key: 'sk-1',
  base_url: '',
  other: '',
  openai_organization: '',
  models: ['gpt-4o-mini'],
  groups: ['default'],
  test_model: '',
  model_mapping: '',
  status_code_mapping: '',
  setting: '',
  param_override: '',
  header_override: '',
  tag: '',
  model_prefix: '',
  priority: 0,
  weight: 0,
  auto_ban: true,
  max_input_tokens: 0,
  remark: '',
  ...over,
});

describe('channel submit (spec 2 §5.4)', () => {
  it('creating needs a name and a key; editing keeps the stored key', () => {
    expect(validateChannelSubmit(form({ name: ' ' }), false)?.message).toBe(m.nameKeyRequired);
    expect(validateChannelSubmit(form({ key: '' }), false)?.message).toBe(m.nameKeyRequired);
    expect(validateChannelSubmit(form({ key: '' }), true)).toBeNull();
    expect(validateChannelSubmit(form(), false)).toBeNull();
  });
  it('needs at least one model', () => {
    expect(validateChannelSubmit(form({ models: [] }), false)?.message).toBe(m.modelsRequired);
  });
  it('checks each JSON field with its own message', () => {
    expect(validateChannelSubmit(form({ model_mapping: '{bad' }), false)?.message).toBe(m.modelMappingInvalid);
    expect(validateChannelSubmit(form({ model_mapping: '["a"]' }), false)?.message).toBe(m.modelMappingInvalid);
    expect(validateChannelSubmit(form({ setting: 'x' }), false)?.message).toBe(m.settingInvalid);
    expect(validateChannelSubmit(form({ param_override: '1' }), false)?.message).toBe(m.paramOverrideInvalid);
    expect(validateChannelSubmit(form({ status_code_mapping: '{' }), false)?.message).toBe(m.statusCodeMappingInvalid);
    expect(validateChannelSubmit(form({ model_mapping: '{"gpt-4":"gpt-4o"}', setting: ' ' }), false)).toBeNull();
  });
  it('a Vertex region is plain text or a JSON object', () => {
    const vertex = { type: CHANNEL_TYPE.vertexAi };
    expect(isValidRegion('us-central1')).toBe(true);
    expect(isValidRegion('{"default":"us-east5","gemini-2.5-pro":"global"}')).toBe(true);
    expect(isValidRegion('{"default":')).toBe(false);
    expect(validateChannelSubmit(form({ ...vertex, other: '{oops' }), false)?.message).toBe(m.regionInvalid);
    expect(validateChannelSubmit(form({ ...vertex, other: 'europe-west1' }), false)).toBeNull();
    // Other types do not read `other` as a region.
    expect(validateChannelSubmit(form({ other: '{oops' }), false)).toBeNull();
  });
  it('priority is an integer of at least -999 and weight is not negative', () => {
    expect(validateChannelSubmit(form({ priority: -1000 }), false)?.message).toBe(m.priorityInvalid);
    expect(validateChannelSubmit(form({ priority: 'abc' }), false)?.message).toBe(m.priorityInvalid);
    expect(validateChannelSubmit(form({ weight: -1 }), false)?.message).toBe(m.weightInvalid);
    expect(validateChannelSubmit(form({ priority: -999, weight: '5' }), false)).toBeNull();
  });
  it('the body strips the base URL slash, joins lists, floors numbers and defaults Xunfei to v2.1', () => {
    const body = channelBody(
      form({ base_url: ' http://mock:9/ ', models: ['a', 'b'], groups: ['default', 'vip'], priority: '3.9', weight: '2' }),
    );
    expect(body).toMatchObject({ base_url: 'http://mock:9', models: 'a,b', group: 'default,vip', priority: 3, weight: 2 });
    expect(body.auto_ban).toBe(1);
    expect(channelBody(form({ type: CHANNEL_TYPE.xunfei, other: '' })).other).toBe(XUNFEI_DEFAULT_VERSION);
    expect(channelBody(form({ type: CHANNEL_TYPE.xunfei, other: 'v3.5' })).other).toBe('v3.5');
    expect(channelBody(form({ other: '' })).other).toBe('');
  });
});

describe('a stored key sent somewhere new needs the key again', () => {
  const stored = {
    base_url: 'https://api.example.com',
    header_override: '{"X-Team": "a"}',
    setting: '{"proxy": "socks5://proxy.example:1080", "force_format": true}',
  };

  it('sees a changed base URL, header override or proxy', () => {
    expect(keyDestinationChanged(stored, { ...stored, base_url: 'https://collector.example' })).toBe(true);
    expect(keyDestinationChanged(stored, { ...stored, base_url: '' })).toBe(true);
    expect(keyDestinationChanged(stored, { ...stored, header_override: '{"X-Team": "b"}' })).toBe(true);
    expect(keyDestinationChanged(stored, { ...stored, header_override: '' })).toBe(true);
    expect(keyDestinationChanged(stored, { ...stored, setting: '{"proxy": "http://collector.example"}' })).toBe(true);
    expect(keyDestinationChanged(stored, { ...stored, setting: '' })).toBe(true);
  });

  it('ignores formatting, a trailing slash and other settings', () => {
    expect(keyDestinationChanged(stored, stored)).toBe(false);
    expect(
      keyDestinationChanged(stored, {
        base_url: ' https://api.example.com/ ',
        header_override: '{ "X-Team":"a" }',
        setting: '{"force_format": false, "proxy": " socks5://proxy.example:1080 "}',
      }),
    ).toBe(false);
    expect(
      keyDestinationChanged(
        { base_url: '', header_override: '', setting: '' },
        { base_url: '', header_override: '{}', setting: '{"force_format": true}' },
      ),
    ).toBe(false);
  });

  it('refuses the edit without a key, accepts it with one or when nothing moved', () => {
    const moved = form({ ...stored, base_url: 'https://collector.example', key: '' });
    expect(validateChannelSubmit(moved, true, stored)?.message).toBe(m.keyRequiredForDestination);
    expect(validateChannelSubmit({ ...moved, key: '  ' }, true, stored)?.message).toBe(m.keyRequiredForDestination);
    expect(validateChannelSubmit({ ...moved, key: 'sk-again' }, true, stored)).toBeNull();
    expect(validateChannelSubmit(form({ ...stored, key: '', priority: 9 }), true, stored)).toBeNull();
    expect(validateChannelSubmit(form({ ...stored, header_override: '', key: '' }), true, stored)?.message).toBe(
      m.keyRequiredForDestination,
    );
  });
});

describe('base URL (spec 2 §5.4)', () => {
  it('trailing slashes are removed', () => {
    expect(normalizeBaseUrl('https://api.example.com///')).toBe('https://api.example.com');
    expect(normalizeBaseUrl(undefined)).toBe('');
  });
  it('a URL ending in /v1 triggers the warning', () => {
    expect(baseUrlEndsWithV1('https://api.example.com/v1')).toBe(true);
    expect(baseUrlEndsWithV1('https://api.example.com/v1/')).toBe(true);
    expect(baseUrlEndsWithV1('https://api.example.com/v1beta')).toBe(false);
    expect(baseUrlEndsWithV1('https://api.example.com')).toBe(false);
  });
});

describe('multi-key detection (spec 2 §4.2)', () => {
  it('commas or newlines switch the multi-key view on', () => {
    expect(isMultiKeyInput('sk-a,sk-b', CHANNEL_TYPE.openai, false)).toBe(true);
    expect(isMultiKeyInput('sk-a\nsk-b', CHANNEL_TYPE.openai, false)).toBe(true);
    expect(isMultiKeyInput('sk-a', CHANNEL_TYPE.openai, false)).toBe(false);
    expect(isMultiKeyInput('sk-a\n', CHANNEL_TYPE.openai, false)).toBe(false);
  });
  it('never for Vertex (41) or when the view is disabled', () => {
    expect(isMultiKeyInput('{"a":1,\n"b":2}', CHANNEL_TYPE.vertexAi, false)).toBe(false);
    expect(isMultiKeyInput('sk-a,sk-b', CHANNEL_TYPE.openai, true)).toBe(false);
  });
  it('keys split on commas and newlines; a Vertex JSON key stays whole', () => {
    expect(splitKeys(' a,\nb , ,c\n', CHANNEL_TYPE.openai)).toEqual(['a', 'b', 'c']);
    expect(splitKeys('{"type":"service_account","x":1}', CHANNEL_TYPE.vertexAi)).toHaveLength(1);
    expect(splitKeys('  ', CHANNEL_TYPE.openai)).toEqual([]);
  });
});

describe('models (spec 2 §4.2, §5.4)', () => {
  it('custom entries split by commas or whitespace; duplicates are ignored and reported', () => {
    const r = addCustomModels('gpt-4o, claude  gpt-4o\nnew-model,,', ['gpt-4o']);
    expect(r.added).toEqual(['claude', 'new-model']);
    expect(r.duplicates).toEqual(['gpt-4o']);
    expect(r.models).toEqual(['gpt-4o', 'claude', 'new-model']);
  });
  it('a new channel needs a key before models can be fetched', () => {
    expect(validateFetchModels(false, '')?.message).toBe(m.keyRequiredForFetch);
    expect(validateFetchModels(false, 'sk-1')).toBeNull();
    expect(validateFetchModels(true, '')).toBeNull();
  });
  it('the fetched list must be an array (or a nested data array)', () => {
    expect(fetchedModelList(['a', 'b'])).toEqual(['a', 'b']);
    expect(fetchedModelList({ data: [{ id: 'a' }, 'b'] })).toEqual(['a', 'b']);
    expect(fetchedModelList({ models: [] })).toBeNull();
    expect(fetchedModelList('a,b')).toBeNull();
  });
  it('default models per type: Midjourney, Midjourney Plus, Suno, OpenAI; none for others', () => {
    expect(defaultModels(CHANNEL_TYPE.midjourney)).toEqual([...MJ_MODELS]);
    const plus = defaultModels(CHANNEL_TYPE.midjourneyPlus);
    expect(plus).toContain('swap_face');
    expect(plus).toEqual(expect.arrayContaining([...MJ_MODELS]));
    expect(plus.length).toBeGreaterThan(MJ_MODELS.length);
    expect(defaultModels(CHANNEL_TYPE.suno)).toEqual([...SUNO_MODELS]);
    expect(defaultModels(CHANNEL_TYPE.openai)).toContain('gpt-4o-mini');
    expect(defaultModels(CHANNEL_TYPE.advancedCustom)).toEqual([]);
  });
  it('changing the type refills the list when it was empty or the type changed', () => {
    expect(modelsAfterTypeChange([], CHANNEL_TYPE.openai, CHANNEL_TYPE.openai)).toContain('gpt-4o');
    expect(modelsAfterTypeChange(['x'], CHANNEL_TYPE.openai, CHANNEL_TYPE.suno)).toEqual([...SUNO_MODELS]);
    expect(modelsAfterTypeChange(['x'], CHANNEL_TYPE.openai, CHANNEL_TYPE.openai)).toEqual(['x']);
    // A type without defaults keeps what was typed.
    expect(modelsAfterTypeChange(['x'], CHANNEL_TYPE.openai, CHANNEL_TYPE.advancedCustom)).toEqual(['x']);
  });
});

describe('inline priority and weight (spec 2 §5.4)', () => {
  it('are parsed as integers', () => {
    expect(parsePriority('7').value).toBe(7);
    expect(parsePriority('7.8').value).toBe(7);
    expect(parsePriority(-999).value).toBe(-999);
    expect(parsePriority(-1000).problem?.message).toBe(m.priorityInvalid);
    expect(parsePriority('x').problem?.message).toBe(m.priorityInvalid);
  });
  it('a negative weight is floored to 0', () => {
    expect(parseWeight('-5').value).toBe(0);
    expect(parseWeight(12).value).toBe(12);
    expect(parseWeight('').problem?.message).toBe(m.weightInvalid);
  });
});

describe('tag-level edit (spec 2 §5.4)', () => {
  const initial: TagEditValues = {
    new_tag: 'team',
    models: ['a'],
    groups: ['default'],
    model_mapping: '',
    priority: 0,
    weight: 0,
  };
  it('no changes gives "no changes"', () => {
    expect(tagEditBody('team', initial, { ...initial }).problem?.message).toBe(m.noChanges);
  });
  it('priority must be an integer, weight a non-negative integer', () => {
    expect(tagEditBody('team', initial, { ...initial, priority: '1.5' }).problem?.message).toBe(m.tagPriorityInvalid);
    expect(tagEditBody('team', initial, { ...initial, weight: -1 }).problem?.message).toBe(m.weightInvalid);
    expect(tagEditBody('team', initial, { ...initial, weight: '2.5' }).problem?.message).toBe(m.weightInvalid);
  });
  it('invalid model mapping JSON is refused', () => {
    expect(tagEditBody('team', initial, { ...initial, model_mapping: '{x' }).problem?.message).toBe(m.modelMappingInvalid);
  });
  it('only changed fields are sent', () => {
    const r = tagEditBody('team', initial, { ...initial, priority: '5', new_tag: 'crew', models: ['a', 'b'] });
    expect(r.body).toEqual({ tag: 'team', priority: 5, new_tag: 'crew', models: 'a,b' });
  });
});

describe('batch preconditions (spec 2 §5.4)', () => {
  it('batch tag needs a selection and a tag', () => {
    expect(validateBatchTag([], 'x')?.message).toBe(m.selectChannels);
    expect(validateBatchTag([1], '  ')?.message).toBe(m.tagRequired);
    expect(validateBatchTag([1, 2], 'team')).toBeNull();
  });
  it('batch delete needs a selection', () => {
    expect(validateBatchDelete([])?.message).toBe(m.selectChannels);
    expect(validateBatchDelete([3])).toBeNull();
  });
});

describe('status and latency display (spec 2 §4.1)', () => {
  it('response time colours: untested, ≤1 s, ≤3 s, ≤5 s, above', () => {
    expect(responseTimeColor(0)).toBe('default');
    expect(responseTimeColor(1)).toBe('green');
    expect(responseTimeColor(1000)).toBe('green');
    expect(responseTimeColor(1001)).toBe('lime');
    expect(responseTimeColor(3000)).toBe('lime');
    expect(responseTimeColor(3001)).toBe('yellow');
    expect(responseTimeColor(5000)).toBe('yellow');
    expect(responseTimeColor(5001)).toBe('red');
  });
  it('the auto-disable reason and time come from other_info', () => {
    expect(autoDisableInfo('{"status_reason":"quota exceeded","status_time":1700000000}')).toEqual({
      reason: 'quota exceeded',
      time: 1700000000,
    });
    expect(autoDisableInfo('')).toBeNull();
    expect(autoDisableInfo('not json')).toBeNull();
  });
});

describe('tag grouping', () => {
  const ch = (id: number, tag: string, over: Partial<Channel> = {}) =>
    ({ id, tag, models: 'm', group: 'default', status: 1, priority: 0, weight: 0, used_quota: 1, ...over }) as Channel;
  it('keeps untagged channels alone and groups tagged ones at their first appearance', () => {
    const rows = tableRows([ch(1, 'a'), ch(2, ''), ch(3, 'a', { models: 'n', priority: 2, status: 2 })], true);
    expect(rows.map((r) => r.key)).toEqual(['tag-a', 'channel-2']);
    const tag = rows[0];
    expect(tag.kind === 'tag' && tag.children.map((c) => c.channel.id)).toEqual([1, 3]);
    expect(tag).toMatchObject({ models: ['m', 'n'], enabled: 1, priority: null, weight: 0, usedQuota: 2 });
  });
  it('without tag mode every channel is a row', () => {
    expect(tableRows([ch(1, 'a'), ch(2, 'a')], false)).toHaveLength(2);
  });
});
