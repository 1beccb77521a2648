/** Sign-in paths: email codes, password reset, human check, server language, 401 handling. */
import { expect, test } from '@playwright/test';
import { ROOT, login, setOptions, setLanguage, visitorPage } from './helpers';
import { lastCode, startSmtpSink } from './smtpSink';

test('register with an email verification code sent by the server', async ({ page, browser }) => {
  const sink = await startSmtpSink();
  await setLanguage(page, 'en');
  await login(page);
  await setOptions(page, { SMTPServer: '127.0.0.1', SMTPPort: String(sink.port), SMTPFrom: 'noreply@example.com' });
  await setOptions(page, { EmailVerificationEnabled: 'true' });
  const { visitor, guest } = await visitorPage(browser);
  try {
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
    const code = lastCode(sink);
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
    await setLanguage(page, 'en');
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

test('register shows the email-code fields and the human check when the flags say so', async ({ page, browser }) => {
  await setLanguage(page, 'en');
  await login(page);
  await setOptions(page, { EmailVerificationEnabled: 'true' });
  await setOptions(page, { TurnstileSiteKey: 'e2e-site-key' });
  await setOptions(page, { TurnstileCheckEnabled: 'true' });
  // A visitor in a separate context; the admin's session above stays signed in to undo the flags.
  const { visitor, guest } = await visitorPage(browser);
  try {
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

test('server messages follow the UI language (Accept-Language)', async ({ page }) => {
  await setLanguage(page, 'zh-CN');
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
  await setLanguage(page, 'en');
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
