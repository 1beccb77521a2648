/** Roles, statuses and business constants of spec 1 §3, §6, §9. */

export const ROLE = { user: 1, admin: 10, root: 100 } as const;
export type Role = (typeof ROLE)[keyof typeof ROLE];

export const USER_STATUS = { active: 1, banned: 2, disabledPermanently: 3 } as const;

export const USER_ACTION = {
  promote: 'promote',
  demote: 'demote',
  disable: 'disable',
  enable: 'enable',
  delete: 'delete',
} as const;
export type UserAction = (typeof USER_ACTION)[keyof typeof USER_ACTION];

export const PAGE_SIZE_OPTIONS = [10, 20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 10;
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 20;
export const DEFAULT_QUOTA_PER_UNIT = 500000;
export const EMAIL_CODE_COOLDOWN_SECONDS = 30;
export const RESET_COOLDOWN_SECONDS = 30;
export const MODEL_TAGS_COLLAPSE_AFTER = 10;
export const MOBILE_BREAKPOINT_PX = 600;
export const FOOTER_POLL_TIMES = 5;
export const FOOTER_POLL_INTERVAL_MS = 200;

export const NOTIFY_TYPE = { email: 'email', webhook: 'webhook' } as const;
export const WARNING_THRESHOLD_PRESETS = [100000, 500000, 1000000, 5000000] as const;
export const DEFAULT_WARNING_THRESHOLD = 100000;
export const SAVED_SETTING_FALLBACK_THRESHOLD = 500000;

export const isAdmin = (role: number | undefined): boolean => (role ?? 0) >= ROLE.admin;
export const isRoot = (role: number | undefined): boolean => (role ?? 0) >= ROLE.root;
