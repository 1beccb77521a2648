/**
 * Tasks made through the gateway show in the console: a Midjourney drawing and a Suno song are
 * submitted to the gateway (channels of types 2 and 36 pointing at the mock's stand-ins), the
 * control plane follows them to their end, and the drawing log (/midjourney) and the task log
 * (/task) show them finished, the drawing with its image. The status filter (and the task log's
 * platform filter) goes to the server: a status the job does not have hides it, its own shows it.
 */
import { expect, test, type Page } from '@playwright/test';
import { gatewayUrl, mockUrl } from './gateway';
import { login, setLanguage, setOptions } from './helpers';

const RUN = Date.now() % 1_000_000;
const HEADERS = { 'New-Api-User': '1' };

async function channel(page: Page, type: number, name: string, models: string) {
  const res = await page.request.post('/api/channel/', {
    headers: HEADERS,
    data: {
      mode: 'single',
      channel: { name, type, key: `task-key-${RUN}`, base_url: mockUrl(), models, group: 'default', priority: 0, weight: 0 },
    },
  });
  const body = (await res.json()) as { success: boolean; message: string };
  expect(body.success, body.message).toBe(true);
}

/** Adds prices to the ModelPrice option, keeping the others. */
async function addPrices(page: Page, prices: Record<string, number>) {
  const list = (await (await page.request.get('/api/option/', { headers: HEADERS })).json()) as {
    data: { key: string; value: string }[];
  };
  const current = list.data.find((o) => o.key === 'ModelPrice')?.value ?? '{}';
  const merged = { ...(JSON.parse(current || '{}') as Record<string, number>), ...prices };
  await setOptions(page, { ModelPrice: JSON.stringify(merged) });
}

async function rootKey(page: Page): Promise<string> {
  const res = await page.request.post('/api/token/', {
    headers: HEADERS,
    data: { name: `tasks-${RUN}`, remain_quota: 0, unlimited_quota: true, expired_time: -1 },
  });
  const body = (await res.json()) as { success: boolean; message: string; data: { key: string }[] };
  expect(body.success, body.message).toBe(true);
  return body.data[0].key;
}

/** Posts to the gateway until the config feed has brought the channel and the price there. */
async function submit(page: Page, path: string, headers: Record<string, string>, data: object): Promise<Record<string, unknown>> {
  let last = '';
  for (let i = 0; i < 40; i++) {
    const res = await page.request.post(`${gatewayUrl()}${path}`, { headers, data });
    if (res.status() === 200) return (await res.json()) as Record<string, unknown>;
    last = `${res.status()} ${await res.text()}`;
    await page.waitForTimeout(500);
  }
  throw new Error(`${path} never accepted: ${last}`);
}

/** Reloads `path` until the table row of `taskId` shows `status`. */
async function waitForRow(page: Page, path: string, table: string, taskId: string, status: string) {
  await expect(async () => {
    await page.goto(path);
    const row = page.getByTestId(table).locator('tr', { hasText: taskId });
    await expect(row).toContainText(status, { timeout: 2_000 });
  }).toPass({ timeout: 60_000, intervals: [2_000] });
}

/** Chooses the option titled `title` in the filter Select `testId`. */
async function choose(page: Page, testId: string, title: string) {
  await page.getByTestId(testId).click();
  await page.locator(`.ant-select-dropdown .ant-select-item-option[title="${title}"]`).click();
  await expect(page.getByTestId(testId)).toContainText(title);
}

/** Clicks the log's Search and waits for the list request carrying `params`. */
async function search(page: Page, log: 'drawing' | 'task', api: string, params: Record<string, string>) {
  const [request] = await Promise.all([
    page.waitForRequest((r) => {
      const url = new URL(r.url());
      return url.pathname === api && Object.entries(params).every(([k, v]) => url.searchParams.get(k) === v);
    }),
    page.getByTestId(`${log}-search`).click(),
  ]);
  expect((await request.response())?.status()).toBe(200);
}

test('a drawing and a song made through the gateway are followed to their end in the logs', async ({ page }) => {
  test.setTimeout(120_000);
  await setLanguage(page, 'en');
  await login(page);
  await channel(page, 2, `mj-e2e-${RUN}`, 'mj_imagine');
  await channel(page, 36, `suno-e2e-${RUN}`, 'suno_music');
  await addPrices(page, { mj_imagine: 0.1, suno_music: 0.2 });
  const key = await rootKey(page);

  const drawing = await submit(page, '/mj/submit/imagine', { 'mj-api-secret': key }, { prompt: `a lighthouse ${RUN}` });
  expect(drawing.code).toBe(1);
  const drawingId = String(drawing.result);
  const song = await submit(page, '/suno/submit/music', { Authorization: `Bearer ${key}` }, { prompt: `a sea shanty ${RUN}` });
  expect(song.code).toBe('success');
  const songId = String(song.data);

  await waitForRow(page, '/midjourney', 'drawing-table', drawingId, 'Succeeded');
  const row = page.getByTestId('drawing-table').locator('tr', { hasText: drawingId });
  await expect(row.locator('[data-testid^="drawing-image-"]')).toBeVisible();

  // Status filter: "Failed" hides the finished drawing, "Succeeded" shows it again.
  await choose(page, 'drawing-filter-status', 'Failed');
  await search(page, 'drawing', '/api/mj/', { status: 'FAILURE' });
  await expect(row).toHaveCount(0);
  await choose(page, 'drawing-filter-status', 'Succeeded');
  await search(page, 'drawing', '/api/mj/', { status: 'SUCCESS' });
  await expect(row).toBeVisible();
  await expect(row).toContainText('Succeeded');

  await waitForRow(page, '/task', 'task-table', songId, 'Succeeded');
  const songRow = page.getByTestId('task-table').locator('tr', { hasText: songId });

  // Status and platform filters: a failed Suno task is not this song; a succeeded one is.
  await choose(page, 'task-filter-status', 'Failed');
  await choose(page, 'task-filter-platform', 'Suno');
  await search(page, 'task', '/api/task/', { status: 'FAILURE', platform: 'suno' });
  await expect(songRow).toHaveCount(0);
  await choose(page, 'task-filter-status', 'Succeeded');
  await search(page, 'task', '/api/task/', { status: 'SUCCESS', platform: 'suno' });
  await expect(songRow).toBeVisible();
  await expect(songRow).toContainText('Suno');

  // Reset clears both choices and lists the song again.
  await page.getByTestId('task-reset').click();
  await expect(page.getByTestId('task-filter-status')).not.toContainText('Succeeded');
  await expect(page.getByTestId('task-filter-platform')).not.toContainText('Suno');
  await expect(songRow).toBeVisible();
});
