import { describe, expect, it } from 'vitest';
import { validation } from '../../../shared/messages';
import type { PanelDef } from '../panels';
import { RATIO_JSON_PANEL } from '../ratio/jsonPanel';
import { planSave } from '../savePlan';
import { modelHints } from './messages';
import { MODEL_PANELS, RATE_LIMIT_PANELS } from './panels';

const panel = (id: string): PanelDef => [...RATE_LIMIT_PANELS, ...MODEL_PANELS, RATIO_JSON_PANEL].find((p) => p.id === id)!;
const problemId = (plan: ReturnType<typeof planSave>) => ('problem' in plan ? plan.problem.message.id : null);

describe('JSON settings (spec 2 §5.1)', () => {
  const saved = { ModelRatio: '{"a":1}', GroupRatio: '{"default":1}', 'gemini.version_settings': '{"default":"v1beta"}' };

  it('each pricing JSON must be valid: not a valid JSON string', () => {
    for (const key of [
      'ModelPrice',
      'ModelRatio',
      'CacheRatio',
      'CreateCacheRatio',
      'CompletionRatio',
      'GroupRatio',
      'UserUsableGroups',
    ]) {
      const plan = planSave(RATIO_JSON_PANEL, saved, { ...saved, [key]: '{"a":' });
      expect(plan, key).toEqual({ problem: { message: validation.invalidJson, values: { name: key } } });
    }
    expect(problemId(planSave(RATIO_JSON_PANEL, saved, { ...saved, GroupRatio: '' }))).toBe(validation.invalidJson.id);
  });
  it('the Gemini and Claude JSON settings too', () => {
    expect(problemId(planSave(panel('gemini'), saved, { 'gemini.version_settings': 'v1' }))).toBe(validation.invalidJson.id);
    expect(problemId(planSave(panel('claude'), {}, { 'claude.default_max_tokens': '{default: 8192}' }))).toBe(
      validation.invalidJson.id,
    );
  });
  it('saving with no change: you seem not to have changed anything', () => {
    expect(planSave(RATIO_JSON_PANEL, saved, { ...saved })).toEqual({ problem: { message: validation.nothingChanged } });
  });
  it('JSON shown indented is unchanged until its content changes', () => {
    const shown = { ...saved, ModelRatio: '{\n  "a": 1\n}' };
    expect(planSave(RATIO_JSON_PANEL, saved, shown)).toEqual({ problem: { message: validation.nothingChanged } });
    expect(planSave(RATIO_JSON_PANEL, saved, { ...shown, ModelRatio: '{\n  "a": 2\n}' })).toEqual({
      updates: [{ key: 'ModelRatio', value: '{\n  "a": 2\n}' }],
    });
  });
  it('only the changed keys are sent', () => {
    expect(planSave(RATIO_JSON_PANEL, saved, { ...saved, GroupRatio: '{"default":1,"vip":2}' })).toEqual({
      updates: [{ key: 'GroupRatio', value: '{"default":1,"vip":2}' }],
    });
  });
});

describe('rate limits (spec 2 §5.3)', () => {
  const saved = {
    ModelRequestRateLimitEnabled: 'false',
    ModelRequestRateLimitDurationMinutes: '1',
    ModelRequestRateLimitCount: '0',
    ModelRequestRateLimitSuccessCount: '1000',
  };
  const plan = (patch: Record<string, string>) => planSave(panel('rateLimit'), saved, { ...saved, ...patch });

  it('duration min 0, total count min 0 (0 = unlimited), success count min 1', () => {
    expect(problemId(plan({ ModelRequestRateLimitDurationMinutes: '-1' }))).toBe(validation.minValue.id);
    expect(problemId(plan({ ModelRequestRateLimitCount: '-1' }))).toBe(validation.minValue.id);
    expect(problemId(plan({ ModelRequestRateLimitSuccessCount: '0' }))).toBe(validation.minValue.id);
    expect(
      plan({
        ModelRequestRateLimitDurationMinutes: '0',
        ModelRequestRateLimitCount: '0',
        ModelRequestRateLimitSuccessCount: '1',
      }),
    ).toEqual({
      updates: [
        { key: 'ModelRequestRateLimitDurationMinutes', value: '0' },
        { key: 'ModelRequestRateLimitSuccessCount', value: '1' },
      ],
    });
  });
  it('the enabled flag goes first, alone among the changed keys', () => {
    expect(plan({ ModelRequestRateLimitEnabled: 'true', ModelRequestRateLimitCount: '30' })).toEqual({
      updates: [
        { key: 'ModelRequestRateLimitEnabled', value: 'true' },
        { key: 'ModelRequestRateLimitCount', value: '30' },
      ],
    });
  });
});

describe('provider settings (spec 2 §5.3)', () => {
  it('thinking-budget percentage between 0.1 and 1 for Gemini and Claude', () => {
    for (const [id, key] of [
      ['gemini', 'gemini.thinking_adapter_budget_tokens_percentage'],
      ['claude', 'claude.thinking_adapter_budget_tokens_percentage'],
    ]) {
      for (const bad of ['0.05', '1.5', '', 'x']) {
        expect(planSave(panel(id), { [key]: '0.6' }, { [key]: bad }), `${key}=${bad}`).toEqual({
          problem: { message: modelHints.range, values: { name: key, min: 0.1, max: 1 } },
        });
      }
      for (const ok of ['0.1', '1', '0.75']) {
        expect(planSave(panel(id), { [key]: '0.6' }, { [key]: ok })).toEqual({ updates: [{ key, value: ok }] });
      }
    }
  });
  it('ping interval min 1 second, disabled unless ping is enabled', () => {
    const key = 'general_setting.ping_interval_seconds';
    expect(problemId(planSave(panel('global'), { [key]: '60' }, { [key]: '0' }))).toBe(validation.minValue.id);
    expect(planSave(panel('global'), { [key]: '60' }, { [key]: '1' })).toEqual({ updates: [{ key, value: '1' }] });
    const field = panel('global').fields.find((f) => f.key === key);
    expect(field?.enabledBy).toBe('general_setting.ping_interval_enabled');
  });
});
