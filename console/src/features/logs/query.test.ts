import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { LOG_TYPE } from './constants';
import { filters as m } from './messages';
import { defaultFilters, listParams, logEndpoints, logParams, parseChannelId, validateFilters } from './query';

const NOW = dayjs('2030-05-06T14:30:15').valueOf();
const base = defaultFilters(NOW);

describe('default filters (spec 3 §2.2)', () => {
  it('run from the start of today to one hour after now, all types, nothing else', () => {
    expect(base.start).toBe(dayjs('2030-05-06T00:00:00').unix());
    expect(base.end).toBe(dayjs('2030-05-06T15:30:15').unix());
    expect(base).toMatchObject({ tokenName: '', modelName: '', group: '', requestId: '', channel: '', username: '', type: 0 });
  });
});

describe('filters to query parameters (spec 3 §7)', () => {
  it('sends the range in epoch seconds and the type, and leaves empty texts out', () => {
    expect(logParams(base, false)).toEqual({ type: 0, start_timestamp: base.start, end_timestamp: base.end });
  });

  it('trims texts and maps every filter to its parameter', () => {
    const f = {
      ...base,
      tokenName: ' my-token ',
      modelName: 'gpt-4o',
      group: 'vip',
      requestId: ' 2030abc ',
      username: ' alice ',
      channel: ' 7 ',
      type: LOG_TYPE.consume,
    };
    expect(logParams(f, true)).toEqual({
      type: 2,
      token_name: 'my-token',
      model_name: 'gpt-4o',
      group: 'vip',
      request_id: '2030abc',
      start_timestamp: base.start,
      end_timestamp: base.end,
      username: 'alice',
      channel: 7,
    });
  });

  it('never sends user name or channel for a non-admin', () => {
    const p = logParams({ ...base, username: 'alice', channel: '7' }, false);
    expect(p).not.toHaveProperty('username');
    expect(p).not.toHaveProperty('channel');
  });

  it('leaves an open bound out', () => {
    const p = logParams({ ...base, start: null, end: null }, false);
    expect(p).not.toHaveProperty('start_timestamp');
    expect(p).not.toHaveProperty('end_timestamp');
  });

  it('adds the server-side page and page size to the list call only', () => {
    expect(listParams(base, false, 3, 50)).toEqual({ ...logParams(base, false), p: 3, page_size: 50 });
    expect(logParams(base, false)).not.toHaveProperty('p');
  });

  it('uses the global endpoints for admins and the own ones for everyone else', () => {
    expect(logEndpoints(true)).toEqual({ list: 'log/', stat: 'log/stat' });
    expect(logEndpoints(false)).toEqual({ list: 'log/self/', stat: 'log/self/stat' });
  });
});

describe('filter checks', () => {
  it('reads a channel id as a positive whole number', () => {
    expect(parseChannelId(' 12 ')).toBe(12);
    for (const bad of ['', '0', '-1', '1.5', 'abc', '7a']) expect(parseChannelId(bad)).toBeNull();
  });

  it('refuses a channel id that is not a number (admins), and a reversed range', () => {
    expect(validateFilters(base, true)).toBeNull();
    expect(validateFilters({ ...base, channel: 'abc' }, true)).toEqual({ message: m.channelInvalid });
    // non-admins have no channel field: whatever it holds is ignored
    expect(validateFilters({ ...base, channel: 'abc' }, false)).toBeNull();
    expect(validateFilters({ ...base, start: 10, end: 5 }, false)).toEqual({ message: m.rangeInvalid });
    expect(validateFilters({ ...base, start: 10, end: null }, false)).toBeNull();
  });
});
