/** Shell: language switch, SPA fallback served by the control plane, sidebar collapse. */
import { expect, test, type Page } from '@playwright/test';
import { login, setLanguage } from './helpers';

/** Picks a language from the hover menu, retrying while the menu is still animating. */
async function pickLanguage(page: Page, lang: 'en' | 'zh-CN') {
  await expect(async () => {
    await page.mouse.move(0, 0);
    await page.getByTestId('language-menu').hover();
    await page.getByTestId(`lang-${lang}`).click({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}

test('language switch changes the UI to Chinese and back', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  await page.goto('/user');
  await expect(page.getByText('Manage users', { exact: true })).toBeVisible();
  await pickLanguage(page, 'zh-CN');
  await expect(page.getByText('管理用户', { exact: true })).toBeVisible();
  await expect(page.getByTestId('sidebar-menu')).toContainText('用户管理');
  await pickLanguage(page, 'en');
  await expect(page.getByText('Manage users', { exact: true })).toBeVisible();
});

test('the control plane serves the console: SPA fallback, /assets misses are 404', async ({ request }) => {
  const spa = await request.get('/user/edit/1');
  expect(spa.status()).toBe(200);
  expect(spa.headers()['content-type']).toContain('text/html');
  expect((await request.get('/assets/no-such-file.js')).status()).toBe(404);
});

test('the sidebar collapses and the choice is stored', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  await page.goto('/user');
  const sider = page.getByTestId('sidebar');
  const wide = (await sider.boundingBox())!.width;
  await page.getByTestId('sidebar-toggle').click();
  await expect.poll(async () => (await sider.boundingBox())!.width).toBeLessThan(wide);
  expect(await page.evaluate(() => window.localStorage.getItem('default_collapse_sidebar'))).toBe('true');
  await page.reload();
  await expect.poll(async () => (await page.getByTestId('sidebar').boundingBox())!.width).toBeLessThan(wide);
  await page.getByTestId('sidebar-toggle').click();
});
