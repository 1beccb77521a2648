import { describe, expect, it } from 'vitest';
import { visibleModels } from './modelTags';
import { INITIAL_USER_SETTING, parseUserSetting } from './userSetting';

describe('user setting defaults', () => {
  it('uses the initial state for an empty or invalid setting', () => {
    expect(parseUserSetting('')).toEqual(INITIAL_USER_SETTING);
    expect(parseUserSetting('{bad')).toEqual(INITIAL_USER_SETTING);
    expect(INITIAL_USER_SETTING.quota_warning_threshold).toBe(100000);
    expect(INITIAL_USER_SETTING.notify_type).toBe('email');
  });
  it('falls back to 500000 when a saved setting lacks the threshold', () => {
    expect(parseUserSetting('{"notify_type":"webhook"}')).toMatchObject({
      notify_type: 'webhook',
      quota_warning_threshold: 500000,
    });
    expect(parseUserSetting('{"quota_warning_threshold":1000000}').quota_warning_threshold).toBe(1000000);
  });
});

describe('model tags', () => {
  const models = Array.from({ length: 12 }, (_, i) => `m${i}`);
  it('collapse after 10', () => {
    expect(visibleModels(models, false)).toEqual({ shown: models.slice(0, 10), hidden: 2 });
    expect(visibleModels(models, true)).toEqual({ shown: models, hidden: 0 });
    expect(visibleModels(models.slice(0, 10), false).hidden).toBe(0);
  });
});
