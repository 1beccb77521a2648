/** The user's `setting` JSON string with the defaults of spec 1 §9. Pure. */
import type { UserSetting } from '../../api/types';
import { DEFAULT_WARNING_THRESHOLD, NOTIFY_TYPE, SAVED_SETTING_FALLBACK_THRESHOLD } from '../../shared/constants';

export type FullUserSetting = Required<UserSetting>;

export const INITIAL_USER_SETTING: FullUserSetting = {
  notify_type: NOTIFY_TYPE.email,
  quota_warning_threshold: DEFAULT_WARNING_THRESHOLD,
  webhook_url: '',
  webhook_secret: '',
  notification_email: '',
  accept_unset_model_ratio_model: false,
};

/** Empty or invalid → the initial state; a saved setting lacking the threshold → 500000. */
export function parseUserSetting(raw: string | undefined | null): FullUserSetting {
  if (!raw) return { ...INITIAL_USER_SETTING };
  let saved: UserSetting;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!parsed || typeof parsed !== 'object') return { ...INITIAL_USER_SETTING };
    saved = parsed as UserSetting;
  } catch {
    return { ...INITIAL_USER_SETTING };
  }
  return {
    notify_type: saved.notify_type === NOTIFY_TYPE.webhook ? NOTIFY_TYPE.webhook : NOTIFY_TYPE.email,
    quota_warning_threshold: saved.quota_warning_threshold ?? SAVED_SETTING_FALLBACK_THRESHOLD,
    webhook_url: saved.webhook_url ?? '',
    webhook_secret: saved.webhook_secret ?? '',
    notification_email: saved.notification_email ?? '',
    accept_unset_model_ratio_model: Boolean(saved.accept_unset_model_ratio_model),
  };
}
