/** Redemption code statuses and the business constants of spec 2 §4.4 and §9. */

export const REDEMPTION_STATUS = { unused: 1, disabled: 2, used: 3 } as const;

/** max_uses of a gift code anyone may redeem any number of times. */
export const UNLIMITED_USES = -1;

/** A new code: quota 100000, one code, unlimited uses. */
export const REDEMPTION_DEFAULTS = { quota: 100000, count: 1, maxUses: UNLIMITED_USES } as const;

/** The most codes the server creates in one call. */
export const MAX_REDEMPTION_COUNT = 100;

/** The date-time format of the validity fields and columns. */
export const REDEMPTION_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';

/** valid_from / valid_until of a code without that bound. */
export const NO_TIME_BOUND = 0;
