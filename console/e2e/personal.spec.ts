/** Personal settings against the server: security modals, check-in, notifications, invitation, bindings. */
import { expect, test } from '@playwright/test';
import { login, setOptions, setLanguage } from './helpers';
import { lastCode, startSmtpSink } from './smtpSink';

test('personal settings: change password, access token, delete account', async ({ page }) => {
  await setLanguage(page, 'en');
  const name = `self_${Date.now() % 100000}`;
  const res = await page.request.post('/api/user/register', {
    data: { username: name, password: 'first-pass1', password2: 'first-pass1' },
  });
  expect((await res.json()).success).toBe(true);
  await page.goto('/login');
  await page.getByTestId('login-username').fill(name);
  await page.getByTestId('login-password').fill('first-pass1');
  await page.getByTestId('login-submit').click();
  await page.waitForURL(/\/token$/);
  await page.goto('/personal');
  const security = page.getByTestId('security-card');

  await security.getByRole('button', { name: 'Change password' }).click();
  const pw = page.getByRole('dialog', { name: 'Change password' });
  await pw.getByLabel('Current password').fill('first-pass1');
  await pw.getByLabel('New password', { exact: true }).fill('second-pass2');
  await pw.getByLabel('Confirm new password').fill('second-pass3');
  await pw.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByText('The two passwords do not match')).toBeVisible();
  await pw.getByLabel('Confirm new password').fill('second-pass2');
  await pw.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByText('Password changed')).toBeVisible();

  await security.getByRole('button', { name: 'Generate access token' }).click();
  const tokenDialog = page.getByRole('dialog', { name: 'Generate access token' });
  await tokenDialog.getByRole('button', { name: 'Generate access token' }).click();
  await expect(tokenDialog.getByTestId('access-token')).not.toBeEmpty();
  await tokenDialog.getByRole('button', { name: 'Close' }).click();

  await security.getByRole('button', { name: 'Delete account' }).click();
  const del = page.getByRole('dialog', { name: 'Delete account' });
  await del.getByRole('textbox').fill('not-my-name');
  await del.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByText('Please enter your account name to confirm deletion!')).toBeVisible();
  await del.getByRole('textbox').fill(name);
  await del.getByRole('button', { name: 'OK' }).click();
  await expect(page).toHaveURL(/\/login$/);

  // The old password no longer works; the deleted account cannot sign in.
  const login = await page.request.post('/api/user/login', { data: { username: name, password: 'second-pass2' } });
  expect((await login.json()).success).toBe(false);
});

test('daily check-in and notification settings against the server', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  await setOptions(page, { CheckInEnabled: 'true' });
  await page.goto('/personal');
  const card = page.getByTestId('checkin-card');
  await card.getByRole('button', { name: 'Check in' }).click();
  await expect(page.getByText(/^Checked in, you gained \$\d+\.\d\d$/)).toBeVisible();
  await expect(card.getByRole('button', { name: 'Already checked in today' })).toBeDisabled();

  const notify = page.getByTestId('notification-card');
  await notify.getByText('Webhook', { exact: true }).click();
  await notify.getByLabel('Webhook URL').fill('http://hooks.example/notify');
  await notify.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('The webhook URL must start with https://')).toBeVisible();
  await notify.getByLabel('Webhook URL').fill('https://hooks.example/notify');
  await notify.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Notification settings updated')).toBeVisible();
  const self = await (await page.request.get('/api/user/self', { headers: { 'New-Api-User': '1' } })).json();
  expect(JSON.parse(self.data.setting)).toMatchObject({ notify_type: 'webhook', webhook_url: 'https://hooks.example/notify' });
});

test('invitation earnings are transferred to the balance', async ({ page }) => {
  await setLanguage(page, 'en');
  await login(page);
  const headers = { 'New-Api-User': '1' };
  await setOptions(page, { QuotaForInviter: '1000000' });
  const aff = (await (await page.request.get('/api/user/aff', { headers })).json()).data as string;
  const invitee = `inv_${Date.now() % 100000}`;
  const reg = await page.request.post('/api/user/register', {
    data: { username: invitee, password: 'pass-1234', password2: 'pass-1234', aff_code: aff },
  });
  expect((await reg.json()).success).toBe(true);

  await page.goto('/personal');
  const card = page.getByTestId('invitation-card');
  await expect(card.getByRole('textbox')).toHaveValue(new RegExp(`/register\\?aff=${aff}$`));
  await card.getByRole('button', { name: 'Transfer to balance' }).click();
  const dialog = page.getByRole('dialog', { name: 'Transfer to balance' });
  await dialog.getByRole('spinbutton').fill('400000');
  await dialog.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByText('The minimum transfer amount is $1.00')).toBeVisible();
  await dialog.getByRole('spinbutton').fill('1000000');
  await dialog.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByText('Transferred to balance')).toBeVisible();
  const self = await (await page.request.get('/api/user/self', { headers })).json();
  expect(self.data.aff_quota).toBe(0);
});

test('personal: display name, and binding an email with a code sent by the server', async ({ page }) => {
  const sink = await startSmtpSink();
  try {
    await setLanguage(page, 'en');
    await login(page);
    await setOptions(page, { SMTPServer: '127.0.0.1', SMTPPort: String(sink.port), SMTPFrom: 'noreply@example.com' });
    await page.goto('/personal');
    const account = page.getByTestId('account-card');
    await account.getByLabel('Display name').fill('Root Renamed');
    await account.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Display name updated')).toBeVisible();
    await expect(page.getByTestId('user-menu')).toContainText('Root Renamed');

    const bindings = page.getByTestId('bindings-card');
    await bindings.getByRole('button', { name: 'Bind' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Bind email' });
    await dialog.getByRole('button', { name: 'OK' }).click();
    await expect(page.getByText('Please enter an email!')).toBeVisible();
    await dialog.getByTestId('email-input').fill('root@example.com');
    await dialog.getByRole('button', { name: 'OK' }).click();
    await expect(page.getByText('Please enter the verification code!')).toBeVisible();
    await dialog.getByRole('button', { name: 'Get code' }).click();
    await expect.poll(() => sink.messages.length).toBeGreaterThan(0);
    const code = lastCode(sink);
    await dialog
      .getByRole('textbox')
      .last()
      .fill(code ?? '');
    await dialog.getByRole('button', { name: 'OK' }).click();
    await expect(page.getByText('Email bound')).toBeVisible();
    await expect(bindings).toContainText('root@example.com');
    await expect(bindings.getByRole('button', { name: 'Change' })).toBeVisible();
  } finally {
    await sink.close();
  }
});
