import { configure, fireEvent, screen, waitFor } from '@testing-library/react';
import { Modal } from 'antd';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../test/renderWithProviders';
import { WalletPage } from './WalletPage';

// antd tables and modals render slowly in jsdom when the machine is busy: wait longer than the defaults.
configure({ asyncUtilTimeout: 10_000 });
vi.setConfig({ testTimeout: 30_000 });

// antd's table measures itself; jsdom has no ResizeObserver.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  Modal.destroyAll();
});

type Reply = { success: boolean; message?: string; data?: unknown; url?: string };

/** Envelope replies by "METHOD /path"; a function reply sees the request body. */
function stubServer(replies: Record<string, Reply | ((body: unknown) => Reply)>) {
  const fetchMock = vi.fn(async (req: Request) => {
    const key = `${req.method} ${new URL(req.url).pathname}`;
    const r = replies[key];
    if (!r) return new Response('{}', { status: 404 });
    const body = req.method === 'GET' ? undefined : await req.clone().json();
    return new Response(JSON.stringify(typeof r === 'function' ? r(body) : r), {
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const STATUS = { quota_per_unit: 500000, display_in_currency: true, top_up_link: '', min_topup: 5, enable_online_topup: true };
const PAGE = { items: [], page: 1, page_size: 10, total: 0 };

function render(path = '/topup') {
  renderWithProviders(
    <MemoryRouter initialEntries={[path]}>
      <WalletPage />
    </MemoryRouter>,
  );
}

describe('wallet page (spec 2 §2.7)', () => {
  it('shows the balance and redeems the code from ?code=', async () => {
    let quota = 1000000;
    const fetchMock = stubServer({
      'GET /api/status': { success: true, data: STATUS },
      'GET /api/user/self': () => ({ success: true, data: { id: 1, quota, used_quota: 0, request_count: 0 } }),
      'GET /api/user/topup/self': { success: true, data: PAGE },
      'POST /api/user/topup': (body) => {
        expect(body).toEqual({ key: 'GIFT123' });
        quota += 500000;
        return { success: true, data: { quota: 500000, is_gift: false } };
      },
    });
    render('/topup?code=GIFT123');
    expect(await screen.findByText('$2.00')).toBeInTheDocument();
    expect(screen.getByTestId('wallet-redeem-code')).toHaveValue('GIFT123');
    fireEvent.click(screen.getByTestId('wallet-redeem-submit'));
    expect(await screen.findByText('Redeemed: $1.00 added to your balance')).toBeInTheDocument();
    expect(await screen.findByText('$3.00')).toBeInTheDocument();
    expect(fetchMock.mock.calls.some((c) => new URL((c[0] as Request).url).pathname === '/api/user/topup')).toBe(true);
  });

  it('asks for a code and for the top-up link', async () => {
    stubServer({ 'GET /api/status': { success: true, data: STATUS } });
    render();
    fireEvent.click(await screen.findByTestId('wallet-redeem-submit'));
    expect(await screen.findByText('Please enter the redemption code')).toBeInTheDocument();
    await screen.findByText('Minimum 5');
    fireEvent.click(screen.getByTestId('wallet-buy-code'));
    expect(await screen.findByText('The super administrator has not set a top-up link')).toBeInTheDocument();
  });

  it('says online top-up is off when the admin has not enabled it', async () => {
    stubServer({ 'GET /api/status': { success: true, data: { ...STATUS, enable_online_topup: false, min_topup: 1 } } });
    render();
    await screen.findByText('Online top-up is not available on this site.');
    fireEvent.click(screen.getByTestId('wallet-pay-zfb'));
    expect(await screen.findByText('The administrator has not enabled online top-up')).toBeInTheDocument();
  });

  it('refuses an amount below min_topup', async () => {
    stubServer({ 'GET /api/status': { success: true, data: STATUS } });
    render();
    await screen.findByText('Minimum 5');
    fireEvent.change(screen.getByTestId('wallet-topup-amount'), { target: { value: '3' } });
    fireEvent.click(screen.getByTestId('wallet-pay-wx'));
    expect(await screen.findByText('The top-up amount cannot be less than 5')).toBeInTheDocument();
  });

  it('resets the payable amount to 0 and shows the server message when the quote fails', async () => {
    stubServer({
      'GET /api/status': { success: true, data: STATUS },
      'POST /api/user/amount': (body) =>
        (body as { amount: number }).amount === 6
          ? { success: true, data: '7.30' }
          : { success: false, message: 'top-up is paused' },
    });
    render();
    await screen.findByText('Minimum 5');
    fireEvent.change(screen.getByTestId('wallet-topup-amount'), { target: { value: '6' } });
    await waitFor(() => expect(screen.getByTestId('wallet-topup-payable')).toHaveTextContent('To pay: 7.30'));
    fireEvent.change(screen.getByTestId('wallet-topup-amount'), { target: { value: '8' } });
    expect(await screen.findByText('top-up is paused')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('wallet-topup-payable')).toHaveTextContent('To pay: 0'));
  });

  it('confirms, then posts the returned form to the payment url', async () => {
    const submit = vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(function (this: HTMLFormElement) {
      document.body.dataset.submitted = `${this.action}|${new FormData(this).get('out_trade_no')}`;
    });
    stubServer({
      'GET /api/status': { success: true, data: STATUS },
      'POST /api/user/amount': { success: true, data: '5.00' },
      'POST /api/user/pay': (body) => {
        expect(body).toEqual({ amount: 5, top_up_code: '', payment_method: 'zfb' });
        return {
          success: true,
          message: 'success',
          data: { out_trade_no: 'T1', sign: 's' },
          url: 'https://pay.example/submit.php',
        };
      },
    });
    render();
    await screen.findByText('Minimum 5');
    fireEvent.click(screen.getByTestId('wallet-pay-zfb'));
    expect(await screen.findByText('Confirm top-up')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Pay' }));
    await waitFor(() => expect(submit).toHaveBeenCalled());
    expect(document.body.dataset.submitted).toBe('https://pay.example/submit.php|T1');
  });
});
