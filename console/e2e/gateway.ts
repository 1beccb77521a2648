/**
 * The relay side of the e2e system: real chat calls through the gateway started by
 * global-setup, and REST set-up of a channel pointing at the mock provider.
 */
import { expect, type APIRequestContext, type Page } from '@playwright/test';

/** The gateway's relay base URL (global-setup exports it). */
export function gatewayUrl(): string {
  const url = process.env.E2E_GATEWAY_URL;
  if (!url) throw new Error('E2E_GATEWAY_URL is not set: run through playwright (global-setup)');
  return url;
}

/** The mock upstream's base URL, to use as a channel's base_url (type 1, OpenAI). */
export function mockUrl(): string {
  const url = process.env.E2E_MOCK_URL;
  if (!url) throw new Error('E2E_MOCK_URL is not set: run through playwright (global-setup)');
  return url;
}

export interface ChatAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** One non-stream chat completion through the gateway with an `sk-` key. */
export async function chat(request: APIRequestContext, key: string, model: string): Promise<ChatAnswer> {
  const res = await request.post(`${gatewayUrl()}/v1/chat/completions`, {
    headers: { Authorization: `Bearer ${key}` },
    data: { model, messages: [{ role: 'user', content: 'Hello from the console e2e' }] },
  });
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    // a non-JSON answer: the status says enough
  }
  return { status: res.status(), body };
}

/**
 * Calls until the gateway answers 200: a new token, channel or price reaches the gateway
 * asynchronously (config push), so the first calls may be refused.
 */
export async function chatWhenReady(request: APIRequestContext, key: string, model: string, ms = 20_000): Promise<ChatAnswer> {
  let last: ChatAnswer = { status: 0, body: {} };
  await expect
    .poll(
      async () => {
        last = await chat(request, key, model);
        return last.status;
      },
      { timeout: ms, intervals: [250, 500, 1000] },
    )
    .toBe(200);
  return last;
}

/** REST calls made from a signed-in root page name the user: root is user 1 in the e2e run. */
const ROOT_HEADERS = { 'New-Api-User': '1' };

/**
 * Ensures an enabled OpenAI-type channel named `name` serving `models` in group `default`
 * points at the mock provider (created through the REST API as the signed-in admin).
 */
export async function ensureMockChannel(page: Page, name: string, models: string[]): Promise<void> {
  const headers = ROOT_HEADERS;
  const found = await page.request.get('/api/channel/search', { params: { keyword: name }, headers });
  const list = (await found.json()) as { data?: { items?: { name: string }[] } | { name: string }[] };
  const items = Array.isArray(list.data) ? list.data : (list.data?.items ?? []);
  if (items.some((c) => c.name === name)) return;
  const res = await page.request.post('/api/channel/', {
    headers,
    data: {
      mode: 'single',
      channel: {
        name,
        type: 1,
        key: 'sk-mock-upstream-key',
        base_url: mockUrl(),
        models: models.join(','),
        group: 'default',
        priority: 0,
        weight: 0,
      },
    },
  });
  const body = (await res.json()) as { success: boolean; message: string };
  expect(body.success, body.message).toBe(true);
}
