/** The body of an administrator's edit; pure so it can be tested. */
import type { User } from '../../api/types';
import type { UserUpdate } from './api';

export type UserFormValues = Omit<UserUpdate, 'id' | 'quota_before' | 'quota_delta'>;

/**
 * The quota travels with the value the form was loaded with (`quota_before`): the server sets it
 * only if the balance has not changed meanwhile, and leaves the balance alone when the field was
 * not touched, so saving a profile never writes back a stale balance.
 */
export function toUserUpdate(user: Pick<User, 'id' | 'quota'>, v: UserFormValues): UserUpdate {
  return {
    ...v,
    id: user.id,
    quota: Math.trunc(Number(v.quota)),
    quota_before: user.quota,
    password: v.password || undefined,
  };
}
