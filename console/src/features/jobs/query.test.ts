import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { filters as m } from './messages';
import {
  defaultDrawingFilters,
  defaultTaskFilters,
  drawingEndpoint,
  drawingParams,
  queryString,
  taskEndpoint,
  taskParams,
  validateJobFilters,
} from './query';

const NOW = dayjs('2030-05-06T14:30:15.250').valueOf();
const nowS = dayjs('2030-05-06T14:30:15').unix();

describe('default windows (spec 3 §2.3, §2.4, §9)', () => {
  it('drawing: the last 30 days up to one hour ahead', () => {
    expect(defaultDrawingFilters(NOW)).toEqual({
      channel: '',
      jobId: '',
      status: '',
      platform: '',
      start: nowS - 2592000,
      end: nowS + 3600,
    });
  });

  it('tasks: from the start of today up to one hour ahead', () => {
    expect(defaultTaskFilters(NOW)).toEqual({
      channel: '',
      jobId: '',
      status: '',
      platform: '',
      start: dayjs('2030-05-06T00:00:00').unix(),
      end: nowS + 3600,
    });
  });
});

describe('filters to query strings (spec 3 §7)', () => {
  const f = { channel: ' 7 ', jobId: ' job-1 ', status: '', platform: '', start: 1_900_000_000, end: 1_900_003_600 };

  it('drawing: mj_id, and the times in epoch milliseconds', () => {
    expect(queryString(drawingParams(f, false, 1, 100))).toBe(
      'p=1&page_size=100&mj_id=job-1&start_timestamp=1900000000000&end_timestamp=1900003600000',
    );
  });

  it('tasks: task_id, and the times in epoch seconds', () => {
    expect(queryString(taskParams(f, false, 2, 100))).toBe(
      'p=2&page_size=100&task_id=job-1&start_timestamp=1900000000&end_timestamp=1900003600',
    );
  });

  it('channel_id for admins only', () => {
    expect(drawingParams(f, true, 1, 100).channel_id).toBe(7);
    expect(taskParams(f, true, 1, 100).channel_id).toBe(7);
    expect(drawingParams(f, false, 1, 100)).not.toHaveProperty('channel_id');
    expect(taskParams({ ...f, channel: '' }, true, 1, 100)).not.toHaveProperty('channel_id');
  });

  it('drawing: status when one is chosen, never a platform', () => {
    const q = drawingParams({ ...f, status: 'SUCCESS', platform: 'suno' }, false, 1, 100);
    expect(q.status).toBe('SUCCESS');
    expect(q).not.toHaveProperty('platform');
    expect(queryString(q)).toBe(
      'p=1&page_size=100&mj_id=job-1&status=SUCCESS&start_timestamp=1900000000000&end_timestamp=1900003600000',
    );
  });

  it('tasks: status and platform when chosen', () => {
    const q = taskParams({ ...f, status: 'FAILURE', platform: 'suno' }, true, 1, 100);
    expect(q).toMatchObject({ status: 'FAILURE', platform: 'suno', channel_id: 7 });
    expect(taskParams({ ...f, platform: 'suno' }, false, 1, 100)).not.toHaveProperty('status');
    expect(taskParams({ ...f, status: 'SUCCESS' }, false, 1, 100)).not.toHaveProperty('platform');
  });

  it('leaves an empty id and status, any platform and open bounds out', () => {
    const open = { channel: '', jobId: '  ', status: '', platform: '', start: null, end: null };
    expect(drawingParams(open, true, 1, 10)).toEqual({ p: 1, page_size: 10 });
    expect(taskParams(open, true, 1, 10)).toEqual({ p: 1, page_size: 10 });
  });

  it('admins read the global endpoints, everyone else their own', () => {
    expect(drawingEndpoint(true)).toBe('mj/');
    expect(drawingEndpoint(false)).toBe('mj/self/');
    expect(taskEndpoint(true)).toBe('task/');
    expect(taskEndpoint(false)).toBe('task/self');
  });
});

describe('filter checks', () => {
  const base = defaultTaskFilters(NOW);
  it('refuses a channel id that is not a number (admins) and a reversed range', () => {
    expect(validateJobFilters(base, true)).toBeNull();
    expect(validateJobFilters({ ...base, channel: 'x' }, true)).toEqual({ message: m.channelInvalid });
    expect(validateJobFilters({ ...base, channel: 'x' }, false)).toBeNull();
    expect(validateJobFilters({ ...base, start: 10, end: 5 }, false)).toEqual({ message: m.rangeInvalid });
    expect(validateJobFilters({ ...base, start: null }, false)).toBeNull();
  });
});
