import { describe, expect, it } from 'vitest';
import { contentKind, isContentUrl, renderMarkdown } from './rules';

describe('content kind', () => {
  it('takes a lone http(s) address for a page to frame', () => {
    expect(isContentUrl('https://about.example/page?x=1')).toBe(true);
    expect(isContentUrl('  http://about.example  ')).toBe(true);
    expect(isContentUrl('HTTPS://ABOUT.EXAMPLE')).toBe(true);
    expect(contentKind(' https://about.example/ ')).toEqual({ kind: 'url', url: 'https://about.example/' });
  });
  it('takes anything else for markdown', () => {
    expect(isContentUrl('https://a.example and some text')).toBe(false);
    expect(isContentUrl('javascript:alert(1)')).toBe(false);
    expect(isContentUrl('ftp://files.example')).toBe(false);
    expect(isContentUrl('# Title\nhttps://a.example')).toBe(false);
    expect(contentKind('# Hi')).toEqual({ kind: 'markdown', text: '# Hi' });
  });
  it('takes blank, null and undefined for no content', () => {
    expect(contentKind('')).toEqual({ kind: 'empty' });
    expect(contentKind('  \n ')).toEqual({ kind: 'empty' });
    expect(contentKind(undefined)).toEqual({ kind: 'empty' });
    expect(contentKind(null)).toEqual({ kind: 'empty' });
  });
});

describe('markdown rendering', () => {
  it('renders headings, links, code and lists', () => {
    const html = renderMarkdown(
      '# About us\n\nSee [the docs](https://docs.example/).\n\n```\nlet a = 1 < 2;\n```\n\n- one\n- two',
    );
    expect(html).toContain('<h1>About us</h1>');
    expect(html).toContain('<a href="https://docs.example/" target="_blank" rel="noopener noreferrer">the docs</a>');
    expect(html).toContain('<pre><code>let a = 1 &lt; 2;');
    expect(html).toContain('<li>one</li>');
  });
  it('keeps same-site links in the same tab', () => {
    expect(renderMarkdown('[Pricing](/pricing)').trim()).toBe('<p><a href="/pricing">Pricing</a></p>');
  });
  it('keeps harmless HTML', () => {
    expect(renderMarkdown('<b>bold</b> and <img src="https://img.example/a.png" alt="a">')).toContain(
      '<b>bold</b> and <img src="https://img.example/a.png" alt="a">',
    );
  });
  it('strips scripts, handlers and javascript: URLs', () => {
    const html = renderMarkdown(
      [
        '<img src=x onerror=alert(1)>',
        '<script>alert(2)</script>',
        '[click](javascript:alert(3))',
        '<a href="javascript:alert(4)">a</a>',
        '<div onclick="alert(5)" onmouseover="alert(6)">d</div>',
        '<iframe src="https://evil.example"></iframe>',
        '<svg><script>alert(7)</script></svg>',
        '<style>body{display:none}</style>',
        '<form action="https://evil.example"><input></form>',
      ].join('\n\n'),
    );
    expect(html).not.toMatch(/<script|onerror|onclick|onmouseover|javascript:|<iframe|<style|<form|alert\(/i);
    expect(html).toContain('<img src="x">');
  });
  it('lets a target="_blank" link of the operator open without an opener', () => {
    expect(renderMarkdown('<a href="/x" target="_blank" rel="opener">x</a>')).toContain(
      '<a href="/x" target="_blank" rel="noopener noreferrer">x</a>',
    );
  });
});
