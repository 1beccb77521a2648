import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Modal } from 'antd';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import { GroupSelect } from './GroupSelect';
import { TokensPage } from './TokensPage';

// antd tables and modals render slowly in jsdom when the machine is busy: wait longer than the defaults.
configure({ asyncUtilTimeout: 10_000 });
vi.setConfig({ testTimeout: 30_000 });

afterEach(() => {
  vi.unstubAllGlobals();
  Modal.destroyAll();
});

// antd's table measures itself; jsdom has no ResizeObserver.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

/** Replaces the clipboard; answers the stubbed writeText. */
function stubClipboard(write: (text: string) => Promise<void>) {
  const writeText = vi.fn(write);
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
  return writeText;
}

/** How many key reads (`POST /api/token/{id}/key`) were sent. */
function keyCalls(fetchMock: ReturnType<typeof vi.fn>): number {
  return fetchMock.mock.calls.filter(([req]) => {
    const r = req as Request;
    return r.method === 'POST' && /\/api\/token\/\d+\/key$/.test(new URL(r.url).pathname);
  }).length;
}

/** The whole key: only `POST /api/token/7/key` answers it. */
const WHOLE_KEY = 'sk-abcdEFGH1234567890abcdefghijklmnopqrstuvwxyzWXYZ';
const KEY_CALL = 'POST /api/token/7/key';

/** A token as lists carry it: the key masked by the server. */
const TOKEN = {
  id: 7,
  user_id: 1,
  name: 'my-token',
  key: 'sk-abcd**********WXYZ',
  status: 1,
  created_time: 1700000000,
  accessed_time: 0,
  expired_time: -1,
  remain_quota: 500000,
  used_quota: 0,
  unlimited_quota: false,
  model_limits_enabled: false,
  model_limits: '',
  allow_ips: '',
  group: '',
  rate_limit_enabled: false,
  rate_limit_period: 60,
  rate_limit_count: 1000,
  rate_limit_success: 10,
};

describe('token group selector (spec 2 §6)', () => {
  it('is disabled and says so when the admin set no selectable groups', async () => {
    stubApi({ 'GET /api/user/self/groups': {} });
    renderWithProviders(<GroupSelect />);
    expect(await screen.findByText('The administrator has not set any user-selectable groups')).toBeInTheDocument();
  });
});

describe('tokens page (spec 2 §2.5)', () => {
  it('shows the warning and the masked key', async () => {
    stubApi({ 'GET /api/token/': { items: [TOKEN], page: 1, page_size: 10, total: 1 } });
    renderWithProviders(<TokensPage />);
    expect(await screen.findByText('my-token')).toBeInTheDocument();
    expect(screen.getByTestId('tokens-warning')).toHaveTextContent('for your own use only');
    expect(screen.getByTestId('token-key-7')).toHaveTextContent('sk-abcd**********WXYZ');
    expect(screen.getByTestId('token-status-7')).toHaveTextContent('Enabled');
  });

  it('copy selected needs a selection', async () => {
    stubApi({ 'GET /api/token/': { items: [TOKEN], page: 1, page_size: 10, total: 1 } });
    renderWithProviders(<TokensPage />);
    await screen.findByText('my-token');
    fireEvent.click(screen.getByTestId('tokens-copy-selected'));
    expect(await screen.findByText('Please select at least one token')).toBeInTheDocument();
  });

  it('shows the key in a dialog when the clipboard refuses (spec 2 §8)', async () => {
    stubApi({ 'GET /api/token/': { items: [TOKEN], page: 1, page_size: 10, total: 1 }, [KEY_CALL]: { key: WHOLE_KEY } });
    stubClipboard(() => Promise.reject(new Error('denied')));
    renderWithProviders(<TokensPage />);
    await screen.findByText('my-token');
    fireEvent.click(screen.getByTestId('token-copy-7'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getAllByText('Cannot copy to clipboard, copy manually').length).toBeGreaterThan(0);
    expect(within(dialog).getByText(WHOLE_KEY)).toBeInTheDocument();
  });

  it('show reads the whole key from the server, hide masks it again', async () => {
    const fetchMock = stubApi({
      'GET /api/token/': { items: [TOKEN], page: 1, page_size: 10, total: 1 },
      [KEY_CALL]: { key: WHOLE_KEY },
    });
    renderWithProviders(<TokensPage />);
    await screen.findByText('my-token');
    expect(keyCalls(fetchMock)).toBe(0);
    fireEvent.click(screen.getByTestId('token-reveal-7'));
    await waitFor(() => expect(screen.getByTestId('token-key-7')).toHaveTextContent(WHOLE_KEY));
    expect(keyCalls(fetchMock)).toBe(1);
    // antd ignores clicks until the button's own loading state has caught up.
    await waitFor(() => expect(screen.getByTestId('token-reveal-7')).not.toHaveClass('ant-btn-loading'));
    fireEvent.click(screen.getByTestId('token-reveal-7'));
    expect(screen.getByTestId('token-key-7')).toHaveTextContent('sk-abcd**********WXYZ');
    expect(screen.getByTestId('token-key-7')).not.toHaveTextContent(WHOLE_KEY);
    expect(keyCalls(fetchMock)).toBe(1);
  });

  it('copy reads the whole key from the server and puts it on the clipboard', async () => {
    const fetchMock = stubApi({
      'GET /api/token/': { items: [TOKEN], page: 1, page_size: 10, total: 1 },
      [KEY_CALL]: { key: WHOLE_KEY },
    });
    const writeText = stubClipboard(() => Promise.resolve());
    renderWithProviders(<TokensPage />);
    await screen.findByText('my-token');
    fireEvent.click(screen.getByTestId('token-copy-7'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(WHOLE_KEY));
    expect(keyCalls(fetchMock)).toBe(1);
    expect(await screen.findByText('Key copied to clipboard')).toBeInTheDocument();
    // The key stays hidden in the table.
    expect(screen.getByTestId('token-key-7')).toHaveTextContent('sk-abcd**********WXYZ');
  });

  it('copies nothing when the key cannot be read', async () => {
    stubApi({ 'GET /api/token/': { items: [TOKEN], page: 1, page_size: 10, total: 1 } });
    const writeText = stubClipboard(() => Promise.resolve());
    renderWithProviders(<TokensPage />);
    await screen.findByText('my-token');
    fireEvent.click(screen.getByTestId('token-copy-7'));
    await waitFor(() => expect(screen.getByTestId('token-copy-7')).not.toHaveClass('ant-btn-loading'));
    expect(writeText).not.toHaveBeenCalled();
  });

  it('copy selected reads the whole key of every selected token', async () => {
    const other = { ...TOKEN, id: 8, name: 'second', key: 'sk-wxyz**********ABCD' };
    const fetchMock = stubApi({
      'GET /api/token/': { items: [TOKEN, other], page: 1, page_size: 10, total: 2 },
      [KEY_CALL]: { key: WHOLE_KEY },
      'POST /api/token/8/key': { key: 'sk-second-whole-key' },
    });
    const writeText = stubClipboard(() => Promise.resolve());
    renderWithProviders(<TokensPage />);
    await screen.findByText('second');
    for (const box of screen.getAllByRole('checkbox').slice(1)) fireEvent.click(box);
    fireEvent.click(screen.getByTestId('tokens-copy-selected'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(`my-token\t${WHOLE_KEY}\nsecond\tsk-second-whole-key`));
    expect(keyCalls(fetchMock)).toBe(2);
  });
});
