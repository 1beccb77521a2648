import { configure, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../app/store';
import { signedIn } from '../../app/sessionSlice';
import type { User } from '../../api/types';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import { DashboardPage } from './DashboardPage';

configure({ asyncUtilTimeout: 10_000 });
vi.setConfig({ testTimeout: 30_000 });

class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

const STATUS = { quota_per_unit: 500000, display_in_currency: true, data_export_default_time: 'day' };
const hourAgo = () => Math.floor(Date.now() / 1000 / 3600) * 3600 - 3600;

function storeAs(role: number) {
  const store = makeStore();
  store.dispatch(signedIn({ id: 2, username: 'u', role } as User));
  return store;
}

/** The query of the first call to `path`. */
function queryOf(fetchMock: ReturnType<typeof vi.fn>, path: string): URLSearchParams | undefined {
  const call = fetchMock.mock.calls.map(([r]) => new URL((r as Request).url)).find((u) => u.pathname === path);
  return call?.searchParams;
}

beforeEach(() => window.localStorage.clear());
afterEach(() => vi.unstubAllGlobals());

describe('DashboardPage', () => {
  it("shows a user's own consumption by model over the default range", async () => {
    const at = hourAgo();
    const fetchMock = stubApi({
      'GET /api/status': STATUS,
      'GET /api/data/self': [
        { model_name: 'gpt-4o-mini', created_at: at, count: 3, quota: 1500, token_used: 51 },
        { model_name: 'claude-3-haiku', created_at: at, count: 1, quota: 500000, token_used: 20 },
      ],
    });
    renderWithProviders(<DashboardPage />, storeAs(1));
    expect(await screen.findByTestId('dashboard-models-table')).toBeInTheDocument();
    expect(screen.getByTestId('dashboard-summary-count')).toHaveTextContent('4');
    expect(screen.getByTestId('dashboard-summary-tokens')).toHaveTextContent('71');
    expect(screen.getByTestId('dashboard-summary-quota')).toHaveTextContent('$1.00');
    expect(screen.getAllByText('gpt-4o-mini').length).toBeGreaterThan(0);
    expect(screen.queryByTestId('dashboard-users')).not.toBeInTheDocument();
    const q = queryOf(fetchMock, '/api/data/self');
    const span = Number(q?.get('end_timestamp')) - Number(q?.get('start_timestamp'));
    expect(span).toBeGreaterThan(6 * 86400);
    expect(span).toBeLessThan(7 * 86400);
  });

  it('says so when there is nothing in the range', async () => {
    stubApi({ 'GET /api/status': STATUS, 'GET /api/data/self': [] });
    renderWithProviders(<DashboardPage />, storeAs(1));
    expect(await screen.findByTestId('dashboard-models-empty')).toHaveTextContent('No consumption in this period');
  });

  it('shows admins everyone by model and a by-user section', async () => {
    const at = hourAgo();
    const fetchMock = stubApi({
      'GET /api/status': STATUS,
      'GET /api/data/': [{ model_name: 'gpt-4o-mini', created_at: at, count: 2, quota: 100, token_used: 10 }],
      'GET /api/data/users': [{ username: 'alice', created_at: at, count: 2, quota: 100, token_used: 10 }],
    });
    renderWithProviders(<DashboardPage />, storeAs(10));
    expect(await screen.findByTestId('dashboard-users-table')).toHaveTextContent('alice');
    await waitFor(() => expect(screen.getByTestId('dashboard-models-table')).toHaveTextContent('gpt-4o-mini'));
    expect(queryOf(fetchMock, '/api/data/self')).toBeUndefined();
  });
});
