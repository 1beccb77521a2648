import DOMPurify from 'dompurify';

/** Custom HTML (footer, notice) with scripts, handlers and other active content removed. */
export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form'], ADD_ATTR: ['target'] });
}
