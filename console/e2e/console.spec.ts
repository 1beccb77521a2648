/**
 * First-run setup → login → create a user → promote → disable → settings change saved and
 * reflected in /api/status → language switch, against the real control plane; then
 * screenshots of the main screens in both languages (e2e-artifacts/screenshots/<lang>/).
 */
import { expect, test, type Page } from '@playwright/test';
import { startSmtpSink } from './smtpSink';

const ROOT = { username: 'root', password: 'e2e-root-pass' };
const NEW_USER = { username: `e2e_user_${Date.now() % 100000}`, password: 'e2e-user-pass' };
const SYSTEM_NAME = 'E2E Gateway';
const SHOTS = 'e2e-artifacts/screenshots';

test.describe.configure({ mode: 'serial' });

async function useLanguage(page: Page, lang: 'en' | 'zh-CN') {
  await page.addInitScript((l) => window.localStorage.setItem('language', l), lang);
}

async function login(page: Page) {
  await page.goto('/login');
  await page.getByTestId('login-username').fill(ROOT.username);
  await page.getByTestId('login-password').fill(ROOT.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
}

async function confirmPopover(page: Page) {
  await page
    .locator('.ant-popconfirm')
    .last()
    .getByRole('button', { name: /^(OK|确 ?定)$/ })
    .click();
}

/** Sets options as root (the page must be signed in as root). */
async function setOptions(page: Page, options: Record<string, string>) {
  for (const [key, value] of Object.entries(options)) {
    const r = await (await page.request.put('/api/option/', { data: { key, value }, headers: { 'New-Api-User': '1' } })).json();
    expect(r.success, `${key}: ${r.message}`).toBe(true);
  }
}

test('first run: every page goes to /setup, setup creates the root account', async ({ page }) => {
  await page.goto('/login');
  await expect(page).toHaveURL(/\/setup$/);
  for (const lang of ['zh-CN', 'en']) {
    await page.evaluate((l) => window.localStorage.setItem('language', l), lang);
    await page.reload();
    await expect(page.getByTestId('sqlite-warning')).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/${lang}/setup.png`, fullPage: true });
  }
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

test('login, create a user, promote, disable', async ({ page }) => {
  await useLanguage(page, 'en');
  await page.goto('/login');
  await page.getByTestId('login-submit').click();
  await expect(page.getByText('Please enter username and password!')).toBeVisible();
  await login(page);
  await expect(page).toHaveURL(/\/token$/);
  await expect(page.getByTestId('not-available')).toBeVisible();

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

  // Search by group: every account here is in the default group.
  await page.getByTestId('users-group').click();
  await page.locator('.ant-select-dropdown .ant-select-item-option-content', { hasText: /^default$/ }).click();
  await page.getByTestId('users-search').click();
  await expect(page.locator('tbody tr.ant-table-row')).toHaveCount(2);
  await page.getByTestId('users-group').locator('.ant-select-clear').click({ force: true });

  // Search by keyword finds the new user only.
  await page.getByTestId('users-keyword').locator('input').fill(NEW_USER.username);
  await page.getByTestId('users-search').click();
  await expect(page.locator('tbody tr.ant-table-row')).toHaveCount(1);
});

test('an admin edits a user in the side panel', async ({ page }) => {
  await useLanguage(page, 'en');
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
  await useLanguage(page, 'en');
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

test('personal settings: change password, access token, delete account', async ({ page }) => {
  await useLanguage(page, 'en');
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
  await useLanguage(page, 'en');
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
  await useLanguage(page, 'en');
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
    await useLanguage(page, 'en');
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
    const code = sink.messages.at(-1)!.match(/<strong>([^<]+)<\/strong>/)?.[1];
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

test('register with an email verification code sent by the server', async ({ page, browser }) => {
  const sink = await startSmtpSink();
  await useLanguage(page, 'en');
  await login(page);
  await setOptions(page, { SMTPServer: '127.0.0.1', SMTPPort: String(sink.port), SMTPFrom: 'noreply@example.com' });
  await setOptions(page, { EmailVerificationEnabled: 'true' });
  const visitor = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
  try {
    const guest = await visitor.newPage();
    await guest.addInitScript(() => window.localStorage.setItem('language', 'en'));
    await guest.goto('/register');
    const name = `mail_${Date.now() % 100000}`;
    await guest.getByTestId('register-username').fill(name);
    await guest.getByTestId('register-password').fill('pass-1234');
    await guest.getByTestId('register-password2').fill('pass-1234');
    await guest.getByTestId('email-input').fill(`${name}@example.com`);
    await guest.getByRole('button', { name: 'Get code' }).click();
    await expect(guest.getByText('Verification code sent, check your mailbox')).toBeVisible();
    await expect(guest.getByRole('button', { name: /^Resend \(\d+\)$/ })).toBeDisabled();
    await expect.poll(() => sink.messages.length).toBeGreaterThan(0);
    const code = sink.messages.at(-1)!.match(/<strong>([^<]+)<\/strong>/)?.[1];
    expect(code, 'code in the email').toBeTruthy();
    await guest.getByTestId('register-code').fill(code!);
    await guest.getByTestId('register-submit').click();
    await expect(guest).toHaveURL(/\/login$/);
    const signIn = await guest.request.post('/api/user/login', { data: { username: name, password: 'pass-1234' } });
    expect((await signIn.json()).data.email).toBe(`${name}@example.com`);
  } finally {
    await visitor.close();
    await setOptions(page, { EmailVerificationEnabled: 'false' });
    await sink.close();
  }
});

test('password reset by email: request, link, confirm, sign in with the new password', async ({ page, baseURL }) => {
  const sink = await startSmtpSink();
  try {
    await useLanguage(page, 'en');
    await login(page);
    const headers = { 'New-Api-User': '1' };
    await setOptions(page, {
      SMTPServer: '127.0.0.1',
      SMTPPort: String(sink.port),
      SMTPFrom: 'noreply@example.com',
      ServerAddress: baseURL!,
    });
    const name = `reset_${Date.now() % 100000}`;
    await page.request.post('/api/user/', { data: { username: name, display_name: name, password: 'before-reset1' }, headers });
    const search = await (await page.request.get(`/api/user/search?keyword=${name}`, { headers })).json();
    const id = search.data.items[0].id as number;
    const email = `${name}@example.com`;
    const put = await (await page.request.put('/api/user/', { data: { id, email }, headers })).json();
    expect(put.success, put.message).toBe(true);

    await page.goto('/reset');
    await page.getByTestId('reset-email').fill(email);
    await page.getByRole('button', { name: 'Send reset email' }).click();
    await expect(page.getByText('Reset email sent, check your mailbox')).toBeVisible();
    await expect(page.getByRole('button', { name: /^Retry \(\d+\)$/ })).toBeDisabled();
    await expect.poll(() => sink.messages.length).toBeGreaterThan(0);
    const link = sink.messages.join('\n').match(/https?:\/\/[^\s"'<>]+\/user\/reset\?[^\s"'<>]+/)?.[0];
    expect(link, 'reset link in the email').toBeTruthy();

    await page.goto(link!.replace(/&amp;/g, '&'));
    await page.getByRole('button', { name: 'Confirm reset' }).click();
    const shown = page.getByTestId('new-password');
    await expect(shown).not.toBeEmpty();
    const newPassword = (await shown.innerText()).trim();
    const signIn = await page.request.post('/api/user/login', { data: { username: name, password: newPassword } });
    expect((await signIn.json()).success).toBe(true);
  } finally {
    await sink.close();
  }
});

test('settings: whitelist rules and the password-login confirmation', async ({ page }) => {
  await useLanguage(page, 'en');
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

test('register shows the email-code fields and the human check when the flags say so', async ({ page, browser }) => {
  await useLanguage(page, 'en');
  await login(page);
  await setOptions(page, { EmailVerificationEnabled: 'true' });
  await setOptions(page, { TurnstileSiteKey: 'e2e-site-key' });
  await setOptions(page, { TurnstileCheckEnabled: 'true' });
  // A visitor in a separate context; the admin's session above stays signed in to undo the flags.
  const visitor = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
  try {
    const guest = await visitor.newPage();
    await guest.addInitScript(() => window.localStorage.setItem('language', 'en'));
    await guest.goto('/register');
    await expect(guest.getByTestId('email-input')).toBeVisible();
    await expect(guest.getByRole('button', { name: 'Get code' })).toBeVisible();
    await expect(guest.getByTestId('turnstile')).toBeAttached();
    // The human check has not answered (no network here): registration waits for it.
    await guest.getByTestId('register-username').fill('waiting_user');
    await guest.getByTestId('register-password').fill('pass-1234');
    await guest.getByTestId('register-password2').fill('pass-1234');
    await guest.getByTestId('register-submit').click();
    await expect(guest.getByText('Turnstile is checking the environment, please retry in a few seconds')).toBeVisible();
  } finally {
    await visitor.close();
    await setOptions(page, { TurnstileCheckEnabled: 'false' });
    await setOptions(page, { EmailVerificationEnabled: 'false' });
  }
});

test('a settings change is saved and reflected in /api/status', async ({ page }) => {
  await useLanguage(page, 'en');
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
  await useLanguage(page, 'en');
  await login(page);
  await setOptions(page, {
    'general_setting.docs_link': 'https://docs.example/guide',
    SelfUseModeEnabled: 'true',
    Footer:
      '<a href="https://footer.example/">Footer link</a><script>window.__pwned = true</script><img src="x" onerror="window.__pwned = true">',
  });
  const visitor = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
  try {
    const guest = await visitor.newPage();
    await guest.addInitScript(() => window.localStorage.setItem('language', 'en'));
    await guest.goto('/login');
    const top = guest.getByTestId('top-bar');
    await expect(top.getByRole('link', { name: 'Docs' })).toHaveAttribute('href', 'https://docs.example/guide');
    await expect(top.getByText('Self-use mode')).toBeVisible();
    await expect(top.getByRole('button', { name: 'Register' })).toHaveCount(0);
    const footer = guest.getByTestId('footer');
    await expect(footer.getByRole('link', { name: 'Footer link' })).toHaveAttribute('href', 'https://footer.example/');
    await expect(footer.locator('script, [onerror]')).toHaveCount(0);
    expect(await guest.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();
  } finally {
    await visitor.close();
    await setOptions(page, { 'general_setting.docs_link': '', SelfUseModeEnabled: 'false', Footer: '' });
  }
});

test('language switch changes the UI to Chinese and back', async ({ page }) => {
  await useLanguage(page, 'en');
  await login(page);
  await page.goto('/user');
  await expect(page.getByText('Manage users', { exact: true })).toBeVisible();
  await page.getByTestId('language-menu').hover();
  await page.getByTestId('lang-zh-CN').click();
  await expect(page.getByText('管理用户', { exact: true })).toBeVisible();
  await expect(page.getByTestId('sidebar-menu')).toContainText('用户管理');
  await page.getByTestId('language-menu').hover();
  await page.getByTestId('lang-en').click();
  await expect(page.getByText('Manage users', { exact: true })).toBeVisible();
});

test('server messages follow the UI language (Accept-Language)', async ({ page }) => {
  await useLanguage(page, 'zh-CN');
  await page.goto('/login');
  await page.getByTestId('login-username').fill(ROOT.username);
  await page.getByTestId('login-password').fill('wrong-password');
  await page.getByTestId('login-submit').click();
  const reply = await page.request.post('/api/user/login', {
    data: { username: ROOT.username, password: 'wrong-password' },
    headers: { 'Accept-Language': 'zh-CN' },
  });
  const { message } = await reply.json();
  expect(message).toMatch(/[\u4e00-\u9fff]/);
  await expect(page.getByText(message)).toBeVisible();
});

test('a 401 sends the user to login with expired and returnTo', async ({ page, context }) => {
  await useLanguage(page, 'en');
  await login(page);
  await context.clearCookies();
  await page.goto('/personal');
  await expect(page).toHaveURL(/\/login\?expired=true&returnTo=%2Fpersonal/);
  await expect(page.getByTestId('expired-alert')).toBeVisible();
  await page.getByTestId('login-username').fill(ROOT.username);
  await page.getByTestId('login-password').fill(ROOT.password);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/personal$/);
});

test('the control plane serves the console: SPA fallback, /assets misses are 404', async ({ request }) => {
  const spa = await request.get('/user/edit/1');
  expect(spa.status()).toBe(200);
  expect(spa.headers()['content-type']).toContain('text/html');
  expect((await request.get('/assets/no-such-file.js')).status()).toBe(404);
});

test('the sidebar collapses and the choice is stored', async ({ page }) => {
  await useLanguage(page, 'en');
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

for (const lang of ['en', 'zh-CN'] as const) {
  test(`screenshots (${lang})`, async ({ page }) => {
    await useLanguage(page, lang);
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
  });
}
