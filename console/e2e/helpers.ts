/** Shared e2e helpers and fixtures: the root account, sign-in, language, options. */
import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test';

export const ROOT = { username: 'root', password: 'e2e-root-pass' };
export const SHOTS = 'e2e-artifacts/screenshots';

export async function setLanguage(page: Page, lang: 'en' | 'zh-CN') {
  await page.addInitScript((l) => window.localStorage.setItem('language', l), lang);
}

export async function login(page: Page) {
  await page.goto('/login');
  await page.getByTestId('login-username').fill(ROOT.username);
  await page.getByTestId('login-password').fill(ROOT.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
}

export async function confirmPopover(page: Page) {
  await page
    .locator('.ant-popconfirm')
    .last()
    .getByRole('button', { name: /^(OK|确 ?定)$/ })
    .click();
}

/** Sets options as root (the page must be signed in as root). */
export async function setOptions(page: Page, options: Record<string, string>) {
  for (const [key, value] of Object.entries(options)) {
    const r = await (await page.request.put('/api/option/', { data: { key, value }, headers: { 'New-Api-User': '1' } })).json();
    expect(r.success, `${key}: ${r.message}`).toBe(true);
  }
}

/**
 * Answers every request a context makes outside the control plane under test (an operator's framed
 * page, say) with a small local page, so that tests never reach out (no DNS lookups that may hang
 * a page's load event) and a frame always loads.
 */
export async function stayLocal(context: BrowserContext) {
  const origin = new URL(process.env.E2E_BASE_URL ?? 'http://127.0.0.1').origin;
  await context.route(
    (url) => url.origin !== origin,
    (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<p>outside page (stubbed)</p>' }),
  );
}

/** A signed-out visitor in a context of its own (English UI); close the context when done. */
export async function visitorPage(browser: Browser): Promise<{ visitor: BrowserContext; guest: Page }> {
  const visitor = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
  await stayLocal(visitor);
  const guest = await visitor.newPage();
  await setLanguage(guest, 'en');
  return { visitor, guest };
}

/**
 * Creates a normal user as root (the page must be signed in as root) and gives it `quota`;
 * answers its id.
 */
export async function createUser(page: Page, username: string, password: string, quota = 0): Promise<number> {
  const headers = { 'New-Api-User': '1' };
  const made = await (
    await page.request.post('/api/user/', { data: { username, display_name: username, password }, headers })
  ).json();
  expect(made.success, made.message).toBe(true);
  const found = await (await page.request.get('/api/user/search', { params: { keyword: username }, headers })).json();
  const user = (found.data.items as { id: number; username: string }[]).find((u) => u.username === username);
  expect(user, `user ${username} listed`).toBeTruthy();
  if (quota > 0) {
    const put = await (await page.request.put('/api/user/', { data: { id: user!.id, quota_delta: quota }, headers })).json();
    expect(put.success, put.message).toBe(true);
  }
  return user!.id;
}

/** Signs a user in on the login page of `page`'s origin (English UI). */
export async function loginAs(page: Page, username: string, password: string) {
  await setLanguage(page, 'en');
  await page.goto('/login');
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
}
