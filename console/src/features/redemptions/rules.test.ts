import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { REDEMPTION_DEFAULTS, REDEMPTION_STATUS } from './constants';
import { statuses, validation } from './messages';
import {
  canEdit,
  canEnable,
  codesFileName,
  codesText,
  INITIAL_REDEMPTION_FORM,
  isGreyed,
  normalizeMaxUses,
  redemptionName,
  redemptionStatusLabel,
  toCodeInput,
  toggledStatus,
  validateName,
  validateSelection,
  validateWindow,
} from './rules';

const usd = { quotaPerUnit: 500000, displayInCurrency: true };

describe('redemption defaults (spec 2 §9)', () => {
  it('quota 100000, count 1, max uses -1', () => {
    expect(REDEMPTION_DEFAULTS).toEqual({ quota: 100000, count: 1, maxUses: -1 });
    expect(INITIAL_REDEMPTION_FORM).toMatchObject({ quota: 100000, count: 1, max_uses: -1 });
  });
});

describe('redemption form (spec 2 §5.6)', () => {
  it('names an unnamed code after its formatted quota', () => {
    expect(redemptionName('', 100000, usd)).toBe('$0.20');
    expect(redemptionName('  ', 500000, usd)).toBe('$1.00');
    expect(redemptionName(' promo ', 500000, usd)).toBe('promo');
    expect(toCodeInput(INITIAL_REDEMPTION_FORM, true, usd)).toEqual({
      input: { name: '$0.20', quota: 100000, count: 1, is_gift: false, max_uses: -1, valid_from: 0, valid_until: 0 },
    });
  });

  it('needs the effective time earlier than the expiry time when both are set', () => {
    expect(validateWindow(0, 0)).toBeNull();
    expect(validateWindow(100, 0)).toBeNull();
    expect(validateWindow(0, 100)).toBeNull();
    expect(validateWindow(100, 200)).toBeNull();
    expect(validateWindow(200, 200)).toEqual({ message: validation.window });
    expect(validateWindow(300, 200)).toEqual({ message: validation.window });
    const later = dayjs('2030-01-02T00:00:00');
    const earlier = dayjs('2030-01-01T00:00:00');
    expect(toCodeInput({ ...INITIAL_REDEMPTION_FORM, valid_from: later, valid_until: earlier }, true, usd)).toEqual({
      problem: { message: validation.window },
    });
    expect(toCodeInput({ ...INITIAL_REDEMPTION_FORM, valid_from: earlier, valid_until: later }, true, usd)).toMatchObject({
      input: { valid_from: earlier.unix(), valid_until: later.unix() },
    });
  });

  it('reads blank or -1 max uses as unlimited', () => {
    expect(normalizeMaxUses(null)).toBe(-1);
    expect(normalizeMaxUses(undefined)).toBe(-1);
    expect(normalizeMaxUses(-1)).toBe(-1);
    expect(normalizeMaxUses(0)).toBe(-1);
    expect(normalizeMaxUses(5)).toBe(5);
  });

  it('checks quota and count; sends a custom key only on create', () => {
    expect(toCodeInput({ ...INITIAL_REDEMPTION_FORM, quota: 0 }, true, usd)).toEqual({ problem: { message: validation.quota } });
    expect(toCodeInput({ ...INITIAL_REDEMPTION_FORM, count: 0 }, true, usd)).toMatchObject({
      problem: { message: validation.count },
    });
    expect(toCodeInput({ ...INITIAL_REDEMPTION_FORM, key: ' MYCODE ' }, true, usd)).toMatchObject({ input: { key: 'MYCODE' } });
    const edit = toCodeInput({ ...INITIAL_REDEMPTION_FORM, key: 'X', count: 0 }, false, usd);
    expect(edit).not.toHaveProperty('input.key');
    expect(edit).not.toHaveProperty('input.count');
  });

  it('batch disable needs a selection; delete by name needs a name', () => {
    expect(validateSelection([])).toEqual({ message: validation.selectFirst });
    expect(validateSelection([1])).toBeNull();
    expect(validateName(' ')).toEqual({ message: validation.nameRequired });
    expect(validateName('promo')).toBeNull();
  });
});

describe('redemption statuses (spec 2 §4.4)', () => {
  it('labels 1 unused, 2 disabled, 3 used', () => {
    expect(redemptionStatusLabel(1).text).toBe(statuses.unused);
    expect(redemptionStatusLabel(2).text).toBe(statuses.disabled);
    expect(redemptionStatusLabel(3).text).toBe(statuses.used);
  });
  it('blocks enabling a used code and editing anything but an unused one', () => {
    expect(canEnable(REDEMPTION_STATUS.used)).toBe(false);
    expect(canEnable(REDEMPTION_STATUS.disabled)).toBe(true);
    expect(canEdit(REDEMPTION_STATUS.unused)).toBe(true);
    expect(canEdit(REDEMPTION_STATUS.disabled)).toBe(false);
    expect(canEdit(REDEMPTION_STATUS.used)).toBe(false);
    expect(toggledStatus(REDEMPTION_STATUS.unused)).toBe(2);
    expect(toggledStatus(REDEMPTION_STATUS.disabled)).toBe(1);
  });
  it('greys a gift code whose uses ran out (not when unlimited)', () => {
    expect(isGreyed({ is_gift: true, used_count: 3, max_uses: 3 })).toBe(true);
    expect(isGreyed({ is_gift: true, used_count: 4, max_uses: 3 })).toBe(true);
    expect(isGreyed({ is_gift: true, used_count: 2, max_uses: 3 })).toBe(false);
    expect(isGreyed({ is_gift: true, used_count: 99, max_uses: -1 })).toBe(false);
    expect(isGreyed({ is_gift: false, used_count: 1, max_uses: 1 })).toBe(false);
  });
});

describe('created codes', () => {
  it('are one per line, downloaded under a safe file name', () => {
    expect(codesText(['a', 'b'])).toBe('a\nb');
    expect(codesFileName('$0.20 promo')).toBe('redemption-codes-_0.20_promo.txt');
    expect(codesFileName('')).toBe('redemption-codes-codes.txt');
  });
});
