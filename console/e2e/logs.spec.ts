/**
 * The usage log against the real control plane, gateway and mock provider: chat calls made
 * with a fresh token show on /log with their model, tokens and cost; the token, request id and
 * model filters narrow the table; a row opens its details; the table scrolls at phone width.
 */
import { expect, test, type Page } from '@playwright/test';
import { chatWhenReady, ensureMockChannel } from './gateway';
import { login, setLanguage, SHOTS } from './helpers';

const MODEL = 'gpt-4o-mini';
const CHANNEL = 'e2e-logs-mock';
const RUN = Date.now() % 1_000_000;
const TOKEN = `e2e-logs-${RUN}`;
const CALLS = 2;

/** Root is the first account (user id 1); REST calls name it in New-Api-User. */
const ROOT_HEADERS = { 'New-Api-User': '1' };

interface ApiLog {
  id: number;
  type: number;
  model_name: string;
  prompt_tokens: number;
  completion_tokens: number;
  quota: number;
  request_id: string;
}

async function createToken(page: Page, name: string): Promise<string> {
  const res = await page.request.post('/api/token/', {
    headers: ROOT_HEADERS,
    data: { name, remain_quota: 0, unlimited_quota: true, expired_time: -1 },
  });
  const body = (await res.json()) as { success: boolean; message: string; data: { key: string }[] };
  expect(body.success, body.message).toBe(true);
  return body.data[0].key;
}

/** The token's records as the admin API lists them (newest first). */
async function apiLogs(page: Page): Promise<ApiLog[]> {
  const res = await page.request.get('/api/log/', {
    headers: ROOT_HEADERS,
    params: { token_name: TOKEN, p: 1, page_size: 100 },
  });
  return ((await res.json()) as { data: { items: ApiLog[] } }).data.items;
}

const rows = (page: Page) => page.locator('tbody tr.ant-table-row');

async function search(page: Page, field: 'tokenName' | 'requestId', value: string) {
  await page.getByTestId(`logs-filter-${field}`).fill(value);
  await page.getByTestId('logs-search').click();
}

async function searchModel(page: Page, value: string) {
  const input = page.getByTestId('logs-filter-modelName').locator('input');
  await input.fill(value);
  await page.keyboard.press('Escape');
  await page.getByTestId('logs-search').click();
}

test.beforeEach(async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
});

test('gateway calls show on /log with model, tokens and cost; filters narrow; details open', async ({ page }) => {
  // Waits on the config push to the gateway and on the usage report back (both asynchronous).
  test.slow();
  await ensureMockChannel(page, CHANNEL, [MODEL]);
  const key = await createToken(page, TOKEN);
  const answers = [];
  for (let i = 0; i < CALLS; i++) answers.push(await chatWhenReady(page.request, key, MODEL));
  const usage = answers[0].body.usage as { prompt_tokens: number; completion_tokens: number };

  // Usage reaches the control plane asynchronously.
  await expect.poll(async () => (await apiLogs(page)).filter((l) => l.type === 2).length, { timeout: 30_000 }).toBe(CALLS);
  const logs = (await apiLogs(page)).filter((l) => l.type === 2);

  await page.goto('/log');
  await expect(page.getByTestId('logs-summary-quota')).toContainText('$');
  await search(page, 'tokenName', TOKEN);
  await expect(rows(page)).toHaveCount(CALLS);

  // Each call shows with its model, tokens and cost as the server recorded them.
  for (const log of logs) {
    await expect(page.getByTestId(`log-model-${log.id}`)).toHaveText(MODEL);
    await expect(page.getByTestId(`log-prompt-${log.id}`)).toHaveText(String(log.prompt_tokens));
    await expect(page.getByTestId(`log-completion-${log.id}`)).toHaveText(String(log.completion_tokens));
    await expect(page.getByTestId(`log-cost-${log.id}`)).toHaveAttribute('data-quota', String(log.quota));
    await expect(page.getByTestId(`log-cost-${log.id}`)).toHaveText(/^\$\d+\.\d{6}$/);
    await expect(page.getByTestId(`log-type-${log.id}`)).toHaveText('Consume');
    expect(log.quota).toBeGreaterThan(0);
  }
  // …and those are the tokens the gateway answered the client with.
  expect(logs.map((l) => l.prompt_tokens)).toContain(usage.prompt_tokens);
  expect(logs.map((l) => l.completion_tokens)).toContain(usage.completion_tokens);

  // The summary strip counts the filtered range: at least these calls' quota.
  const spent = logs.reduce((s, l) => s + l.quota, 0);
  await expect
    .poll(async () => Number(await page.getByTestId('logs-summary-quota').getAttribute('data-quota')))
    .toBeGreaterThanOrEqual(spent);

  // A row opens its details: request id, ratios, billing, channels tried (admin).
  const first = logs[0];
  await page.getByTestId(`log-type-${first.id}`).click();
  const details = page.getByTestId(`log-details-${first.id}`);
  await expect(details).toBeVisible();
  await expect(details.getByTestId('log-detail-requestId')).toHaveText(first.request_id);
  await expect(details.getByTestId('log-detail-modelRatio')).toBeVisible();
  await expect(details.getByTestId('log-detail-billing')).toContainText(`= ${first.quota}`);
  await expect(details.getByTestId('log-detail-channelsTried')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/en/logs-details.png`, fullPage: true });
  await page.getByTestId('theme-toggle').click();
  await expect(details).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/en/logs-details-dark.png`, fullPage: true });
  await page.getByTestId('theme-toggle').click();

  // The request id narrows the table to that one call.
  await search(page, 'requestId', first.request_id);
  await expect(rows(page)).toHaveCount(1);
  await expect(page.getByTestId(`log-model-${first.id}`)).toBeVisible();
  await search(page, 'requestId', '');
  await expect(rows(page)).toHaveCount(CALLS);

  // So does the model: a model these calls did not use leaves nothing.
  await searchModel(page, 'no-such-model-e2e');
  await expect(rows(page)).toHaveCount(0);
  await searchModel(page, MODEL);
  await expect(rows(page)).toHaveCount(CALLS);

  // At phone width the filters fold away and stack (two time pickers); the table scrolls sideways.
  await page.setViewportSize({ width: 390, height: 800 });
  await expect(page.getByTestId('logs-filter-start')).toBeHidden();
  await page.getByTestId('logs-filters-toggle').getByRole('button').first().click();
  await expect(page.getByTestId('logs-filter-start')).toBeVisible();
  await expect(page.getByTestId('logs-filter-end')).toBeVisible();
  const scroller = page.locator('.ant-table-content').first();
  const overflow = await scroller.evaluate((el) => el.scrollWidth - el.clientWidth);
  expect(overflow).toBeGreaterThan(0);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: `${SHOTS}/en/logs-mobile.png`, fullPage: true });
});

test('column settings hide a column and are kept after a reload', async ({ page }) => {
  await page.goto('/log');
  await expect(page.getByRole('columnheader', { name: 'Retry' })).toBeVisible();
  await page.getByTestId('logs-columns').click();
  await page.getByTestId('logs-column-retry').click();
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByRole('columnheader', { name: 'Retry' })).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('columnheader', { name: 'Time', exact: true })).toBeVisible();
  await expect(page.getByRole('columnheader', { name: 'Retry' })).toHaveCount(0);
  await page.getByTestId('logs-columns').click();
  await page.getByTestId('logs-columns-reset').click();
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByRole('columnheader', { name: 'Retry' })).toBeVisible();
});
