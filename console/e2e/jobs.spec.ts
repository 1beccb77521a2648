/**
 * The drawing log (/midjourney) and the task log (/task) against the real control plane: no
 * job is recorded yet, so both show their tables with the empty state, for a user (own
 * endpoints, no channel filter) and an admin (global endpoints, channel filter, and the notice
 * while drawing callbacks are off). Drawing times go out in milliseconds, task times in
 * seconds. Turning TaskEnabled off in the settings hides the task entry of the sidebar.
 */
import { expect, test, type Page, type Request } from '@playwright/test';
import { createUser, login, loginAs, setLanguage, setOptions, visitorPage } from './helpers';

const RUN = Date.now() % 1_000_000;
const USER = { username: `jobs_${RUN}`, password: 'jobs-pass-1234' };

/** Opens a log and answers the list request it made. */
async function open(page: Page, path: string, api: string): Promise<URL> {
  const [request] = await Promise.all([page.waitForRequest((r: Request) => new URL(r.url()).pathname === api), page.goto(path)]);
  const res = await request.response();
  expect(res?.status()).toBe(200);
  expect(((await res!.json()) as { success: boolean }).success).toBe(true);
  return new URL(request.url());
}

test('an admin sees both logs empty, with the channel filter and the callback notice', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  await setOptions(page, { MjNotifyEnabled: 'false' });

  const drawing = await open(page, '/midjourney', '/api/mj/');
  await expect(page.getByTestId('drawing-table')).toBeVisible();
  await expect(page.getByTestId('drawing-empty')).toBeVisible();
  await expect(page.getByTestId('drawing-empty')).toContainText('No drawing tasks in this time range');
  await expect(page.getByTestId('drawing-filter-channel')).toBeVisible();
  await expect(page.getByRole('columnheader', { name: 'Channel' })).toBeVisible();
  await expect(page.getByRole('columnheader', { name: 'Result image' })).toBeVisible();
  await expect(page.getByTestId('drawing-callback-notice')).toBeVisible();
  // The last 30 days up to an hour ahead, in epoch milliseconds.
  const start = Number(drawing.searchParams.get('start_timestamp'));
  const end = Number(drawing.searchParams.get('end_timestamp'));
  expect(end - start).toBe((2_592_000 + 3600) * 1000);
  expect(Math.abs(end - (Date.now() + 3_600_000))).toBeLessThan(120_000);

  // A channel filter goes to the server.
  const [filtered] = await Promise.all([
    page.waitForRequest(
      (r) => new URL(r.url()).pathname === '/api/mj/' && new URL(r.url()).searchParams.get('channel_id') === '3',
    ),
    (async () => {
      await page.getByTestId('drawing-filter-channel').fill('3');
      await page.getByTestId('drawing-search').click();
    })(),
  ]);
  expect((await filtered.response())?.status()).toBe(200);
  await expect(page.getByTestId('drawing-empty')).toBeVisible();

  const task = await open(page, '/task', '/api/task/');
  await expect(page.getByTestId('task-table')).toBeVisible();
  await expect(page.getByTestId('task-empty')).toContainText('No tasks in this time range');
  await expect(page.getByTestId('task-filter-channel')).toBeVisible();
  await expect(page.getByRole('columnheader', { name: 'Platform' })).toBeVisible();
  // From the start of today, in epoch seconds.
  const taskStart = Number(task.searchParams.get('start_timestamp'));
  expect(String(taskStart)).toHaveLength(10);
  expect(taskStart).toBe(Math.floor(new Date(new Date().setHours(0, 0, 0, 0)).getTime() / 1000));

  // Callbacks on: no notice.
  await setOptions(page, { MjNotifyEnabled: 'true' });
  try {
    await page.goto('/midjourney');
    await expect(page.getByTestId('drawing-empty')).toBeVisible();
    await expect(page.getByTestId('drawing-callback-notice')).toHaveCount(0);
  } finally {
    await setOptions(page, { MjNotifyEnabled: 'false' });
  }
});

test('a user sees their own logs empty, without channel filter or notice', async ({ page, browser }) => {
  await setLanguage(page, 'en');
  await login(page);
  await createUser(page, USER.username, USER.password);
  const { visitor, guest } = await visitorPage(browser);
  try {
    await loginAs(guest, USER.username, USER.password);
    await open(guest, '/midjourney', '/api/mj/self/');
    await expect(guest.getByTestId('drawing-empty')).toBeVisible();
    await expect(guest.getByTestId('drawing-filter-jobId')).toBeVisible();
    await expect(guest.getByTestId('drawing-filter-channel')).toHaveCount(0);
    await expect(guest.getByRole('columnheader', { name: 'Channel' })).toHaveCount(0);
    await expect(guest.getByTestId('drawing-callback-notice')).toHaveCount(0);

    await open(guest, '/task', '/api/task/self');
    await expect(guest.getByTestId('task-empty')).toBeVisible();
    await expect(guest.getByTestId('task-filter-channel')).toHaveCount(0);
    await expect(guest.getByRole('columnheader', { name: 'Channel' })).toHaveCount(0);
  } finally {
    await visitor.close();
  }
});

test('turning TaskEnabled off in the settings hides the task log entry', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  const menu = page.getByTestId('sidebar-menu');
  await page.goto('/log');
  await expect(menu.getByText('Task logs', { exact: true })).toBeVisible();
  try {
    await page.goto('/setting?tab=operation');
    const toggle = page.getByTestId('option-TaskEnabled');
    await expect(toggle).toBeChecked();
    await toggle.click();
    await page.getByTestId('save-drawing').click();
    await expect(page.getByText('Settings saved')).toBeVisible();
    const status = (await (await page.request.get('/api/status')).json()) as { data: { enable_task: boolean } };
    expect(status.data.enable_task).toBe(false);
    await page.goto('/log');
    await expect(menu.getByText('Usage logs', { exact: true })).toBeVisible();
    await expect(menu.getByText('Task logs', { exact: true })).toHaveCount(0);
  } finally {
    await setOptions(page, { TaskEnabled: 'true' });
  }
  await page.goto('/log');
  await expect(menu.getByText('Task logs', { exact: true })).toBeVisible();
});
