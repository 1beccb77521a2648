import { cleanup, configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { User } from '../../api/types';
import { signedIn } from '../../app/sessionSlice';
import { makeStore } from '../../app/store';
import { readJson, STORAGE_KEY } from '../../shared/storage';
import { renderWithProviders } from '../../test/renderWithProviders';
import { PlaygroundPage } from './PlaygroundPage';

configure({ asyncUtilTimeout: 10_000 });
vi.setConfig({ testTimeout: 30_000 });

// antd's text areas and sliders measure themselves; jsdom has no ResizeObserver.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

beforeEach(() => window.localStorage.clear());
afterEach(() => vi.unstubAllGlobals());

const GROUPS = { default: { desc: 'Default', ratio: 1 }, vip: { desc: 'VIP', ratio: 2 } };
const MODELS = ['gpt-4o-mini', 'gpt-4o'];

type PgReply = (body: Record<string, unknown>, signal: AbortSignal | null | undefined) => Response;

/** Console API calls answer with envelopes; the playground call with `pg`. */
function stubFetch(pg: PgReply) {
  const bodies: Record<string, unknown>[] = [];
  const fetchMock = vi.fn(async (input: Request | string, init?: RequestInit) => {
    if (typeof input === 'string') {
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      bodies.push(body);
      return pg(body, init?.signal);
    }
    const path = new URL(input.url).pathname;
    const data = path === '/api/user/self/groups' ? GROUPS : path === '/api/user/models' ? MODELS : null;
    if (data === null) return new Response('{}', { status: 404 });
    return new Response(JSON.stringify({ success: true, message: '', data }), {
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return bodies;
}

const sse = (events: string[]) =>
  new Response(events.map((e) => `data: ${e}\n\n`).join(''), { headers: { 'Content-Type': 'text/event-stream' } });
const delta = (content: string) => JSON.stringify({ choices: [{ index: 0, delta: { content } }] });

function render() {
  const store = makeStore();
  store.dispatch(signedIn({ id: 7, username: 'alice', role: 1, group: 'default' } as User));
  renderWithProviders(<PlaygroundPage />, store);
}

async function ask(text: string) {
  const input = await screen.findByTestId('pg-input');
  fireEvent.change(input, { target: { value: text } });
  fireEvent.keyDown(input, { key: 'Enter' });
}

describe('playground (spec 3 §2.6)', () => {
  it('streams an answer as sanitized markdown with its usage, and keeps the conversation', async () => {
    const bodies = stubFetch(() =>
      sse([
        delta('Here is **code**:\n\n```js\nlet a = 1;\n```\n'),
        delta('<img src=x onerror="window.__pwned=1">'),
        JSON.stringify({ choices: [], usage: { prompt_tokens: 21, completion_tokens: 9, total_tokens: 30 } }),
        '[DONE]',
      ]),
    );
    render();
    expect(await screen.findByTestId('pg-empty')).toBeInTheDocument();
    await ask('Show me code');
    const answer = await screen.findByTestId('pg-message-1');
    await waitFor(() => expect(answer).toHaveAttribute('data-status', 'complete'));
    const html = within(answer).getByTestId('pg-answer');
    expect(html.querySelector('strong')).toHaveTextContent('code');
    expect(html.querySelector('pre code')).toHaveTextContent('let a = 1;');
    expect(html.querySelector('[onerror]')).toBeNull();
    expect(within(answer).getByTestId('pg-usage')).toHaveTextContent('Tokens: prompt 21 · completion 9 · total 30');

    expect(bodies[0]).toMatchObject({
      model: 'gpt-4o-mini',
      group: 'default',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.1,
    });
    expect(bodies[0]).not.toHaveProperty('max_tokens');
    expect((bodies[0].messages as { role: string }[]).map((m) => m.role)).toEqual(['system', 'user']);

    const stored = readJson<{ status: string; content: string }[]>(STORAGE_KEY.playgroundMessages);
    expect(stored?.map((m) => m.status)).toEqual(['complete', 'complete']);
    expect(stored?.[0].content).toBe('Show me code');
  });

  it("shows the gateway's error message on the answer", async () => {
    stubFetch(
      () =>
        new Response(
          JSON.stringify({ error: { message: 'user quota is not enough', type: 'quota', code: 'insufficient_user_quota' } }),
          {
            status: 403,
            headers: { 'Content-Type': 'application/json' },
          },
        ),
    );
    render();
    await ask('Hello');
    const error = await screen.findByTestId('pg-error');
    expect(error).toHaveTextContent('user quota is not enough');
    expect(screen.getByTestId('pg-message-1')).toHaveAttribute('data-status', 'error');
  });

  it('stops a streaming answer; the parameters and the stopped answer survive a new mount', async () => {
    stubFetch((_body, signal) => {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(`data: ${delta('word0 ')}\n\n`));
          signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
        },
      });
      return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
    });
    render();
    fireEvent.change(await screen.findByTestId('pg-max-tokens'), { target: { value: '64' } });
    await ask('Count slowly');
    const answer = await screen.findByTestId('pg-message-1');
    await waitFor(() => expect(answer).toHaveAttribute('data-status', 'incomplete'));
    expect(within(answer).getByTestId('pg-answer')).toHaveTextContent('word0');
    fireEvent.click(screen.getByTestId('pg-stop'));
    await waitFor(() => expect(answer).toHaveAttribute('data-status', 'complete'));
    expect(within(answer).getByTestId('pg-stopped')).toHaveTextContent('Stopped');
    expect(screen.getByTestId('pg-send')).toBeInTheDocument();
    expect(readJson<{ maxTokens: number }>(STORAGE_KEY.playgroundParams)?.maxTokens).toBe(64);

    // A reload reads both back.
    cleanup();
    render();
    expect(await screen.findByTestId('pg-stopped')).toBeInTheDocument();
    expect(screen.getByTestId('pg-max-tokens')).toHaveValue('64');
  });

  it('clears the context', async () => {
    stubFetch(() => sse([delta('ok'), '[DONE]']));
    render();
    await ask('Hi');
    await waitFor(() => expect(screen.getByTestId('pg-message-1')).toHaveAttribute('data-status', 'complete'));
    fireEvent.click(screen.getByTestId('pg-clear'));
    expect(await screen.findByTestId('pg-empty')).toBeInTheDocument();
    expect(readJson(STORAGE_KEY.playgroundMessages)).toEqual([]);
  });

  it('has the Chinese side panel', async () => {
    stubFetch(() => sse(['[DONE]']));
    const store = makeStore();
    store.dispatch(signedIn({ id: 7, username: 'alice', role: 1, group: 'default' } as User));
    renderWithProviders(<PlaygroundPage />, store, 'zh-CN');
    expect(await screen.findByText('系统提示词')).toBeInTheDocument();
    expect(screen.getByTestId('pg-system-prompt')).toHaveValue(
      '你是一个乐于助人的助手。请清晰、简洁地回答，代码请使用 Markdown 围栏代码块。',
    );
  });
});
