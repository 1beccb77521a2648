import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../test/renderWithProviders';
import { AutoDisableTip, KeyCountCell, ResponseTimeCell, StatusCell, TypeCell } from './cells';
import { CHANNEL_STATUS } from './constants';
import { KEY_FILTER, disabledKeys, filterKeys, keyCount } from './keys';
import type { Channel, KeyView } from './types';

const channel = (over: Partial<Channel>) =>
  ({ id: 9, status: CHANNEL_STATUS.enabled, other_info: '', response_time: 0, test_time: 0, ...over }) as Channel;

describe('channel cells (spec 2 §4.1)', () => {
  it('an auto-disabled channel reads so; its tooltip shows the reason and time from other_info', () => {
    const info = JSON.stringify({ status_reason: 'upstream said 401', status_time: 1700000000 });
    renderWithProviders(
      <>
        <StatusCell channel={channel({ status: CHANNEL_STATUS.autoDisabled, other_info: info })} />
        <AutoDisableTip otherInfo={info} />
      </>,
    );
    expect(screen.getByTestId('channel-status-9')).toHaveTextContent('Auto-disabled');
    expect(screen.getByText('Reason: upstream said 401')).toBeInTheDocument();
    expect(screen.getByText(/^Disabled at: 2023-11-1[45] /)).toBeInTheDocument();
  });

  it('without other_info the tooltip says no reason was recorded', () => {
    renderWithProviders(<AutoDisableTip otherInfo="" />);
    expect(screen.getByText('Disabled automatically; no reason was recorded')).toBeInTheDocument();
  });

  it('response time: untested, then seconds with the threshold colour', () => {
    renderWithProviders(
      <>
        <ResponseTimeCell channel={channel({ id: 1 })} />
        <ResponseTimeCell channel={channel({ id: 2, response_time: 2500, test_time: 1700000000 })} />
      </>,
    );
    expect(screen.getByTestId('channel-latency-1')).toHaveTextContent('Not tested');
    expect(screen.getByTestId('channel-latency-1')).toHaveAttribute('data-color', 'default');
    expect(screen.getByTestId('channel-latency-2')).toHaveTextContent('2.50 s');
    expect(screen.getByTestId('channel-latency-2')).toHaveAttribute('data-color', 'lime');
  });

  it('a channel of a type this gateway cannot relay carries a warning tag whose tooltip says it gets no requests', async () => {
    renderWithProviders(
      <>
        <TypeCell channel={channel({ id: 1, type: 1, served: true })} />
        <TypeCell channel={channel({ id: 2, type: 33, served: false })} />
      </>,
    );
    expect(screen.queryByTestId('channel-not-served-1')).not.toBeInTheDocument();
    const tag = screen.getByTestId('channel-not-served-2');
    expect(tag).toHaveTextContent('Not served by this gateway version');
    // antd's tooltip measures itself; jsdom has no ResizeObserver.
    vi.stubGlobal(
      'ResizeObserver',
      class {
        observe() {}
        unobserve() {}
        disconnect() {}
      },
    );
    try {
      await userEvent.hover(tag);
      expect(await screen.findByText(/requests are never routed to this channel/)).toBeInTheDocument();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('the not-served tag reads in Chinese under zh-CN', () => {
    renderWithProviders(<TypeCell channel={channel({ id: 3, type: 33, served: false })} />, undefined, 'zh-CN');
    expect(screen.getByTestId('channel-not-served-3')).toHaveTextContent('当前网关版本不支持此渠道类型');
  });
});

describe('key count of multi-key channels', () => {
  const keys = (key_count: number, disabled_key_count: number) => ({ key_count, disabled_key_count });

  it('is nothing for one key, the count alone when all are enabled, the disabled ones otherwise', () => {
    expect(keyCount(keys(1, 0))).toBeNull();
    expect(keyCount(keys(0, 0))).toBeNull();
    expect(keyCount(keys(3, 0))).toEqual({ total: 3, disabled: 0, level: 'ok' });
    expect(keyCount(keys(3, 1))).toEqual({ total: 3, disabled: 1, level: 'some' });
    expect(keyCount(keys(3, 3))).toEqual({ total: 3, disabled: 3, level: 'all' });
    // A count out of range (stale row) is clamped.
    expect(keyCount(keys(2, 5))).toEqual({ total: 2, disabled: 2, level: 'all' });
  });

  it('renders a tag with the counts in the warning colour when some keys are disabled, and opens the dialog', async () => {
    const onOpen = vi.fn();
    renderWithProviders(
      <>
        <KeyCountCell channel={{ id: 1, ...keys(1, 0) }} onOpen={onOpen} />
        <KeyCountCell channel={{ id: 2, ...keys(3, 0) }} onOpen={onOpen} />
        <KeyCountCell channel={{ id: 3, ...keys(3, 1) }} onOpen={onOpen} />
        <KeyCountCell channel={{ id: 4, ...keys(2, 2) }} onOpen={onOpen} />
      </>,
    );
    expect(screen.queryByTestId('channel-keys-1')).not.toBeInTheDocument();
    expect(screen.getByTestId('channel-keys-2')).toHaveTextContent(/^3 keys$/);
    expect(screen.getByTestId('channel-keys-2')).toHaveAttribute('data-color', 'blue');
    expect(screen.getByTestId('channel-keys-3')).toHaveTextContent('3 keys · 1 disabled');
    expect(screen.getByTestId('channel-keys-3')).toHaveAttribute('data-color', 'warning');
    expect(screen.getByTestId('channel-keys-4')).toHaveTextContent('2 keys · 2 disabled');
    expect(screen.getByTestId('channel-keys-4')).toHaveAttribute('data-color', 'error');
    await userEvent.click(screen.getByTestId('channel-keys-3'));
    expect(onOpen).toHaveBeenCalledTimes(1);
  });

  it('reads in Chinese under zh-CN', () => {
    renderWithProviders(<KeyCountCell channel={{ id: 5, ...keys(3, 1) }} />, undefined, 'zh-CN');
    expect(screen.getByTestId('channel-keys-5')).toHaveTextContent('3 个密钥 · 1 个已禁用');
  });

  it('the Keys dialog filters by status and counts what deleting removes', () => {
    const key = (index: number, status: number) => ({ index, status, preview: '', reason: '', disabled_time: 0 }) as KeyView;
    const all = [key(0, CHANNEL_STATUS.enabled), key(1, CHANNEL_STATUS.disabled), key(2, CHANNEL_STATUS.autoDisabled)];
    expect(filterKeys(all, KEY_FILTER.all).map((k) => k.index)).toEqual([0, 1, 2]);
    expect(filterKeys(all, KEY_FILTER.enabled).map((k) => k.index)).toEqual([0]);
    expect(filterKeys(all, KEY_FILTER.manual).map((k) => k.index)).toEqual([1]);
    expect(filterKeys(all, KEY_FILTER.auto).map((k) => k.index)).toEqual([2]);
    expect(disabledKeys({ manually_disabled: 1, auto_disabled: 2 })).toBe(3);
  });
});
