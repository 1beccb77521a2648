import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../app/store';
import { renderWithProviders } from '../../test/renderWithProviders';
import { CHANNEL_STATUS } from './constants';
import { KeysDialog } from './KeysDialog';
import type { Channel, KeyView, KeysView } from './types';

// antd tables and popovers render slowly in jsdom when the machine is busy.
configure({ asyncUtilTimeout: 10_000 });
vi.setConfig({ testTimeout: 30_000 });

// antd measures popovers and tables; jsdom has no ResizeObserver.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

const CHANNEL_ID = 5;
const CHANNEL = { id: CHANNEL_ID, name: 'pool', key_count: 3, disabled_key_count: 1 } as Channel;
const DISABLED_AT = 1700000000;

interface ManageBody {
  channel_id: number;
  action: string;
  key_index?: number;
}

/**
 * A control plane holding the keys of one channel: answers the key endpoint like the real one
 * (counts, renumbering on delete) and key tests with `test`.
 */
function fakeServer(
  test: (index: number) => { success: boolean; message: string; time: number },
  channelStatus: number = CHANNEL_STATUS.enabled,
) {
  let keys: KeyView[] = [
    { index: 0, preview: 'sk-a…aaaa', status: CHANNEL_STATUS.enabled, reason: '', disabled_time: 0 },
    { index: 1, preview: 'sk-b…bbbb', status: CHANNEL_STATUS.enabled, reason: '', disabled_time: 0 },
    {
      index: 2,
      preview: 'sk-c…cccc',
      status: CHANNEL_STATUS.autoDisabled,
      reason: 'upstream said 401',
      disabled_time: DISABLED_AT,
    },
  ];
  const view = (): KeysView => ({
    channel_id: CHANNEL_ID,
    channel_status: channelStatus,
    total: keys.length,
    enabled: keys.filter((k) => k.status === CHANNEL_STATUS.enabled).length,
    manually_disabled: keys.filter((k) => k.status === CHANNEL_STATUS.disabled).length,
    auto_disabled: keys.filter((k) => k.status === CHANNEL_STATUS.autoDisabled).length,
    keys,
  });
  const setStatus = (index: number, status: number) => {
    keys = keys.map((k) =>
      k.index === index ? { ...k, status, reason: '', disabled_time: status === CHANNEL_STATUS.enabled ? 0 : DISABLED_AT } : k,
    );
  };
  const actions: ManageBody[] = [];
  const tests: string[] = [];
  const reply = (success: boolean, message: string, data: unknown) =>
    new Response(JSON.stringify({ success, message, data }), { headers: { 'Content-Type': 'application/json' } });
  const fetchMock = vi.fn(async (req: Request) => {
    const url = new URL(req.url);
    if (req.method === 'POST' && url.pathname === '/api/channel/multi_key/manage') {
      const body = (await req.json()) as ManageBody;
      actions.push(body);
      switch (body.action) {
        case 'enable_key':
          setStatus(body.key_index!, CHANNEL_STATUS.enabled);
          break;
        case 'disable_key':
          setStatus(body.key_index!, CHANNEL_STATUS.disabled);
          break;
        case 'enable_all_keys':
          keys.forEach((k) => setStatus(k.index, CHANNEL_STATUS.enabled));
          break;
        case 'delete_disabled_keys':
          keys = keys.filter((k) => k.status === CHANNEL_STATUS.enabled).map((k, index) => ({ ...k, index }));
          break;
      }
      return reply(true, '', view());
    }
    if (req.method === 'GET' && url.pathname === `/api/channel/test/${CHANNEL_ID}`) {
      tests.push(url.search);
      const r = test(Number(url.searchParams.get('key_index')));
      return reply(r.success, r.message, { channel_id: CHANNEL_ID, model: 'gpt-4o-mini', status: 1, ...r });
    }
    return new Response('{}', { status: 404 });
  });
  vi.stubGlobal('fetch', fetchMock);
  /** The changes sent (reads left out). */
  const changes = () => actions.filter((a) => a.action !== 'get_key_status');
  return { actions, changes, tests };
}

const summary = (key: string) => screen.getByTestId(`keys-summary-${key}`);

async function openDialog(locale: 'en' | 'zh-CN' = 'en') {
  renderWithProviders(<KeysDialog channel={CHANNEL} onClose={() => undefined} />, makeStore(), locale);
  await screen.findByTestId('key-status-2');
}

beforeEach(() => {
  vi.unstubAllGlobals();
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the Keys dialog of a multi-key channel', () => {
  it('shows the counts and every key with its status, reason and disabled time; filters by status', async () => {
    fakeServer(() => ({ success: true, message: '', time: 0.5 }));
    await openDialog();
    expect(screen.getByText('Keys of pool')).toBeInTheDocument();
    expect(summary('total')).toHaveAttribute('data-value', '3');
    expect(summary('enabled')).toHaveAttribute('data-value', '2');
    expect(summary('manual')).toHaveAttribute('data-value', '0');
    expect(summary('auto')).toHaveAttribute('data-value', '1');
    expect(screen.getByTestId('key-status-0')).toHaveTextContent('Enabled');
    expect(screen.getByTestId('key-status-2')).toHaveTextContent('Disabled automatically');
    expect(screen.getByTestId('key-preview-1')).toHaveTextContent('sk-b…bbbb');
    expect(screen.getByTestId('key-reason-2')).toHaveTextContent('upstream said 401');
    expect(screen.getByTestId('key-time-2')).toHaveTextContent(/^2023-11-1[45] \d\d:\d\d:20$/);
    expect(screen.queryByTestId('key-time-0')).not.toBeInTheDocument();
    // The toggle reads as what it does.
    expect(screen.getByTestId('key-toggle-0')).toHaveTextContent('Disable');
    expect(screen.getByTestId('key-toggle-2')).toHaveTextContent('Enable');
    expect(screen.queryByTestId('keys-channel-status')).not.toBeInTheDocument();

    const filter = screen.getByTestId('keys-filter');
    fireEvent.click(within(filter).getByText('Disabled automatically'));
    await waitFor(() => expect(screen.queryByTestId('key-status-0')).not.toBeInTheDocument());
    expect(screen.getByTestId('key-status-2')).toBeInTheDocument();
    fireEvent.click(within(filter).getByText('Enabled'));
    await waitFor(() => expect(screen.queryByTestId('key-status-2')).not.toBeInTheDocument());
    expect(screen.getByTestId('key-status-0')).toBeInTheDocument();
    expect(screen.getByTestId('key-status-1')).toBeInTheDocument();
    fireEvent.click(within(filter).getByText('Disabled by hand'));
    await waitFor(() => expect(screen.queryByTestId('key-status-1')).not.toBeInTheDocument());
  });

  it('disables and enables one key, then enables all: each sends its action and the list refetches', async () => {
    const server = fakeServer(() => ({ success: true, message: '', time: 0.5 }));
    await openDialog();

    fireEvent.click(screen.getByTestId('key-toggle-1'));
    expect(await screen.findByText('Key #1 disabled')).toBeInTheDocument();
    expect(server.changes()).toEqual([{ channel_id: CHANNEL_ID, action: 'disable_key', key_index: 1 }]);
    // The key query was invalidated: the counts come from a new read.
    await waitFor(() => expect(summary('manual')).toHaveAttribute('data-value', '1'));
    expect(summary('enabled')).toHaveAttribute('data-value', '1');
    expect(screen.getByTestId('key-status-1')).toHaveTextContent('Disabled by hand');
    expect(server.actions.at(-1)).toEqual({ channel_id: CHANNEL_ID, action: 'get_key_status' });

    // The first action has ended (its button no longer spins) before the second is asked.
    await waitFor(() => expect(screen.getByTestId('key-toggle-1')).not.toHaveClass('ant-btn-loading'));
    fireEvent.click(screen.getByTestId('key-toggle-1'));
    expect(await screen.findByText('Key #1 enabled', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(server.changes().at(-1)).toEqual({ channel_id: CHANNEL_ID, action: 'enable_key', key_index: 1 });
    await waitFor(() => expect(summary('manual')).toHaveAttribute('data-value', '0'));

    fireEvent.click(screen.getByTestId('keys-enable-all'));
    expect(await screen.findByText('Every key of the channel is enabled')).toBeInTheDocument();
    expect(server.changes().at(-1)).toEqual({ channel_id: CHANNEL_ID, action: 'enable_all_keys' });
    await waitFor(() => expect(summary('enabled')).toHaveAttribute('data-value', '3'));
    // Nothing is disabled any more: both bulk buttons are off.
    expect(screen.getByTestId('keys-enable-all')).toBeDisabled();
    expect(screen.getByTestId('keys-delete-disabled')).toBeDisabled();
  });

  it('deletes the disabled keys after a confirm that explains the renumbering', async () => {
    const server = fakeServer(() => ({ success: true, message: '', time: 0.5 }));
    await openDialog();
    fireEvent.click(screen.getByTestId('keys-delete-disabled'));
    expect(await screen.findByText('Delete the 1 disabled keys from the channel?')).toBeInTheDocument();
    expect(screen.getByText(/remaining keys are renumbered from #0/)).toBeInTheDocument();
    expect(server.changes()).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    expect(await screen.findByText('Disabled keys deleted: 2 keys left')).toBeInTheDocument();
    expect(server.changes()).toEqual([{ channel_id: CHANNEL_ID, action: 'delete_disabled_keys' }]);
    await waitFor(() => expect(summary('total')).toHaveAttribute('data-value', '2'));
    expect(screen.queryByTestId('key-status-2')).not.toBeInTheDocument();
  });

  it('tests one key with key_index and shows the time or the failure', async () => {
    const server = fakeServer((index) =>
      index === 0
        ? { success: true, message: '', time: 0.42 }
        : { success: false, message: `key #${index}: upstream said 401`, time: 0.1 },
    );
    await openDialog();
    fireEvent.click(screen.getByTestId('key-test-0'));
    await waitFor(() => expect(screen.getByTestId('key-result-0')).toHaveTextContent('OK in 0.42 s'));
    fireEvent.click(screen.getByTestId('key-test-2'));
    await waitFor(() => expect(screen.getByTestId('key-result-2')).toHaveTextContent('Failed: key #2: upstream said 401'));
    expect(server.tests).toEqual(['?key_index=0', '?key_index=2']);
    expect(screen.queryByTestId('key-result-1')).not.toBeInTheDocument();
  });

  it('says when the channel itself is disabled, whatever its keys', async () => {
    fakeServer(() => ({ success: true, message: '', time: 0.5 }), CHANNEL_STATUS.autoDisabled);
    await openDialog();
    expect(screen.getByTestId('keys-channel-status')).toHaveTextContent(
      'The channel itself is disabled automatically; enabling one of its keys enables it again.',
    );
  });

  it('reads in Chinese under zh-CN', async () => {
    fakeServer(() => ({ success: true, message: '', time: 0.5 }));
    await openDialog('zh-CN');
    expect(screen.getByText('pool 的密钥')).toBeInTheDocument();
    expect(screen.getByTestId('key-status-2')).toHaveTextContent('自动禁用');
    expect(screen.getByTestId('keys-delete-disabled')).toHaveTextContent('删除已禁用密钥');
    // antd spaces out two-character Chinese button labels.
    expect(screen.getByTestId('key-toggle-0')).toHaveTextContent(/^禁 ?用$/);
  });
});
