import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Modal } from 'antd';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../app/store';
import { signedIn } from '../../app/sessionSlice';
import type { User } from '../../api/types';
import { renderWithProviders } from '../../test/renderWithProviders';
import { PricingPage } from './PricingPage';

configure({ asyncUtilTimeout: 10_000 });
vi.setConfig({ testTimeout: 30_000 });

class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

const PRICING = {
  success: true,
  message: '',
  data: [
    {
      model_name: 'gpt-4o-mini',
      quota_type: 0,
      model_ratio: 0.075,
      completion_ratio: 4,
      cache_ratio: null,
      model_price: 0,
      enable_groups: ['default', 'vip'],
    },
    {
      model_name: 'claude-3-haiku',
      quota_type: 0,
      model_ratio: 0.125,
      completion_ratio: 5,
      cache_ratio: 0.1,
      model_price: 0,
      enable_groups: ['vip'],
    },
    {
      model_name: 'dall-e-3',
      quota_type: 1,
      model_ratio: 0,
      completion_ratio: 1,
      cache_ratio: null,
      model_price: 0.04,
      enable_groups: ['default'],
    },
  ],
  group_ratio: { default: 1, vip: 2 },
  usable_group: { default: '', vip: 'VIP' },
};

function stub(displayInCurrency = true) {
  const fetchMock = vi.fn(async (req: Request) => {
    const path = new URL(req.url).pathname;
    const body =
      path === '/api/pricing'
        ? PRICING
        : path === '/api/status'
          ? { success: true, message: '', data: { quota_per_unit: 500000, display_in_currency: displayInCurrency } }
          : {};
    return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const rows = () => screen.getAllByTestId('pricing-model-name').map((n) => n.textContent);
const rowOf = (name: string) => screen.getByText(name).closest('tr') as HTMLElement;

beforeEach(() => window.localStorage.clear());
afterEach(() => {
  vi.unstubAllGlobals();
  Modal.destroyAll();
});

describe('PricingPage', () => {
  it('shows a signed-out visitor the default group prices, per token and per call', async () => {
    stub();
    renderWithProviders(<PricingPage />);
    await waitFor(() => expect(rows()).toEqual(['gpt-4o-mini', 'claude-3-haiku', 'dall-e-3']));
    expect(screen.getByTestId('pricing-signed-out')).toHaveTextContent('default group (group ratio 1)');
    const gpt = within(rowOf('gpt-4o-mini'));
    expect(gpt.getByText('Input $0.15 / 1M tokens')).toBeInTheDocument();
    expect(gpt.getByText('Output $0.60 / 1M tokens')).toBeInTheDocument();
    expect(gpt.getByTestId('pricing-available')).toBeInTheDocument();
    expect(within(rowOf('claude-3-haiku')).getByTestId('pricing-unavailable')).toBeInTheDocument();
    expect(within(rowOf('claude-3-haiku')).getByText('Cached input $0.025 / 1M tokens')).toBeInTheDocument();
    expect(within(rowOf('dall-e-3')).getByText('$0.04 / call')).toBeInTheDocument();
    expect(screen.getByTestId('pricing-count')).toHaveTextContent('3 of 3 models');
  });

  it('narrows the list by a fuzzy search', async () => {
    stub();
    renderWithProviders(<PricingPage />);
    await waitFor(() => expect(rows()).toHaveLength(3));
    fireEvent.change(screen.getByPlaceholderText('Search models'), { target: { value: 'GPT mini' } });
    await waitFor(() => expect(rows()).toEqual(['gpt-4o-mini']));
    fireEvent.change(screen.getByPlaceholderText('Search models'), { target: { value: 'nothing-like-this' } });
    expect(await screen.findByText('No model matches the search and filters')).toBeInTheDocument();
  });

  it('switches the viewed group from a group tag and prices in its ratio', async () => {
    stub();
    renderWithProviders(<PricingPage />);
    await waitFor(() => expect(rows()).toHaveLength(3));
    fireEvent.click(within(rowOf('claude-3-haiku')).getByText('vip'));
    expect(await screen.findByText('Prices below are for the group vip (group ratio 2).')).toBeInTheDocument();
    expect(within(rowOf('gpt-4o-mini')).getByText('Input $0.30 / 1M tokens')).toBeInTheDocument();
    expect(within(rowOf('claude-3-haiku')).getByTestId('pricing-available')).toBeInTheDocument();
  });

  it('shows a signed-in user their group, and quota when currency display is off', async () => {
    stub(false);
    const store = makeStore();
    store.dispatch(signedIn({ id: 5, username: 'u', role: 1, group: 'vip' } as User));
    renderWithProviders(<PricingPage />, store);
    expect(await screen.findByText('Your group is vip, with a group ratio of 2.')).toBeInTheDocument();
    await waitFor(() => expect(within(rowOf('gpt-4o-mini')).getByText('Input 150,000 quota / 1M tokens')).toBeInTheDocument());
    expect(within(rowOf('dall-e-3')).getByText('40,000 quota / call')).toBeInTheDocument();
  });

  it('copies a model name when it is clicked', async () => {
    stub();
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
    renderWithProviders(<PricingPage />);
    await waitFor(() => expect(rows()).toHaveLength(3));
    fireEvent.click(screen.getByText('dall-e-3'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('dall-e-3'));
  });
});
