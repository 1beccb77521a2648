/**
 * Filters to query parameters (spec 3 §2.2, §6, §7) as pure functions: the default range,
 * the checks before a search, the parameters of the list and stat calls, and which endpoint
 * a caller uses (admins the global ones, everyone else their own).
 */
import dayjs from 'dayjs';
import type { Problem } from '../../shared/validation';
import { DEFAULT_END_AHEAD_S, LOG_TYPE } from './constants';
import { filters as m } from './messages';
import type { LogFilters, LogParams } from './types';

/** The default filters at `nowMs`: from the start of today up to one hour ahead, all types. */
export function defaultFilters(nowMs: number): LogFilters {
  return {
    start: dayjs(nowMs).startOf('day').unix(),
    end: dayjs(nowMs).unix() + DEFAULT_END_AHEAD_S,
    tokenName: '',
    modelName: '',
    group: '',
    requestId: '',
    channel: '',
    username: '',
    type: LOG_TYPE.all,
  };
}

/** A channel id as typed: a positive whole number, or null (empty is "any channel", not an error). */
export function parseChannelId(text: string): number | null {
  const t = text.trim();
  return /^\d+$/.test(t) && Number(t) > 0 ? Number(t) : null;
}

/** The first problem of the filters, or null: a typed channel id must be a number, the range in order. */
export function validateFilters(f: LogFilters, admin: boolean): Problem | null {
  if (admin && f.channel.trim() !== '' && parseChannelId(f.channel) === null) return { message: m.channelInvalid };
  if (f.start !== null && f.end !== null && f.start > f.end) return { message: m.rangeInvalid };
  return null;
}

/**
 * The parameters shared by the list and the stat call: trimmed non-empty texts, the range in
 * epoch seconds, the type (0: all). Username and channel only for admins (the self endpoints
 * ignore them anyway).
 */
export function logParams(f: LogFilters, admin: boolean): LogParams {
  const out: LogParams = { type: f.type };
  const text = (key: string, v: string) => {
    const t = v.trim();
    if (t !== '') out[key] = t;
  };
  text('token_name', f.tokenName);
  text('model_name', f.modelName);
  text('group', f.group);
  text('request_id', f.requestId);
  if (f.start !== null) out.start_timestamp = f.start;
  if (f.end !== null) out.end_timestamp = f.end;
  if (admin) {
    text('username', f.username);
    const channel = parseChannelId(f.channel);
    if (channel !== null) out.channel = channel;
  }
  return out;
}

/** The list call's parameters: the filters plus the server-side page (1-based) and page size. */
export function listParams(f: LogFilters, admin: boolean, page: number, pageSize: number): LogParams {
  return { ...logParams(f, admin), p: page, page_size: pageSize };
}

/** Admins read every user's records, everyone else their own. */
export function logEndpoints(admin: boolean): { list: string; stat: string } {
  return admin ? { list: 'log/', stat: 'log/stat' } : { list: 'log/self/', stat: 'log/self/stat' };
}
