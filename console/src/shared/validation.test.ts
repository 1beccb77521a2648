import { describe, expect, it } from 'vitest';
import { errors, validation as m } from './messages';
import * as v from './validation';

const id = (p: v.Problem | null) => p?.message.id ?? null;

describe('login (spec 1 §5)', () => {
  it('requires username and password', () => {
    expect(id(v.validateLogin({ username: '', password: 'x' }))).toBe(m.usernamePasswordRequired.id);
    expect(id(v.validateLogin({ username: 'a', password: '' }))).toBe(m.usernamePasswordRequired.id);
    expect(id(v.validateLogin({ username: '  ', password: 'x' }))).toBe(m.usernamePasswordRequired.id);
    expect(v.validateLogin({ username: 'a', password: 'x' })).toBeNull();
  });
});

describe('register (spec 1 §5)', () => {
  it('requires username and password', () => {
    expect(id(v.validateRegister({ username: '', password: '12345678', password2: '12345678' }))).toBe(
      m.usernamePasswordRequired.id,
    );
  });
  it('needs at least 8 characters', () => {
    expect(id(v.validateRegister({ username: 'a', password: '1234567', password2: '1234567' }))).toBe(m.passwordTooShort.id);
    expect(v.validateRegister({ username: 'a', password: '12345678', password2: '12345678' })).toBeNull();
  });
  it('needs matching passwords', () => {
    expect(id(v.validateRegister({ username: 'a', password: '12345678', password2: '12345679' }))).toBe(m.passwordMismatch.id);
  });
  it('waits for the human check when enabled', () => {
    expect(id(v.validateTurnstile(true, ''))).toBe(errors.turnstileChecking.id);
    expect(v.validateTurnstile(true, 'token')).toBeNull();
    expect(v.validateTurnstile(false, '')).toBeNull();
  });
});

describe('setup (spec 3 §5)', () => {
  const ok = { rootExists: false, username: 'root', password: '12345678', confirmPassword: '12345678' };
  it('requires a non-blank username', () => {
    expect(id(v.validateSetup({ ...ok, username: '   ' }))).toBe(m.adminUsernameRequired.id);
  });
  it('requires 8 characters', () => {
    expect(id(v.validateSetup({ ...ok, password: 'short', confirmPassword: 'short' }))).toBe(m.setupPasswordTooShort.id);
  });
  it('requires the confirmation to match', () => {
    expect(id(v.validateSetup({ ...ok, confirmPassword: '87654321' }))).toBe(m.passwordMismatch.id);
  });
  it('skips the account fields when a root exists', () => {
    expect(v.validateSetup({ rootExists: true })).toBeNull();
    expect(v.validateSetup(ok)).toBeNull();
  });
});

describe('user management (spec 1 §5)', () => {
  it('add user needs username and password', () => {
    expect(id(v.validateNewUser({ username: 'a', password: '' }))).toBe(m.usernamePasswordEmpty.id);
    expect(id(v.validateNewUser({ username: '', password: 'x' }))).toBe(m.usernamePasswordEmpty.id);
    expect(v.validateNewUser({ username: 'a', password: 'x' })).toBeNull();
  });
  it('edit user password is optional but at least 8 when given', () => {
    expect(v.validateEditUserPassword('')).toBeNull();
    expect(v.validateEditUserPassword(undefined)).toBeNull();
    expect(id(v.validateEditUserPassword('1234567'))).toBe(m.passwordTooShort.id);
    expect(v.validateEditUserPassword('12345678')).toBeNull();
  });
});

describe('personal settings (spec 1 §5)', () => {
  it('self-delete needs the exact username', () => {
    expect(id(v.validateSelfDelete('alic', 'alice'))).toBe(m.deleteConfirmMismatch.id);
    expect(id(v.validateSelfDelete(undefined, 'alice'))).toBe(m.deleteConfirmMismatch.id);
    expect(v.validateSelfDelete('alice', 'alice')).toBeNull();
  });
  it('change password needs matching entries', () => {
    expect(id(v.validateChangePassword({ password: '12345678', password2: '12345670' }))).toBe(m.passwordMismatch.id);
    expect(id(v.validateChangePassword({ password: '123', password2: '123' }))).toBe(m.passwordTooShort.id);
    expect(v.validateChangePassword({ password: '12345678', password2: '12345678' })).toBeNull();
  });
  it('bind email needs email then code', () => {
    expect(id(v.validateBindEmail({ email: '', code: '1' }))).toBe(m.emailRequired.id);
    expect(id(v.validateBindEmail({ email: 'a@b.c', code: '' }))).toBe(m.codeRequired.id);
    expect(v.validateBindEmail({ email: 'a@b.c', code: '1' })).toBeNull();
    expect(id(v.validateEmailForCode(' '))).toBe(m.emailRequired.id);
  });
  it('affiliate transfer is at least one quota-per-unit', () => {
    const p = v.validateAffTransfer(499999, 500000, '$1');
    expect(id(p)).toBe(m.transferMinimum.id);
    expect(p?.values).toEqual({ min: '$1' });
    expect(v.validateAffTransfer(500000, 500000, '$1')).toBeNull();
    expect(id(v.validateAffTransfer(999, 1000, '$1'))).toBe(m.transferMinimum.id);
    expect(id(v.validateAffTransfer(NaN, 1000, '$1'))).toBe(m.transferMinimum.id);
    // a missing quota-per-unit falls back to the default 500000
    expect(id(v.validateAffTransfer(400000, undefined, '$1'))).toBe(m.transferMinimum.id);
  });
  it('webhook URL must be https', () => {
    expect(id(v.validateWebhookUrl('http://example.com/hook'))).toBe(m.webhookHttps.id);
    expect(id(v.validateWebhookUrl(''))).toBe(m.webhookHttps.id);
    expect(v.validateWebhookUrl('https://example.com/hook')).toBeNull();
  });
});

describe('system settings (spec 1 §5)', () => {
  it('payment needs the server address first', () => {
    expect(id(v.validatePayment({ serverAddress: '', topupGroupRatio: '{}', topupGroupRatioChanged: false }))).toBe(
      m.serverAddressFirst.id,
    );
  });
  it('top-up group ratio must be JSON when changed', () => {
    const base = { serverAddress: 'https://x', topupGroupRatio: '{bad', topupGroupRatioChanged: true };
    expect(id(v.validatePayment(base))).toBe(m.topupGroupRatioJson.id);
    expect(v.validatePayment({ ...base, topupGroupRatioChanged: false })).toBeNull();
    expect(v.validatePayment({ ...base, topupGroupRatio: '{"vip":1}' })).toBeNull();
  });
  it('whitelist domains match a domain pattern and are unique', () => {
    expect(id(v.validateWhitelistDomain('not a domain', []))).toBe(m.emailDomainFormat.id);
    expect(id(v.validateWhitelistDomain('@gmail.com', []))).toBe(m.emailDomainFormat.id);
    expect(id(v.validateWhitelistDomain('gmail.com', ['gmail.com']))).toBe(m.emailDomainDuplicate.id);
    expect(v.validateWhitelistDomain('mail.example.org', ['gmail.com'])).toBeNull();
  });
  it('OIDC well-known URL must be http(s)', () => {
    expect(id(v.validateWellKnownUrl('ftp://x/.well-known/openid-configuration'))).toBe(m.wellKnownUrl.id);
    expect(v.validateWellKnownUrl('https://id.example.com/.well-known/openid-configuration')).toBeNull();
    expect(v.validateWellKnownUrl('http://localhost/.well-known')).toBeNull();
  });
  it('rebate percentage is 0 to 100 when enabled', () => {
    expect(id(v.validateRebate(true, 101))).toBe(m.rebateRange.id);
    expect(id(v.validateRebate(true, -0.1))).toBe(m.rebateRange.id);
    expect(v.validateRebate(true, 0)).toBeNull();
    expect(v.validateRebate(true, 100)).toBeNull();
    expect(v.validateRebate(false, 500)).toBeNull();
  });
  it('strips trailing slashes from addresses', () => {
    expect(v.stripTrailingSlashes('https://a.example.com/')).toBe('https://a.example.com');
    expect(v.stripTrailingSlashes('https://a.example.com///')).toBe('https://a.example.com');
    expect(v.stripTrailingSlashes('https://a.example.com/x')).toBe('https://a.example.com/x');
  });
  it('sends only changed keys, flags first', () => {
    const saved = { A: '1', BEnabled: 'false', C: 'x' };
    expect(v.changedKeys(saved, { A: '1', BEnabled: 'true', C: 'y' })).toEqual(['BEnabled', 'C']);
    expect(v.changedKeys(saved, { ...saved })).toEqual([]);
    expect(v.orderForSave(['C', 'BEnabled', 'oidc.enabled'])).toEqual(['BEnabled', 'oidc.enabled', 'C']);
  });
  it('log cleanup needs a time', () => {
    expect(id(v.validateLogCleanup(null))).toBe(m.logCleanupTime.id);
    expect(v.validateLogCleanup(1700000000)).toBeNull();
  });
  it('sensitive words: one per line, regex: prefix', () => {
    expect(v.parseSensitiveWords('foo\n\n regex:^b.r$ \nbaz')).toEqual([
      { text: 'foo', regex: false },
      { text: '^b.r$', regex: true },
      { text: 'baz', regex: false },
    ]);
  });
  it('minimums: minimum top-up 1, check-in and thresholds 0', () => {
    expect(id(v.validateMinimum('MinTopUp', 0, 1))).toBe(m.minValue.id);
    expect(v.validateMinimum('MinTopUp', 1, 1)).toBeNull();
    expect(id(v.validateMinimum('CheckInQuota', -1, 0))).toBe(m.minValue.id);
    expect(v.validateMinimum('CheckInQuota', 0, 0)).toBeNull();
  });
  it('JSON settings must parse', () => {
    expect(id(v.validateJsonSetting('Chats', '[{'))).toBe(m.invalidJson.id);
    expect(v.validateJsonSetting('Chats', '[]')).toBeNull();
  });
});
