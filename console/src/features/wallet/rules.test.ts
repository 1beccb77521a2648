import { describe, expect, it } from 'vitest';
import { PAYMENT_METHOD } from './constants';
import { errors } from './messages';
import {
  floorAmount,
  payableOf,
  paymentForm,
  validateOnlineTopUp,
  validateRedeemCode,
  validateTopUpAmount,
  validateTopUpLink,
} from './rules';

describe('redeem (spec 2 §5.6)', () => {
  it('needs a code', () => {
    expect(validateRedeemCode('  ')).toEqual({ message: errors.codeRequired });
    expect(validateRedeemCode('ABC')).toBeNull();
  });
});

describe('top-up amount (spec 2 §5.7)', () => {
  it('is floored at 1', () => {
    expect(floorAmount(0)).toBe(1);
    expect(floorAmount(-5)).toBe(1);
    expect(floorAmount(null)).toBe(1);
    expect(floorAmount('abc')).toBe(1);
    expect(floorAmount(7.9)).toBe(7);
    expect(floorAmount('12')).toBe(12);
  });
  it('cannot be below min_topup', () => {
    expect(validateTopUpAmount(4, 5)).toEqual({ message: errors.amountTooSmall, values: { min: 5 } });
    expect(validateTopUpAmount(5, 5)).toBeNull();
    expect(validateTopUpAmount(1, undefined)).toBeNull();
    expect(validateTopUpAmount(1, 0)).toBeNull();
  });
  it('shows 0 to pay after a failed quote', () => {
    expect(payableOf(undefined)).toBe('0');
    expect(payableOf('7.30')).toBe('7.30');
  });
});

describe('wallet messages (spec 2 §8)', () => {
  it('needs a top-up link and online top-up switched on', () => {
    expect(validateTopUpLink('')).toEqual({ message: errors.noTopUpLink });
    expect(validateTopUpLink(undefined)).toEqual({ message: errors.noTopUpLink });
    expect(validateTopUpLink('https://shop.example')).toBeNull();
    expect(validateOnlineTopUp(false)).toEqual({ message: errors.onlineDisabled });
    expect(validateOnlineTopUp(undefined)).toEqual({ message: errors.onlineDisabled });
    expect(validateOnlineTopUp(true)).toBeNull();
  });
  it('pays by zfb or wx', () => {
    expect(Object.values(PAYMENT_METHOD)).toEqual(['zfb', 'wx']);
  });
});

describe('payment form (spec 2 §4.6)', () => {
  it('posts every returned field to the returned url', () => {
    const form = paymentForm(document, 'https://pay.example/submit.php', { pid: '1', money: '7.30', sign: 'abc' });
    expect(form.method).toBe('post');
    expect(form.action).toBe('https://pay.example/submit.php');
    const fields = Object.fromEntries([...form.querySelectorAll('input')].map((i) => [i.name, i.value]));
    expect(fields).toEqual({ pid: '1', money: '7.30', sign: 'abc' });
    expect([...form.querySelectorAll('input')].every((i) => i.type === 'hidden')).toBe(true);
  });
});
