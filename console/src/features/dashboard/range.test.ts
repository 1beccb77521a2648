import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { DAY_SECONDS, GRANULARITY, HOUR_SECONDS, SELF_RANGE_DAYS } from './constants';
import { dashboard as m } from './messages';
import { dayRange, defaultGranularity, defaultPreset, floorHour, presetRange, rangeQuery, validateRange } from './range';

/** 2025-03-12 10:17:05 UTC. */
const NOW = 1741774625;

describe('range presets', () => {
  it('floors to the start of the hour', () => {
    expect(floorHour(NOW)).toBe(1741773600);
    expect(floorHour(1741773600)).toBe(1741773600);
  });

  it('covers N whole hours up to now, the current one included', () => {
    expect(presetRange('24h', NOW)).toEqual({ start: 1741773600 - 23 * HOUR_SECONDS, end: NOW });
    expect(presetRange('7d', NOW).start).toBe(1741773600 - (7 * 24 - 1) * HOUR_SECONDS);
  });

  it('keeps the 30-day preset within what the server allows for one own dashboard', () => {
    const r = presetRange('30d', NOW);
    expect(r.end - r.start).toBeLessThanOrEqual(SELF_RANGE_DAYS * DAY_SECONDS);
    expect(validateRange(r, false)).toBeNull();
    // at the last second of an hour too
    const late = presetRange('30d', floorHour(NOW) + HOUR_SECONDS - 1);
    expect(validateRange(late, false)).toBeNull();
  });

  it('turns picked days into whole local days, not past now', () => {
    const first = dayjs('2025-03-01T15:00:00').unix();
    const last = dayjs('2025-03-05T08:00:00').unix();
    const far = dayjs('2025-04-01T00:00:00').unix();
    expect(dayRange(first, last, far)).toEqual({
      start: dayjs('2025-03-01T00:00:00').unix(),
      end: dayjs('2025-03-05T23:59:59').unix(),
    });
    const today = dayjs('2025-03-05T09:30:00').unix();
    expect(dayRange(first, last, today).end).toBe(today);
  });
});

describe('range validation and query', () => {
  it('refuses an empty range and more than 30 days of own data; admins have no limit', () => {
    expect(validateRange({ start: 10, end: 5 }, true)).toEqual({ message: m.rangeEmpty });
    const long = { start: 0, end: SELF_RANGE_DAYS * DAY_SECONDS + 1 };
    expect(validateRange(long, false)).toEqual({ message: m.rangeTooLong, values: { days: 30 } });
    expect(validateRange(long, true)).toBeNull();
    expect(validateRange({ start: 0, end: SELF_RANGE_DAYS * DAY_SECONDS }, false)).toBeNull();
  });

  it('sends epoch seconds and a trimmed user name only when given', () => {
    expect(rangeQuery({ start: 1, end: 2 })).toEqual({ start_timestamp: 1, end_timestamp: 2 });
    expect(rangeQuery({ start: 1, end: 2 }, '  ')).toEqual({ start_timestamp: 1, end_timestamp: 2 });
    expect(rangeQuery({ start: 1, end: 2 }, ' bob ')).toEqual({ start_timestamp: 1, end_timestamp: 2, username: 'bob' });
  });

  it('opens with the granularity of the settings and a range to match', () => {
    expect(defaultGranularity('day')).toBe(GRANULARITY.day);
    expect(defaultGranularity('week')).toBe(GRANULARITY.week);
    expect(defaultGranularity('month')).toBe(GRANULARITY.hour);
    expect(defaultGranularity(undefined)).toBe(GRANULARITY.hour);
    expect(defaultPreset(GRANULARITY.hour)).toBe('24h');
    expect(defaultPreset(GRANULARITY.day)).toBe('7d');
    expect(defaultPreset(GRANULARITY.week)).toBe('30d');
  });
});
