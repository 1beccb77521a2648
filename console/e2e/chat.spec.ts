/**
 * Chat links (spec 3 §2.7) against the real control plane: the `Chats` option points at a
 * page of this test's own server; the token table's chat action, /chat/:id and /chat2link
 * open it with a token's whole `sk-` key (read with POST /api/token/{id}/key, never the
 * masked list key) and the server address filled in.
 */
import { expect, test, type Page } from '@playwright/test';
import { login, setLanguage, setOptions } from './helpers';

const RUN = Date.now() % 1_000_000;
const ROOT_HEADERS = { 'New-Api-User': '1' };

async function api<T>(page: Page, method: 'GET' | 'POST', url: string, data?: unknown): Promise<T> {
  const res =
    method === 'GET'
      ? await page.request.get(url, { headers: ROOT_HEADERS })
      : await page.request.post(url, { headers: ROOT_HEADERS, data });
  const body = (await res.json()) as { success: boolean; message: string; data: T };
  expect(body.success, `${method} ${url}: ${body.message}`).toBe(true);
  return body.data;
}

interface ListedToken {
  id: number;
  name: string;
  key: string;
  status: number;
}

test('chat links carry the token key and the server address', async ({ page, baseURL }) => {
  expect(baseURL).toBeTruthy();
  const origin = new URL(baseURL!).origin;
  await setLanguage(page, 'en');
  await login(page);

  const options = await api<{ key: string; value: string }[]>(page, 'GET', '/api/option/');
  const savedChats = options.find((o) => o.key === 'Chats')?.value ?? '[]';
  const status = await api<{ server_address: string }>(page, 'GET', '/api/status');
  const address = (status.server_address || origin).replace(/\/+$/, '');
  const encodedAddress = encodeURIComponent(address);

  // Loopback pages only: the public pricing page of this very server.
  await setOptions(page, {
    Chats: JSON.stringify([
      { 'E2E chat': `${origin}/pricing?key={key}&address={address}` },
      { 'E2E second': `${origin}/pricing?entry=2&key={key}` },
    ]),
  });
  try {
    const name = `e2e-chat-${RUN}`;
    const [created] = await api<ListedToken[]>(page, 'POST', '/api/token/', {
      name,
      remain_quota: 0,
      unlimited_quota: true,
      expired_time: -1,
    });
    expect(created.key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    const listed = await api<{ items: ListedToken[] }>(page, 'GET', `/api/token/search?keyword=${name}&p=1&page_size=10`);
    const token = listed.items.find((t) => t.name === name)!;
    expect(token.key).not.toBe(created.key); // lists are masked

    // The token table's chat action: a new tab on the first link.
    await page.goto('/token');
    await page.getByTestId('tokens-keyword').locator('input').fill(name);
    await page.getByTestId('tokens-keyword').locator('input').press('Enter');
    const chatButton = page.getByTestId(`token-chat-${token.id}`);
    await expect(chatButton).toBeVisible();
    const [popup] = await Promise.all([page.waitForEvent('popup'), chatButton.click()]);
    await popup.waitForURL(/\/pricing\?/);
    expect(popup.url()).toBe(`${origin}/pricing?key=${created.key}&address=${encodedAddress}`);
    // noopener: the chat page cannot reach the console.
    expect(await popup.evaluate(() => window.opener)).toBeNull();
    await popup.close();

    // The menu lists every entry.
    await page.getByTestId(`token-chat-menu-${token.id}`).click();
    const [second] = await Promise.all([page.waitForEvent('popup'), page.getByTestId(`token-chat-${token.id}-1`).click()]);
    await second.waitForURL(/entry=2/);
    expect(second.url()).toBe(`${origin}/pricing?entry=2&key=${created.key}`);
    await second.close();

    // The chat pages use the user's first enabled token.
    const all = await api<{ items: ListedToken[] }>(page, 'GET', '/api/token/?p=1&page_size=100');
    const first = all.items.find((t) => t.status === 1)!;
    const firstKey = (await api<{ key: string }>(page, 'POST', `/api/token/${first.id}/key`)).key;
    expect(firstKey).toMatch(/^sk-/);

    await page.goto('/chat/0');
    const frame = page.getByTestId('chat-frame');
    await expect(frame).toHaveAttribute('src', `${origin}/pricing?key=${firstKey}&address=${encodedAddress}`);
    await expect(frame).toHaveAttribute('referrerpolicy', 'no-referrer');
    await expect(frame).toHaveAttribute('sandbox', /allow-scripts/);

    await page.goto('/chat/1');
    await expect(page.getByTestId('chat-frame')).toHaveAttribute('src', `${origin}/pricing?entry=2&key=${firstKey}`);

    // A phone-width chat page keeps the frame inside the screen.
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto('/chat/0');
    const box = await page.getByTestId('chat-frame').boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.goto('/chat2link');
    await page.waitForURL(/\/pricing\?key=/);
    expect(page.url()).toBe(`${origin}/pricing?key=${firstKey}&address=${encodedAddress}`);
  } finally {
    await setOptions(page, { Chats: savedChats });
  }
});
