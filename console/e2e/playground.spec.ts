/**
 * The playground against the real gateway, control plane and mock provider, with the console
 * opened through the gateway (it forwards the console and /api to the control plane, and
 * serves POST /pg/chat/completions itself): a signed-in user asks gpt-4o-mini, sees the mock's
 * answer and its token usage, pays for it from the balance, and finds the call in the usage
 * log as token "playground"; the conversation survives a reload; Stop ends a slow stream;
 * the gateway's error message shows on a refused call.
 */
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { ensureMockChannel, gatewayUrl, mockUrl } from './gateway';
import { createUser, login, loginAs, setLanguage, setOptions, SHOTS } from './helpers';

const RUN = Date.now() % 1_000_000;
const MODEL = 'gpt-4o-mini';
const CHANNEL = 'e2e-playground-mock';
/** A model served by a channel whose mock answers slowly: 80 pieces, 150 ms apart. */
const SLOW_MODEL = `e2e-pg-slow-${RUN}`;
const SLOW_SCENARIO = 'tag=pg-slow,chunks=80,chunk_delay_ms=150';
const USER = { username: `pg_${RUN}`, password: 'pg-pass-1234' };
const QUOTA = 50_000_000;

const ROOT_HEADERS = { 'New-Api-User': '1' };

test.describe.configure({ mode: 'serial' });

interface LogRow {
  id: number;
  token_name: string;
  model_name: string;
  prompt_tokens: number;
  completion_tokens: number;
  quota: number;
  other: string;
}

/** The slow channel (its base URL selects the mock's scenario) and a price for its model. */
async function ensureSlowChannel(page: Page) {
  const res = await page.request.post('/api/channel/', {
    headers: ROOT_HEADERS,
    data: {
      mode: 'single',
      channel: {
        name: `e2e-pg-slow-${RUN}`,
        type: 1,
        key: 'sk-mock-upstream-key',
        base_url: `${mockUrl()}/s/${SLOW_SCENARIO}`,
        models: SLOW_MODEL,
        group: 'default',
      },
    },
  });
  const body = (await res.json()) as { success: boolean; message: string };
  expect(body.success, body.message).toBe(true);
  const options = (await (await page.request.get('/api/option/', { headers: ROOT_HEADERS })).json()) as {
    data: { key: string; value: string }[];
  };
  const ratios = JSON.parse(options.data.find((o) => o.key === 'ModelRatio')?.value || '{}') as Record<string, number>;
  await setOptions(page, { ModelRatio: JSON.stringify({ ...ratios, [SLOW_MODEL]: 1 }) });
}

/** The signed-in user's own view of itself and of its playground records (through the gateway). */
function userApi(request: APIRequestContext, userId: number) {
  const headers = { 'New-Api-User': String(userId) };
  return {
    quota: async () =>
      ((await (await request.get('/api/user/self', { headers })).json()) as { data: { quota: number } }).data.quota,
    playgroundLogs: async () => {
      const res = await request.get('/api/log/self/', {
        headers,
        params: { token_name: 'playground', type: 2, p: 1, page_size: 100 },
      });
      return ((await res.json()) as { data: { items: LogRow[] } }).data.items;
    },
    /** One small call; the status says whether the gateway knows the user, its group and the model yet. */
    ping: async (model: string) =>
      (
        await request.post('/pg/chat/completions', {
          headers,
          data: { model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 5 },
        })
      ).status(),
  };
}

/** A browser context on the gateway's origin, signed in as the test user. */
async function userOnGateway(browser: Browser) {
  const context = await browser.newContext({ baseURL: gatewayUrl() });
  const page = await context.newPage();
  await loginAs(page, USER.username, USER.password);
  return { context, page };
}

let userId = 0;
/** Playground calls the readiness checks made (each is logged like any other). */
let pings = 0;

test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
  const page = await context.newPage();
  await setLanguage(page, 'en');
  await login(page);
  await ensureMockChannel(page, CHANNEL, [MODEL]);
  await ensureSlowChannel(page);
  userId = await createUser(page, USER.username, USER.password, QUOTA);
  await context.close();
});

test('a user asks a model in the playground, sees the answer and its usage, and pays for it', async ({ browser }) => {
  // Waits on the config push to the gateway and on the usage report back (both asynchronous).
  test.slow();
  const { context, page } = await userOnGateway(browser);
  try {
    const me = userApi(page.request, userId);
    // The new user, channels and price reach the gateway asynchronously.
    for (const model of [MODEL, SLOW_MODEL]) {
      await expect
        .poll(
          async () => {
            const status = await me.ping(model);
            if (status === 200) pings += 1;
            return status;
          },
          { timeout: 30_000, intervals: [250, 500, 1000] },
        )
        .toBe(200);
    }
    // Every readiness call is logged; then the balance is settled.
    await expect.poll(async () => (await me.playgroundLogs()).length, { timeout: 30_000 }).toBe(pings);
    const before = await me.quota();

    await page.goto('/playground');
    await expect(page.getByTestId('pg-empty')).toBeVisible();
    await expect(page.getByTestId('pg-current-model')).toHaveText(MODEL);
    await page.getByTestId('pg-input').fill('Hello from the playground e2e');
    await page.getByTestId('pg-input').press('Enter');

    const answer = page.getByTestId('pg-message-1');
    await expect(answer).toHaveAttribute('data-status', 'complete', { timeout: 20_000 });
    await expect(page.getByTestId('pg-message-0')).toHaveText('Hello from the playground e2e');
    // The mock answers "word0 word1 …" in 5 pieces.
    await expect(answer.getByTestId('pg-answer')).toHaveText(/word0 word1 word2 word3 word4/);
    const usage = answer.getByTestId('pg-usage');
    await expect(usage).toBeVisible();
    const prompt = Number(await usage.getAttribute('data-prompt'));
    const completion = Number(await usage.getAttribute('data-completion'));
    expect(prompt).toBeGreaterThan(0);
    expect(completion).toBe(5);
    await expect(usage).toHaveText(`Tokens: prompt ${prompt} · completion ${completion} · total ${prompt + completion}`);

    // The call is in the user's usage log as the playground's, with these tokens, and was paid for.
    await expect.poll(async () => (await me.playgroundLogs()).length, { timeout: 30_000 }).toBe(pings + 1);
    const [newest] = await me.playgroundLogs();
    expect(newest).toMatchObject({
      token_name: 'playground',
      model_name: MODEL,
      prompt_tokens: prompt,
      completion_tokens: completion,
    });
    expect(newest.quota).toBeGreaterThan(0);
    await expect.poll(() => me.quota(), { timeout: 30_000 }).toBeLessThan(before);

    await page.screenshot({ path: `${SHOTS}/en/playground-chat.png`, fullPage: true });
    await page.getByTestId('theme-toggle').click();
    await page.screenshot({ path: `${SHOTS}/en/playground-chat-dark.png`, fullPage: true });
    await page.getByTestId('theme-toggle').click();

    // A reload keeps the conversation and the parameters.
    await page.getByTestId('pg-max-tokens').fill('300');
    await page.reload();
    await expect(page.getByTestId('pg-message-1')).toHaveAttribute('data-status', 'complete');
    await expect(page.getByTestId('pg-message-1').getByTestId('pg-answer')).toHaveText(/word0/);
    await expect(page.getByTestId('pg-max-tokens')).toHaveValue('300');

    // At phone width the parameters move into a drawer; the chat stays within the screen.
    await page.setViewportSize({ width: 390, height: 800 });
    await expect(page.getByTestId('pg-params')).toBeHidden();
    await page.getByTestId('pg-params-open').click();
    await expect(page.getByTestId('pg-params')).toBeVisible();
    await page.waitForTimeout(400); // the drawer slides in
    await page.screenshot({ path: `${SHOTS}/en/playground-params-mobile.png` });
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('pg-params')).toBeHidden();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SHOTS}/en/playground-chat-mobile.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  } finally {
    await context.close();
  }
});

test('Stop ends a streaming answer; a refused call shows the gateway message; Clear empties the context', async ({ browser }) => {
  test.slow();
  const { context, page } = await userOnGateway(browser);
  try {
    // A browser of its own: an empty conversation.
    await page.goto('/playground');
    await expect(page.getByTestId('pg-empty')).toBeVisible();
    await page.getByTestId('pg-model').click();
    await page.keyboard.type(SLOW_MODEL);
    await page.locator('.ant-select-item-option', { hasText: SLOW_MODEL }).click();
    await expect(page.getByTestId('pg-current-model')).toHaveText(SLOW_MODEL);

    await page.getByTestId('pg-input').fill('Count slowly, please');
    await page.getByTestId('pg-send').click();
    const answer = page.getByTestId('pg-message-1');
    await expect(page.getByTestId('pg-stop')).toBeVisible();
    await expect(answer).toHaveAttribute('data-status', 'incomplete', { timeout: 15_000 });
    await expect(answer.getByTestId('pg-answer')).toHaveText(/word1/);
    await page.getByTestId('pg-stop').click();
    await expect(answer).toHaveAttribute('data-status', 'complete');
    await expect(answer.getByTestId('pg-stopped')).toBeVisible();
    await expect(page.getByTestId('pg-send')).toBeVisible();
    // Nothing arrives after Stop: 80 pieces at 150 ms would take 12 s.
    const stopped = await answer.getByTestId('pg-answer').innerText();
    expect(stopped).not.toContain('word79');
    await page.waitForTimeout(1500);
    expect(await answer.getByTestId('pg-answer').innerText()).toBe(stopped);

    // A model the gateway does not serve: its error message shows on the answer.
    await page.evaluate(() => {
      const params = JSON.parse(window.localStorage.getItem('playground-params') ?? '{}') as Record<string, unknown>;
      window.localStorage.setItem('playground-params', JSON.stringify({ ...params, model: 'e2e-no-such-model' }));
    });
    await page.reload();
    await expect(page.getByTestId('pg-current-model')).toHaveText('e2e-no-such-model');
    await page.getByTestId('pg-input').fill('Anyone there?');
    await page.getByTestId('pg-input').press('Enter');
    const refused = page.getByTestId('pg-message-3');
    await expect(refused).toHaveAttribute('data-status', 'error', { timeout: 15_000 });
    // The same call made directly: the gateway refuses it with an OpenAI-shaped error.
    const direct = await page.request.post('/pg/chat/completions', {
      headers: { 'New-Api-User': String(userId) },
      data: { model: 'e2e-no-such-model', messages: [{ role: 'user', content: 'Anyone there?' }] },
    });
    expect(direct.status()).toBeGreaterThanOrEqual(400);
    const message = ((await direct.json()) as { error: { message: string } }).error.message;
    // Each refusal names its own request id: compare the rest.
    const text = message.replace(/\s*\(request id: [^)]*\)\s*$/, '');
    expect(text).toBeTruthy();
    await expect(refused.getByTestId('pg-error')).toContainText(text);

    // Clear context: an empty conversation, also after a reload.
    await page.getByTestId('pg-clear').click();
    await expect(page.getByTestId('pg-empty')).toBeVisible();
    await page.reload();
    await expect(page.getByTestId('pg-empty')).toBeVisible();
  } finally {
    await context.close();
  }
});
