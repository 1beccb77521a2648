import { describe, expect, it } from 'vitest';
import { toUserUpdate } from './update';

describe('the edit-user body', () => {
  it('sends the quota with the value it was loaded with', () => {
    const body = toUserUpdate({ id: 7, quota: 5000 }, { username: 'quinn', display_name: 'Quinn', quota: 5000, password: '' });
    expect(body).toEqual({
      username: 'quinn',
      display_name: 'Quinn',
      id: 7,
      quota: 5000,
      quota_before: 5000,
      password: undefined,
    });
  });

  it('truncates a typed quota and keeps a new password', () => {
    const body = toUserUpdate({ id: 7, quota: 5000 }, { quota: 1234.9, password: 'new-pass-1' });
    expect(body).toMatchObject({ quota: 1234, quota_before: 5000, password: 'new-pass-1' });
  });
});
