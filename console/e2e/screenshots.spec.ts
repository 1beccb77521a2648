/** Screenshots of the main screens in both languages (e2e-artifacts/screenshots/<lang>/). */
import { expect, test } from '@playwright/test';
import { SHOTS, login, setLanguage } from './helpers';

for (const lang of ['en', 'zh-CN'] as const) {
  test(`screenshots (${lang})`, async ({ page }) => {
    await setLanguage(page, lang);
    const shot = async (name: string) => {
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: `${SHOTS}/${lang}/${name}.png`, fullPage: true });
    };
    await page.goto('/login?expired=true');
    await expect(page.getByTestId('expired-alert')).toBeVisible();
    await shot('login');
    await page.goto('/register');
    await shot('register');
    await login(page);
    await page.goto('/user');
    await expect(page.locator('tbody tr.ant-table-row').first()).toBeVisible();
    await shot('users');
    await page.getByTestId('theme-toggle').click();
    await shot('users-dark');
    await page.getByTestId('theme-toggle').click();
    await page.goto('/user/edit/1');
    await expect(page.getByTestId('edit-user-submit')).toBeVisible();
    await shot('user-edit');
    await page.goto('/personal');
    await expect(page.getByTestId('account-card')).toBeVisible();
    await shot('personal');
    await page.goto('/setting?tab=system');
    await expect(page.getByTestId('panel-general')).toBeVisible();
    await shot('settings-system');
    await page.goto('/setting?tab=operation');
    await expect(page.getByTestId('panel-operation')).toBeVisible();
    await shot('settings-operation');
    await page.goto('/detail');
    await expect(page.getByTestId('dashboard-page')).toBeVisible();
    await shot('dashboard');
    await page.goto('/pricing');
    await expect(page.getByTestId('pricing-table')).toBeVisible();
    await shot('pricing');
    await page.goto('/about');
    await expect(page.getByTestId('about-empty')).toBeVisible();
    await shot('about');
    await page.goto('/log');
    await expect(page.getByTestId('logs-summary')).toBeVisible();
    await shot('logs');
    // Playground, drawing log and task log, light then dark.
    const newScreens = async (suffix: string) => {
      await page.goto('/playground');
      await expect(page.getByTestId('pg-empty')).toBeVisible();
      await shot(`playground${suffix}`);
      await page.goto('/midjourney');
      await expect(page.getByTestId('drawing-empty')).toBeVisible();
      await shot(`drawing${suffix}`);
      await page.goto('/task');
      await expect(page.getByTestId('task-empty')).toBeVisible();
      await shot(`tasks${suffix}`);
    };
    await newScreens('');
    await page.getByTestId('theme-toggle').click();
    await newScreens('-dark');
    await page.getByTestId('theme-toggle').click();
    await page.goto('/no-such-page');
    await shot('not-found');
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto('/user');
    await expect(page.locator('tbody tr.ant-table-row').first()).toBeVisible();
    await expect(page.getByTestId('sidebar')).toHaveCount(0);
    await shot('users-mobile');
    await page
      .getByTestId('top-bar')
      .getByRole('button', { name: lang === 'en' ? 'Menu' : '菜单' })
      .click();
    await expect(page.getByTestId('sidebar-menu')).toBeVisible();
    await page.waitForTimeout(600); // the drawer slides in
    await shot('menu-mobile');
    await newScreens('-mobile');
    await page.getByTestId('theme-toggle').click();
    await newScreens('-mobile-dark');
    await page.getByTestId('theme-toggle').click();
  });
}
