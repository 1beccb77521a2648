import { afterEach, describe, expect, it } from 'vitest';
import { rememberReturnTo, takeReturnTo } from './oauthReturnTo';

afterEach(() => window.sessionStorage.clear());

describe('returnTo kept through the provider round trip', () => {
  it('is read once', () => {
    rememberReturnTo('/log?p=2');
    expect(takeReturnTo()).toBe('/log?p=2');
    expect(takeReturnTo()).toBeNull();
  });

  it('keeps no address of another site, and a new start forgets the old value', () => {
    rememberReturnTo('/detail');
    rememberReturnTo('https://evil.test/');
    expect(takeReturnTo()).toBeNull();
    rememberReturnTo('//evil.test');
    expect(takeReturnTo()).toBeNull();
  });
});
