/** Log types, time-badge thresholds and other business constants of the usage log (spec 3 §2.2, §3, §9). */

/** Record types; the selector's 0 means all. 6 (failed request) is written by the gateway for refused calls. */
export const LOG_TYPE = { all: 0, topUp: 1, consume: 2, manage: 3, system: 4, checkIn: 5, error: 6 } as const;
export type LogType = (typeof LOG_TYPE)[keyof typeof LOG_TYPE];

/** The type selector's options, in order. */
export const LOG_TYPE_OPTIONS: readonly LogType[] = [
  LOG_TYPE.all,
  LOG_TYPE.topUp,
  LOG_TYPE.consume,
  LOG_TYPE.manage,
  LOG_TYPE.system,
  LOG_TYPE.checkIn,
  LOG_TYPE.error,
];

/** Time to complete: green below 101 s, orange below 300 s, red otherwise. */
export const USE_TIME_GREEN_BELOW_S = 101;
export const USE_TIME_ORANGE_BELOW_S = 300;

/** First-token time (seconds, from `frt` in milliseconds): green below 3, orange below 10, red otherwise. */
export const FRT_GREEN_BELOW_S = 3;
export const FRT_ORANGE_BELOW_S = 10;
export const MS_PER_SECOND = 1000;

/** The cost column shows quota with 6 decimals. */
export const COST_DIGITS = 6;

/** The default range ends one hour after now. */
export const DEFAULT_END_AHEAD_S = 3600;

/** How times are shown and typed. */
export const LOG_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';

/** Expanded details: texts longer than this are collapsed behind "more". */
export const LONG_TEXT_CHARS = 120;
