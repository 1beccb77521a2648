import { useEffect, useRef } from 'react';

const SCRIPT_SRC = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

interface TurnstileApi {
  render: (el: HTMLElement, opts: { sitekey: string; callback: (token: string) => void }) => string;
  remove: (id: string) => void;
}

declare global {
  interface Window {
    turnstile?: TurnstileApi;
  }
}

function loadScript(): Promise<void> {
  if (window.turnstile) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const existing = document.querySelector<HTMLScriptElement>(`script[src="${SCRIPT_SRC}"]`);
    const s = existing ?? document.createElement('script');
    s.addEventListener('load', () => resolve());
    s.addEventListener('error', () => reject(new Error('turnstile script failed')));
    if (!existing) {
      s.src = SCRIPT_SRC;
      s.async = true;
      document.head.appendChild(s);
    }
  });
}

/** The human-verification widget; renders nothing when disabled. */
export function Turnstile({ enabled, siteKey, onToken }: { enabled: boolean; siteKey?: string; onToken: (t: string) => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!enabled || !siteKey || !ref.current) return undefined;
    let id: string | undefined;
    const el = ref.current;
    loadScript()
      .then(() => {
        id = window.turnstile?.render(el, { sitekey: siteKey, callback: onToken });
      })
      .catch(() => undefined);
    return () => {
      if (id) window.turnstile?.remove(id);
    };
  }, [enabled, siteKey, onToken]);
  return enabled ? <div ref={ref} data-testid="turnstile" /> : null;
}
