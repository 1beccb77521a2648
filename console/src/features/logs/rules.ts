/**
 * Display rules of the usage log (spec 3 §2.2, §9) as pure functions: type labels, the time
 * badges, the cost text, the details summary, the billing formula and the expanded details
 * of a record.
 */
import dayjs from 'dayjs';
import type { MessageDescriptor } from 'react-intl';
import { renderQuota, type QuotaDisplay } from '../../shared/quota';
import {
  COST_DIGITS,
  FRT_GREEN_BELOW_S,
  FRT_ORANGE_BELOW_S,
  LOG_TIME_FORMAT,
  LOG_TYPE,
  LONG_TEXT_CHARS,
  MS_PER_SECOND,
  USE_TIME_GREEN_BELOW_S,
  USE_TIME_ORANGE_BELOW_S,
} from './constants';
import { columns as cm, details as dm, types } from './messages';
import { isFixedPrice, mappedModel, retryCount, type LogOther } from './other';
import type { LogRecord } from './types';

export type BadgeColor = 'green' | 'orange' | 'red';

/** A text to show: either literal, or a message with its values. */
export type Shown = { text: string } | { message: MessageDescriptor; values?: Record<string, string | number> };

export function logTypeLabel(type: number): { text: MessageDescriptor; color: string } {
  switch (type) {
    case LOG_TYPE.topUp:
      return { text: types.topUp, color: 'cyan' };
    case LOG_TYPE.consume:
      return { text: types.consume, color: 'green' };
    case LOG_TYPE.manage:
      return { text: types.manage, color: 'orange' };
    case LOG_TYPE.system:
      return { text: types.system, color: 'purple' };
    case LOG_TYPE.checkIn:
      return { text: types.checkIn, color: 'blue' };
    case LOG_TYPE.error:
      return { text: types.error, color: 'red' };
    default:
      return { text: types.unknown, color: 'default' };
  }
}

/** The selector's label of a type (0 is "all"). */
export function typeOptionLabel(type: number): MessageDescriptor {
  return type === LOG_TYPE.all ? types.all : logTypeLabel(type).text;
}

/** Relay records (consume, failed) carry tokens, times and a model; the others are account events. */
export function isRelayRecord(type: number): boolean {
  return type === LOG_TYPE.consume || type === LOG_TYPE.error;
}

/** Time to complete: green below 101 s, orange below 300 s, red otherwise. */
export function durationColor(seconds: number): BadgeColor {
  if (seconds < USE_TIME_GREEN_BELOW_S) return 'green';
  if (seconds < USE_TIME_ORANGE_BELOW_S) return 'orange';
  return 'red';
}

/** First-token time in seconds (the record keeps milliseconds), one decimal. */
export function frtSeconds(ms: number): number {
  return Math.round((ms / MS_PER_SECOND) * 10) / 10;
}

/** First token: green below 3 s, orange below 10 s, red otherwise (on the unrounded value). */
export function frtColor(ms: number): BadgeColor {
  const s = ms / MS_PER_SECOND;
  if (s < FRT_GREEN_BELOW_S) return 'green';
  if (s < FRT_ORANGE_BELOW_S) return 'orange';
  return 'red';
}

export function formatLogTime(seconds: number): string {
  return dayjs.unix(seconds).format(LOG_TIME_FORMAT);
}

/** The cost column: quota as the settings say, with 6 decimals in currency mode. */
export function costText(quota: number, display: QuotaDisplay): string {
  return renderQuota(quota, display, COST_DIGITS);
}

/** The summary strip's quota: 6 decimals below one unit of currency (small totals stay visible), else 2. */
export function summaryQuotaText(quota: number, display: QuotaDisplay): string {
  return renderQuota(quota, display, Math.abs(quota) < display.quotaPerUnit ? COST_DIGITS : 2);
}

/** A ratio or price without float noise (0.1 + 0.2 shows as 0.3). */
export function formatRatio(n: number): string {
  return String(parseFloat(n.toPrecision(12)));
}

/** The channels tried, in order: "3 → 5". Empty when the record has no list (non-admins). */
export function channelsTriedText(o: LogOther): string {
  return (o.useChannel ?? []).join(' → ');
}

/** The details column: the ratios of a priced call, else the record's own text. */
export function detailSummary(log: LogRecord, o: LogOther): Shown {
  if (log.type === LOG_TYPE.consume) {
    if (isFixedPrice(o)) {
      return { message: cm.fixedPrice, values: { price: formatRatio(o.modelPrice ?? 0), group: formatRatio(o.groupRatio ?? 1) } };
    }
    if (o.modelRatio !== undefined) {
      return {
        message: cm.ratios,
        values: {
          model: formatRatio(o.modelRatio),
          completion: formatRatio(o.completionRatio ?? 1),
          group: formatRatio(o.groupRatio ?? 1),
        },
      };
    }
  }
  return { text: log.content };
}

/**
 * How the quota of a consume record came about, in numbers (no words, so one text serves
 * both languages): `(prompt + cached × cache ratio + written × creation ratio + completion ×
 * completion ratio) × model ratio × group ratio = quota`, or `$price × group ratio = $cost`.
 * Null when the record carries no price.
 */
export function billingFormula(log: LogRecord, o: LogOther): string | null {
  if (isFixedPrice(o)) {
    const price = o.modelPrice ?? 0;
    const group = o.groupRatio ?? 1;
    return `$${formatRatio(price)} × ${formatRatio(group)} = $${formatRatio(price * group)}`;
  }
  if (o.modelRatio === undefined) return null;
  const prompt = Math.max(0, log.prompt_tokens);
  const cached = Math.min(Math.max(0, o.cacheTokens ?? 0), prompt);
  const written = Math.min(Math.max(0, o.cacheCreationTokens ?? 0), prompt - cached);
  const terms = [String(prompt - cached - written)];
  if (cached > 0) terms.push(`${cached} × ${formatRatio(o.cacheRatio ?? 1)}`);
  if (written > 0) terms.push(`${written} × ${formatRatio(o.cacheCreationRatio ?? 1)}`);
  terms.push(`${log.completion_tokens} × ${formatRatio(o.completionRatio ?? 1)}`);
  return `(${terms.join(' + ')}) × ${formatRatio(o.modelRatio)} × ${formatRatio(o.groupRatio ?? 1)} = ${log.quota}`;
}

export type DetailKey = Exclude<
  keyof typeof dm,
  'title' | 'more' | 'billingRatioHint' | 'billingFixedHint' | 'localCountValue' | 'clientGoneValue'
>;

/** One line of the expanded details: its label, its value, whether it is long text (collapsible). */
export interface DetailItem {
  key: DetailKey;
  value: Shown;
  /** A hint under the value (the billing legend). */
  hint?: MessageDescriptor;
  long?: boolean;
}

const seconds = (s: number): Shown => ({ message: cm.seconds, values: { seconds: s } });
const literal = (text: string | number): Shown => ({ text: String(text) });

/**
 * The expanded details of a record, in display order, leaving out what it does not carry.
 * Channel data is for admins only (the self endpoints send none anyway).
 */
export function logDetails(log: LogRecord, o: LogOther, admin: boolean): DetailItem[] {
  const out: DetailItem[] = [];
  const add = (key: DetailKey, value: Shown | undefined | null, extra: Partial<DetailItem> = {}) => {
    if (value) out.push({ key, value, ...extra });
  };
  const lit = (v: string | number | undefined) => (v === undefined || v === '' ? undefined : literal(v));
  const ratio = (v: number | undefined) => (v === undefined ? undefined : literal(formatRatio(v)));
  const count = (v: number | undefined) => (v === undefined || v <= 0 ? undefined : literal(v));
  const longText = (key: DetailKey, v: string | undefined) =>
    add(key, lit(v), { long: v !== undefined && v.length > LONG_TEXT_CHARS });

  add('requestId', lit(log.request_id));
  longText('content', log.content);
  if (admin && log.channel > 0)
    add('channel', literal(log.channel_name ? `#${log.channel} ${log.channel_name}` : `#${log.channel}`));
  if (admin && o.useChannel) {
    add('channelsTried', literal(channelsTriedText(o)));
    add('retries', literal(retryCount(o)));
  }
  add('endpoint', lit(o.requestPath));
  if (o.conversion) add('conversion', literal(`${o.conversion.client} → ${o.conversion.provider}`));
  if (isRelayRecord(log.type)) {
    add('mode', { message: log.is_stream ? cm.stream : cm.nonStream });
    add('useTime', seconds(log.use_time));
  }
  if (o.frt !== undefined) add('frt', seconds(frtSeconds(o.frt)));
  const upstream = mappedModel(o, log.model_name);
  if (upstream) {
    add('requestedModel', literal(log.model_name));
    add('actualModel', literal(upstream));
  }
  if (isFixedPrice(o)) add('modelPrice', literal(`$${formatRatio(o.modelPrice ?? 0)}`));
  else add('modelRatio', ratio(o.modelRatio));
  if (!isFixedPrice(o)) add('completionRatio', ratio(o.completionRatio));
  add('groupRatio', ratio(o.groupRatio));
  add('userGroupRatio', ratio(o.userGroupRatio));
  add('cacheTokens', count(o.cacheTokens));
  if (o.cacheTokens) add('cacheRatio', ratio(o.cacheRatio));
  add('cacheCreationTokens', count(o.cacheCreationTokens));
  if (o.cacheCreationTokens) add('cacheCreationRatio', ratio(o.cacheCreationRatio));
  add('audioInput', count(o.audioInput));
  add('audioOutput', count(o.audioOutput));
  add('textInput', count(o.textInput));
  add('textOutput', count(o.textOutput));
  if (log.type === LOG_TYPE.consume) {
    const formula = billingFormula(log, o);
    if (formula) add('billing', literal(formula), { hint: isFixedPrice(o) ? dm.billingFixedHint : dm.billingRatioHint });
  }
  add('reasoningEffort', lit(o.reasoningEffort));
  if (o.localCountTokens) add('localCount', { message: dm.localCountValue });
  if (o.clientDisconnected) add('clientGone', { message: dm.clientGoneValue });
  add('errorCode', lit(o.errorCode));
  longText('systemPrompt', o.systemPrompt);
  longText('context', o.context);
  longText('inputContent', o.inputContent);
  longText('outputContent', o.outputContent);
  return out;
}
