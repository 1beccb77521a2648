import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { connectedCount, formatTime, isLagging, isNegativeQuota, relativeAge } from './rules';

const NOW = 1_700_000_000;
const nowMs = NOW * 1000 + 400;

describe('gateway rules', () => {
  it('formats epoch seconds as a local date-time, 0 as a dash', () => {
    expect(formatTime(NOW)).toBe(dayjs.unix(NOW).format('YYYY-MM-DD HH:mm:ss'));
    expect(formatTime(0)).toBe('-');
  });

  it('gives the age in the largest whole unit, never in the future', () => {
    expect(relativeAge(NOW - 5, nowMs)).toEqual({ value: -5, unit: 'second' });
    expect(relativeAge(NOW - 59, nowMs)).toEqual({ value: -59, unit: 'second' });
    expect(relativeAge(NOW - 60, nowMs)).toEqual({ value: -1, unit: 'minute' });
    expect(relativeAge(NOW - 2 * 3600 - 5, nowMs)).toEqual({ value: -2, unit: 'hour' });
    expect(relativeAge(NOW - 3 * 86400, nowMs)).toEqual({ value: -3, unit: 'day' });
    expect(relativeAge(NOW + 30, nowMs)).toEqual({ value: 0, unit: 'second' });
  });

  it('warns about lag only for a connected gateway', () => {
    expect(isLagging({ connected: true, lag: 2 })).toBe(true);
    expect(isLagging({ connected: true, lag: 0 })).toBe(false);
    expect(isLagging({ connected: false, lag: 2 })).toBe(false);
  });

  it('flags negative quotas and counts connected gateways', () => {
    expect(isNegativeQuota(-1)).toBe(true);
    expect(isNegativeQuota(0)).toBe(false);
    expect(connectedCount([{ connected: true }, { connected: false }, { connected: true }])).toBe(2);
  });
});
