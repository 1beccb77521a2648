import { describe, expect, it } from 'vitest';
import { sanitizeHtml, sanitizePageHtml } from './sanitize';

describe('custom footer HTML', () => {
  it('keeps links and formatting', () => {
    expect(sanitizeHtml('<a href="https://x.example" target="_blank">x</a> <b>y</b>')).toBe(
      '<a href="https://x.example" target="_blank">x</a> <b>y</b>',
    );
  });
  it('drops scripts, handlers and javascript: URLs', () => {
    const out = sanitizeHtml('<script>alert(1)</script><img src="a.png" onerror="alert(2)"><a href="javascript:alert(3)">z</a>');
    expect(out).not.toMatch(/script|onerror|javascript:/);
    expect(out).toContain('<img src="a.png">');
  });
});

describe('operator page HTML', () => {
  it('opens other sites in a new tab without opener or referrer', () => {
    expect(sanitizePageHtml('<a href="https://x.example">x</a><a href="/pricing">p</a>')).toBe(
      '<a href="https://x.example" target="_blank" rel="noopener noreferrer">x</a><a href="/pricing">p</a>',
    );
  });
  it('drops scripts and handlers', () => {
    expect(sanitizePageHtml('<img src=x onerror=alert(1)><script>alert(2)</script>')).toBe('<img src="x">');
  });
});
