/** First run against a fresh control plane: every page goes to /setup; setup creates root. */
import { expect, test } from '@playwright/test';
import { ROOT, SHOTS } from './helpers';

test.describe.configure({ mode: 'serial' });

test('first run: every page goes to /setup, setup creates the root account', async ({ page }) => {
  await page.goto('/login');
  await expect(page).toHaveURL(/\/setup$/);
  for (const lang of ['zh-CN', 'en']) {
    await page.evaluate((l) => window.localStorage.setItem('language', l), lang);
    await page.reload();
    await expect(page.getByTestId('sqlite-warning')).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/${lang}/setup.png`, fullPage: true });
  }
  // The usage modes are explained in a dialog.
  await page.getByRole('button', { name: 'About the modes' }).click();
  const modes = page.getByRole('dialog', { name: 'Usage mode' });
  await expect(modes).toContainText('Self-use: for yourself only');
  await modes.getByRole('button', { name: 'Close' }).click();
  // Validation of spec 3 §5 runs before the server is called.
  await page.getByTestId('setup-username').fill(ROOT.username);
  await page.getByTestId('setup-password').fill('short');
  await page.getByTestId('setup-confirm').fill('short');
  await page.getByTestId('setup-submit').click();
  await expect(page.getByText('Password must be at least 8 characters', { exact: true })).toBeVisible();
  await page.getByTestId('setup-password').fill(ROOT.password);
  await page.getByTestId('setup-confirm').fill(ROOT.password);
  await page.getByTestId('setup-submit').click();
  await expect(page).toHaveURL(/\/login$/);
  const setup = await (await page.request.get('/api/setup')).json();
  expect(setup.data.status).toBe(true);
});
