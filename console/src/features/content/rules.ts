/** Pure rules of the operator's About and home page content (issue 16). */
import { Marked } from 'marked';
import { sanitizePageHtml } from '../../shared/sanitize';

/** How a content option is shown: nothing set, a page of another site, or markdown/HTML. */
export type ContentKind = { kind: 'empty' } | { kind: 'url'; url: string } | { kind: 'markdown'; text: string };

/** True when the whole content is one http(s) address: the page is shown in a frame. */
export function isContentUrl(text: string): boolean {
  return /^https?:\/\/\S+$/i.test(text.trim());
}

export function contentKind(text: string | null | undefined): ContentKind {
  const trimmed = (text ?? '').trim();
  if (!trimmed) return { kind: 'empty' };
  if (isContentUrl(trimmed)) return { kind: 'url', url: trimmed };
  return { kind: 'markdown', text: trimmed };
}

// An instance of its own: the global `marked` options stay untouched.
const markdown = new Marked({ gfm: true, breaks: true, async: false });

/** Markdown (which may hold HTML) to sanitized HTML: no script, handler or `javascript:` URL survives. */
export function renderMarkdown(text: string): string {
  return sanitizePageHtml(markdown.parse(text, { async: false }));
}
