/** Business constants of the drawing log (spec 3 §2.3) and the task log (§2.4), from spec 3 §4 and §9. */

/** Default drawing window: the last 30 days… */
export const DRAWING_WINDOW_S = 2_592_000;
/** …up to one hour ahead (both logs). */
export const END_AHEAD_S = 3600;

/** Drawing times are kept in milliseconds, task times in seconds. */
export const MS_PER_SECOND = 1000;

/** Elapsed time above this many seconds is shown in red. */
export const ELAPSED_RED_ABOVE_S = 60;

/** Records fetched per server page (the server's maximum); the table pages them by the stored page size. */
export const SERVER_PAGE_SIZE = 100;

export const JOB_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';

/** Drawing actions (spec 3 §4). */
export const DRAWING_ACTIONS = [
  'IMAGINE',
  'UPSCALE',
  'VARIATION',
  'HIGH_VARIATION',
  'LOW_VARIATION',
  'PAN',
  'DESCRIBE',
  'BLEND',
  'UPLOAD',
  'SHORTEN',
  'REROLL',
  'INPAINT',
  'ZOOM',
  'CUSTOM_ZOOM',
  'MODAL',
  'SWAP_FACE',
] as const;
export type DrawingAction = (typeof DRAWING_ACTIONS)[number];

/** Drawing submit results (spec 3 §4). */
export const DRAWING_CODE = { notSubmitted: 0, submitted: 1, waiting: 21, duplicate: 22 } as const;

/** Drawing statuses (spec 3 §4). */
export const DRAWING_STATUSES = ['NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'MODAL'] as const;
export type DrawingStatus = (typeof DRAWING_STATUSES)[number];

/** Generic task statuses (spec 3 §4); '' means the task is being submitted. */
export const TASK_STATUSES = ['', 'NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'UNKNOWN'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Task platforms and actions (spec 3 §4). */
export const TASK_PLATFORMS = ['suno'] as const;
export const TASK_ACTIONS = ['MUSIC', 'LYRICS'] as const;
