import { configure, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../app/store';
import { renderWithProviders, stubApi } from '../../test/renderWithProviders';
import { ChannelForm } from './ChannelForm';
import { CHANNEL_STATUS, CHANNEL_TYPE } from './constants';
import type { Channel } from './types';

// antd forms render slowly in jsdom when the machine is busy: wait longer than the defaults.
configure({ asyncUtilTimeout: 10_000 });
vi.setConfig({ testTimeout: 30_000 });

afterEach(() => {
  vi.unstubAllGlobals();
});

// antd measures text areas; jsdom has no ResizeObserver.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

const CHANNEL = {
  id: 5,
  type: CHANNEL_TYPE.openai,
  name: 'upstream',
  key_count: 1,
  base_url: 'https://api.example.com',
  header_override: '{"X-Team": "a"}',
  setting: '{"proxy": "socks5://proxy.example:1080"}',
  models: 'gpt-4o-mini',
  group: 'default',
  status: CHANNEL_STATUS.enabled,
  priority: 0,
  weight: 0,
  auto_ban: 1,
  other: '',
  openai_organization: '',
  test_model: '',
  model_mapping: '',
  status_code_mapping: '',
  param_override: '',
  tag: '',
  model_prefix: '',
  max_input_tokens: 0,
  remark: '',
  multi_key_mode: '',
} as unknown as Channel;

const REENTER_EN = 'The base URL, header override or proxy changed: enter the key again';
const REFUSED_EN = "The base URL, header override or proxy changed: enter the channel's key again to save";

function puts(fetchMock: ReturnType<typeof vi.fn>): number {
  return fetchMock.mock.calls.filter(([req]) => (req as Request).method === 'PUT').length;
}

describe('channel edit: a new key destination needs the key', () => {
  it('asks for the key once the base URL changes and refuses to save without it', async () => {
    const fetchMock = stubApi({ 'GET /api/group/': ['default'], 'PUT /api/channel/': CHANNEL });
    const onDone = vi.fn();
    renderWithProviders(<ChannelForm channel={CHANNEL} onDone={onDone} />);
    const baseUrl = await screen.findByTestId('channel-base-url');
    expect(screen.queryByTestId('channel-key-reenter')).not.toBeInTheDocument();

    fireEvent.change(baseUrl, { target: { value: 'https://collector.example' } });
    expect(await screen.findByTestId('channel-key-reenter')).toHaveTextContent(REENTER_EN);
    expect(screen.getByTestId('channel-key')).toHaveAttribute('placeholder', REENTER_EN);
    fireEvent.click(screen.getByTestId('channel-submit'));
    expect(await screen.findByText(REFUSED_EN)).toBeInTheDocument();
    expect(puts(fetchMock)).toBe(0);

    // With the key the warning goes and the save is sent.
    fireEvent.change(screen.getByTestId('channel-key'), { target: { value: 'sk-again' } });
    await waitFor(() => expect(screen.queryByTestId('channel-key-reenter')).not.toBeInTheDocument());
    fireEvent.click(screen.getByTestId('channel-submit'));
    await waitFor(() => expect(onDone).toHaveBeenCalled());
    const put = fetchMock.mock.calls.map(([r]) => r as Request).find((r) => r.method === 'PUT');
    expect(await put?.json()).toMatchObject({ id: 5, base_url: 'https://collector.example', key: 'sk-again' });
  });

  it('saves other edits without the key, and says it in Chinese too', async () => {
    const fetchMock = stubApi({ 'GET /api/group/': ['default'], 'PUT /api/channel/': CHANNEL });
    const onDone = vi.fn();
    renderWithProviders(<ChannelForm channel={CHANNEL} onDone={onDone} />, makeStore(), 'zh-CN');
    const baseUrl = await screen.findByTestId('channel-base-url');
    // A trailing slash is no new destination.
    fireEvent.change(baseUrl, { target: { value: 'https://api.example.com/' } });
    fireEvent.change(screen.getByTestId('channel-name'), { target: { value: 'renamed' } });
    expect(screen.queryByTestId('channel-key-reenter')).not.toBeInTheDocument();
    fireEvent.click(screen.getByTestId('channel-submit'));
    await waitFor(() => expect(onDone).toHaveBeenCalled());
    expect(puts(fetchMock)).toBe(1);

    fireEvent.change(baseUrl, { target: { value: 'https://collector.example' } });
    expect(await screen.findByTestId('channel-key-reenter')).toHaveTextContent(
      '已修改 Base URL、请求头覆盖或代理设置，请重新填写密钥',
    );
  });
});
