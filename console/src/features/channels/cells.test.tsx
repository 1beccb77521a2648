import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../test/renderWithProviders';
import { AutoDisableTip, ResponseTimeCell, StatusCell, TypeCell } from './cells';
import { CHANNEL_STATUS } from './constants';
import type { Channel } from './types';

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
