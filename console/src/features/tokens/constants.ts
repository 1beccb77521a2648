/** Token statuses and the business constants of spec 2 §4.3 and §9. */

export const TOKEN_STATUS = { enabled: 1, disabled: 2, expired: 3, exhausted: 4 } as const;
export type TokenStatus = (typeof TOKEN_STATUS)[keyof typeof TOKEN_STATUS];

/** expired_time of a token that never expires. */
export const NEVER_EXPIRES = -1;

/** A new token's quota: 500000 (one dollar at the default quota-per-unit). */
export const DEFAULT_TOKEN_QUOTA = 500000;

/** Quota presets: $1, $10, $50, $100, $500, $1000 at the default quota-per-unit. */
export const TOKEN_QUOTA_PRESETS = [500000, 5000000, 25000000, 50000000, 250000000, 500000000] as const;

/** How many tokens to create at once: presets and the largest count the server accepts. */
export const TOKEN_COUNT_PRESETS = [10, 20, 30, 100] as const;
export const DEFAULT_TOKEN_COUNT = 1;
export const MAX_TOKEN_COUNT = 100;

/** Extra tokens of a batch are named `<name>-<6 random letters or digits>` (by the server). */
export const BATCH_SUFFIX_LENGTH = 6;

/** The longest token name the server accepts. */
export const TOKEN_NAME_MAX = 50;

const HOUR_SECONDS = 3600;
const DAY_SECONDS = 24 * HOUR_SECONDS;
const MONTH_DAYS = 30;

/** Expiry presets: seconds from now, or never. */
export const EXPIRY_PRESETS = [
  { key: 'never', seconds: NEVER_EXPIRES },
  { key: 'hour', seconds: HOUR_SECONDS },
  { key: 'day', seconds: DAY_SECONDS },
  { key: 'month', seconds: MONTH_DAYS * DAY_SECONDS },
] as const;
export type ExpiryPresetKey = (typeof EXPIRY_PRESETS)[number]['key'];

/** The expiry field's text format. */
export const EXPIRY_FORMAT = 'YYYY-MM-DD HH:mm:ss';

/** Per-token rate limit defaults: 60 s window, 1000 requests, 10 successes. */
export const TOKEN_RATE_LIMIT_DEFAULTS = { period: 60, count: 1000, success: 10 } as const;

export const KEY_PREFIX = 'sk-';
