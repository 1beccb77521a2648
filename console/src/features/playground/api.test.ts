import { afterEach, describe, expect, it, vi } from 'vitest';
import { postChat, type ChatCallOptions } from './api';
import type { ChatRequestBody, Usage } from './types';

afterEach(() => vi.unstubAllGlobals());

const BODY: ChatRequestBody = {
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Hi' }],
  stream: true,
  stream_options: { include_usage: true },
  temperature: 0.1,
};

/** A streamed response whose body arrives in exactly these pieces. */
function streamed(pieces: string[], opts: { close?: boolean } = {}): Response {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of pieces) c.enqueue(enc.encode(p));
      if (opts.close !== false) c.close();
    },
  });
  return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
}

function call(signal = new AbortController().signal) {
  const chunks: string[] = [];
  const usages: Usage[] = [];
  const opts: ChatCallOptions = {
    userId: 7,
    locale: 'en',
    signal,
    onChunk: (c) => chunks.push(c),
    onUsage: (u) => usages.push(u),
  };
  return { opts, chunks, usages };
}

describe('POST /pg/chat/completions', () => {
  it('sends the body with the session headers and streams the answer split across reads', async () => {
    const fetchMock = vi.fn(async () =>
      streamed([
        'data: {"choices":[{"delta":{"role":"assistant","content":"Hel"}}]}\n',
        '\ndata: {"choices":[{"delta":{"content":"lo ',
        'wörld"}}]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}\n\n',
        'data: [DO',
        'NE]\n\n',
      ]),
    );
    vi.stubGlobal('fetch', fetchMock);
    const { opts, chunks, usages } = call();
    expect(await postChat(BODY, opts)).toEqual({ kind: 'complete' });
    expect(chunks.join('')).toBe('Hello wörld');
    expect(usages).toEqual([{ prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 }]);

    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(new URL(url).pathname).toBe('/pg/chat/completions');
    expect(init.method).toBe('POST');
    expect(init.credentials).toBe('same-origin');
    expect((init.headers as Record<string, string>)['New-Api-User']).toBe('7');
    expect((init.headers as Record<string, string>).Authorization).toBeUndefined();
    expect(JSON.parse(String(init.body))).toEqual(BODY);
  });

  it('splits a multi-byte character across reads without garbling it', async () => {
    const bytes = new TextEncoder().encode('data: {"choices":[{"delta":{"content":"你好"}}]}\n\ndata: [DONE]\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        // Cut inside the first Chinese character (3 bytes in UTF-8).
        const cut = bytes.indexOf(0xe4) + 1;
        c.enqueue(bytes.slice(0, cut));
        c.enqueue(bytes.slice(cut));
        c.close();
      },
    });
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(body, { headers: { 'Content-Type': 'text/event-stream' } })),
    );
    const { opts, chunks } = call();
    expect(await postChat(BODY, opts)).toEqual({ kind: 'complete' });
    expect(chunks.join('')).toBe('你好');
  });

  it("shows the gateway's error message of a refused call", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(
            JSON.stringify({ error: { message: 'group vip is not available to you', type: 'auth', code: 'group_forbidden' } }),
            {
              status: 403,
              headers: { 'Content-Type': 'application/json' },
            },
          ),
      ),
    );
    const { opts } = call();
    expect(await postChat(BODY, opts)).toEqual({
      kind: 'error',
      error: { kind: 'gateway', message: 'group vip is not available to you', status: 403 },
    });
  });

  it('ends with an error on an error event, and when the stream closes without [DONE]', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        streamed(['data: {"choices":[{"delta":{"content":"a"}}]}\n\n', 'data: {"error":{"message":"upstream died"}}\n\n']),
      ),
    );
    expect(await postChat(BODY, call().opts)).toEqual({ kind: 'error', error: { kind: 'gateway', message: 'upstream died' } });
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => streamed(['data: {"choices":[{"delta":{"content":"a"}}]}\n\n'])),
    );
    const { opts, chunks } = call();
    expect(await postChat(BODY, opts)).toEqual({ kind: 'error', error: { kind: 'cut' } });
    expect(chunks).toEqual(['a']);
  });

  it('reads a whole answer when no stream is asked for', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(
            JSON.stringify({
              choices: [{ message: { role: 'assistant', content: '**bold**' } }],
              usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
            }),
            { headers: { 'Content-Type': 'application/json' } },
          ),
      ),
    );
    expect(await postChat({ ...BODY, stream: false }, call().opts)).toEqual({
      kind: 'complete',
      content: '**bold**',
      usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
    });
  });

  it('is stopped by its abort signal while the stream is open', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(new TextEncoder().encode('data: {"choices":[{"delta":{"content":"first"}}]}\n\n'));
            init.signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
          },
        });
        return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
      }),
    );
    const controller = new AbortController();
    const { opts, chunks } = call(controller.signal);
    const pending = postChat(BODY, { ...opts, onChunk: (c) => (chunks.push(c), controller.abort()) });
    expect(await pending).toEqual({ kind: 'aborted' });
    expect(chunks).toEqual(['first']);
  });

  it('says the network failed when fetch rejects', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    expect(await postChat(BODY, call().opts)).toEqual({ kind: 'error', error: { kind: 'network' } });
  });
});
