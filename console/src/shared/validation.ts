/**
 * Every client-side validation rule of spec 1 §5 and spec 3 §5 as a pure function.
 * A rule answers null when the input is fine, or the problem to show.
 */
import type { MessageDescriptor } from 'react-intl';
import { MIN_PASSWORD_LENGTH } from './constants';
import { effectiveQuotaPerUnit } from './quota';
import { errors, validation as m } from './messages';

export interface Problem {
  message: MessageDescriptor;
  values?: Record<string, string | number>;
}

const problem = (message: MessageDescriptor, values?: Problem['values']): Problem => ({ message, values });
const blank = (s: string | undefined | null) => !s || s.trim() === '';

export function validateLogin(v: { username?: string; password?: string }): Problem | null {
  return blank(v.username) || !v.password ? problem(m.usernamePasswordRequired) : null;
}

export function validateRegister(v: { username?: string; password?: string; password2?: string }): Problem | null {
  if (blank(v.username) || !v.password) return problem(m.usernamePasswordRequired);
  if (v.password.length < MIN_PASSWORD_LENGTH) return problem(m.passwordTooShort);
  if (v.password !== v.password2) return problem(m.passwordMismatch);
  return null;
}

/** Registration, login and reset wait for the human check when it is enabled. */
export function validateTurnstile(enabled: boolean, token: string | undefined): Problem | null {
  return enabled && blank(token) ? problem(errors.turnstileChecking) : null;
}

export function validateSetup(v: {
  rootExists: boolean;
  username?: string;
  password?: string;
  confirmPassword?: string;
}): Problem | null {
  if (v.rootExists) return null;
  if (blank(v.username)) return problem(m.adminUsernameRequired);
  if (!v.password || v.password.length < MIN_PASSWORD_LENGTH) return problem(m.setupPasswordTooShort);
  if (v.password !== v.confirmPassword) return problem(m.passwordMismatch);
  return null;
}

export function validateNewUser(v: { username?: string; password?: string }): Problem | null {
  return blank(v.username) || blank(v.password) ? problem(m.usernamePasswordEmpty) : null;
}

/** Edit user: the password is optional; when given it has at least 8 characters. */
export function validateEditUserPassword(password: string | undefined): Problem | null {
  return password && password.length < MIN_PASSWORD_LENGTH ? problem(m.passwordTooShort) : null;
}

export function validateSelfDelete(typed: string | undefined, username: string): Problem | null {
  return typed !== username ? problem(m.deleteConfirmMismatch) : null;
}

export function validateChangePassword(v: { originalPassword?: string; password?: string; password2?: string }): Problem | null {
  if (!v.password || v.password.length < MIN_PASSWORD_LENGTH) return problem(m.passwordTooShort);
  if (v.password !== v.password2) return problem(m.passwordMismatch);
  return null;
}

export function validateBindEmail(v: { email?: string; code?: string }): Problem | null {
  if (blank(v.email)) return problem(m.emailRequired);
  if (blank(v.code)) return problem(m.codeRequired);
  return null;
}

export function validateEmailForCode(email: string | undefined): Problem | null {
  return blank(email) ? problem(m.emailRequired) : null;
}

/** The affiliate transfer amount (in quota) is at least one quota-per-unit. */
export function validateAffTransfer(quota: number, quotaPerUnit: unknown, minText: string): Problem | null {
  return !Number.isFinite(quota) || quota < effectiveQuotaPerUnit(quotaPerUnit)
    ? problem(m.transferMinimum, { min: minText })
    : null;
}

export function validateWebhookUrl(url: string | undefined): Problem | null {
  return !url || !url.startsWith('https://') ? problem(m.webhookHttps) : null;
}

export function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function validateJsonSetting(name: string, text: string): Problem | null {
  return isValidJson(text) ? null : problem(m.invalidJson, { name });
}

/** Payment: ServerAddress first; TopupGroupRatio valid JSON when it changed. */
export function validatePayment(v: {
  serverAddress: string;
  topupGroupRatio: string;
  topupGroupRatioChanged: boolean;
}): Problem | null {
  if (blank(v.serverAddress)) return problem(m.serverAddressFirst);
  if (v.topupGroupRatioChanged && !isValidJson(v.topupGroupRatio)) return problem(m.topupGroupRatioJson);
  return null;
}

const DOMAIN_PATTERN = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,}$/;

export function validateWhitelistDomain(domain: string, existing: readonly string[]): Problem | null {
  const d = domain.trim();
  if (!DOMAIN_PATTERN.test(d)) return problem(m.emailDomainFormat);
  if (existing.includes(d)) return problem(m.emailDomainDuplicate);
  return null;
}

export function validateWellKnownUrl(url: string): Problem | null {
  return url.startsWith('http://') || url.startsWith('https://') ? null : problem(m.wellKnownUrl);
}

export function validateRebate(enabled: boolean, percentage: number): Problem | null {
  if (!enabled) return null;
  return Number.isFinite(percentage) && percentage >= 0 && percentage <= 100 ? null : problem(m.rebateRange);
}

export function validateLogCleanup(timestamp: number | null | undefined): Problem | null {
  return timestamp ? null : problem(m.logCleanupTime);
}

export function validateMinimum(name: string, value: number, min: number): Problem | null {
  return Number.isFinite(value) && value >= min ? null : problem(m.minValue, { name, min });
}

/** Trailing slashes are stripped from server, worker, pay and messaging-app addresses. */
export function stripTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

export interface SensitiveWord {
  text: string;
  regex: boolean;
}

/** One word per line; the prefix `regex:` marks a regular expression. */
export function parseSensitiveWords(text: string): SensitiveWord[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => (l.startsWith('regex:') ? { text: l.slice('regex:'.length), regex: true } : { text: l, regex: false }));
}

/** The keys whose value differs from the saved one; only those are sent. */
export function changedKeys(saved: Record<string, string>, edited: Record<string, string>): string[] {
  return Object.keys(edited).filter((k) => (saved[k] ?? '') !== edited[k]);
}

/** Enabled flags are saved one by one before the other keys (spec 1 §4). */
export function orderForSave(keys: readonly string[]): string[] {
  const isFlag = (k: string) => /enabled$/i.test(k);
  return [...keys.filter(isFlag), ...keys.filter((k) => !isFlag(k))];
}
