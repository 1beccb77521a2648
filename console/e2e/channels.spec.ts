/**
 * Channel management against the real control plane and the mock provider: create the
 * `e2e-mock` channel in the console and test it from the table, then tag grouping, inline
 * priority/weight edits, batch tag, bulk actions and deleting on channels of their own.
 * Leaves `e2e-mock` (OpenAI type, model gpt-4o-mini, group default, enabled, base URL = the
 * mock provider) in place for the token → gateway → wallet flow.
 */
import { expect, test, type Page } from '@playwright/test';
import { SHOTS, confirmPopover, login, setLanguage } from './helpers';

test.describe.configure({ mode: 'serial' });
// Many round trips on a busy 2-core machine: more than the default minute.
test.setTimeout(180_000);

const MOCK_CHANNEL = 'e2e-mock';
const MOCK_MODEL = 'gpt-4o-mini';
const TAG_A = 'e2e-tag-a';
const TAG_B = 'e2e-tag-b';
const TEAM = 'e2e-team';

interface ChannelJson {
  id: number;
  name: string;
  status: number;
  models: string;
  group: string;
  base_url: string;
  priority: number;
  weight: number;
  tag: string;
  response_time: number;
}

const headers = { 'New-Api-User': '1' };

/** The mock upstream's base URL (exported by global-setup). */
function mockUrl(): string {
  const url = process.env.E2E_MOCK_URL;
  if (!url) throw new Error('E2E_MOCK_URL is not set: run through playwright (global-setup)');
  return url;
}

async function findChannel(page: Page, name: string): Promise<ChannelJson | undefined> {
  const res = await page.request.get('/api/channel/search', { params: { keyword: name }, headers });
  const body = (await res.json()) as { data: { items: ChannelJson[] } };
  return body.data.items.find((c) => c.name === name);
}

async function createByApi(page: Page, name: string, model: string, key = 'sk-e2e'): Promise<number> {
  const res = await page.request.post('/api/channel/', {
    headers,
    data: { name, type: 1, key, base_url: mockUrl(), models: model, group: 'default', mode: 'multi_to_single' },
  });
  const body = (await res.json()) as { success: boolean; message: string; data: number[] };
  expect(body.success, body.message).toBe(true);
  return body.data[0];
}

async function removeIfPresent(page: Page, name: string) {
  const c = await findChannel(page, name);
  if (c) await page.request.delete(`/api/channel/${c.id}/`, { headers });
}

test.beforeEach(async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
});

test('create the mock channel in the console and test it from the table', async ({ page }) => {
  await page.goto('/channel');
  await expect(page.getByText('Manage channels')).toBeVisible();
  await page.getByTestId('channels-add').click();
  await expect(page).toHaveURL(/\/channel\/add$/);
  const form = page.getByTestId('channel-form');
  await expect(form).toBeVisible();

  // Spec 2 §5.4: name and key are required before anything is sent.
  await page.getByTestId('channel-submit').click();
  await expect(page.getByText('Please fill in the channel name and key')).toBeVisible();

  await page.getByTestId('channel-name').fill(MOCK_CHANNEL);
  await page.getByTestId('channel-key').fill('sk-mock-upstream-key');
  // A base URL ending in /v1 asks first; cancelling keeps the drawer open.
  await page.getByTestId('channel-base-url').fill(`${mockUrl()}/v1`);
  // The OpenAI defaults were filled in; keep only the model the mock flow uses.
  await page.getByTestId('clear-models').click();
  // Custom entry: split on commas/whitespace; the repeated name is reported, not added twice.
  await page.getByTestId('custom-models').fill(`${MOCK_MODEL}, ${MOCK_MODEL}`);
  await page.getByTestId('custom-models-add').click();
  await expect(page.getByText('Added 1 models')).toBeVisible();
  await expect(page.getByText(`Already in the list, ignored: ${MOCK_MODEL}`)).toBeVisible();
  await page.getByTestId('channel-submit').click();
  const warning = page.getByRole('dialog').filter({ hasText: 'The base URL ends with /v1' });
  await expect(warning).toBeVisible();
  await warning.getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(/\/channel\/add$/);

  // A trailing slash is removed on save.
  await page.getByTestId('channel-base-url').fill(`${mockUrl()}/`);
  await page.screenshot({ path: `${SHOTS}/en/channel-drawer.png`, fullPage: true });
  await page.getByTestId('channel-submit').click();
  await expect(page.getByText('Channel created')).toBeVisible();
  await expect(page).toHaveURL(/\/channel$/);

  const saved = await findChannel(page, MOCK_CHANNEL);
  expect(saved).toMatchObject({ status: 1, models: MOCK_MODEL, group: 'default', base_url: mockUrl(), tag: '' });
  const id = saved!.id;
  await expect(page.getByTestId(`channel-name-${id}`)).toHaveText(MOCK_CHANNEL);
  await expect(page.getByTestId(`channel-latency-${id}`)).toHaveText('Not tested');

  // Test from the table: success toast with the model, and the response time appears.
  await page.getByTestId(`channel-test-${id}`).click();
  await expect(page.getByText(new RegExp(`Channel ${MOCK_CHANNEL} works with ${MOCK_MODEL}: [0-9.]+ s`))).toBeVisible();
  const latency = page.getByTestId(`channel-latency-${id}`);
  await expect(latency).toHaveText(/^[0-9.]+ s$/);
  await expect(latency).toHaveAttribute('data-color', /^(green|lime|yellow|red)$/);
  expect((await findChannel(page, MOCK_CHANNEL))!.response_time).toBeGreaterThan(0);

  // The model test dialog tests the chosen model.
  await page.getByTestId(`channel-test-models-${id}`).click();
  // The dialog's row may re-render as the table refreshes after the first test; a click lost
  // to that is made again.
  await expect(async () => {
    await page.getByTestId(`model-test-${MOCK_MODEL}`).click();
    await expect(page.getByRole('dialog').getByText(/^OK in [0-9.]+ s$/)).toBeVisible({ timeout: 3000 });
  }).toPass({ timeout: 20000 });
  await page.screenshot({ path: `${SHOTS}/en/channel-model-test.png` });
  await page.keyboard.press('Escape');

  // Editing keeps the stored key when the field is left blank.
  await page.getByTestId(`channel-edit-${id}`).click();
  await expect(page).toHaveURL(new RegExp(`/channel/edit/${id}$`));
  await expect(page.getByTestId('channel-key')).toHaveAttribute('placeholder', 'Leave blank to keep the stored keys (1)');
  await page.getByTestId('channel-submit').click();
  await expect(page.getByText('Channel updated')).toBeVisible();
  await expect(page).toHaveURL(/\/channel$/);
});

test('tag grouping, inline priority and weight, batch tag, bulk actions and deleting', async ({ page }) => {
  for (const name of [TAG_A, TAG_B, 'e2e-delete-me']) await removeIfPresent(page, name);
  const a = await createByApi(page, TAG_A, 'e2e-tag-model');
  const b = await createByApi(page, TAG_B, 'e2e-tag-model');
  const gone = await createByApi(page, 'e2e-delete-me', 'e2e-tag-model', 'sk-e2e-1\nsk-e2e-2');
  await page.goto('/channel');

  // Inline priority: Enter saves; inline weight: a negative number is floored to 0.
  const priority = page.getByTestId(`channel-priority-${a}`);
  await priority.fill('7');
  await priority.press('Enter');
  await expect(page.getByText('Saved').first()).toBeVisible();
  await expect.poll(async () => (await findChannel(page, TAG_A))!.priority).toBe(7);
  const weight = page.getByTestId(`channel-weight-${a}`);
  await weight.fill('3');
  await weight.press('Enter');
  await expect.poll(async () => (await findChannel(page, TAG_A))!.weight).toBe(3);

  // Batch tag needs a selection first.
  await page.getByTestId('bulk-batch-tag').click();
  await expect(page.getByText('Please select channels first')).toBeVisible();
  const table = page.getByTestId('channels-table');
  for (const id of [a, b]) await table.locator(`tr[data-row-key="channel-${id}"] .ant-checkbox-input`).check();
  await expect(page.getByTestId('channels-selected')).toHaveText('2 selected');
  await page.getByTestId('bulk-batch-tag').click();
  await page.getByTestId('batch-tag-submit').click();
  await expect(page.getByText('The tag cannot be empty')).toBeVisible();
  await page.getByTestId('batch-tag-input').fill(TEAM);
  await page.getByTestId('batch-tag-submit').click();
  await expect(page.getByText('Tag set for 2 channels')).toBeVisible();
  await expect.poll(async () => (await findChannel(page, TAG_B))!.tag).toBe(TEAM);

  // Tag mode: one row for the tag, its members underneath; the tag-level priority applies to both.
  await page.getByTestId('channels-tag-mode').click();
  const tagRow = page.getByTestId(`tag-row-${TEAM}`);
  await expect(tagRow).toContainText('2 channels');
  await expect(page.getByTestId(`channel-name-${a}`)).toHaveCount(0);
  await table.locator(`tr[data-row-key="tag-${TEAM}"] .ant-table-row-expand-icon`).click();
  await expect(page.getByTestId(`channel-name-${a}`)).toBeVisible();
  await expect(page.getByTestId(`channel-name-${b}`)).toBeVisible();
  const tagPriority = page.getByTestId(`tag-priority-${TEAM}`);
  await expect(tagPriority).toHaveValue(''); // 7 and 0 differ
  await tagPriority.fill('5');
  await tagPriority.press('Enter');
  await expect.poll(async () => (await findChannel(page, TAG_B))!.priority).toBe(5);
  expect((await findChannel(page, TAG_A))!.priority).toBe(5);
  await expect(tagPriority).toHaveValue('5');
  // The tag dialog sends only what changed and refuses nothing-changed or bad JSON.
  await page.getByTestId(`tag-edit-${TEAM}`).click();
  await page.getByTestId('tag-edit-submit').click();
  await expect(page.getByText('No changes')).toBeVisible();
  await page.getByTestId('tag-edit-mapping').fill('{bad');
  await page.getByTestId('tag-edit-submit').click();
  await expect(page.getByText('Model mapping must be valid JSON')).toBeVisible();
  await page.getByTestId('tag-edit-mapping').fill('');
  await page.getByTestId('tag-edit-weight').fill('4');
  await page.getByTestId('tag-edit-submit').click();
  await expect(page.getByText('Updated 2 channels')).toBeVisible();
  await expect.poll(async () => (await findChannel(page, TAG_B))!.weight).toBe(4);
  expect((await findChannel(page, TAG_A))!.weight).toBe(4);
  await page.screenshot({ path: `${SHOTS}/en/channels-tag-mode.png`, fullPage: true });
  // The tag mode is kept locally.
  await page.reload();
  await expect(page.getByTestId(`tag-row-${TEAM}`)).toBeVisible();
  expect(await page.evaluate(() => window.localStorage.getItem('channel-tag-mode'))).toBe('true');
  await page.getByTestId('channels-tag-mode').click();

  // Column settings are stored in localStorage.
  await page.getByTestId('channels-columns').click();
  await page.getByTestId('column-toggle-balance').click();
  await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
  await expect(page.getByTestId(`channel-balance-${a}`)).toHaveCount(0);
  const stored = await page.evaluate(() => JSON.parse(window.localStorage.getItem('channels-table-columns') ?? '{}'));
  expect(stored.balance).toBe(false);
  await page.getByTestId('channels-columns').click();
  await page.getByTestId('columns-reset').click();
  await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
  await expect(page.getByTestId(`channel-balance-${a}`)).toBeVisible();

  // Test all: the progress line shows while it runs, then the counts.
  await page.getByTestId('bulk-test-all').click();
  await expect(page.getByText(/^Tested \d+ channels: \d+ succeeded, \d+ failed/)).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('bulk-progress')).toHaveCount(0);

  // Search by keyword finds one channel.
  await page.getByTestId('channels-keyword').fill('e2e-delete');
  await page.getByTestId('channels-search').click();
  await expect(page.getByTestId(`channel-name-${gone}`)).toBeVisible();
  await expect(page.getByTestId(`channel-name-${a}`)).toHaveCount(0);
  // A saved multi-key channel opens in the multi-key view with its key count.
  await page.getByTestId(`channel-edit-${gone}`).click();
  await expect(page.getByTestId('multi-key-view')).toContainText('This channel holds 2 keys');
  await page.locator('.ant-drawer-close').click();
  await expect(page).toHaveURL(/\/channel$/);
  // Delete one channel from its row.
  await page.getByTestId(`channel-delete-${gone}`).click();
  await confirmPopover(page);
  await expect(page.getByText('Channel deleted')).toBeVisible();
  expect(await findChannel(page, 'e2e-delete-me')).toBeUndefined();

  // Batch delete the two tagged channels.
  await page.reload();
  for (const id of [a, b]) await table.locator(`tr[data-row-key="channel-${id}"] .ant-checkbox-input`).check();
  await page.getByTestId('bulk-batch-delete').click();
  await confirmPopover(page);
  await expect(page.getByText('Deleted 2 channels')).toBeVisible();
  expect(await findChannel(page, TAG_A)).toBeUndefined();
  expect(await findChannel(page, TAG_B)).toBeUndefined();

  // What the token → gateway → wallet flow relies on is still there.
  expect(await findChannel(page, MOCK_CHANNEL)).toMatchObject({ status: 1, models: MOCK_MODEL, group: 'default' });
});

test('the drawer follows the type: default models, type fields, multi-key view, upstream models in the picker', async ({
  page,
}) => {
  await page.goto('/channel/add');
  const drawer = page.locator('.ant-drawer');
  const models = page.getByTestId('channel-models');
  const chooseType = async (label: string) => {
    await page.getByTestId('channel-type').click();
    await page.keyboard.type(label);
    await page.keyboard.press('Enter');
  };
  await expect(models).toContainText('gpt-4o');

  // Midjourney refills the list with its mj_ actions and explains the base URL.
  await chooseType('Midjourney Proxy (2)');
  await expect(models).toContainText('mj_imagine');
  await expect(models).not.toContainText('gpt-4o');
  await expect(page.getByTestId('channel-type-notice')).toContainText('Midjourney Proxy');
  await chooseType('Suno API (36)');
  await expect(models).toContainText('suno_music');
  // Azure asks for the API version in `other`.
  await chooseType('Azure OpenAI (3)');
  await expect(drawer.getByText('API version')).toBeVisible();
  // Vertex: a JSON key is one key, never the multi-key view.
  await chooseType('Vertex AI (41)');
  await expect(drawer.getByText('Region', { exact: true })).toBeVisible();
  await page.getByTestId('channel-key').fill('{"type": "service_account",\n"project_id": "p"}');
  await expect(page.getByTestId('multi-key-view')).toHaveCount(0);

  // OpenAI again: commas or newlines switch the multi-key view on, the switch turns it off.
  await chooseType('OpenAI (1)');
  await page.getByTestId('channel-key').fill('sk-one,sk-two\nsk-three');
  await expect(page.getByTestId('multi-key-view')).toContainText('3 keys detected');
  await page.getByTestId('multi-key-switch').click();
  await expect(page.getByTestId('multi-key-view')).toHaveCount(0);
  await page.getByTestId('multi-key-switch').click();
  await expect(page.getByTestId('multi-key-view')).toBeVisible();

  // Fetching models of an unsaved channel needs a key; the mock's list opens in the picker.
  await page.getByTestId('channel-key').fill('');
  await page.getByTestId('fetch-models').click();
  await expect(page.getByText('Enter a key first: a new channel needs one to fetch its models')).toBeVisible();
  await page.getByTestId('channel-key').fill('sk-mock-upstream-key');
  await page.getByTestId('channel-base-url').fill(mockUrl());
  await page.getByTestId('fetch-models').click();
  await expect(page.getByText('Fetched 2 models')).toBeVisible();
  await page.getByTestId('picker-search').locator('input').fill('mock');
  await expect(page.getByTestId('picker-model-gpt-4o-mini')).toHaveCount(0);
  await page.getByTestId('picker-model-mock-model').check();
  await page.screenshot({ path: `${SHOTS}/en/channel-model-picker.png` });
  await page.getByTestId('picker-ok').click();
  await expect(models).toContainText('mock-model');
  await expect(models).toContainText('gpt-4o');
});

test('the channel screen in Chinese', async ({ page }) => {
  await setLanguage(page, 'zh-CN');
  await page.goto('/channel');
  await expect(page.getByText('渠道管理', { exact: true }).last()).toBeVisible();
  await expect(page.getByTestId('bulk-test-all')).toHaveText('测试所有渠道');
  await page.screenshot({ path: `${SHOTS}/zh-CN/channels.png`, fullPage: true });
  await page.goto('/channel/add');
  await expect(page.getByTestId('channel-submit')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/zh-CN/channel-drawer.png` });
});
