import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StatusData, User } from '../../api/types';
import { makeStore } from '../../app/store';
import { renderWithProviders } from '../../test/renderWithProviders';
import type { TelegramUser } from '../auth/telegram';
import { personalApi } from './api';
import { BindingsCard } from './BindingsCard';

afterEach(() => vi.unstubAllGlobals());

// antd's popconfirm measures itself; jsdom has no ResizeObserver.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

const user = {
  id: 3,
  username: 'ada',
  role: 1,
  email: 'ada@example.com',
  github_id: '583231',
  oidc_id: '',
  wechat_id: '',
  telegram_id: '',
  linux_do_id: 'ld-7',
} as User;

const status: Partial<StatusData> = {
  github_oauth: true,
  oidc_enabled: true,
  telegram_oauth: true,
  telegram_bot_name: 'e2e_bot',
  // LinuxDO is switched off, but the bound account is still listed so that it can be unbound.
  linuxdo_oauth: false,
};

/** Envelope replies by "METHOD /path"; a string is a refusal with that message. */
function stub(replies: Record<string, unknown>) {
  const fetchMock = vi.fn(async (req: Request) => {
    const key = `${req.method} ${new URL(req.url).pathname}`;
    const r = replies[key];
    const body =
      typeof r === 'string' ? { success: false, message: r, data: null } : { success: true, message: '', data: r ?? null };
    return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const calls = (f: ReturnType<typeof stub>) =>
  f.mock.calls.map((c) => {
    const req = (c as unknown as [Request])[0];
    const url = new URL(req.url);
    return `${req.method} ${url.pathname}${url.search}`;
  });

async function confirm() {
  const pop = await screen.findByRole('tooltip');
  fireEvent.click(within(pop).getByRole('button', { name: 'OK' }));
}

describe('bindings card', () => {
  it('offers Unbind for bound third-party accounts only, never for email', async () => {
    stub({ 'GET /api/status': status });
    renderWithProviders(<BindingsCard user={user} />);
    const github = await screen.findByTestId('binding-github');
    expect(within(github).getByText('583231')).toBeInTheDocument();
    expect(within(github).getByTestId('bind-github')).toBeDisabled();
    expect(within(github).getByTestId('unbind-github')).toBeInTheDocument();
    expect(within(screen.getByTestId('binding-linuxdo')).getByTestId('unbind-linuxdo')).toBeInTheDocument();
    expect(within(screen.getByTestId('binding-linuxdo')).getByTestId('bind-linuxdo')).toBeDisabled();
    expect(within(screen.getByTestId('binding-oidc')).queryByTestId('unbind-oidc')).toBeNull();
    expect(within(screen.getByTestId('binding-email')).queryByRole('button', { name: 'Unbind' })).toBeNull();
    expect(within(screen.getByTestId('binding-email')).getByRole('button', { name: 'Change' })).toBeEnabled();
  });

  it('unbinds after the confirmation and refreshes the user', async () => {
    const fetchMock = stub({
      'GET /api/status': status,
      'GET /api/user/self': { ...user, github_id: '' },
      'DELETE /api/user/self/bindings/github': null,
    });
    const store = makeStore();
    // The personal page's subscription to the user.
    store.dispatch(personalApi.endpoints.getSelf.initiate());
    renderWithProviders(<BindingsCard user={user} />, store);
    fireEvent.click(await screen.findByTestId('unbind-github'));
    expect(await screen.findByText('Unbind GitHub? You will no longer be able to sign in with it.')).toBeInTheDocument();
    await confirm();
    expect(await screen.findByText('GitHub unbound')).toBeInTheDocument();
    expect(calls(fetchMock)).toContain('DELETE /api/user/self/bindings/github');
    await waitFor(() => expect(calls(fetchMock).filter((c) => c === 'GET /api/user/self')).toHaveLength(2));
    expect(store.getState().session.user?.github_id).toBe('');
  });

  it("shows the server's refusal", async () => {
    stub({ 'GET /api/status': status, 'DELETE /api/user/self/bindings/linuxdo': 'It is your only way to sign in' });
    renderWithProviders(<BindingsCard user={user} />);
    fireEvent.click(await screen.findByTestId('unbind-linuxdo'));
    await confirm();
    expect(await screen.findByText('It is your only way to sign in')).toBeInTheDocument();
    expect(screen.queryByText('LinuxDO unbound')).toBeNull();
  });

  it('binds Telegram with the Login Widget in a modal', async () => {
    const fetchMock = stub({ 'GET /api/status': status, 'GET /api/oauth/telegram/bind': null });
    renderWithProviders(<BindingsCard user={user} />);
    await waitFor(() => expect(screen.getByTestId('bind-telegram')).toBeEnabled());
    fireEvent.click(screen.getByTestId('bind-telegram'));
    expect(await screen.findByText('Bind Telegram')).toBeInTheDocument();
    const script = document.querySelector('script[data-telegram-login="e2e_bot"]');
    const name = (script?.getAttribute('data-onauth') ?? '').replace('(user)', '');
    const tg: TelegramUser = { id: 77, first_name: 'Ada', auth_date: 1700000000, hash: 'beef' };
    await act(async () => (window as unknown as Record<string, (u: TelegramUser) => void>)[name](tg));
    expect(await screen.findByText('Telegram account bound')).toBeInTheDocument();
    expect(calls(fetchMock)).toContain('GET /api/oauth/telegram/bind?id=77&first_name=Ada&auth_date=1700000000&hash=beef');
  });
});
