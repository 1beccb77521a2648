import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import type { TelegramUser } from './telegram';
import { TelegramSignIn } from './TelegramSignIn';

afterEach(() => vi.unstubAllGlobals());

const tgUser: TelegramUser = { id: 42, first_name: 'Ada', username: 'ada', auth_date: 1700000000, hash: 'f00d' };

function widgetCallback(): (u: TelegramUser) => void {
  const onauth = document.querySelector('script[data-telegram-login]')?.getAttribute('data-onauth') ?? '';
  const name = onauth.replace('(user)', '');
  return (window as unknown as Record<string, (u: TelegramUser) => void>)[name];
}

describe('Telegram sign-in', () => {
  it('loads the widget only when asked, then signs in with its fields as the query', async () => {
    const fetchMock = stubApi({ 'GET /api/oauth/telegram/login': { id: 5, username: 'ada', role: 1 } });
    const onUser = vi.fn();
    renderWithProviders(<TelegramSignIn botName="e2e_bot" onUser={onUser} />);
    expect(document.querySelector('script[data-telegram-login]')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Sign in with Telegram' }));
    expect(document.querySelector('script[data-telegram-login]')?.getAttribute('data-telegram-login')).toBe('e2e_bot');
    await act(async () => widgetCallback()(tgUser));
    await waitFor(() => expect(onUser).toHaveBeenCalledWith(expect.objectContaining({ id: 5, username: 'ada' })));
    const url = new URL((fetchMock.mock.calls[0] as unknown as [Request])[0].url);
    expect(url.pathname).toBe('/api/oauth/telegram/login');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      id: '42',
      first_name: 'Ada',
      username: 'ada',
      auth_date: '1700000000',
      hash: 'f00d',
    });
  });
});
