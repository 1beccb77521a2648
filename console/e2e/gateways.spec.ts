/** Gateways screen: the gateway global-setup started follows the config feed and shows up, connected. */
import { expect, test } from '@playwright/test';
import { login, setLanguage } from './helpers';

/** The name global-setup gives the gateway (`--gateway-id`). */
const GATEWAY_ID = 'e2e';

test('root sees the e2e gateway connected and up to date, and no refused usage records', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  await page.getByTestId('sidebar-menu').getByText('Gateways', { exact: true }).click();
  await expect(page).toHaveURL(/\/gateway$/);

  // The gateway registers on its first Watch and acknowledges each config it applies:
  // refresh until it is listed and has caught up with the newest version.
  await expect(async () => {
    await page.getByTestId('gateways-refresh').click();
    await expect(page.getByTestId(`gateway-id-${GATEWAY_ID}`)).toBeVisible({ timeout: 2_000 });
    await expect(page.getByTestId(`gateway-lag-${GATEWAY_ID}`)).toHaveText('Up to date', { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId(`gateway-connected-${GATEWAY_ID}`)).toHaveText('Connected');

  // The applied version on screen is the one the control plane reports, and it is the newest.
  const res = await page.request.get('/api/gateway/', { headers: { 'New-Api-User': '1' } });
  const body = (await res.json()) as {
    success: boolean;
    data: { version: number; items: { gateway_id: string; version: number; connected: boolean }[] };
  };
  expect(body.success).toBe(true);
  const gw = body.data.items.find((g) => g.gateway_id === GATEWAY_ID);
  expect(gw).toMatchObject({ connected: true });
  const row = page.locator('tr', { has: page.getByTestId(`gateway-id-${GATEWAY_ID}`) });
  await expect(row.locator('td').nth(2)).toHaveText(String(gw!.version));
  await expect(page.getByTestId('gateways-version').locator('.ant-statistic-content')).toHaveText(String(body.data.version));

  // Our own gateway only reports well-formed usage: ingest refused none of it.
  await expect(page.getByTestId('rejections-empty')).toBeVisible();
});
