import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders, stubApi } from '../../../test/renderWithProviders';
import { MODEL_PANELS } from '../model/panels';
import { OptionPanel } from '../OptionPanel';
import { ResetModelRatios } from './ResetModelRatios';
import { UnsetModels } from './UnsetModels';
import { VisualRatioEditor } from './VisualRatioEditor';

const SAVED = {
  ModelPrice: '{"dall-e-3":0.04}',
  ModelRatio: '{"gpt-4o":1.25}',
  CompletionRatio: '{"gpt-4o":4}',
};

// antd's table measures itself; jsdom has no ResizeObserver.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

afterEach(() => vi.unstubAllGlobals());

/** The JSON bodies of the `PUT /api/option/` calls made so far. */
async function puts(fetchMock: ReturnType<typeof stubApi>): Promise<{ key: string; value: string }[]> {
  const reqs = fetchMock.mock.calls.map((c) => c[0] as Request).filter((r) => r.method === 'PUT');
  return Promise.all(reqs.map(async (r) => (await r.clone().json()) as { key: string; value: string }));
}

const toast = async (text: string) => {
  await waitFor(() => expect([...document.querySelectorAll('.ant-message-notice')].map((n) => n.textContent)).toContain(text));
};

describe('visual ratio editor', () => {
  it('shows each model with its billing and per-1M-token prices', () => {
    renderWithProviders(<VisualRatioEditor saved={SAVED} />);
    expect(screen.getByTestId('ratio-row-gpt-4o').textContent).toContain('Input $2.5 · Output $10');
    expect(screen.getByTestId('ratio-row-dall-e-3').textContent).toContain('$0.04 per request');
  });

  it('refuses an existing name, then adds a model and saves only ModelRatio', async () => {
    const fetchMock = stubApi({ 'PUT /api/option/': null });
    renderWithProviders(<VisualRatioEditor saved={SAVED} />);
    fireEvent.click(screen.getByTestId('ratio-add'));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByTestId('pricing-form-name'), { target: { value: 'gpt-4o' } });
    fireEvent.change(within(dialog).getByTestId('pricing-form-inputPrice'), { target: { value: '1' } });
    expect((within(dialog).getByTestId('pricing-form-ratio') as HTMLInputElement).value).toBe('0.5');
    fireEvent.click(within(dialog).getByTestId('pricing-form-ok'));
    await toast('Model name already exists');
    fireEvent.change(within(dialog).getByTestId('pricing-form-name'), { target: { value: 'new-model' } });
    fireEvent.click(within(dialog).getByTestId('pricing-form-ok'));
    await waitFor(() => expect(screen.getByTestId('ratio-row-new-model')).toBeTruthy());
    fireEvent.click(screen.getByTestId('ratio-save'));
    await waitFor(async () => expect(await puts(fetchMock)).toHaveLength(1));
    const [put] = await puts(fetchMock);
    expect(put.key).toBe('ModelRatio');
    expect(JSON.parse(put.value)).toEqual({ 'gpt-4o': 1.25, 'new-model': 0.5 });
  });

  it('a fixed price disables the ratio inputs', async () => {
    renderWithProviders(<VisualRatioEditor saved={SAVED} />);
    fireEvent.click(screen.getByTestId('ratio-edit-gpt-4o'));
    const dialog = await screen.findByRole('dialog');
    const ratio = within(dialog).getByTestId('pricing-form-ratio') as HTMLInputElement;
    expect(ratio.disabled).toBe(false);
    fireEvent.change(within(dialog).getByTestId('pricing-form-price'), { target: { value: '0.1' } });
    expect(ratio.disabled).toBe(true);
    expect((within(dialog).getByTestId('pricing-form-completionRatio') as HTMLInputElement).disabled).toBe(true);
  });
});

describe('unset-ratio models', () => {
  it('asks for a selection before the batch set', async () => {
    stubApi({ 'GET /api/models/unset': ['m-a', 'm-b'] });
    renderWithProviders(<UnsetModels saved={SAVED} />);
    await screen.findByTestId('unset-ratio-m-a');
    fireEvent.click(screen.getByTestId('unset-batch'));
    await toast('Please select models to batch set first');
  });

  it('saves the typed ratios into the existing maps', async () => {
    const fetchMock = stubApi({ 'GET /api/models/unset': ['m-a', 'm-b'], 'PUT /api/option/': null });
    renderWithProviders(<UnsetModels saved={SAVED} />);
    fireEvent.change(await screen.findByTestId('unset-ratio-m-a'), { target: { value: '3' } });
    fireEvent.change(screen.getByTestId('unset-price-m-b'), { target: { value: '0.2' } });
    expect((screen.getByTestId('unset-ratio-m-b') as HTMLInputElement).disabled).toBe(true);
    fireEvent.click(screen.getByTestId('unset-save'));
    await waitFor(async () => expect(await puts(fetchMock)).toHaveLength(2));
    const sent = Object.fromEntries((await puts(fetchMock)).map((p) => [p.key, JSON.parse(p.value) as unknown]));
    expect(sent).toEqual({ ModelPrice: { 'dall-e-3': 0.04, 'm-b': 0.2 }, ModelRatio: { 'gpt-4o': 1.25, 'm-a': 3 } });
  });
});

describe('model-related panels', () => {
  it('the ping interval is disabled unless ping is enabled', () => {
    const global = MODEL_PANELS.find((p) => p.id === 'global')!;
    const saved = { 'general_setting.ping_interval_enabled': 'false', 'general_setting.ping_interval_seconds': '60' };
    renderWithProviders(<OptionPanel panel={global} saved={saved} />);
    const seconds = screen.getByTestId('option-general_setting.ping_interval_seconds') as HTMLInputElement;
    expect(seconds.disabled).toBe(true);
    fireEvent.click(screen.getByTestId('option-general_setting.ping_interval_enabled'));
    expect(seconds.disabled).toBe(false);
  });
});

describe('reset model ratios', () => {
  it('asks first, then calls POST /api/option/rest_model_ratio', async () => {
    const fetchMock = stubApi({ 'POST /api/option/rest_model_ratio': null });
    renderWithProviders(<ResetModelRatios />);
    fireEvent.click(screen.getByTestId('reset-model-ratios'));
    expect(fetchMock).not.toHaveBeenCalled();
    fireEvent.click(await screen.findByRole('button', { name: 'OK' }));
    await toast('Model ratios reset');
    const urls = fetchMock.mock.calls.map((c) => `${(c[0] as Request).method} ${new URL((c[0] as Request).url).pathname}`);
    expect(urls).toEqual(['POST /api/option/rest_model_ratio']);
  });
});
