import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../app/store';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import { GatewaysPage } from './GatewaysPage';
import { formatTime } from './rules';

// antd tables render slowly in jsdom when the machine is busy: wait longer than the defaults.
configure({ asyncUtilTimeout: 10_000 });
vi.setConfig({ testTimeout: 30_000 });

afterEach(() => {
  vi.unstubAllGlobals();
});

// antd's table measures itself; jsdom has no ResizeObserver.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

const NOW = Math.floor(Date.now() / 1000);

const GATEWAYS = {
  version: 42,
  items: [
    { gateway_id: 'gw-a', version: 42, lag: 0, last_contact: NOW - 5, connected: true },
    { gateway_id: 'gw-b', version: 40, lag: 2, last_contact: 0, connected: false },
    { gateway_id: 'gw-c', version: 41, lag: 1, last_contact: NOW - 30, connected: true },
  ],
};

const REJECTION = {
  id: 9,
  created_at: 1_700_000_000,
  gateway_id: 'gw-a',
  request_id: 'req-123',
  user_id: 3,
  token_id: 4,
  quota: -500,
  reason: 'quota must not be negative',
  record: '{"request_id":"req-123","quota":-500}',
};

const FILLED = {
  'GET /api/gateway/': GATEWAYS,
  'GET /api/usage/rejected': { items: [REJECTION], page: 1, page_size: 10, total: 1 },
};

const EMPTY = {
  'GET /api/gateway/': { version: 0, items: [] },
  'GET /api/usage/rejected': { items: [], page: 1, page_size: 10, total: 0 },
};

describe('gateways page', () => {
  it('lists the gateways with their version, connection, lag and last contact', async () => {
    stubApi(FILLED);
    renderWithProviders(<GatewaysPage />);
    expect(await screen.findByTestId('gateway-id-gw-a')).toHaveTextContent('gw-a');
    expect(screen.getByTestId('gateways-version')).toHaveTextContent('42');
    expect(screen.getByTestId('gateways-connected-count')).toHaveTextContent('2 / 3');

    const rowA = screen.getByTestId('gateway-id-gw-a').closest('tr')!;
    expect(
      within(rowA)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toContain('42');
    expect(screen.getByTestId('gateway-connected-gw-a')).toHaveTextContent('Connected');
    expect(screen.getByTestId('gateway-lag-gw-a')).toHaveTextContent('Up to date');
    expect(within(rowA).getByText(formatTime(NOW - 5))).toBeInTheDocument();

    const rowB = screen.getByTestId('gateway-id-gw-b').closest('tr')!;
    expect(
      within(rowB)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toContain('40');
    expect(screen.getByTestId('gateway-connected-gw-b')).toHaveTextContent('Disconnected');
    expect(screen.getByTestId('gateway-lag-gw-b')).toHaveTextContent('2 versions behind');
    // A gateway that is gone is not warned about for lagging; one never heard from says so.
    expect(screen.getByTestId('gateway-lag-gw-b')).not.toHaveAttribute('data-warning');
    expect(within(rowB).getByText('Never')).toBeInTheDocument();

    expect(screen.getByTestId('gateway-lag-gw-c')).toHaveTextContent('1 version behind');
    expect(screen.getByTestId('gateway-lag-gw-c')).toHaveAttribute('data-warning', 'true');
  });

  it('shows a refused usage record with its reason, quota and the record as received', async () => {
    const fetchMock = stubApi(FILLED);
    renderWithProviders(<GatewaysPage />);
    expect(await screen.findByTestId('rejection-reason-9')).toHaveTextContent('quota must not be negative');
    const row = screen.getByTestId('rejection-reason-9').closest('tr')!;
    expect(within(row).getByText(formatTime(REJECTION.created_at))).toBeInTheDocument();
    expect(within(row).getByText('gw-a')).toBeInTheDocument();
    expect(screen.getByTestId('rejection-request-9')).toHaveTextContent('req-123');
    expect(screen.getByTestId('rejection-quota-9')).toHaveTextContent('-500');
    expect(screen.getByTestId('rejection-quota-9')).toHaveAttribute('data-negative', 'true');
    expect(screen.queryByTestId('rejections-empty')).not.toBeInTheDocument();

    fireEvent.click(within(row).getByRole('button', { name: /expand/i }));
    expect(await screen.findByTestId('rejection-record-9')).toHaveTextContent(REJECTION.record);

    // The list asks for the first page in the stored page size.
    const url = fetchMock.mock.calls.map((c) => new URL((c[0] as Request).url)).find((u) => u.pathname === '/api/usage/rejected');
    expect(url?.searchParams.get('p')).toBe('1');
    expect(Number(url?.searchParams.get('page_size'))).toBeGreaterThan(0);
  });

  it('says so when no gateway follows the feed and no record was refused', async () => {
    stubApi(EMPTY);
    renderWithProviders(<GatewaysPage />);
    expect(await screen.findByText('No gateway follows the config feed yet')).toBeInTheDocument();
    expect(await screen.findByTestId('rejections-empty')).toHaveTextContent(
      'No refused usage records: every record the gateways reported was accepted',
    );
    // The table shows its empty text while it loads too: wait for the answer itself.
    await waitFor(() => expect(screen.getByTestId('gateways-connected-count')).toHaveTextContent('0 / 0'));
    expect(screen.getByTestId('gateways-version')).toHaveTextContent('0');
    expect(screen.queryByTestId('gateways-error')).not.toBeInTheDocument();
  });

  it('shows a failed list on the page instead of a toast', async () => {
    // Only the rejections answer: the gateway list gets a 404.
    stubApi({ 'GET /api/usage/rejected': EMPTY['GET /api/usage/rejected'] });
    renderWithProviders(<GatewaysPage />);
    expect(await screen.findByTestId('gateways-error')).toBeInTheDocument();
    expect(document.querySelector('[data-test-toast]')).toBeNull();
  });

  it('speaks Chinese', async () => {
    stubApi(FILLED);
    renderWithProviders(<GatewaysPage />, makeStore(), 'zh-CN');
    expect(await screen.findByTestId('gateway-connected-gw-a')).toHaveTextContent('已连接');
    expect(screen.getByTestId('gateway-connected-gw-b')).toHaveTextContent('未连接');
    expect(screen.getByTestId('gateway-lag-gw-b')).toHaveTextContent('落后 2 个版本');
    expect(screen.getByText('被拒绝的用量记录')).toBeInTheDocument();
  });
});
