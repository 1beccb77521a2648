/** Wallet constants of spec 2 §5.7 and §9. */

/** Online payment methods: Alipay and WeChat Pay. */
export const PAYMENT_METHOD = { alipay: 'zfb', wechat: 'wx' } as const;
export type PaymentMethod = (typeof PAYMENT_METHOD)[keyof typeof PAYMENT_METHOD];

/** The amount field never goes below 1 (dollar of quota). */
export const MIN_AMOUNT = 1;

/** Wait this long after the last change of the amount before asking for a quote. */
export const QUOTE_DELAY_MS = 400;

/** The payment form replaces the console page; the provider returns to /topup. */
export const PAYMENT_FORM_TARGET = '_self';

export const TOPUP_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';
