import { render } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { TelegramUser } from './telegram';
import { TELEGRAM_WIDGET_SRC, TelegramLoginWidget } from './TelegramLoginWidget';

const tgUser: TelegramUser = { id: 42, first_name: 'Ada', username: 'ada', auth_date: 1700000000, hash: 'abc' };

function widgetScript(container: HTMLElement): HTMLScriptElement {
  const script = container.querySelector('script');
  if (!script) throw new Error('no widget script');
  return script;
}

/** The window function the script's data-onauth names. */
function registered(script: HTMLScriptElement): ((u: TelegramUser) => void) | undefined {
  const name = /^([A-Za-z_$][\w$]*)\(user\)$/.exec(script.getAttribute('data-onauth') ?? '')?.[1] ?? '';
  return (window as unknown as Record<string, ((u: TelegramUser) => void) | undefined>)[name];
}

describe('Telegram Login Widget', () => {
  it('adds the official script with the bot, size, write access and a callback', () => {
    const { container } = render(<TelegramLoginWidget botName="e2e_bot" size="medium" onAuth={() => undefined} />);
    const script = widgetScript(container);
    expect(script.src).toBe(TELEGRAM_WIDGET_SRC);
    expect(script.async).toBe(true);
    expect(script.getAttribute('data-telegram-login')).toBe('e2e_bot');
    expect(script.getAttribute('data-size')).toBe('medium');
    expect(script.getAttribute('data-request-access')).toBe('write');
    expect(script.getAttribute('data-onauth')).toMatch(/^onTelegramAuth_\w+\(user\)$/);
  });

  it('hands the widget user to the latest handler', () => {
    const first = vi.fn();
    const latest = vi.fn();
    const { container, rerender } = render(<TelegramLoginWidget botName="e2e_bot" onAuth={first} />);
    rerender(<TelegramLoginWidget botName="e2e_bot" onAuth={latest} />);
    expect(container.querySelectorAll('script')).toHaveLength(1);
    registered(widgetScript(container))!(tgUser);
    expect(latest).toHaveBeenCalledWith(tgUser);
    expect(first).not.toHaveBeenCalled();
  });

  it('gives each widget its own callback', () => {
    const a = vi.fn();
    const b = vi.fn();
    const one = render(<TelegramLoginWidget botName="bot_a" onAuth={a} />);
    const two = render(<TelegramLoginWidget botName="bot_b" onAuth={b} />);
    const sa = widgetScript(one.container);
    const sb = widgetScript(two.container);
    expect(sa.getAttribute('data-onauth')).not.toBe(sb.getAttribute('data-onauth'));
    registered(sb)!(tgUser);
    expect(b).toHaveBeenCalledOnce();
    expect(a).not.toHaveBeenCalled();
  });

  it('removes the script and the callback on unmount', () => {
    const { container, unmount } = render(<TelegramLoginWidget botName="e2e_bot" onAuth={() => undefined} />);
    const script = widgetScript(container);
    expect(registered(script)).toBeTypeOf('function');
    unmount();
    expect(registered(script)).toBeUndefined();
    expect(script.isConnected).toBe(false);
  });
});
