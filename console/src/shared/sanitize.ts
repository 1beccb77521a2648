import DOMPurify, { type Config } from 'dompurify';

const PROFILE: Config = { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form'], ADD_ATTR: ['target'] };

/** Custom HTML (footer, notice) with scripts, handlers and other active content removed. */
export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, PROFILE);
}

/**
 * Operator page HTML (About, home page): sanitized like {@link sanitizeHtml}; besides, every link
 * to another site opens in a new tab, and every link that opens a new tab carries
 * `rel="noopener noreferrer"` (the opened page gets no handle on this one, nor its address).
 */
export function sanitizePageHtml(html: string): string {
  const fragment = DOMPurify.sanitize(html, { ...PROFILE, RETURN_DOM_FRAGMENT: true });
  for (const a of fragment.querySelectorAll('a[href]')) {
    const href = a.getAttribute('href') ?? '';
    if (/^https?:\/\//i.test(href) || href.startsWith('//')) a.setAttribute('target', '_blank');
    if (a.hasAttribute('target')) a.setAttribute('rel', 'noopener noreferrer');
  }
  const box = document.createElement('div');
  box.appendChild(fragment);
  return box.innerHTML;
}
