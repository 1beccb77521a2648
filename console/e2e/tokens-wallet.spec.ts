/**
 * Tokens, redemption codes and the wallet against the real control plane, gateway and mock
 * provider: a token made in the console carries a real chat call whose cost shows in the
 * wallet, and a code made on the redemption page raises the balance when redeemed there.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { chat, chatWhenReady, ensureMockChannel } from './gateway';
import { confirmPopover, login, setLanguage } from './helpers';

const MODEL = 'gpt-4o-mini';
/** The channel the channels spec leaves behind (it runs first in a full run), else our own. */
const SHARED_CHANNEL = 'e2e-mock';
const CHANNEL = 'e2e-billing-mock';
const CHANNEL_ENABLED = 1;
const RUN = Date.now() % 1_000_000;
const CODE_QUOTA = 500000;

test.describe.configure({ mode: 'serial' });

/** Root is the first account (user id 1); REST calls name it in New-Api-User. */
const ROOT_HEADERS = { 'New-Api-User': '1' };

interface Channel {
  name: string;
  status: number;
  models: string;
}

/** Whether an enabled channel of that name serves MODEL. */
async function hasChannel(page: Page, name: string): Promise<boolean> {
  const found = (await (
    await page.request.get('/api/channel/search', { params: { keyword: name }, headers: ROOT_HEADERS })
  ).json()) as { data?: { items?: Channel[] } | Channel[] };
  const items = Array.isArray(found.data) ? found.data : (found.data?.items ?? []);
  return items.some((c) => c.name === name && c.status === CHANNEL_ENABLED && c.models.split(',').includes(MODEL));
}

/** An enabled channel for MODEL in group default pointing at the mock: the shared one, else our own. */
async function ensureChannel(page: Page) {
  if (await hasChannel(page, SHARED_CHANNEL)) return;
  await ensureMockChannel(page, CHANNEL, [MODEL]);
}

/** The key the copy button put on the clipboard, or the one the fallback dialog shows. */
async function copiedText(page: Page): Promise<string> {
  const dialog = page.locator('.ant-modal-confirm');
  if (await dialog.isVisible()) {
    const text = await dialog.locator('code').innerText();
    await dialog.getByRole('button').last().click();
    return text.trim();
  }
  return page.evaluate(() => navigator.clipboard.readText());
}

/**
 * Clicks a token copy button and answers what it copied. Token lists carry masked keys: the
 * button first reads the whole key from the server, so the clipboard (or the fallback dialog)
 * fills a moment after the click.
 */
async function copyWith(page: Page, button: Locator): Promise<string> {
  await page.evaluate(() => navigator.clipboard.writeText('').catch(() => undefined));
  await button.click();
  const dialog = page.locator('.ant-modal-confirm');
  let text = '';
  await expect
    .poll(
      async () => {
        text = (await dialog.isVisible())
          ? (await dialog.locator('code').innerText()).trim()
          : await page.evaluate(() => navigator.clipboard.readText());
        return text !== '';
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  if (await dialog.isVisible()) await dialog.getByRole('button').last().click();
  return text;
}

/** The wallet's balance and used quota, in quota units, as one answer of the server shows them. */
async function walletTotals(page: Page): Promise<{ quota: number; used: number }> {
  await expect(page.getByTestId('wallet-balance-quota')).toBeVisible();
  // Both read in one go, so a refetch between two reads cannot mix two answers.
  const [quota, used] = await page.evaluate(() =>
    ['wallet-balance-quota', 'wallet-used'].map((id) =>
      Number(document.querySelector(`[data-testid="${id}"]`)?.getAttribute('data-quota')),
    ),
  );
  return { quota, used };
}

/**
 * Balance plus used quota. A charge or a refund moves quota between the two and leaves the sum
 * alone; only a credit (an admin, a redemption, a payment) raises it. Usage of earlier specs
 * (tasks settle asynchronously) may land at any moment, so the checks below use the sum.
 */
async function walletCredited(page: Page): Promise<number> {
  const { quota, used } = await walletTotals(page);
  return quota + used;
}

/** The used quota of root's token named `name`, as the tokens API lists it. */
async function tokenUsed(page: Page, name: string): Promise<number> {
  const listed = (await (
    await page.request.get('/api/token/search', { params: { keyword: name }, headers: ROOT_HEADERS })
  ).json()) as { data?: { items?: TokenRow[] } | TokenRow[] };
  const items = Array.isArray(listed.data) ? listed.data : (listed.data?.items ?? []);
  return items.find((t) => t.name === name)?.used_quota ?? 0;
}

interface TokenRow {
  name: string;
  used_quota: number;
}

async function createToken(page: Page, name: string, count?: number) {
  await page.getByTestId('tokens-add').click();
  await page.getByTestId('token-name').fill(name);
  if (count) await page.getByTestId('token-count').fill(String(count));
  await page.getByTestId('token-submit').click();
}

test.beforeEach(async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await setLanguage(page, 'en');
  await login(page);
});

test('a console token carries a gateway call that costs quota; a redeemed code raises the balance', async ({ page }) => {
  // Waits on the config push to the gateway and on the usage report back (both asynchronous).
  test.slow();
  await ensureChannel(page);

  // Create a token and copy its key.
  const name = `e2e-main-${RUN}`;
  await page.goto('/token');
  await expect(page.getByTestId('tokens-warning')).toBeVisible();
  await page.getByTestId('tokens-add').click();
  await page.getByTestId('token-submit').click();
  await expect(page.getByText('Please enter a name')).toBeVisible();
  await page.getByTestId('token-name').fill(name);
  await page.getByTestId('token-expiry').fill('next week');
  await page.getByTestId('token-submit').click();
  await expect(page.getByText('Expiry time format error')).toBeVisible();
  await page.getByTestId('token-expiry-preset-month').click();
  await page.getByTestId('token-quota-preset-5000000').click();
  await page.getByTestId('token-submit').click();
  await expect(page.getByText('Token created')).toBeVisible();
  const row = page.locator('tr', { hasText: name });
  await expect(row.getByText('$10.00')).toBeVisible();
  const shownKey = row.locator('[data-testid^="token-key-"]');
  await expect(shownKey).toContainText('**********');
  const key = await copyWith(page, row.locator('[data-testid^="token-copy-"]'));
  expect(key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
  // The list never carries the whole key; show reads it, hide masks it again.
  const listed = await (
    await page.request.get('/api/token/', { params: { p: 1, page_size: 100 }, headers: ROOT_HEADERS })
  ).text();
  expect(listed).toContain(name);
  expect(listed).not.toContain(key.slice(3));
  await row.locator('[data-testid^="token-reveal-"]').click();
  await expect(shownKey).toHaveText(key);
  await row.locator('[data-testid^="token-reveal-"]').click();
  await expect(shownKey).toContainText('**********');

  // The balance before the call.
  await page.goto('/topup');
  const before = await walletTotals(page);
  expect(before.quota).toBeGreaterThan(0);

  // A real call through the gateway; the new token reaches it asynchronously.
  await chatWhenReady(page.request, key, MODEL);

  // Usage reaches the control plane asynchronously: the token's used quota shows the call…
  await expect.poll(() => tokenUsed(page, name), { timeout: 30_000, intervals: [500, 1000, 2000] }).toBeGreaterThan(0);
  // …and the wallet, reloaded, shows quota moved from the balance to used, nothing credited.
  await page.reload();
  const afterCall = await walletTotals(page);
  expect(afterCall.quota + afterCall.used).toBe(before.quota + before.used);

  // The token's used quota shows on the tokens page too.
  await page.goto('/token');
  await expect(page.locator('tr', { hasText: name }).getByTestId(/token-status-/)).toHaveText('Enabled');

  // A code made on the redemption page…
  const codeName = `e2e-wallet-${RUN}`;
  await page.goto('/redemption');
  await page.getByTestId('redemptions-add').click();
  await page.getByTestId('redemption-name').fill(codeName);
  await page.getByTestId('redemption-quota').fill(String(CODE_QUOTA));
  await page.getByTestId('redemption-submit').click();
  const codes = page.getByTestId('created-codes');
  await expect(codes).toBeVisible();
  const code = (await codes.innerText()).trim();
  expect(code).toMatch(/^\S+$/);
  await page.getByTestId('codes-copy-all').click();
  expect(await copiedText(page)).toBe(code);

  // …redeemed in the wallet (prefilled from ?code=) raises the balance.
  await page.goto(`/topup?code=${encodeURIComponent(code)}`);
  await expect(page.getByTestId('wallet-redeem-code')).toHaveValue(code);
  await page.getByTestId('wallet-redeem-submit').click();
  await expect(page.getByText('Redeemed: $1.00 added to your balance')).toBeVisible();
  await expect.poll(() => walletCredited(page)).toBe(afterCall.quota + afterCall.used + CODE_QUOTA);

  // The code is used now: redeeming it again is refused by the server.
  await page.getByTestId('wallet-redeem-code').fill(code);
  await page.getByTestId('wallet-redeem-submit').click();
  await expect(page.locator('.ant-message-error')).toBeVisible();

  // Disabling the token stops the gateway from accepting it.
  await page.goto('/token');
  const tokenRow = page.locator('tr', { hasText: name });
  await tokenRow.locator('[data-testid^="token-toggle-"]').click();
  await expect(tokenRow.locator('[data-testid^="token-status-"]')).toHaveText('Disabled');
  await expect
    .poll(async () => (await chat(page.request, key, MODEL)).status, { timeout: 20_000, intervals: [250, 500, 1000] })
    .not.toBe(200);
});

test('tokens: batch creation, copy selected, enable/disable, edit, delete', async ({ page }) => {
  const name = `e2e-batch-${RUN}`;
  await page.goto('/token');
  await page.getByTestId('tokens-copy-selected').click();
  await expect(page.getByText('Please select at least one token')).toBeVisible();

  await createToken(page, name, 3);
  await expect(page.getByText('3 tokens created')).toBeVisible();
  // The drawer is gone (closed and unmounted) before typing: when it closes it gives focus back
  // to the Add button, and an Enter meant for the search box would open it again.
  await expect(page.getByTestId('token-submit')).toHaveCount(0);
  await page.getByTestId('tokens-keyword').locator('input').fill(name);
  await page.getByTestId('tokens-keyword').locator('input').press('Enter');
  const rows = page.locator('tbody tr.ant-table-row');
  await expect(rows).toHaveCount(3);
  const names = await rows.locator('td:nth-child(2)').allInnerTexts();
  const extra = new RegExp(`^${name}-[A-Za-z0-9]{6}$`);
  expect(names.filter((n) => n === name)).toHaveLength(1);
  expect(names.filter((n) => extra.test(n))).toHaveLength(2);

  // Copy selected: one "name<TAB>key" line per selected token.
  await rows.nth(0).locator('.ant-checkbox-input').check();
  await rows.nth(1).locator('.ant-checkbox-input').check();
  const lines = (await copyWith(page, page.getByTestId('tokens-copy-selected'))).split('\n');
  expect(lines).toHaveLength(2);
  for (const line of lines) expect(line).toMatch(new RegExp(`^${name}(-[A-Za-z0-9]{6})?\\tsk-[A-Za-z0-9]{48}$`));

  // Disable, enable again.
  const first = rows.nth(0);
  const status = first.locator('[data-testid^="token-status-"]');
  await first.locator('[data-testid^="token-toggle-"]').click();
  await expect(status).toHaveText('Disabled');
  await first.locator('[data-testid^="token-toggle-"]').click();
  await expect(status).toHaveText('Enabled');

  // Edit: unlimited quota, limited to one model.
  await first.locator('[data-testid^="token-edit-"]').click();
  await expect(page.getByTestId('token-name')).not.toHaveValue('');
  await page.getByTestId('token-unlimited').click();
  await page.getByTestId('token-model-limits-enabled').click();
  await page.getByTestId('token-model-limits').click();
  await page.locator('.ant-select-dropdown .ant-select-item-option-content', { hasText: MODEL }).click();
  await page.keyboard.press('Escape');
  await page.getByTestId('token-submit').click();
  await expect(page.getByText('Token updated')).toBeVisible();
  await expect(first).toContainText('Unlimited');
  await expect(first).toContainText('Model limits');

  // Delete one.
  await first.locator('[data-testid^="token-delete-"]').click();
  await confirmPopover(page);
  await expect(page.getByText('Token deleted')).toBeVisible();
  await expect(rows).toHaveCount(2);
});

test('redemption codes: create several, edit, copy, batch disable, delete invalid, delete by name after the count', async ({
  page,
}) => {
  const name = `e2e-promo-${RUN}`;
  await page.goto('/redemption');
  await page.getByTestId('redemptions-add').click();
  await page.getByTestId('redemption-name').fill(name);
  await page.getByTestId('redemption-count').fill('4');
  await page.getByTestId('redemption-submit').click();
  await expect(page.getByText('4 codes were created. Copy or download them now.')).toBeVisible();
  const codes = (await page.getByTestId('created-codes').innerText()).trim().split('\n');
  expect(codes).toHaveLength(4);
  const download = page.waitForEvent('download');
  await page.getByTestId('codes-download').click();
  expect((await download).suggestedFilename()).toBe(`redemption-codes-${name}.txt`);
  await page.keyboard.press('Escape');
  // As for tokens: the drawer is gone before the search box gets an Enter.
  await expect(page.getByTestId('redemption-submit')).toHaveCount(0);

  await page.getByTestId('redemptions-keyword').locator('input').fill(name);
  await page.getByTestId('redemptions-keyword').locator('input').press('Enter');
  const rows = page.locator('tbody tr.ant-table-row');
  await expect(rows).toHaveCount(4);

  // Edit one: only unused codes can be edited.
  await rows.nth(0).locator('[data-testid^="redemption-edit-"]').click();
  await page.getByTestId('redemption-quota').fill('200000');
  await page.getByTestId('redemption-submit').click();
  await expect(page.getByText('Code updated')).toBeVisible();
  await expect(rows.nth(0)).toContainText('$0.40');

  // Copy one code from its row.
  await rows.nth(0).locator('[data-testid^="redemption-copy-"]').click();
  expect(codes).toContain(await copiedText(page));

  // Batch disable two.
  await page.getByTestId('redemptions-batch-disable').click();
  await expect(page.getByText('Please select at least one code')).toBeVisible();
  await rows.nth(0).locator('.ant-checkbox-input').check();
  await rows.nth(1).locator('.ant-checkbox-input').check();
  await page.getByTestId('redemptions-batch-disable').click();
  await expect(page.getByText('2 codes disabled')).toBeVisible();
  await expect(rows.locator('[data-testid^="redemption-status-"]', { hasText: 'Disabled' })).toHaveCount(2);

  // Delete invalid codes removes the disabled ones.
  await page.getByTestId('redemptions-delete-disabled').click();
  await confirmPopover(page);
  await expect(page.getByText(/codes? deleted/)).toBeVisible();
  await expect(rows).toHaveCount(2);
  // Its toast reads like the by-name one below ("2 codes deleted"): let it go first.
  await expect(page.getByText(/codes? deleted/)).toHaveCount(0);

  // Delete by name: the count first, then the deletion.
  await page.getByTestId('redemptions-delete-by-name').click();
  await expect(page.getByRole('dialog', { name: 'Delete codes by name' })).toBeVisible();
  await page.getByTestId('by-name-input').fill(name);
  await expect(page.getByTestId('by-name-input')).toHaveValue(name);
  await page.getByTestId('by-name-count').click();
  await expect(page.getByTestId('by-name-result')).toHaveText(`2 codes are named "${name}".`);
  await page.getByTestId('by-name-delete').click();
  await expect(page.getByText('2 codes deleted')).toBeVisible();
  await expect(rows).toHaveCount(0);
});
