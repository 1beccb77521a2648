import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import type { MessageInstance } from 'antd/es/message/interface';
import { afterEach } from 'vitest';
import { setMessageInstance } from '../shared/feedback';

// Toasts in unit tests are plain text nodes. antd's own toast root keeps React work queued past
// the end of a test file, which then fails after jsdom is torn down ("window is not defined").
function plainToast(content: unknown): Promise<boolean> {
  const node = document.createElement('div');
  node.className = 'ant-message-notice';
  node.dataset.testToast = 'true';
  node.textContent = String(content);
  document.body.appendChild(node);
  return Promise.resolve(true);
}
const testMessages = {
  success: plainToast,
  error: plainToast,
  warning: plainToast,
  info: plainToast,
  loading: plainToast,
  open: (config: { content?: unknown }) => plainToast(config.content),
  destroy: () => undefined,
};
setMessageInstance(testMessages as unknown as MessageInstance);

// Unmount between tests (vitest runs without globals, so testing-library cannot do it itself).
// The app clears the message instance when it unmounts, so it is installed again after each test.
afterEach(() => {
  cleanup();
  setMessageInstance(testMessages as unknown as MessageInstance);
  document.querySelectorAll('[data-test-toast]').forEach((node) => node.remove());
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
