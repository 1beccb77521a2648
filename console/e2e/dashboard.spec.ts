/**
 * The dashboard against the real control plane, gateway and mock provider: chat calls made
 * with an sk- token reach the hourly roll-ups as soon as their usage is ingested, and /detail
 * shows them by model (and, for an admin, by user). Screenshots in dark mode and at phone width.
 */
import { expect, test, type Page } from '@playwright/test';
import { chat, chatWhenReady, ensureMockChannel } from './gateway';
import { login, setLanguage, setOptions, SHOTS } from './helpers';

const RUN = Date.now() % 1_000_000;
const MODEL = `e2e-dash-model-${RUN}`;
const CALLS = 3;

/** Root is the first account (user id 1); REST calls name it in New-Api-User. */
const ROOT_HEADERS = { 'New-Api-User': '1' };

async function api<T>(page: Page, method: 'GET' | 'POST', url: string, data?: unknown): Promise<T> {
  const res =
    method === 'GET'
      ? await page.request.get(url, { headers: ROOT_HEADERS })
      : await page.request.post(url, { headers: ROOT_HEADERS, data });
  const body = (await res.json()) as { success: boolean; message: string; data: T };
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body.data;
}

interface Point {
  model_name: string;
  count: number;
  quota: number;
}

/** The caller's calls of MODEL in the last day, from the roll-ups. */
async function rolledUpCalls(page: Page): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  const rows = await api<Point[]>(page, 'GET', `/api/data/self?start_timestamp=${now - 86400}&end_timestamp=${now + 60}`);
  return rows.filter((r) => r.model_name === MODEL).reduce((s, r) => s + r.count, 0);
}

test('chat calls through the gateway show on the dashboard', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  await ensureMockChannel(page, `e2e-dashboard-${RUN}`, [MODEL]);
  const options = await api<{ key: string; value: string }[]>(page, 'GET', '/api/option/');
  const ratios = JSON.parse(options.find((o) => o.key === 'ModelRatio')?.value || '{}') as Record<string, number>;
  await setOptions(page, { ModelRatio: JSON.stringify({ ...ratios, [MODEL]: 1 }) });
  const [token] = await api<{ key: string }[]>(page, 'POST', '/api/token/', {
    name: `e2e-dash-${RUN}`,
    remain_quota: 0,
    unlimited_quota: true,
    expired_time: -1,
  });

  await chatWhenReady(page.request, token.key, MODEL);
  for (let i = 1; i < CALLS; i++) expect((await chat(page.request, token.key, MODEL)).status).toBe(200);
  // The gateway reports usage asynchronously; the control plane adds each request to its hour on ingestion.
  await expect.poll(() => rolledUpCalls(page), { timeout: 30_000, intervals: [500, 1000] }).toBe(CALLS);

  await page.goto('/detail');
  await expect(page.getByTestId('dashboard-page')).toBeVisible();
  const models = page.getByTestId('dashboard-models-table');
  const row = models.locator('tr', { hasText: MODEL });
  await expect(row).toBeVisible();
  await expect(row.locator('td').nth(1)).toHaveText(String(CALLS));
  // Root is an admin: everyone's data by model, and a by-user section naming root.
  await expect(page.getByTestId('dashboard-users-table')).toContainText('root');
  expect(Number((await page.getByTestId('dashboard-summary-count').innerText()).replace(/\D/g, ''))).toBeGreaterThanOrEqual(
    CALLS,
  );
  await expect(page.getByTestId('dashboard-models').locator('.recharts-bar-rectangle').first()).toBeVisible();

  // Granularity and presets re-shape the same data.
  await page.getByTestId('dashboard-granularity').getByText('Day').click();
  await expect(row).toBeVisible();
  await page.getByTestId('dashboard-preset').getByText('Last 7 days').click();
  await expect(row.locator('td').nth(1)).toHaveText(String(CALLS));
  await page.getByTestId('dashboard-models-metric').getByText('Tokens').click();
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: `${SHOTS}/en/dashboard.png`, fullPage: true });

  // One user only (admin filter): a user with no calls has an empty dashboard.
  await page.getByTestId('dashboard-username').locator('input').fill(`nobody-${RUN}`);
  await page.getByTestId('dashboard-username').locator('input').press('Enter');
  await expect(page.getByTestId('dashboard-models-empty')).toBeVisible();
  await page.getByTestId('dashboard-username').locator('input').fill('');
  await page.getByTestId('dashboard-username').locator('input').press('Enter');
  await expect(row).toBeVisible();

  await page.getByTestId('theme-toggle').click();
  await page.screenshot({ path: `${SHOTS}/en/dashboard-dark.png`, fullPage: true });
  await page.getByTestId('theme-toggle').click();
  await page.setViewportSize({ width: 390, height: 800 });
  await expect(row).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/en/dashboard-mobile.png`, fullPage: true });
});

test('the dashboard in Chinese', async ({ page }) => {
  await setLanguage(page, 'zh-CN');
  await login(page);
  await page.goto('/detail');
  await expect(page.getByRole('heading', { name: '数据看板' })).toBeVisible();
  await expect(page.getByTestId('dashboard-models')).toContainText('按模型');
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: `${SHOTS}/zh-CN/dashboard.png`, fullPage: true });
});
