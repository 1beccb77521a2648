import { describe, expect, it } from 'vitest';
import {
  chatIndex,
  chatUrl,
  fillChatLink,
  firstEnabledToken,
  parseChats,
  safeChatUrl,
  serverAddressOf,
  withKeyPrefix,
} from './rules';

const ORIGIN = 'https://console.example';

describe('parseChats', () => {
  it('reads the list in order, each entry named by its first key', () => {
    expect(parseChats([{ Next: 'https://a/{key}' }, { Lobe: 'https://b/?k={key}', extra: 'x' }])).toEqual([
      { name: 'Next', link: 'https://a/{key}' },
      { name: 'Lobe', link: 'https://b/?k={key}' },
    ]);
  });
  it('reads the JSON text of the option', () => {
    expect(parseChats('[{"A":"https://a"}]')).toEqual([{ name: 'A', link: 'https://a' }]);
  });
  it('treats an absent option as an empty list', () => {
    expect(parseChats(undefined)).toEqual([]);
    expect(parseChats(null)).toEqual([]);
    expect(parseChats('')).toEqual([]);
    expect(parseChats([])).toEqual([]);
  });
  it('answers null for a malformed option', () => {
    expect(parseChats('[{')).toBeNull();
    expect(parseChats({ A: 'https://a' })).toBeNull();
    expect(parseChats(['https://a'])).toBeNull();
    expect(parseChats([{}])).toBeNull();
    expect(parseChats([{ A: 1 }])).toBeNull();
    expect(parseChats([[{ A: 'x' }]])).toBeNull();
  });
});

describe('chatIndex', () => {
  it('uses the first entry without an id', () => {
    expect(chatIndex(undefined)).toBe(0);
    expect(chatIndex('')).toBe(0);
  });
  it('reads a whole number', () => {
    expect(chatIndex('2')).toBe(2);
  });
  it('rejects anything else', () => {
    expect(chatIndex('-1')).toBeNull();
    expect(chatIndex('1.5')).toBeNull();
    expect(chatIndex('abc')).toBeNull();
  });
});

describe('withKeyPrefix', () => {
  it('prefixes sk- once', () => {
    expect(withKeyPrefix('abc')).toBe('sk-abc');
    expect(withKeyPrefix('sk-abc')).toBe('sk-abc');
  });
});

describe('serverAddressOf', () => {
  it('prefers the ServerAddress option, without a trailing slash', () => {
    expect(serverAddressOf('https://api.example/', ORIGIN)).toBe('https://api.example');
  });
  it('falls back to the origin', () => {
    expect(serverAddressOf('', ORIGIN)).toBe(ORIGIN);
    expect(serverAddressOf('  ', ORIGIN)).toBe(ORIGIN);
    expect(serverAddressOf(undefined, ORIGIN)).toBe(ORIGIN);
  });
});

describe('fillChatLink', () => {
  it('fills every {key} and {address}, URL-encoded', () => {
    expect(fillChatLink('https://c/?key={key}&url={address}&k2={key}', { key: 'sk-abc', address: 'https://api.x:8080' })).toBe(
      'https://c/?key=sk-abc&url=https%3A%2F%2Fapi.x%3A8080&k2=sk-abc',
    );
  });
  it('prefixes a bare key', () => {
    expect(fillChatLink('{key}', { key: 'abc', address: '' })).toBe('sk-abc');
  });
  it('fills the JSON settings of a NextChat-style link', () => {
    expect(fillChatLink('https://c/#/?settings={"key":"{key}","url":"{address}"}', { key: 'sk-1', address: 'http://h' })).toBe(
      'https://c/#/?settings={"key":"sk-1","url":"http%3A%2F%2Fh"}',
    );
  });
  it('leaves a template without variables alone', () => {
    expect(fillChatLink('https://c/', { key: 'sk-1', address: 'http://h' })).toBe('https://c/');
  });
});

describe('safeChatUrl', () => {
  it('accepts http and https addresses', () => {
    expect(safeChatUrl('https://c/x?a=1', ORIGIN)).toBe('https://c/x?a=1');
    expect(safeChatUrl('http://127.0.0.1:3000/', ORIGIN)).toBe('http://127.0.0.1:3000/');
  });
  it('reads a relative link against the origin', () => {
    expect(safeChatUrl('/pricing?key=sk-1', ORIGIN)).toBe('https://console.example/pricing?key=sk-1');
  });
  it('rejects other schemes and empty links', () => {
    expect(safeChatUrl('javascript:alert(1)', ORIGIN)).toBeNull();
    expect(safeChatUrl(' data:text/html,x', ORIGIN)).toBeNull();
    expect(safeChatUrl('', ORIGIN)).toBeNull();
  });
});

describe('chatUrl', () => {
  it('fills and checks an entry', () => {
    expect(chatUrl({ name: 'A', link: 'https://c/?k={key}' }, 'sk-9', 'http://h', ORIGIN)).toBe('https://c/?k=sk-9');
    expect(chatUrl({ name: 'A', link: 'javascript:{key}' }, 'sk-9', 'http://h', ORIGIN)).toBeNull();
  });
});

describe('firstEnabledToken', () => {
  it('picks the first enabled token', () => {
    expect(
      firstEnabledToken([
        { id: 1, status: 2 },
        { id: 2, status: 1 },
        { id: 3, status: 1 },
      ])?.id,
    ).toBe(2);
  });
  it('answers undefined without one', () => {
    expect(firstEnabledToken([{ id: 1, status: 3 }])).toBeUndefined();
    expect(firstEnabledToken([])).toBeUndefined();
  });
});
