import { describe, expect, it } from 'vitest';
import { safeReturnPath } from './safePath';

const origin = 'http://console.test';

describe('safeReturnPath (no open redirect)', () => {
  it('keeps a path of this site with its query and hash', () => {
    expect(safeReturnPath('/log?p=2#top', origin)).toBe('/log?p=2#top');
    expect(safeReturnPath('/token', origin)).toBe('/token');
  });

  it('refuses absolute and protocol-relative addresses', () => {
    for (const bad of [
      'https://evil.test/',
      'http://console.test.evil.test/',
      '//evil.test/x',
      '/\\evil.test',
      '/\t/evil.test',
      '/\n/evil.test',
      'javascript:alert(1)',
      'token',
      '',
      null,
      undefined,
    ]) {
      expect(safeReturnPath(bad, origin), String(bad)).toBeNull();
    }
  });
});
