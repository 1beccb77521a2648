/** Role and status labels and colours; pure so they can be tested. */
import type { MessageDescriptor } from 'react-intl';
import type { User } from '../../api/types';
import { ROLE, USER_ACTION, USER_STATUS, type UserAction } from '../../shared/constants';
import { roles, statuses } from './messages';

export function roleLabel(role: number): { text: MessageDescriptor; color: string } {
  if (role >= ROLE.root) return { text: roles.root, color: 'orange' };
  if (role >= ROLE.admin) return { text: roles.admin, color: 'gold' };
  return { text: roles.user, color: 'blue' };
}

export function statusLabel(u: Pick<User, 'status' | 'deleted_at'>): { text: MessageDescriptor; color: string } {
  if (u.deleted_at) return { text: statuses.deactivated, color: 'default' };
  if (u.status === USER_STATUS.active) return { text: statuses.active, color: 'green' };
  if (u.status === USER_STATUS.banned) return { text: statuses.banned, color: 'red' };
  return { text: statuses.other, color: 'default' };
}

/** The row actions a user may get; a deleted user has none (spec 1 §4). */
export function availableActions(u: Pick<User, 'status' | 'role' | 'deleted_at'>): { action: UserAction; disabled: boolean }[] {
  if (u.deleted_at) return [];
  const list: { action: UserAction; disabled: boolean }[] = [
    { action: USER_ACTION.promote, disabled: u.role >= ROLE.admin },
    { action: USER_ACTION.demote, disabled: u.role < ROLE.admin || u.role >= ROLE.root },
  ];
  if (u.status === USER_STATUS.active) list.push({ action: USER_ACTION.disable, disabled: false });
  else list.push({ action: USER_ACTION.enable, disabled: u.status === USER_STATUS.disabledPermanently });
  list.push({ action: USER_ACTION.delete, disabled: false });
  return list;
}

/** Actions that ask for confirmation first. */
export const CONFIRMED_ACTIONS: ReadonlySet<UserAction> = new Set([USER_ACTION.promote, USER_ACTION.demote, USER_ACTION.delete]);
