/**
 * Third-party sign-in against the real control plane and the provider stand-in of the mock
 * (global-setup points the control plane's GitHub calls at it): first sign-in registers, the
 * next finds the same account, a tampered state fails, OIDC through its discovery document,
 * and binding then unbinding from the personal page.
 */
import { expect, test, type Page } from '@playwright/test';
import { confirmPopover, createUser, login, loginAs, setLanguage, setOptions, visitorPage } from './helpers';

const GITHUB = { client_id: 'e2e-gh', client_secret: 'e2e-gh-secret' };
const OIDC = { client_id: 'e2e-oidc', client_secret: 'e2e-oidc-secret' };
const ROOT_HEADERS = { 'New-Api-User': '1' };

function env(name: 'E2E_BASE_URL' | 'E2E_MOCK_URL'): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through playwright (global-setup)`);
  return value;
}

/** A provider-side user name of this run (the stand-in derives id, name and email from it). */
function uniqueLogin(prefix: string): string {
  // Short: it becomes the username (at most 20 characters), one test adds a suffix to it.
  return `${prefix}${(Date.now() % 2_000_000).toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

/** The one client the stand-in accepts from now on. */
async function standInClient(page: Page, client: { client_id: string; client_secret: string }) {
  const res = await page.request.put(`${env('E2E_MOCK_URL')}/__oauth/client`, { data: client });
  expect(res.ok(), await res.text()).toBe(true);
}

/** Root turns GitHub sign-in on (credentials first: the flag alone would be a broken button). */
async function enableGitHub(root: Page) {
  await setOptions(root, {
    GitHubClientId: GITHUB.client_id,
    GitHubClientSecret: GITHUB.client_secret,
    RegisterEnabled: 'true',
  });
  await setOptions(root, { GitHubOAuthEnabled: 'true' });
  await standInClient(root, GITHUB);
}

/**
 * The browser's visit to GitHub's authorize page goes to the stand-in's instead, which approves
 * at once as `login` and comes back to this console's /oauth/github (GitHub itself would use the
 * callback registered with the app).
 */
async function githubIsStandIn(page: Page, login: string) {
  await page.route('https://github.com/login/oauth/authorize**', (route) => {
    const query = new URL(route.request().url()).searchParams;
    query.set('redirect_uri', `${env('E2E_BASE_URL')}/oauth/github`);
    query.set('login', login);
    return route.fulfill({ status: 302, headers: { location: `${env('E2E_MOCK_URL')}/__oauth/authorize?${query}` } });
  });
}

/** The signed-in user the console keeps in local storage. */
async function storedUser(page: Page): Promise<Record<string, unknown>> {
  return page.evaluate(() => JSON.parse(window.localStorage.getItem('user') ?? 'null'));
}

async function signOut(page: Page) {
  await page.getByTestId('user-menu').hover();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login$/);
}

test('GitHub: the first sign-in registers (with the invitation), the next finds the same account; a tampered state fails', async ({
  page,
  browser,
}) => {
  await setLanguage(page, 'en');
  await login(page);
  await enableGitHub(page);
  const aff = (await (await page.request.get('/api/user/aff', { headers: ROOT_HEADERS })).json()).data as string;
  const { visitor, guest } = await visitorPage(browser);
  try {
    const who = uniqueLogin('gh');
    await githubIsStandIn(guest, who);
    await guest.goto(`/login?aff=${aff}`);
    await guest.getByRole('button', { name: 'Sign in with GitHub' }).click();
    await expect(guest).toHaveURL(/\/token$/);
    await expect(guest.getByTestId('user-menu')).toContainText(who);
    const first = await storedUser(guest);
    expect(first.github_id, 'the GitHub id is bound').toBeTruthy();
    expect(first.inviter_id, 'the invitation code went through /api/oauth/state').toBe(1);

    await guest.goto('/personal');
    const github = guest.getByTestId('binding-github');
    await expect(github).toContainText(String(first.github_id));
    await expect(github.getByTestId('bind-github')).toBeDisabled();

    await signOut(guest);
    // The callback with a state this browser was never given.
    await guest.goto('/oauth/github?code=x&state=wrong');
    const failure = guest.getByTestId('oauth-failure');
    await expect(failure).toContainText('was not started in this browser');
    await expect(failure).toContainText('Operation failed, redirecting to the login page…');
    await expect(guest).toHaveURL(/\/login$/);

    await guest.getByRole('button', { name: 'Sign in with GitHub' }).click();
    await expect(guest).toHaveURL(/\/token$/);
    const again = await storedUser(guest);
    expect(again.id, 'the same account, not a second registration').toBe(first.id);
    expect(again.username).toBe(first.username);
  } finally {
    await visitor.close();
    await setOptions(page, { GitHubOAuthEnabled: 'false' });
  }
});

test('GitHub sign-in goes back to the page that asked for it', async ({ page, browser }) => {
  await setLanguage(page, 'en');
  await login(page);
  await enableGitHub(page);
  const { visitor, guest } = await visitorPage(browser);
  try {
    await githubIsStandIn(guest, uniqueLogin('ret'));
    // A signed-out visit to a protected page: the guard sends it to /login?returnTo=/log.
    await guest.goto('/log');
    await expect(guest).toHaveURL(/\/login\?returnTo=%2Flog$/);
    await guest.getByRole('button', { name: 'Sign in with GitHub' }).click();
    await expect(guest).toHaveURL(/\/log$/);
  } finally {
    await visitor.close();
    await setOptions(page, { GitHubOAuthEnabled: 'false' });
  }
});

test('OIDC: endpoints from the discovery document, sign-in through the stand-in; the only way in cannot be unbound', async ({
  page,
  browser,
  baseURL,
}) => {
  await setLanguage(page, 'en');
  await login(page);
  const mock = env('E2E_MOCK_URL');
  const wellKnown = `${mock}/.well-known/openid-configuration`;
  const doc = await (await page.request.get(wellKnown)).json();
  expect(doc.authorization_endpoint).toBe(`${mock}/__oauth/authorize`);
  const who = uniqueLogin('oidc');
  // Someone already has the address the provider gives: the new account gets no email, so
  // OIDC is its only way to sign in.
  const holder = await createUser(page, `${who}_mail`, 'holder-pass1');
  const put = await (
    await page.request.put('/api/user/', { data: { id: holder, email: `${who}@users.example.com` }, headers: ROOT_HEADERS })
  ).json();
  expect(put.success, put.message).toBe(true);
  await setOptions(page, {
    // The server's token request repeats the console's redirect URI: {ServerAddress}/oauth/oidc.
    ServerAddress: baseURL!,
    RegisterEnabled: 'true',
    'oidc.well_known': wellKnown,
    'oidc.client_id': OIDC.client_id,
    'oidc.client_secret': OIDC.client_secret,
    'oidc.authorization_endpoint': doc.authorization_endpoint,
    'oidc.token_endpoint': doc.token_endpoint,
    'oidc.user_info_endpoint': doc.userinfo_endpoint,
  });
  await setOptions(page, { 'oidc.enabled': 'true' });
  await standInClient(page, OIDC);
  const { visitor, guest } = await visitorPage(browser);
  try {
    // The stand-in is the authorize page itself; only the provider-side user is chosen here.
    await guest.route(`${mock}/__oauth/authorize**`, (route) => {
      const url = new URL(route.request().url());
      if (url.searchParams.has('login')) return route.continue();
      url.searchParams.set('login', who);
      return route.fulfill({ status: 302, headers: { location: url.toString() } });
    });
    await guest.goto('/login');
    await guest.getByRole('button', { name: 'Sign in with OIDC' }).click();
    await expect(guest).toHaveURL(/\/token$/);
    await expect(guest.getByTestId('user-menu')).toContainText(who);
    const user = await storedUser(guest);
    expect(user.oidc_id, 'the OIDC subject is bound').toBeTruthy();
    expect(user.email).toBe('');

    await guest.goto('/personal');
    const oidc = guest.getByTestId('binding-oidc');
    await expect(oidc).toContainText(String(user.oidc_id));
    await oidc.getByTestId('unbind-oidc').click();
    await confirmPopover(guest);
    await expect(guest.getByText("this is the account's only way to sign in", { exact: false })).toBeVisible();
    await expect(oidc).toContainText(String(user.oidc_id));
  } finally {
    await visitor.close();
    await setOptions(page, { 'oidc.enabled': 'false' });
  }
});

test('binding: a password user binds GitHub, sees it bound, unbinds it; an account bound elsewhere is refused', async ({
  page,
  browser,
}) => {
  await setLanguage(page, 'en');
  await login(page);
  await enableGitHub(page);
  const name = `bind_${Date.now() % 100000}`;
  const other = `${name}_b`;
  await createUser(page, name, 'bind-pass-1');
  await createUser(page, other, 'bind-pass-2');
  const who = uniqueLogin('bind');
  const first = await visitorPage(browser);
  const second = await visitorPage(browser);
  try {
    const guest = first.guest;
    await githubIsStandIn(guest, who);
    await loginAs(guest, name, 'bind-pass-1');
    await guest.goto('/personal');
    const github = guest.getByTestId('binding-github');
    await expect(github).toContainText('Not bound');
    await github.getByTestId('bind-github').click();
    await expect(guest).toHaveURL(/\/personal$/);
    await expect(guest.getByText('Account bound')).toBeVisible();
    await expect(github).not.toContainText('Not bound');
    await expect(github.getByTestId('bind-github')).toBeDisabled();
    const self = await (
      await guest.request.get('/api/user/self', { headers: { 'New-Api-User': String((await storedUser(guest)).id) } })
    ).json();
    expect(self.data.github_id).toBeTruthy();
    await expect(github).toContainText(self.data.github_id);

    // Another user cannot take the same GitHub account.
    const rival = second.guest;
    await githubIsStandIn(rival, who);
    await loginAs(rival, other, 'bind-pass-2');
    await rival.goto('/personal');
    await rival.getByTestId('binding-github').getByTestId('bind-github').click();
    const failure = rival.getByTestId('oauth-failure');
    await expect(failure).toContainText('already bound to another user');
    await expect(failure).toContainText('Operation failed, returning to personal settings…');
    await expect(rival).toHaveURL(/\/personal$/);
    await expect(rival.getByTestId('binding-github')).toContainText('Not bound');

    await github.getByTestId('unbind-github').click();
    await confirmPopover(guest);
    await expect(guest.getByText('GitHub unbound')).toBeVisible();
    await expect(github).toContainText('Not bound');
    await expect(github.getByTestId('unbind-github')).toHaveCount(0);
    await expect(github.getByTestId('bind-github')).toBeEnabled();
  } finally {
    await first.visitor.close();
    await second.visitor.close();
    await setOptions(page, { GitHubOAuthEnabled: 'false' });
  }
});
