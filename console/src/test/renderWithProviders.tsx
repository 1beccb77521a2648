import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { RawIntlProvider } from 'react-intl';
import { Provider } from 'react-redux';
import { vi } from 'vitest';
import { makeStore } from '../app/store';
import { setIntlLocale } from '../i18n/intl';
import type { Locale } from '../i18n/locales';

/** Renders a component with the store and the English catalogue (or the one of `locale`). */
export function renderWithProviders(ui: ReactElement, store = makeStore(), locale: Locale = 'en') {
  render(
    <Provider store={store}>
      <RawIntlProvider value={setIntlLocale(locale)}>{ui}</RawIntlProvider>
    </Provider>,
  );
  return store;
}

/** Stubs fetch with envelope replies chosen by "METHOD /path". */
export function stubApi(replies: Record<string, unknown>) {
  const fetchMock = vi.fn(async (req: Request) => {
    const key = `${req.method} ${new URL(req.url).pathname}`;
    if (!(key in replies)) return new Response('{}', { status: 404 });
    return new Response(JSON.stringify({ success: true, message: '', data: replies[key] }), {
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}
