import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Modal } from 'antd';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { User } from '../../api/types';
import { signedIn } from '../../app/sessionSlice';
import { makeStore } from '../../app/store';
import { ROLE } from '../../shared/constants';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import { LogsPage } from './LogsPage';
import type { LogRecord } from './types';

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

const LOG: LogRecord = {
  id: 11,
  created_at: 1900000000,
  type: 2,
  content: '',
  username: 'alice',
  user_id: 2,
  token_name: 'my-token',
  token_id: 3,
  group: 'default',
  model_name: 'gpt-4o-mini',
  channel: 5,
  channel_name: 'mock',
  use_time: 1,
  is_stream: false,
  prompt_tokens: 12,
  completion_tokens: 34,
  quota: 150,
  request_id: 'req-abc',
  other: JSON.stringify({
    admin_info: { use_channel: [4, 5] },
    request_path: 'chat',
    frt: 420,
    model_ratio: 0.075,
    completion_ratio: 4,
    group_ratio: 1,
    model_price: -1,
  }),
};
const PAGE = { items: [LOG], page: 1, page_size: 10, total: 1 };
const STATS = {
  quota: 500000,
  rpm: 3,
  tpm: 456,
  requests: 9,
  prompt_tokens: 1200,
  completion_tokens: 345,
  tokens: 1545,
};

function renderAs(role: number, replies: Record<string, unknown>) {
  const fetchMock = stubApi(replies);
  const store = makeStore();
  store.dispatch(signedIn({ id: 2, username: 'alice', role } as User));
  renderWithProviders(<LogsPage />, store);
  return fetchMock;
}

/** The query parameters of the calls made to `path`. */
function calls(fetchMock: ReturnType<typeof vi.fn>, path: string): URLSearchParams[] {
  return fetchMock.mock.calls
    .map(([req]) => new URL((req as Request).url))
    .filter((u) => u.pathname === path)
    .map((u) => u.searchParams);
}

describe('usage log page (spec 3 §2.2)', () => {
  it('a user reads their own page and totals, without the admin columns', async () => {
    const fetchMock = renderAs(ROLE.user, { 'GET /api/log/self/': PAGE, 'GET /api/log/self/stat': STATS });
    expect(await screen.findByTestId('log-model-11')).toHaveTextContent('gpt-4o-mini');
    expect(screen.getByTestId('log-prompt-11')).toHaveTextContent('12');
    expect(screen.getByTestId('log-completion-11')).toHaveTextContent('34');
    expect(screen.getByTestId('log-cost-11')).toHaveTextContent('$0.000300');
    expect(screen.getByTestId('log-frt-11')).toHaveTextContent('0.4 s');
    expect(screen.queryByRole('columnheader', { name: 'User' })).toBeNull();
    expect(screen.queryByRole('columnheader', { name: 'Retry' })).toBeNull();
    await waitFor(() => expect(screen.getByTestId('logs-summary-quota')).toHaveTextContent('$1.00'));
    expect(screen.getByTestId('logs-summary-tpm')).toHaveTextContent('456');
    expect(screen.getByTestId('logs-summary-tokens')).toHaveTextContent('1,545');
    expect(screen.getByTestId('logs-summary-prompt')).toHaveTextContent('1,200');
    expect(screen.getByTestId('logs-summary-completion')).toHaveTextContent('345');

    const [list] = calls(fetchMock, '/api/log/self/');
    expect(list.get('p')).toBe('1');
    expect(list.get('page_size')).toBe('10');
    expect(list.get('type')).toBe('0');
    expect(Number(list.get('end_timestamp')) - Number(list.get('start_timestamp'))).toBeGreaterThan(3600);
    expect(calls(fetchMock, '/api/log/')).toHaveLength(0);
    const [stat] = calls(fetchMock, '/api/log/self/stat');
    expect(stat.get('p')).toBeNull();
    expect(stat.get('start_timestamp')).toBe(list.get('start_timestamp'));
  });

  it('opens the details of a row on click', async () => {
    renderAs(ROLE.user, { 'GET /api/log/self/': PAGE, 'GET /api/log/self/stat': STATS });
    fireEvent.click(await screen.findByTestId('log-type-11'));
    const details = await screen.findByTestId('log-details-11');
    expect(within(details).getByTestId('log-detail-requestId')).toHaveTextContent('req-abc');
    expect(within(details).getByTestId('log-detail-frt')).toHaveTextContent('0.4 s');
    expect(within(details).getByTestId('log-detail-billing')).toHaveTextContent('(12 + 34 × 4) × 0.075 × 1 = 150');
    expect(within(details).queryByTestId('log-detail-channelsTried')).toBeNull();
  });

  it('applies a request id filter from page 1', async () => {
    const fetchMock = renderAs(ROLE.user, { 'GET /api/log/self/': PAGE, 'GET /api/log/self/stat': STATS });
    await screen.findByTestId('log-model-11');
    fireEvent.change(screen.getByTestId('logs-filter-requestId'), { target: { value: ' req-abc ' } });
    fireEvent.click(screen.getByTestId('logs-search'));
    await waitFor(() => expect(calls(fetchMock, '/api/log/self/').some((q) => q.get('request_id') === 'req-abc')).toBe(true));
    const filtered = calls(fetchMock, '/api/log/self/').find((q) => q.get('request_id') === 'req-abc');
    expect(filtered?.get('p')).toBe('1');
    expect(calls(fetchMock, '/api/log/self/stat').some((q) => q.get('request_id') === 'req-abc')).toBe(true);
  });

  it('an admin reads the global log with channel, user and retry columns, and opens the user info', async () => {
    const fetchMock = renderAs(ROLE.admin, {
      'GET /api/log/': PAGE,
      'GET /api/log/stat': STATS,
      'GET /api/user/2': { id: 2, username: 'alice', quota: 1000000, used_quota: 250000, request_count: 9 },
    });
    expect(await screen.findByTestId('log-channel-11')).toHaveTextContent('5');
    expect(screen.getByTestId('log-retry-11')).toHaveTextContent('4 → 5');
    expect(calls(fetchMock, '/api/log/self/')).toHaveLength(0);
    fireEvent.click(screen.getByTestId('log-user-11'));
    const info = await screen.findByTestId('logs-user-info');
    expect(info).toHaveTextContent('$2.00');
    expect(info).toHaveTextContent('$0.50');
    expect(info).toHaveTextContent('9');
  });

  it('an admin cannot search by a channel id that is not a number', async () => {
    const fetchMock = renderAs(ROLE.admin, { 'GET /api/log/': PAGE, 'GET /api/log/stat': STATS });
    await screen.findByTestId('log-model-11');
    fireEvent.change(screen.getByTestId('logs-filter-channel'), { target: { value: 'abc' } });
    fireEvent.click(screen.getByTestId('logs-search'));
    expect(await screen.findByText('The channel ID must be a positive whole number')).toBeInTheDocument();
    expect(calls(fetchMock, '/api/log/').every((q) => q.get('channel') === null)).toBe(true);
  });

  it('reads in Chinese', async () => {
    stubApi({ 'GET /api/log/self/': PAGE, 'GET /api/log/self/stat': STATS });
    const store = makeStore();
    store.dispatch(signedIn({ id: 2, username: 'alice', role: ROLE.user } as User));
    renderWithProviders(<LogsPage />, store, 'zh-CN');
    expect(await screen.findByText('使用日志')).toBeInTheDocument();
    expect(await screen.findByText('消费')).toBeInTheDocument();
  });
});
