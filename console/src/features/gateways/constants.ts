/** Constants of the gateways screen. */

/** The gateway list refreshes itself this often while the screen is open. */
export const GATEWAY_REFRESH_MS = 10_000;

/** How often "x seconds ago" is brought up to date. */
export const RELATIVE_TICK_MS = 1_000;

/** The date-time format of the time columns. */
export const GATEWAY_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';
