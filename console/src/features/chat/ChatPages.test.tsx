import { configure, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter, Route, Routes } from 'react-router';
import type { User } from '../../api/types';
import { signedIn } from '../../app/sessionSlice';
import { makeStore } from '../../app/store';
import { remove, STORAGE_KEY } from '../../shared/storage';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import { Chat2LinkPage } from './Chat2LinkPage';
import { ChatPage } from './ChatPage';
import { leaveFor, openChatTab } from './leave';
import { TokenChatButton } from './TokenChatButton';

vi.mock('./leave', () => ({ leaveFor: vi.fn(), openChatTab: vi.fn() }));

configure({ asyncUtilTimeout: 10_000 });
vi.setConfig({ testTimeout: 30_000 });

// antd's typography measures itself; jsdom has no ResizeObserver.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

/** The status, chats and user one test cached must not feed the next. */
function forgetStatus() {
  remove(STORAGE_KEY.status);
  remove(STORAGE_KEY.chats);
  remove(STORAGE_KEY.user);
}

beforeEach(forgetStatus);
afterEach(() => {
  vi.unstubAllGlobals();
  vi.mocked(leaveFor).mockReset();
  vi.mocked(openChatTab).mockReset();
  forgetStatus();
});

const WHOLE_KEY = 'sk-abcdEFGH1234567890abcdefghijklmnopqrstuvwxyzWXYZ';
const MASKED = 'sk-abcd**********WXYZ';
const token = (id: number, status: number) => ({ id, name: `t${id}`, key: MASKED, status });
const CHATS = [{ Next: 'https://chat.example/?key={key}&url={address}' }, { Lobe: 'https://lobe.example/#{key}' }];

function api(opts: { chats?: unknown; server?: string; tokens?: unknown[] } = {}) {
  return stubApi({
    'GET /api/status': { chats: opts.chats ?? CHATS, server_address: opts.server ?? 'https://api.example' },
    'GET /api/token/': { items: opts.tokens ?? [token(3, 2), token(7, 1)], page: 1, page_size: 100, total: 2 },
    'POST /api/token/7/key': { key: WHOLE_KEY },
  });
}

function render(path: string, signedInUser = true) {
  const store = makeStore();
  if (signedInUser) store.dispatch(signedIn({ id: 2, username: 'u', role: 1 } as User));
  renderWithProviders(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/chat/:id?" element={<ChatPage />} />
        <Route path="/chat2link" element={<Chat2LinkPage />} />
        <Route path="/token" element={<div>token page</div>} />
      </Routes>
    </MemoryRouter>,
    store,
  );
}

describe('/chat/:id (spec 3 §2.7)', () => {
  it('frames the first link filled with the first enabled token’s whole key and the server address', async () => {
    const fetchMock = api();
    render('/chat');
    const frame = await screen.findByTestId('chat-frame');
    expect(frame).toHaveAttribute('src', `https://chat.example/?key=${WHOLE_KEY}&url=https%3A%2F%2Fapi.example`);
    expect(frame).toHaveAttribute('referrerpolicy', 'no-referrer');
    expect(frame.getAttribute('sandbox')).toContain('allow-scripts');
    expect(frame.getAttribute('sandbox')).not.toContain('allow-top-navigation');
    expect(screen.getByTestId('chat-open-tab')).toHaveAttribute('rel', 'noopener noreferrer');
    const keyReads = fetchMock.mock.calls.filter(([r]) => new URL((r as Request).url).pathname === '/api/token/7/key');
    expect(keyReads).toHaveLength(1);
  });

  it('uses the entry named by the id', async () => {
    api({ server: '' });
    render('/chat/1');
    expect(await screen.findByTestId('chat-frame')).toHaveAttribute('src', `https://lobe.example/#${WHOLE_KEY}`);
  });

  it('says to contact the admin when the entry does not exist', async () => {
    api({ chats: [] });
    render('/chat/0');
    expect(await screen.findByText('Please contact the administrator to configure chat links')).toBeInTheDocument();
  });

  it('reports a malformed Chats option or a non-web link', async () => {
    api({ chats: [{ Bad: 'javascript:alert("{key}")' }] });
    render('/chat');
    expect(await screen.findByText('Chat link config error, contact the administrator')).toBeInTheDocument();
  });

  it('without an enabled token shows the error and goes to /token after 1.5 seconds (spec 3 §5)', async () => {
    api({ tokens: [token(3, 2)] });
    render('/chat');
    expect(await screen.findByTestId('chat-no-token')).toBeInTheDocument();
    expect(screen.queryByText('token page')).toBeNull();
    expect(await screen.findByText('token page', undefined, { timeout: 4000 })).toBeInTheDocument();
  });

  it('asks a signed-out visitor to sign in', async () => {
    api();
    render('/chat/1', false);
    expect(await screen.findByText('Sign in to chat with one of your tokens')).toBeInTheDocument();
    expect(screen.getByRole('link')).toHaveAttribute('href', '/login?returnTo=%2Fchat%2F1');
  });
});

describe('/chat2link (spec 3 §2.7)', () => {
  it('leaves for the first link filled with the key and the server address', async () => {
    api();
    render('/chat2link');
    await waitFor(() =>
      expect(leaveFor).toHaveBeenCalledWith(`https://chat.example/?key=${WHOLE_KEY}&url=https%3A%2F%2Fapi.example`),
    );
  });

  it('does not leave without an enabled token', async () => {
    api({ tokens: [] });
    render('/chat2link');
    expect(await screen.findByTestId('chat-no-token')).toBeInTheDocument();
    expect(leaveFor).not.toHaveBeenCalled();
  });
});

describe('token row chat action', () => {
  it('opens the first link in a new tab with the whole key, never the masked one', async () => {
    api();
    renderWithProviders(<TokenChatButton tokenId={7} />);
    await waitFor(() => expect(screen.getByTestId('token-chat-menu-7')).not.toBeDisabled());
    fireEvent.click(screen.getByTestId('token-chat-7'));
    await waitFor(() =>
      expect(openChatTab).toHaveBeenCalledWith(`https://chat.example/?key=${WHOLE_KEY}&url=https%3A%2F%2Fapi.example`),
    );
  });

  it('lists every entry in its menu', async () => {
    api();
    renderWithProviders(<TokenChatButton tokenId={7} />);
    await waitFor(() => expect(screen.getByTestId('token-chat-menu-7')).not.toBeDisabled());
    fireEvent.click(screen.getByTestId('token-chat-menu-7'));
    fireEvent.click(await screen.findByText('Lobe'));
    await waitFor(() => expect(openChatTab).toHaveBeenCalledWith(`https://lobe.example/#${WHOLE_KEY}`));
  });

  it('says to contact the admin when no chat link is configured', async () => {
    const fetchMock = api({ chats: [] });
    renderWithProviders(<TokenChatButton tokenId={7} />);
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    fireEvent.click(screen.getByTestId('token-chat-7'));
    expect(await screen.findByText('Please contact the administrator to configure chat links')).toBeInTheDocument();
    expect(openChatTab).not.toHaveBeenCalled();
  });
});
