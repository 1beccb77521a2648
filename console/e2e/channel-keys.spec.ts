/**
 * Per-key status of a multi-key channel against the real control plane and the mock provider:
 * the key tag of the row, the Keys dialog (summary, filter, disable / enable one key, testing
 * one key) and deleting the disabled keys, which renumbers the rest. The channel is its own
 * and is deleted at the end.
 */
import { expect, test, type Page } from '@playwright/test';
import { SHOTS, confirmPopover, login, setLanguage } from './helpers';

test.setTimeout(180_000);

const NAME = 'e2e-multi-key';
const MODEL = 'gpt-4o-mini';
/** Long enough for the server to show their first and last four characters. */
const KEYS = ['sk-e2e-key-zero-0000', 'sk-e2e-key-one-11111', 'sk-e2e-key-two-22222'];
const headers = { 'New-Api-User': '1' };

interface ChannelJson {
  id: number;
  name: string;
  status: number;
  key_count: number;
  disabled_key_count: number;
}

function mockUrl(): string {
  const url = process.env.E2E_MOCK_URL;
  if (!url) throw new Error('E2E_MOCK_URL is not set: run through playwright (global-setup)');
  return url;
}

async function findChannel(page: Page): Promise<ChannelJson | undefined> {
  const res = await page.request.get('/api/channel/search', { params: { keyword: NAME }, headers });
  const body = (await res.json()) as { data: { items: ChannelJson[] } };
  return body.data.items.find((c) => c.name === NAME);
}

test.beforeEach(async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
});

test('a multi-key channel: key tag, Keys dialog, disable / enable a key, test a key, delete disabled keys', async ({ page }) => {
  const old = await findChannel(page);
  if (old) await page.request.delete(`/api/channel/${old.id}/`, { headers });
  const created = await (
    await page.request.post('/api/channel/', {
      headers,
      data: {
        name: NAME,
        type: 1,
        key: KEYS.join('\n'),
        base_url: mockUrl(),
        models: MODEL,
        group: 'default',
        mode: 'multi_to_single',
      },
    })
  ).json();
  expect(created.success, created.message).toBe(true);
  const id = created.data[0] as number;
  expect(await findChannel(page)).toMatchObject({ key_count: 3, disabled_key_count: 0 });

  await page.goto('/channel');
  await page.getByTestId('channels-keyword').fill(NAME);
  await page.getByTestId('channels-search').click();
  const tag = page.getByTestId(`channel-keys-${id}`);
  await expect(tag).toHaveText('3 keys');
  await expect(tag).toHaveAttribute('data-color', 'blue');

  // The Keys dialog: every key enabled, shown as previews only.
  await page.getByTestId(`channel-manage-keys-${id}`).click();
  const dialog = page.getByRole('dialog').filter({ hasText: `Keys of ${NAME}` });
  await expect(dialog).toBeVisible();
  const summary = (key: string) => dialog.getByTestId(`keys-summary-${key}`);
  await expect(summary('total')).toHaveAttribute('data-value', '3');
  await expect(summary('enabled')).toHaveAttribute('data-value', '3');
  await expect(dialog.getByTestId('key-preview-1')).toHaveText('sk-e…1111');
  await expect(dialog.getByText(KEYS[1])).toHaveCount(0);
  await expect(dialog.getByTestId('keys-delete-disabled')).toBeDisabled();

  // Disable key #1: its status, the summary and the row's tag follow.
  await dialog.getByTestId('key-toggle-1').click();
  await expect(page.getByText('Key #1 disabled')).toBeVisible();
  await expect(dialog.getByTestId('key-status-1')).toHaveText('Disabled by hand');
  await expect(summary('enabled')).toHaveAttribute('data-value', '2');
  await expect(summary('manual')).toHaveAttribute('data-value', '1');
  await expect(dialog.getByTestId('key-time-1')).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  await expect(tag).toHaveText('3 keys · 1 disabled');
  await expect(tag).toHaveAttribute('data-color', 'warning');
  expect(await findChannel(page)).toMatchObject({ key_count: 3, disabled_key_count: 1, status: 1 });

  // The filter shows only the keys with the chosen status.
  await dialog.getByTestId('keys-filter').getByText('Disabled by hand', { exact: true }).click();
  await expect(dialog.getByTestId('key-status-1')).toBeVisible();
  await expect(dialog.getByTestId('key-status-0')).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/en/channel-keys.png` });
  await dialog.getByTestId('keys-filter').getByText('All', { exact: true }).click();
  await expect(dialog.getByTestId('key-status-0')).toBeVisible();

  // Enable it again.
  await dialog.getByTestId('key-toggle-1').click();
  await expect(page.getByText('Key #1 enabled')).toBeVisible();
  await expect(dialog.getByTestId('key-status-1')).toHaveText('Enabled');
  await expect(summary('enabled')).toHaveAttribute('data-value', '3');
  await expect(summary('manual')).toHaveAttribute('data-value', '0');
  await expect(tag).toHaveText('3 keys');

  // Test one key against the mock provider: its time shows on its row.
  await dialog.getByTestId('key-test-2').click();
  await expect(dialog.getByTestId('key-result-2')).toHaveText(/^OK in [0-9.]+ s$/);

  // Disable key #0, then delete the disabled keys: the confirm explains the renumbering.
  await dialog.getByTestId('key-toggle-0').click();
  await expect(page.getByText('Key #0 disabled')).toBeVisible();
  await expect(tag).toHaveText('3 keys · 1 disabled');
  await dialog.getByTestId('keys-delete-disabled').click();
  await expect(page.getByText('Delete the 1 disabled keys from the channel?')).toBeVisible();
  await expect(page.getByText(/remaining keys are renumbered from #0/)).toBeVisible();
  await confirmPopover(page);
  await expect(page.getByText('Disabled keys deleted: 2 keys left')).toBeVisible();
  await expect(summary('total')).toHaveAttribute('data-value', '2');
  await expect(summary('enabled')).toHaveAttribute('data-value', '2');
  // The former keys #1 and #2 are now #0 and #1.
  await expect(dialog.getByTestId('key-preview-0')).toHaveText('sk-e…1111');
  await expect(dialog.getByTestId('key-preview-1')).toHaveText('sk-e…2222');
  await expect(dialog.getByTestId('key-status-2')).toHaveCount(0);
  await expect(tag).toHaveText('2 keys');
  expect(await findChannel(page)).toMatchObject({ key_count: 2, disabled_key_count: 0, status: 1 });

  // (Escape needs the focus inside the dialog; the disabled delete button just lost it.)
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  await page.screenshot({ path: `${SHOTS}/en/channel-keys-row.png` });
  const removed = await (await page.request.delete(`/api/channel/${id}/`, { headers })).json();
  expect(removed.success, removed.message).toBe(true);
});
