import { describe, expect, it } from 'vitest';
import {
  ADMIN_COLUMNS,
  allColumns,
  choosableColumns,
  columnShown,
  DEFAULT_LOG_COLUMNS,
  LOG_COLUMN_KEYS,
  logColumnVisibility,
} from './prefs';

describe('log column settings (spec 3 §2.2)', () => {
  it('has the columns of the spec in order, all shown by default', () => {
    expect(LOG_COLUMN_KEYS).toEqual([
      'time',
      'channel',
      'user',
      'token',
      'group',
      'type',
      'model',
      'useTime',
      'prompt',
      'completion',
      'cost',
      'retry',
      'details',
    ]);
    expect(Object.values(DEFAULT_LOG_COLUMNS).every(Boolean)).toBe(true);
  });

  it('hides the admin-only columns from everyone else, even when stored as shown', () => {
    expect(ADMIN_COLUMNS).toEqual(['channel', 'user', 'retry']);
    expect(choosableColumns(false)).not.toContain('channel');
    expect(choosableColumns(true)).toEqual([...LOG_COLUMN_KEYS]);
    expect(columnShown(DEFAULT_LOG_COLUMNS, 'user', false)).toBe(false);
    expect(columnShown(DEFAULT_LOG_COLUMNS, 'user', true)).toBe(true);
    expect(columnShown({ ...DEFAULT_LOG_COLUMNS, model: false }, 'model', true)).toBe(false);
  });

  it('merges the stored choice over the defaults, ignoring junk', () => {
    expect(logColumnVisibility(null)).toEqual(DEFAULT_LOG_COLUMNS);
    expect(logColumnVisibility('text')).toEqual(DEFAULT_LOG_COLUMNS);
    expect(logColumnVisibility({ model: false, cost: 'no', bogus: false })).toEqual({ ...DEFAULT_LOG_COLUMNS, model: false });
  });

  it('select all turns on every column the caller may choose', () => {
    const none = Object.fromEntries(LOG_COLUMN_KEYS.map((k) => [k, false])) as typeof DEFAULT_LOG_COLUMNS;
    const user = allColumns(none, false);
    expect(user.model).toBe(true);
    expect(user.channel).toBe(false);
    expect(Object.values(allColumns(none, true)).every(Boolean)).toBe(true);
  });
});
