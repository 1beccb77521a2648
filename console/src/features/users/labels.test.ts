import { describe, expect, it } from 'vitest';
import { ROLE, USER_STATUS } from '../../shared/constants';
import { availableActions, statusLabel } from './labels';
import { statuses } from './messages';

const base = { role: ROLE.user, status: USER_STATUS.active, deleted_at: null };

describe('user row actions (spec 1 §4)', () => {
  it('a deleted user reads deactivated and has no actions', () => {
    expect(availableActions({ ...base, deleted_at: 1700000000 })).toEqual([]);
    expect(statusLabel({ ...base, deleted_at: 1700000000 }).text).toBe(statuses.deactivated);
  });
  it('an active user can be promoted, disabled and deleted', () => {
    expect(availableActions(base)).toEqual([
      { action: 'promote', disabled: false },
      { action: 'demote', disabled: true },
      { action: 'disable', disabled: false },
      { action: 'delete', disabled: false },
    ]);
  });
  it('a banned user can be enabled; status 3 cannot', () => {
    expect(availableActions({ ...base, status: USER_STATUS.banned })).toContainEqual({ action: 'enable', disabled: false });
    expect(availableActions({ ...base, status: USER_STATUS.disabledPermanently })).toContainEqual({
      action: 'enable',
      disabled: true,
    });
  });
  it('an admin can be demoted, not promoted; a root neither', () => {
    expect(availableActions({ ...base, role: ROLE.admin }).slice(0, 2)).toEqual([
      { action: 'promote', disabled: true },
      { action: 'demote', disabled: false },
    ]);
    expect(
      availableActions({ ...base, role: ROLE.root })
        .slice(0, 2)
        .every((a) => a.disabled),
    ).toBe(true);
  });
});
