/** User management: create, promote, disable, search, edit; self-registration. */
import { expect, test } from '@playwright/test';
import { confirmPopover, login, setLanguage } from './helpers';

const NEW_USER = { username: `e2e_user_${Date.now() % 100000}`, password: 'e2e-user-pass' };

test.describe.configure({ mode: 'serial' });

test('login, create a user, promote, disable', async ({ page }) => {
  await setLanguage(page, 'en');
  await page.goto('/login');
  await page.getByTestId('login-submit').click();
  await expect(page.getByText('Please enter username and password!')).toBeVisible();
  await login(page);
  await expect(page).toHaveURL(/\/token$/);
  await expect(page.getByTestId('tokens-warning')).toBeVisible();

  await page.getByTestId('sidebar-menu').getByText('User management').click();
  await expect(page).toHaveURL(/\/user$/);
  await page.getByTestId('users-add').click();
  await page.getByTestId('add-user-submit').click();
  await expect(page.getByText('Username and password cannot be empty!')).toBeVisible();
  await page.getByTestId('add-user-username').fill(NEW_USER.username);
  await page.getByTestId('add-user-display-name').fill('E2E User');
  await page.getByTestId('add-user-password').fill(NEW_USER.password);
  await page.getByTestId('add-user-submit').click();
  await expect(page.getByText('User created')).toBeVisible();

  const row = page.locator('tr', { hasText: NEW_USER.username });
  await expect(row).toBeVisible();
  const id = await row.locator('td').first().innerText();
  await expect(page.getByTestId(`user-status-${id}`)).toHaveText('Active');

  await page.getByTestId(`user-promote-${id}`).click();
  await confirmPopover(page);
  await expect(row.getByText('Admin', { exact: true })).toBeVisible();

  await page.getByTestId(`user-disable-${id}`).click();
  await expect(page.getByTestId(`user-status-${id}`)).toHaveText('Banned');

  const user = await (await page.request.get(`/api/user/${id}`, { headers: { 'New-Api-User': '1' } })).json();
  expect(user.data).toMatchObject({ role: 10, status: 2 });

  // Search by group: the table shows what the server's group search answers.
  const byGroup = await (
    await page.request.get('/api/user/search?group=default&p=1&page_size=100', { headers: { 'New-Api-User': '1' } })
  ).json();
  await page.getByTestId('users-group').click();
  await page.locator('.ant-select-dropdown .ant-select-item-option-content', { hasText: /^default$/ }).click();
  await page.getByTestId('users-search').click();
  await expect(page.locator('tbody tr.ant-table-row')).toHaveCount(Math.min(byGroup.data.total, 10));
  await expect(page.getByText(`Total ${byGroup.data.total}`)).toBeVisible();
  await page.getByTestId('users-group').locator('.ant-select-clear').click({ force: true });

  // Search by keyword finds the new user only.
  await page.getByTestId('users-keyword').locator('input').fill(NEW_USER.username);
  await page.getByTestId('users-search').click();
  await expect(page.locator('tbody tr.ant-table-row')).toHaveCount(1);
});

test('an admin edits a user in the side panel', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  await page.goto('/user');
  const row = page.locator('tr', { hasText: NEW_USER.username });
  const id = await row.locator('td').first().innerText();
  await page.getByTestId(`user-edit-${id}`).click();
  await expect(page).toHaveURL(new RegExp(`/user/edit/${id}$`));
  await page.getByTestId('edit-user-display-name').fill('Edited Name');
  await page.getByTestId('edit-user-password').fill('short');
  await page.getByTestId('edit-user-submit').click();
  await expect(page.getByText('Password must be at least 8 characters!')).toBeVisible();
  await page.getByTestId('edit-user-password').fill('');
  await page.getByTestId('edit-user-quota').fill('1500000');
  await page.getByTestId('edit-user-submit').click();
  await expect(page.getByText('User updated')).toBeVisible();
  await expect(page).toHaveURL(/\/user$/);
  await expect(row).toContainText('Edited Name');
  await expect(row).toContainText('$3.00');
});

test('a visitor registers, signs in and sees only their own screens', async ({ page }) => {
  await setLanguage(page, 'en');
  const name = `reg_${Date.now() % 100000}`;
  await page.goto('/register');
  await page.getByTestId('register-username').fill(name);
  await page.getByTestId('register-password').fill('pass-1234');
  await page.getByTestId('register-password2').fill('pass-9999');
  await page.getByTestId('register-submit').click();
  await expect(page.getByText('The two passwords do not match')).toBeVisible();
  await page.getByTestId('register-password2').fill('pass-1234');
  await page.getByTestId('register-submit').click();
  await expect(page).toHaveURL(/\/login$/);
  await page.getByTestId('login-username').fill(name);
  await page.getByTestId('login-password').fill('pass-1234');
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/token$/);
  await expect(page.getByTestId('sidebar-menu')).not.toContainText('User management');
  await page.goto('/user');
  await expect(page.getByText('No permission')).toBeVisible();
  await page.goto('/personal');
  await expect(page.getByTestId('account-card')).toContainText('Normal user');
  await expect(page.getByTestId('account-card')).toContainText(name);
});
