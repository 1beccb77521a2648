import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TOKEN_QUOTA,
  EXPIRY_PRESETS,
  TOKEN_COUNT_PRESETS,
  TOKEN_QUOTA_PRESETS,
  TOKEN_RATE_LIMIT_DEFAULTS,
  TOKEN_STATUS,
} from './constants';
import { statuses, validation } from './messages';
import {
  copySelectedText,
  expiryFromPreset,
  formValuesOf,
  INITIAL_TOKEN_FORM,
  maxNameLength,
  parseExpiry,
  toggledStatus,
  tokenStatusLabel,
  toTokenInput,
  validateBatchCount,
  validateQuota,
  validateSelection,
  validateTokenName,
} from './rules';
import type { Token } from './types';

const KEY = 'sk-abcdEFGH1234567890abcdefghijklmnopqrstuvwxyzWXYZ';

describe('token constants (spec 2 §9)', () => {
  it('has the default quota, presets and rate-limit defaults', () => {
    expect(DEFAULT_TOKEN_QUOTA).toBe(500000);
    expect(TOKEN_QUOTA_PRESETS.map((q) => q / 500000)).toEqual([1, 10, 50, 100, 500, 1000]);
    expect(TOKEN_COUNT_PRESETS).toEqual([10, 20, 30, 100]);
    expect(EXPIRY_PRESETS.map((p) => p.key)).toEqual(['never', 'hour', 'day', 'month']);
    expect(TOKEN_RATE_LIMIT_DEFAULTS).toEqual({ period: 60, count: 1000, success: 10 });
    expect(INITIAL_TOKEN_FORM).toMatchObject({ remain_quota: 500000, count: 1, rate_limit_period: 60 });
  });
});

describe('token form validation (spec 2 §5.5)', () => {
  const valid = { ...INITIAL_TOKEN_FORM, name: 'mine' };

  it('requires a name on create, not on edit', () => {
    expect(toTokenInput({ ...valid, name: '  ' }, true)).toEqual({ problem: { message: validation.nameRequired } });
    expect('input' in toTokenInput({ ...valid, name: '' }, false)).toBe(true);
  });

  it('keeps every generated name within 50 characters (extra names add "-" and 6 characters)', () => {
    expect(maxNameLength(1)).toBe(50);
    expect(maxNameLength(3)).toBe(50 - '-abc123'.length);
    expect(validateTokenName('x'.repeat(50), true, 1)).toBeNull();
    expect(validateTokenName('x'.repeat(50), true, 2)).toEqual({ message: validation.nameTooLong, values: { max: 43 } });
    expect(validateTokenName('x'.repeat(43), true, 2)).toBeNull();
    expect(validateTokenName('x'.repeat(51), false, 1)).toEqual({ message: validation.nameTooLong, values: { max: 50 } });
    expect(toTokenInput({ ...valid, name: 'x'.repeat(44), count: 10 }, true)).toMatchObject({
      problem: { message: validation.nameTooLong },
    });
  });

  it('parses the expiry or answers "expiry time format error"', () => {
    expect(parseExpiry('')).toEqual({ value: -1 });
    expect(parseExpiry('2030-01-02 03:04:05')).toEqual({ value: dayjs('2030-01-02T03:04:05').unix() });
    expect(parseExpiry('2030-01-02')).toEqual({ value: dayjs('2030-01-02T00:00:00').unix() });
    for (const bad of ['tomorrow', '2030-13-45 00:00:00', '2030/01/02']) {
      expect(parseExpiry(bad)).toEqual({ problem: { message: validation.expiryFormat } });
    }
    expect(toTokenInput({ ...valid, expiry: 'soon' }, true)).toEqual({ problem: { message: validation.expiryFormat } });
  });

  it('fills the expiry from the presets', () => {
    const now = dayjs('2030-01-01T00:00:00').valueOf();
    expect(expiryFromPreset('never', now)).toBe('');
    expect(expiryFromPreset('hour', now)).toBe('2030-01-01 01:00:00');
    expect(expiryFromPreset('day', now)).toBe('2030-01-02 00:00:00');
    expect(expiryFromPreset('month', now)).toBe('2030-01-31 00:00:00');
  });

  it('accepts a batch count that is a positive whole number', () => {
    expect(validateBatchCount(1)).toBeNull();
    expect(validateBatchCount(100)).toBeNull();
    for (const bad of [0, -3, 2.5, null, undefined, 101]) {
      expect(validateBatchCount(bad)).toEqual({ message: validation.countInvalid, values: { max: 100 } });
    }
    expect(toTokenInput({ ...valid, count: 0 }, true)).toMatchObject({ problem: { message: validation.countInvalid } });
    // the count is not part of an edit
    expect(toTokenInput({ ...valid, count: 0 }, false)).not.toHaveProperty('problem');
  });

  it('needs an integer quota unless unlimited', () => {
    expect(validateQuota(500000, false)).toBeNull();
    expect(validateQuota(1.5, false)).toEqual({ message: validation.quotaInvalid });
    expect(validateQuota(-1, false)).toEqual({ message: validation.quotaInvalid });
    expect(validateQuota(null, true)).toBeNull();
  });

  it('builds the body: comma models, -1 for never, count only on create', () => {
    const res = toTokenInput({ ...valid, model_limits_enabled: true, model_limits: ['a', 'b'], count: 3 }, true);
    expect(res).toEqual({
      input: expect.objectContaining({
        name: 'mine',
        expired_time: -1,
        remain_quota: 500000,
        model_limits: 'a,b',
        model_limits_enabled: true,
        count: 3,
        rate_limit_period: 60,
        rate_limit_count: 1000,
        rate_limit_success: 10,
      }),
    });
    const edit = toTokenInput({ ...valid, unlimited_quota: true }, false);
    expect(edit).toEqual({ input: expect.objectContaining({ unlimited_quota: true, remain_quota: 0 }) });
    expect(edit).not.toHaveProperty('input.count');
  });
});

describe('copy selected (spec 2 §2.5)', () => {
  it('needs at least one token', () => {
    expect(validateSelection([])).toEqual({ message: validation.selectFirst });
    expect(validateSelection([{}])).toBeNull();
  });
  it('copies one name and full key per line', () => {
    expect(
      copySelectedText([
        { name: 'a', key: KEY },
        { name: 'b', key: 'xyz' },
      ]),
    ).toBe(`a\t${KEY}\nb\tsk-xyz`);
  });
});

describe('statuses (spec 2 §4.3)', () => {
  it('labels 1 enabled, 2 disabled, 3 expired, 4 exhausted', () => {
    expect(tokenStatusLabel(1).text).toBe(statuses.enabled);
    expect(tokenStatusLabel(2).text).toBe(statuses.disabled);
    expect(tokenStatusLabel(3).text).toBe(statuses.expired);
    expect(tokenStatusLabel(4).text).toBe(statuses.exhausted);
    expect(tokenStatusLabel(9).text).toBe(statuses.unknown);
  });
  it('toggles between enabled and disabled', () => {
    expect(toggledStatus(TOKEN_STATUS.enabled)).toBe(2);
    expect(toggledStatus(TOKEN_STATUS.disabled)).toBe(1);
    expect(toggledStatus(TOKEN_STATUS.exhausted)).toBe(1);
  });
  it('reads a token back into the form', () => {
    const t = {
      id: 1,
      name: 'n',
      key: KEY,
      expired_time: -1,
      remain_quota: 7,
      unlimited_quota: false,
      model_limits_enabled: true,
      model_limits: 'm1,m2',
      allow_ips: '10.0.0.1',
      group: 'vip',
      rate_limit_enabled: false,
      rate_limit_period: 60,
      rate_limit_count: 1000,
      rate_limit_success: 10,
    } as Token;
    expect(formValuesOf(t)).toMatchObject({ expiry: '', model_limits: ['m1', 'm2'], group: 'vip', remain_quota: 7 });
  });
});
