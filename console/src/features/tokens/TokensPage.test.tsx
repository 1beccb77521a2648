import { configure, fireEvent, screen, within } from '@testing-library/react';
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

const TOKEN = {
  id: 7,
  user_id: 1,
  name: 'my-token',
  key: 'sk-abcdEFGH1234567890abcdefghijklmnopqrstuvwxyzWXYZ',
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
    stubApi({ 'GET /api/token/': { items: [TOKEN], page: 1, page_size: 10, total: 1 } });
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: () => Promise.reject(new Error('denied')) },
    });
    renderWithProviders(<TokensPage />);
    await screen.findByText('my-token');
    fireEvent.click(screen.getByTestId('token-copy-7'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getAllByText('Cannot copy to clipboard, copy manually').length).toBeGreaterThan(0);
    expect(within(dialog).getByText(TOKEN.key)).toBeInTheDocument();
  });
});
