/**
 * Filters to query parameters of the drawing and task logs (spec 3 §2.3, §2.4, §7) as pure
 * functions: the default windows, the checks before a search, the parameters (drawing times
 * in epoch milliseconds, task times in epoch seconds; status, and platform for tasks, only
 * when chosen) and which endpoint a caller uses.
 */
import dayjs from 'dayjs';
import type { Problem } from '../../shared/validation';
import { parseChannelId } from '../logs/query';
import { DRAWING_WINDOW_S, END_AHEAD_S, MS_PER_SECOND } from './constants';
import { filters as m } from './messages';
import type { JobFilters, JobParams } from './types';

const nowSeconds = (nowMs: number) => Math.floor(nowMs / MS_PER_SECOND);

/** The drawing log's default filters at `nowMs`: the last 30 days up to one hour ahead. */
export function defaultDrawingFilters(nowMs: number): JobFilters {
  const now = nowSeconds(nowMs);
  return { channel: '', jobId: '', status: '', platform: '', start: now - DRAWING_WINDOW_S, end: now + END_AHEAD_S };
}

/** The task log's default filters at `nowMs`: from the start of today up to one hour ahead. */
export function defaultTaskFilters(nowMs: number): JobFilters {
  return {
    channel: '',
    jobId: '',
    status: '',
    platform: '',
    start: dayjs(nowMs).startOf('day').unix(),
    end: nowSeconds(nowMs) + END_AHEAD_S,
  };
}

/** The first problem of the filters, or null: a typed channel id must be a number (admins), the range in order. */
export function validateJobFilters(f: JobFilters, admin: boolean): Problem | null {
  if (admin && f.channel.trim() !== '' && parseChannelId(f.channel) === null) return { message: m.channelInvalid };
  if (f.start !== null && f.end !== null && f.start > f.end) return { message: m.rangeInvalid };
  return null;
}

/** The parameters of both logs; `scale` turns the form's seconds into the log's unit. */
function jobParams(f: JobFilters, admin: boolean, idKey: string, scale: number, page: number, pageSize: number): JobParams {
  const out: JobParams = { p: page, page_size: pageSize };
  const id = f.jobId.trim();
  if (id !== '') out[idKey] = id;
  if (f.status !== '') out.status = f.status;
  if (f.start !== null) out.start_timestamp = f.start * scale;
  if (f.end !== null) out.end_timestamp = f.end * scale;
  if (admin) {
    const channel = parseChannelId(f.channel);
    if (channel !== null) out.channel_id = channel;
  }
  return out;
}

/**
 * GET /api/mj/ (admin) or /api/mj/self/: `mj_id`, `status`, times in epoch milliseconds,
 * `channel_id` for admins. Drawings have no platform: the filter's platform is not sent.
 */
export function drawingParams(f: JobFilters, admin: boolean, page: number, pageSize: number): JobParams {
  return jobParams(f, admin, 'mj_id', MS_PER_SECOND, page, pageSize);
}

/** GET /api/task/ (admin) or /api/task/self: `task_id`, `status`, `platform`, times in epoch seconds, `channel_id` for admins. */
export function taskParams(f: JobFilters, admin: boolean, page: number, pageSize: number): JobParams {
  const out = jobParams(f, admin, 'task_id', 1, page, pageSize);
  if (f.platform !== '') out.platform = f.platform;
  return out;
}

/** Admins read everyone's jobs, everyone else their own. */
export function drawingEndpoint(admin: boolean): string {
  return admin ? 'mj/' : 'mj/self/';
}

export function taskEndpoint(admin: boolean): string {
  return admin ? 'task/' : 'task/self';
}

/** A query string as the endpoint receives it (for reading and tests). */
export function queryString(params: JobParams): string {
  return new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
}
