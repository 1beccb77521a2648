import { useEffect, useRef } from 'react';
import type { TelegramUser } from './telegram';

export const TELEGRAM_WIDGET_SRC = 'https://telegram.org/js/telegram-widget.js?22';

let widgets = 0;

/** A window-global name for one widget's callback (the widget calls it by name). */
function callbackName(): string {
  widgets += 1;
  return `onTelegramAuth_${widgets}_${Math.random().toString(36).slice(2, 8)}`;
}

type CallbackWindow = Window & Record<string, ((user: TelegramUser) => void) | undefined>;

interface Props {
  botName: string;
  onAuth: (user: TelegramUser) => void;
  size?: 'large' | 'medium' | 'small';
}

/**
 * The official Telegram Login Widget: its script is added to this component's container when it
 * mounts (never before), with a uniquely named window callback; both go away on unmount.
 */
export function TelegramLoginWidget({ botName, onAuth, size = 'large' }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const handler = useRef(onAuth);
  useEffect(() => {
    handler.current = onAuth;
  }, [onAuth]);

  useEffect(() => {
    const host = container.current;
    if (!host || !botName) return;
    const name = callbackName();
    const win = window as unknown as CallbackWindow;
    win[name] = (user) => handler.current(user);
    const script = document.createElement('script');
    script.src = TELEGRAM_WIDGET_SRC;
    script.async = true;
    script.setAttribute('data-telegram-login', botName);
    script.setAttribute('data-size', size);
    script.setAttribute('data-request-access', 'write');
    script.setAttribute('data-onauth', `${name}(user)`);
    host.appendChild(script);
    return () => {
      delete win[name];
      // The script and the iframe it put next to itself.
      host.replaceChildren();
    };
  }, [botName, size]);

  return <div ref={container} data-testid="telegram-login-widget" />;
}
