import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../test/renderWithProviders';
import { AutoDisableTip, ResponseTimeCell, StatusCell } from './cells';
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
});
