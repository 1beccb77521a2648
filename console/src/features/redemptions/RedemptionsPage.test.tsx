import { configure, fireEvent, screen } from '@testing-library/react';
import { Modal } from 'antd';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import { RedemptionsPage } from './RedemptionsPage';

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

const code = (id: number, over: object) => ({
  id,
  user_id: 1,
  key: `KEY${id}`,
  name: `code-${id}`,
  status: 1,
  quota: 100000,
  created_time: 1700000000,
  redeemed_time: 0,
  used_user_id: 0,
  is_gift: false,
  max_uses: -1,
  used_count: 0,
  valid_from: 0,
  valid_until: 0,
  ...over,
});

const LIST = {
  'GET /api/redemption/': {
    items: [code(1, {}), code(2, { is_gift: true, max_uses: 2, used_count: 2 }), code(3, { status: 3, used_user_id: 5 })],
    page: 1,
    page_size: 10,
    total: 3,
  },
};

describe('redemption codes page (spec 2 §2.6)', () => {
  it('greys a used-up gift code and blocks enabling or editing a used one', async () => {
    stubApi(LIST);
    renderWithProviders(<RedemptionsPage />);
    expect(await screen.findByText('code-1')).toBeInTheDocument();
    expect(screen.getByText('code-2').closest('tr')).toHaveAttribute('data-greyed', 'true');
    expect(screen.getByText('code-1').closest('tr')).not.toHaveAttribute('data-greyed');
    expect(screen.getByTestId('redemption-toggle-3')).toBeDisabled();
    expect(screen.getByTestId('redemption-edit-3')).toBeDisabled();
    expect(screen.getByTestId('redemption-edit-1')).toBeEnabled();
    expect(screen.getByText('User 5')).toBeInTheDocument();
  });

  it('batch disable needs a selection', async () => {
    stubApi(LIST);
    renderWithProviders(<RedemptionsPage />);
    await screen.findByText('code-1');
    fireEvent.click(screen.getByTestId('redemptions-batch-disable'));
    expect(await screen.findByText('Please select at least one code')).toBeInTheDocument();
  });

  it('delete by name shows the count before deleting', async () => {
    const fetchMock = stubApi({ ...LIST, 'GET /api/redemption/count-by-name': 4, 'DELETE /api/redemption/delete-by-name': 4 });
    renderWithProviders(<RedemptionsPage />);
    await screen.findByText('code-1');
    fireEvent.click(screen.getByTestId('redemptions-delete-by-name'));
    fireEvent.change(await screen.findByTestId('by-name-input'), { target: { value: 'promo' } });
    fireEvent.click(screen.getByTestId('by-name-count'));
    expect(await screen.findByTestId('by-name-result')).toHaveTextContent('4 codes are named "promo".');
    const paths = () => fetchMock.mock.calls.map((c) => `${(c[0] as Request).method} ${new URL((c[0] as Request).url).pathname}`);
    expect(paths()).not.toContain('DELETE /api/redemption/delete-by-name');
    fireEvent.click(screen.getByTestId('by-name-delete'));
    expect(await screen.findByText('4 codes deleted')).toBeInTheDocument();
    expect(paths()).toContain('DELETE /api/redemption/delete-by-name');
  });
});
