/**
 * The tokens screen's rules as pure functions: form validation and conversion (spec 2 §5.5),
 * expiry presets, status labels and toggles (§4.3) and the copy-selected text. Keys arrive
 * masked from the server; whole keys are read on demand (see `useTokenKeys`).
 */
import dayjs from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';
import type { MessageDescriptor } from 'react-intl';
import type { Problem } from '../../shared/validation';
import {
  BATCH_SUFFIX_LENGTH,
  DEFAULT_TOKEN_COUNT,
  DEFAULT_TOKEN_QUOTA,
  EXPIRY_FORMAT,
  EXPIRY_PRESETS,
  KEY_PREFIX,
  MAX_TOKEN_COUNT,
  NEVER_EXPIRES,
  TOKEN_NAME_MAX,
  TOKEN_RATE_LIMIT_DEFAULTS,
  TOKEN_STATUS,
  type ExpiryPresetKey,
} from './constants';
import { statuses, validation as m } from './messages';
import type { Token, TokenInput } from './types';

/** What the create/edit drawer holds. */
export interface TokenFormValues {
  name: string;
  /** Empty: never expires; else a date in EXPIRY_FORMAT. */
  expiry: string;
  remain_quota: number | null;
  unlimited_quota: boolean;
  /** Only on create. */
  count: number | null;
  model_limits_enabled: boolean;
  model_limits: string[];
  allow_ips: string;
  group: string;
  rate_limit_enabled: boolean;
  rate_limit_period: number | null;
  rate_limit_count: number | null;
  rate_limit_success: number | null;
}

export const INITIAL_TOKEN_FORM: TokenFormValues = {
  name: '',
  expiry: '',
  remain_quota: DEFAULT_TOKEN_QUOTA,
  unlimited_quota: false,
  count: DEFAULT_TOKEN_COUNT,
  model_limits_enabled: false,
  model_limits: [],
  allow_ips: '',
  group: '',
  rate_limit_enabled: false,
  rate_limit_period: TOKEN_RATE_LIMIT_DEFAULTS.period,
  rate_limit_count: TOKEN_RATE_LIMIT_DEFAULTS.count,
  rate_limit_success: TOKEN_RATE_LIMIT_DEFAULTS.success,
};

dayjs.extend(customParseFormat);

/** Accepted expiry texts: the full format, or without seconds, or a date alone (midnight). */
const EXPIRY_INPUT_FORMATS = [EXPIRY_FORMAT, 'YYYY-MM-DD HH:mm', 'YYYY-MM-DD'];

const problem = (message: MessageDescriptor, values?: Problem['values']): Problem => ({ message, values });

/** Epoch seconds as local date and time. */
export function formatTimestamp(seconds: number): string {
  return dayjs.unix(seconds).format(EXPIRY_FORMAT);
}

/** The expiry text of a token: empty when it never expires. */
export function formatExpiry(expiredTime: number): string {
  return expiredTime === NEVER_EXPIRES ? '' : formatTimestamp(expiredTime);
}

/** The expiry text a preset puts in the field, counted from `now` (milliseconds). */
export function expiryFromPreset(key: ExpiryPresetKey, now: number): string {
  const preset = EXPIRY_PRESETS.find((p) => p.key === key);
  if (!preset || preset.seconds === NEVER_EXPIRES) return '';
  return dayjs(now).add(preset.seconds, 'second').format(EXPIRY_FORMAT);
}

/** The expiry text as epoch seconds (-1 when empty), or the 'expiry time format error' problem. */
export function parseExpiry(text: string): { value: number } | { problem: Problem } {
  const t = text.trim();
  if (t === '') return { value: NEVER_EXPIRES };
  const d = dayjs(t, EXPIRY_INPUT_FORMATS, true);
  if (!d.isValid()) return { problem: problem(m.expiryFormat) };
  return { value: d.unix() };
}

/** Batch creation: a whole number from 1 to the server's maximum. */
export function validateBatchCount(count: number | null | undefined): Problem | null {
  return typeof count === 'number' && Number.isInteger(count) && count >= 1 && count <= MAX_TOKEN_COUNT
    ? null
    : problem(m.countInvalid, { max: MAX_TOKEN_COUNT });
}

/** The quota is a whole number ≥ 0 (not checked when unlimited). */
export function validateQuota(quota: number | null | undefined, unlimited: boolean): Problem | null {
  if (unlimited) return null;
  return typeof quota === 'number' && Number.isInteger(quota) && quota >= 0 ? null : problem(m.quotaInvalid);
}

/** The longest name a batch of `count` tokens can start from: extra names add '-' and the suffix. */
export function maxNameLength(count: number): number {
  return count > 1 ? TOKEN_NAME_MAX - BATCH_SUFFIX_LENGTH - 1 : TOKEN_NAME_MAX;
}

/** A name is required on create, and every generated name must fit the server's limit. */
export function validateTokenName(name: string, create: boolean, count: number): Problem | null {
  const n = name.trim();
  if (create && n === '') return problem(m.nameRequired);
  const max = maxNameLength(create ? count : 1);
  return [...n].length > max ? problem(m.nameTooLong, { max }) : null;
}

/** The body to send, or the first problem of the form. On create, `count` is checked and sent. */
export function toTokenInput(v: TokenFormValues, create: boolean): { input: TokenInput } | { problem: Problem } {
  const name = v.name.trim();
  const nameProblem = validateTokenName(name, create, v.count ?? DEFAULT_TOKEN_COUNT);
  if (nameProblem) return { problem: nameProblem };
  const expiry = parseExpiry(v.expiry);
  if ('problem' in expiry) return expiry;
  const quotaProblem = validateQuota(v.remain_quota, v.unlimited_quota);
  if (quotaProblem) return { problem: quotaProblem };
  if (create) {
    const countProblem = validateBatchCount(v.count);
    if (countProblem) return { problem: countProblem };
  }
  const input: TokenInput = {
    name,
    expired_time: expiry.value,
    remain_quota: v.unlimited_quota ? 0 : (v.remain_quota ?? 0),
    unlimited_quota: v.unlimited_quota,
    model_limits_enabled: v.model_limits_enabled,
    model_limits: v.model_limits.join(','),
    allow_ips: v.allow_ips,
    group: v.group,
    rate_limit_enabled: v.rate_limit_enabled,
    rate_limit_period: v.rate_limit_period ?? TOKEN_RATE_LIMIT_DEFAULTS.period,
    rate_limit_count: v.rate_limit_count ?? TOKEN_RATE_LIMIT_DEFAULTS.count,
    rate_limit_success: v.rate_limit_success ?? TOKEN_RATE_LIMIT_DEFAULTS.success,
  };
  if (create) input.count = v.count ?? DEFAULT_TOKEN_COUNT;
  return { input };
}

/** The drawer's values for an existing token. */
export function formValuesOf(t: Token): TokenFormValues {
  return {
    name: t.name,
    expiry: formatExpiry(t.expired_time),
    remain_quota: t.remain_quota,
    unlimited_quota: t.unlimited_quota,
    count: DEFAULT_TOKEN_COUNT,
    model_limits_enabled: t.model_limits_enabled,
    model_limits: t.model_limits ? t.model_limits.split(',').filter((s) => s !== '') : [],
    allow_ips: t.allow_ips,
    group: t.group,
    rate_limit_enabled: t.rate_limit_enabled,
    rate_limit_period: t.rate_limit_period,
    rate_limit_count: t.rate_limit_count,
    rate_limit_success: t.rate_limit_success,
  };
}

/** The key as copied: always with the `sk-` prefix. */
export function fullKey(key: string): string {
  return key.startsWith(KEY_PREFIX) ? key : `${KEY_PREFIX}${key}`;
}

/** Copy selected needs at least one token. */
export function validateSelection(selected: readonly unknown[]): Problem | null {
  return selected.length === 0 ? problem(m.selectFirst) : null;
}

/** The copied text of the selected tokens (with their whole keys): one `name<TAB>sk-key` line each. */
export function copySelectedText(selected: readonly Pick<Token, 'name' | 'key'>[]): string {
  return selected.map((t) => `${t.name}\t${fullKey(t.key)}`).join('\n');
}

export function tokenStatusLabel(status: number): { text: MessageDescriptor; color: string } {
  switch (status) {
    case TOKEN_STATUS.enabled:
      return { text: statuses.enabled, color: 'green' };
    case TOKEN_STATUS.disabled:
      return { text: statuses.disabled, color: 'red' };
    case TOKEN_STATUS.expired:
      return { text: statuses.expired, color: 'gold' };
    case TOKEN_STATUS.exhausted:
      return { text: statuses.exhausted, color: 'default' };
    default:
      return { text: statuses.unknown, color: 'default' };
  }
}

/** Enable/disable toggles between 1 and 2; an expired or exhausted token offers enable. */
export function toggledStatus(status: number): typeof TOKEN_STATUS.enabled | typeof TOKEN_STATUS.disabled {
  return status === TOKEN_STATUS.enabled ? TOKEN_STATUS.disabled : TOKEN_STATUS.enabled;
}
