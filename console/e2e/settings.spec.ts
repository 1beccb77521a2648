/** Settings panels: rules, saving only changed keys, what the options change in the shell. */
import { expect, test } from '@playwright/test';
import { login, setOptions, setLanguage, visitorPage } from './helpers';

const SYSTEM_NAME = 'E2E Gateway';

test('settings: whitelist rules and the password-login confirmation', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  await page.goto('/setting?tab=system');
  const panel = page.getByTestId('panel-whitelist');
  const input = panel.getByPlaceholder('e.g. example.com');
  await input.fill('not a domain');
  await panel.getByRole('button', { name: 'Add domain' }).click();
  await expect(page.getByText('Invalid email domain format')).toBeVisible();
  await input.fill('gmail.com');
  await panel.getByRole('button', { name: 'Add domain' }).click();
  await expect(page.getByText('This domain already exists in the whitelist')).toBeVisible();

  const toggle = page.getByTestId('option-PasswordLoginEnabled');
  await expect(toggle).toBeChecked();
  await toggle.click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  await expect(toggle).toBeChecked();
});

test('a settings change is saved and reflected in /api/status', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  await page.goto('/setting?tab=other');
  const input = page.getByTestId('option-SystemName');
  await expect(input).toBeVisible();
  await page.getByTestId('save-personalization').click();
  await expect(page.getByText('You seem to have changed nothing')).toBeVisible();
  await input.fill(SYSTEM_NAME);
  await page.getByTestId('save-personalization').click();
  await expect(page.getByText('Settings saved')).toBeVisible();
  const status = await (await page.request.get('/api/status')).json();
  expect(status.data.system_name).toBe(SYSTEM_NAME);
  await expect(page.getByTestId('top-bar')).toContainText(SYSTEM_NAME);
});

test('top bar and footer follow the options: docs link, self-use badge, sanitised footer', async ({ page, browser }) => {
  await setLanguage(page, 'en');
  await login(page);
  await setOptions(page, {
    'general_setting.docs_link': 'https://docs.example/guide',
    SelfUseModeEnabled: 'true',
    Notice: 'Maintenance tonight <b>22:00</b>',
    Footer:
      '<a href="https://footer.example/">Footer link</a><script>window.__pwned = true</script><img src="x" onerror="window.__pwned = true">',
  });
  const { visitor, guest } = await visitorPage(browser);
  try {
    await guest.goto('/login');
    const top = guest.getByTestId('top-bar');
    await expect(top.getByRole('link', { name: 'Docs' })).toHaveAttribute('href', 'https://docs.example/guide');
    await expect(top.getByText('Self-use mode')).toBeVisible();
    await expect(top.getByRole('button', { name: 'Register' })).toHaveCount(0);
    await guest.goto('/');
    await expect(guest.getByTestId('notice')).toContainText('Maintenance tonight <b>22:00</b>');
    const footer = guest.getByTestId('footer');
    await expect(footer.getByRole('link', { name: 'Footer link' })).toHaveAttribute('href', 'https://footer.example/');
    await expect(footer.locator('script, [onerror]')).toHaveCount(0);
    expect(await guest.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();
  } finally {
    await visitor.close();
    await setOptions(page, { 'general_setting.docs_link': '', SelfUseModeEnabled: 'false', Footer: '', Notice: '' });
  }
});

test('log cleanup asks for confirmation and reports how many logs went', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  await page.goto('/setting?tab=operation');
  const panel = page.getByTestId('panel-log');
  await panel.getByRole('button', { name: 'Clear logs before this time' }).click();
  await page.locator('.ant-popconfirm').last().getByRole('button', { name: 'OK' }).click();
  await expect(page.getByText(/^\d+ logs cleared$/)).toBeVisible();
});
