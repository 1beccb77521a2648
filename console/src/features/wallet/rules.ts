/**
 * The wallet's rules as pure functions (spec 2 §5.6, §5.7, §8): the redeem code, the top-up
 * amount, the messages for a missing top-up link or disabled online top-up, and the payment form.
 */
import type { Problem } from '../../shared/validation';
import { MIN_AMOUNT, PAYMENT_FORM_TARGET } from './constants';
import { errors as m } from './messages';

/** Redeeming needs a code. */
export function validateRedeemCode(code: string): Problem | null {
  return code.trim() === '' ? { message: m.codeRequired } : null;
}

/** The amount field's value: a whole number, at least 1. */
export function floorAmount(value: number | string | null | undefined): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) return MIN_AMOUNT;
  return Math.max(MIN_AMOUNT, Math.floor(n));
}

/** The amount is at least the site's minimum top-up. */
export function validateTopUpAmount(amount: number, minTopUp: number | undefined): Problem | null {
  const min = Math.max(MIN_AMOUNT, minTopUp ?? MIN_AMOUNT);
  return amount < min ? { message: m.amountTooSmall, values: { min } } : null;
}

/** 'Buy a code' needs the top-up link the super administrator sets. */
export function validateTopUpLink(link: string | undefined): Problem | null {
  return !link || link.trim() === '' ? { message: m.noTopUpLink } : null;
}

/** Paying online needs the administrator to enable online top-up. */
export function validateOnlineTopUp(enabled: boolean | undefined): Problem | null {
  return enabled ? null : { message: m.onlineDisabled };
}

/** The payable amount shown from a quote answer: the server's text, or 0 when the quote failed. */
export function payableOf(quote: string | undefined): string {
  if (quote === undefined) return '0';
  return Number.isFinite(Number(quote)) ? quote : '0';
}

/** A POST form to the provider with one hidden input per field; the caller submits it. */
export function paymentForm(doc: Document, url: string, fields: Record<string, string>): HTMLFormElement {
  const form = doc.createElement('form');
  form.method = 'POST';
  form.action = url;
  form.target = PAYMENT_FORM_TARGET;
  form.style.display = 'none';
  for (const [name, value] of Object.entries(fields)) {
    const input = doc.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  return form;
}
