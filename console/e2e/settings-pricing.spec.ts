/**
 * Pricing settings against the real control plane, gateway and mock provider: a ratio changed in
 * the visual editor reaches /api/pricing and what a real chat call is charged; unset-ratio models
 * priced by a batch set.
 */
import { expect, test, type Page } from '@playwright/test';
import { login, setLanguage, SHOTS } from './helpers';

const MODEL = 'e2e-ratio-model';
const UNSET_MODELS = ['e2e-unset-a', 'e2e-unset-b'];
/** The mock provider's fixed usage of a non-stream chat completion (gateway/mock-provider). */
const MOCK_USAGE = { prompt: 12, completion: 5 };

function env(name: 'E2E_GATEWAY_URL' | 'E2E_MOCK_URL'): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run through playwright (global-setup)`);
  return v;
}

/** The root account made by the setup project is the first user. */
const ROOT_ID = '1';

async function api<T>(page: Page, method: 'GET' | 'POST', url: string, data?: unknown): Promise<T> {
  const headers = { 'New-Api-User': ROOT_ID };
  const res = method === 'GET' ? await page.request.get(url, { headers }) : await page.request.post(url, { headers, data });
  const body = (await res.json()) as { success: boolean; message: string; data: T };
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body.data;
}

/** An enabled OpenAI-type channel at the mock provider serving `models` in group default. */
async function createMockChannel(page: Page, name: string, models: string[]) {
  await api(page, 'POST', '/api/channel/', {
    mode: 'single',
    channel: {
      name,
      type: 1,
      key: 'sk-mock-upstream',
      base_url: env('E2E_MOCK_URL'),
      models: models.join(','),
      group: 'default',
    },
  });
}

async function createToken(page: Page, name: string): Promise<string> {
  const created = await api<{ key: string }[]>(page, 'POST', '/api/token/', {
    name,
    remain_quota: 0,
    unlimited_quota: true,
    expired_time: -1,
  });
  return created[0].key;
}

async function chat(page: Page, key: string): Promise<number> {
  const res = await page.request.post(`${env('E2E_GATEWAY_URL')}/v1/chat/completions`, {
    headers: { Authorization: `Bearer ${key}` },
    data: { model: MODEL, messages: [{ role: 'user', content: 'price check' }] },
  });
  return res.status();
}

interface LogRow {
  id: number;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  other: string;
}

/** The newest consume log of the token, if any arrived yet. */
async function newestLog(page: Page, tokenName: string): Promise<LogRow | undefined> {
  const q = new URLSearchParams({ type: '2', token_name: tokenName, model_name: MODEL, p: '1', page_size: '10' });
  const data = await api<{ items: LogRow[] }>(page, 'GET', `/api/log/?${q}`);
  return [...data.items].sort((a, b) => b.id - a.id)[0];
}

/** Quota of the mock's fixed usage at these ratios (reference §3.2). */
const expectedQuota = (ratio: number, completionRatio: number, groupRatio: number) =>
  Math.round((MOCK_USAGE.prompt + MOCK_USAGE.completion * completionRatio) * ratio * groupRatio);

async function pricingOf(page: Page, model: string) {
  const body = (await (await page.request.get('/api/pricing')).json()) as {
    data: { model_name: string; model_ratio: number; completion_ratio: number; quota_type: number }[];
  };
  return body.data.find((m) => m.model_name === model);
}

/** Saves the visual editor and waits for the confirmation (and for it to go, so the next save's is its own). */
async function saveEditor(page: Page) {
  await page.getByTestId('ratio-save').click();
  await expect(page.getByText('Settings saved')).toBeVisible();
  await expect(page.getByText('Settings saved')).toHaveCount(0);
}

test('a ratio changed in the visual editor reaches /api/pricing and the charge of a real chat call', async ({ page }) => {
  test.setTimeout(120_000);
  await setLanguage(page, 'en');
  await login(page);
  const user = await api<{ group: string }>(page, 'GET', '/api/user/self');
  const groupRatios = JSON.parse(
    (await api<{ key: string; value: string }[]>(page, 'GET', '/api/option/')).find((o) => o.key === 'GroupRatio')?.value ?? '{}',
  ) as Record<string, number>;
  const groupRatio = groupRatios[user.group] ?? 1;
  await createMockChannel(page, 'e2e-ratio-channel', [MODEL]);
  const tokenName = `e2e-ratio-token-${Date.now()}`;
  const key = await createToken(page, tokenName);

  // Add the model with ratio 2 and completion ratio 3.
  await page.goto('/setting?tab=operation&sub=visual');
  const editor = page.getByTestId('ratio-visual-editor');
  await editor.getByTestId('ratio-add').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('pricing-form-name').fill('gpt-4o');
  await dialog.getByTestId('pricing-form-ratio').fill('1');
  await dialog.getByTestId('pricing-form-ok').click();
  await expect(page.getByText('Model name already exists')).toBeVisible();
  await dialog.getByTestId('pricing-form-name').fill(MODEL);
  await dialog.getByTestId('pricing-form-price').fill('0');
  await expect(dialog.getByTestId('pricing-form-ratio')).toBeDisabled();
  await dialog.getByTestId('pricing-form-ok').click();
  await expect(page.getByText('Model price cannot be 0')).toBeVisible();
  await dialog.getByTestId('pricing-form-price').fill('');
  await dialog.getByTestId('pricing-form-ratio').fill('abc');
  await dialog.getByTestId('pricing-form-ok').click();
  await expect(page.getByText('Please enter a number')).toBeVisible();
  await dialog.getByTestId('pricing-form-ratio').fill('2');
  await dialog.getByTestId('pricing-form-completionRatio').fill('3');
  // The per-1M-token prices follow the ratios: input 2 × 2 = $4, output 4 × 3 = $12.
  await expect(dialog.getByTestId('pricing-form-inputPrice')).toHaveValue('4');
  await expect(dialog.getByTestId('pricing-form-outputPrice')).toHaveValue('12');
  await dialog.getByTestId('pricing-form-ok').click();
  await expect(editor.getByText('You have unsaved changes; they apply once saved.')).toBeVisible();
  await editor.getByTestId('ratio-search').fill(MODEL);
  await expect(editor.getByTestId(`ratio-row-${MODEL}`)).toContainText('Input $4 · Output $12');
  await saveEditor(page);
  await expect.poll(async () => (await pricingOf(page, MODEL))?.model_ratio).toBe(2);
  expect((await pricingOf(page, MODEL))?.completion_ratio).toBe(3);

  // The gateway learns the price by push: call until it relays, then read the charge.
  await expect.poll(() => chat(page, key), { timeout: 30_000, intervals: [250, 500, 1000] }).toBe(200);
  const first = expectedQuota(2, 3, groupRatio);
  await expect.poll(async () => (await newestLog(page, tokenName))?.quota, { timeout: 30_000 }).toBe(first);
  const row = await newestLog(page, tokenName);
  expect([row?.prompt_tokens, row?.completion_tokens]).toEqual([MOCK_USAGE.prompt, MOCK_USAGE.completion]);

  // Edit through the per-1M-token prices: input $10 → ratio 5, output $20 → completion ratio 2.
  await page.goto('/setting?tab=operation&sub=visual');
  await editor.getByTestId('ratio-search').fill(MODEL);
  await editor.getByTestId(`ratio-edit-${MODEL}`).click();
  await expect(dialog.getByTestId('pricing-form-inputPrice')).toHaveValue('4');
  await dialog.getByTestId('pricing-form-inputPrice').fill('10');
  await dialog.getByTestId('pricing-form-outputPrice').fill('20');
  await expect(dialog.getByTestId('pricing-form-ratio')).toHaveValue('5');
  await expect(dialog.getByTestId('pricing-form-completionRatio')).toHaveValue('2');
  await dialog.getByTestId('pricing-form-ok').click();
  await page.screenshot({ path: `${SHOTS}/en/settings-visual-ratio-editor.png`, fullPage: true });
  await saveEditor(page);
  await expect.poll(async () => (await pricingOf(page, MODEL))?.model_ratio).toBe(5);
  expect((await pricingOf(page, MODEL))?.completion_ratio).toBe(2);
  // Only the changed keys were saved: the JSON sub-tab shows the new ratio.
  await page.goto('/setting?tab=operation&sub=ratios');
  await expect(page.getByTestId('option-ModelRatio')).toHaveValue(new RegExp(`"${MODEL}": 5\\b`));

  const second = expectedQuota(5, 2, groupRatio);
  expect(second).not.toBe(first);
  await expect
    .poll(
      async () => {
        expect(await chat(page, key)).toBe(200);
        return (await newestLog(page, tokenName))?.quota;
      },
      { timeout: 30_000, intervals: [500, 1000] },
    )
    .toBe(second);
  const other = JSON.parse((await newestLog(page, tokenName))?.other ?? '{}') as Record<string, number>;
  expect([other.model_ratio, other.completion_ratio, other.group_ratio]).toEqual([5, 2, groupRatio]);
});

test('unset-ratio models: selection first, both ratios needed, batch set then saved', async ({ page }) => {
  await setLanguage(page, 'en');
  await page.addInitScript(() => window.localStorage.setItem('page-size', '100'));
  await login(page);
  await createMockChannel(page, 'e2e-unset-channel', UNSET_MODELS);
  await page.goto('/setting?tab=operation&sub=unset');
  const table = page.getByTestId('unset-models');
  for (const m of UNSET_MODELS) await expect(table.locator(`tr[data-row-key="${m}"]`)).toBeVisible();

  await table.getByTestId('unset-batch').click();
  await expect(page.getByText('Please select models to batch set first')).toBeVisible();
  for (const m of UNSET_MODELS) await table.locator(`tr[data-row-key="${m}"] input[type="checkbox"]`).check();
  await expect(table).toContainText('2 selected');
  await table.getByTestId('unset-batch').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Model ratio and completion ratio').click();
  await dialog.getByTestId('batch-value').fill('1.5');
  await dialog.getByTestId('batch-ok').click();
  await expect(page.getByText('Please enter both the model ratio and the completion ratio')).toBeVisible();
  await dialog.getByTestId('batch-completion').fill('x');
  await dialog.getByTestId('batch-ok').click();
  await expect(page.getByText('Please enter a valid number')).toBeVisible();
  await dialog.getByTestId('batch-completion').fill('4');
  await dialog.getByTestId('batch-ok').click();
  await expect(page.getByText('Set on 2 models; save the changes to apply them')).toBeVisible();
  for (const m of UNSET_MODELS) {
    await expect(table.getByTestId(`unset-ratio-${m}`)).toHaveValue('1.5');
    await expect(table.getByTestId(`unset-completionRatio-${m}`)).toHaveValue('4');
  }
  await page.screenshot({ path: `${SHOTS}/en/settings-unset-models.png`, fullPage: true });
  await table.getByTestId('unset-save').click();
  await expect(page.getByText('Settings saved')).toBeVisible();
  for (const m of UNSET_MODELS) await expect(table.locator(`tr[data-row-key="${m}"]`)).toHaveCount(0);

  const options = await api<{ key: string; value: string }[]>(page, 'GET', '/api/option/');
  const map = (k: string) => JSON.parse(options.find((o) => o.key === k)?.value ?? '{}') as Record<string, number>;
  for (const m of UNSET_MODELS) {
    expect(map('ModelRatio')[m]).toBe(1.5);
    expect(map('CompletionRatio')[m]).toBe(4);
  }
  const unset = await api<string[]>(page, 'GET', '/api/models/unset');
  expect(unset.filter((m) => UNSET_MODELS.includes(m))).toEqual([]);
});
