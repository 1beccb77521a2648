import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { message, notification } from 'antd';
import { afterEach } from 'vitest';

// Unmount between tests (vitest runs without globals, so testing-library cannot do it itself).
// Toasts live in antd's own root with close timers: destroy them and let React finish that
// update while the DOM still exists, or it runs after jsdom is torn down ("window is not defined").
afterEach(async () => {
  cleanup();
  message.destroy();
  notification.destroy();
  await new Promise((resolve) => setTimeout(resolve, 50));
});

// antd needs matchMedia under jsdom.
if (!window.matchMedia) {
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    value: (query: string) => ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }),
  });
}
