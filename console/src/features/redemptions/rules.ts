/**
 * The redemption screen's rules as pure functions (spec 2 §4.4, §5.6): the form's checks and
 * body, status labels, which actions a code allows, greyed gift codes, and the codes as text.
 */
import dayjs, { type Dayjs } from 'dayjs';
import type { MessageDescriptor } from 'react-intl';
import { renderQuota, type QuotaDisplay } from '../../shared/quota';
import type { Problem } from '../../shared/validation';
import {
  MAX_REDEMPTION_COUNT,
  NO_TIME_BOUND,
  REDEMPTION_DEFAULTS,
  REDEMPTION_STATUS,
  REDEMPTION_TIME_FORMAT,
  UNLIMITED_USES,
} from './constants';
import { statuses, validation as m } from './messages';
import type { CodeInput, Redemption } from './types';

export interface RedemptionFormValues {
  name: string;
  quota: number | null;
  /** Only on create. */
  count: number | null;
  /** Only on create: a custom code instead of a random one. */
  key: string;
  is_gift: boolean;
  /** Blank or -1: unlimited. */
  max_uses: number | null;
  valid_from: Dayjs | null;
  valid_until: Dayjs | null;
}

export const INITIAL_REDEMPTION_FORM: RedemptionFormValues = {
  name: '',
  quota: REDEMPTION_DEFAULTS.quota,
  count: REDEMPTION_DEFAULTS.count,
  key: '',
  is_gift: false,
  max_uses: REDEMPTION_DEFAULTS.maxUses,
  valid_from: null,
  valid_until: null,
};

const problem = (message: MessageDescriptor, values?: Problem['values']): Problem => ({ message, values });

/** An empty name becomes the formatted quota (e.g. '$0.20'). */
export function redemptionName(name: string, quota: number, display: QuotaDisplay): string {
  const n = name.trim();
  return n === '' ? renderQuota(quota, display) : n;
}

/** When both bounds are set, the effective time comes before the expiry time. */
export function validateWindow(validFrom: number, validUntil: number): Problem | null {
  if (validFrom === NO_TIME_BOUND || validUntil === NO_TIME_BOUND) return null;
  return validFrom < validUntil ? null : problem(m.window);
}

/** Blank or -1 (or 0) mean unlimited: -1. */
export function normalizeMaxUses(maxUses: number | null | undefined): number {
  return typeof maxUses === 'number' && maxUses > 0 ? Math.trunc(maxUses) : UNLIMITED_USES;
}

const epoch = (d: Dayjs | null | undefined): number => (d ? d.unix() : NO_TIME_BOUND);

/** The body to send, or the form's first problem. */
export function toCodeInput(
  v: RedemptionFormValues,
  create: boolean,
  display: QuotaDisplay,
): { input: CodeInput } | { problem: Problem } {
  const quota = v.quota;
  if (typeof quota !== 'number' || !Number.isInteger(quota) || quota <= 0) return { problem: problem(m.quota) };
  if (create) {
    const c = v.count;
    if (typeof c !== 'number' || !Number.isInteger(c) || c < 1 || c > MAX_REDEMPTION_COUNT) {
      return { problem: problem(m.count, { max: MAX_REDEMPTION_COUNT }) };
    }
  }
  const validFrom = epoch(v.valid_from);
  const validUntil = epoch(v.valid_until);
  const windowProblem = validateWindow(validFrom, validUntil);
  if (windowProblem) return { problem: windowProblem };
  const input: CodeInput = {
    name: redemptionName(v.name, quota, display),
    quota,
    is_gift: v.is_gift,
    max_uses: normalizeMaxUses(v.max_uses),
    valid_from: validFrom,
    valid_until: validUntil,
  };
  if (create) {
    input.count = v.count ?? REDEMPTION_DEFAULTS.count;
    if (v.key.trim() !== '') input.key = v.key.trim();
  }
  return { input };
}

export function formValuesOf(r: Redemption): RedemptionFormValues {
  return {
    name: r.name,
    quota: r.quota,
    count: REDEMPTION_DEFAULTS.count,
    key: '',
    is_gift: r.is_gift,
    max_uses: r.max_uses,
    valid_from: r.valid_from ? dayjs.unix(r.valid_from) : null,
    valid_until: r.valid_until ? dayjs.unix(r.valid_until) : null,
  };
}

export function redemptionStatusLabel(status: number): { text: MessageDescriptor; color: string } {
  switch (status) {
    case REDEMPTION_STATUS.unused:
      return { text: statuses.unused, color: 'green' };
    case REDEMPTION_STATUS.disabled:
      return { text: statuses.disabled, color: 'red' };
    case REDEMPTION_STATUS.used:
      return { text: statuses.used, color: 'default' };
    default:
      return { text: statuses.unknown, color: 'default' };
  }
}

/** Enabling is blocked once a code is used. */
export function canEnable(status: number): boolean {
  return status !== REDEMPTION_STATUS.used;
}

/** Only unused codes can be edited. */
export function canEdit(status: number): boolean {
  return status === REDEMPTION_STATUS.unused;
}

/** The status an enable/disable click sets. */
export function toggledStatus(status: number): number {
  return status === REDEMPTION_STATUS.unused ? REDEMPTION_STATUS.disabled : REDEMPTION_STATUS.unused;
}

/** A gift code whose uses have run out is shown greyed. */
export function isGreyed(r: Pick<Redemption, 'is_gift' | 'used_count' | 'max_uses'>): boolean {
  return r.is_gift && r.max_uses !== UNLIMITED_USES && r.used_count >= r.max_uses;
}

/** Batch disable needs at least one selected code. */
export function validateSelection(ids: readonly unknown[]): Problem | null {
  return ids.length === 0 ? problem(m.selectFirst) : null;
}

/** Delete by name needs a name. */
export function validateName(name: string): Problem | null {
  return name.trim() === '' ? problem(m.nameRequired) : null;
}

/** Created codes as copied or downloaded: one per line. */
export function codesText(keys: readonly string[]): string {
  return keys.join('\n');
}

/** The file name of downloaded codes. */
export function codesFileName(name: string): string {
  const safe = name.trim().replace(/[^\w.-]+/g, '_') || 'codes';
  return `redemption-codes-${safe}.txt`;
}

export function formatTime(seconds: number): string {
  return dayjs.unix(seconds).format(REDEMPTION_TIME_FORMAT);
}
