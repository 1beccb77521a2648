/**
 * The playground's one call, POST /pg/chat/completions on the gateway (same origin as the
 * console when it is reached through the gateway). Plain `fetch`, not RTK Query: the answer is
 * read as it streams, and the call can be stopped. The console session authenticates it (the
 * cookie and `New-Api-User`, as the API slice sends them); no API key. The group and model
 * pickers use the existing `GET /api/user/self/groups` and `GET /api/user/models` endpoints.
 */
import { PLAYGROUND_PATH } from './constants';
import { errorMessageOf, parseCompletion, parseStreamData } from './request';
import { createSseParser } from './sse';
import type { ChatRequestBody, MessageError, Usage } from './types';

export interface ChatCallOptions {
  userId: number;
  locale: string;
  signal: AbortSignal;
  /** Text of the answer as it streams. */
  onChunk: (content: string) => void;
  onUsage: (usage: Usage) => void;
}

/** How a call ended: the whole answer (non-stream) or the end of the stream, an error, or stopped. */
export type ChatOutcome =
  { kind: 'complete'; content?: string; usage?: Usage } | { kind: 'error'; error: MessageError } | { kind: 'aborted' };

/** Absolute: Node's fetch (vitest) rejects relative URLs. */
export function playgroundUrl(): string {
  return new URL(PLAYGROUND_PATH, window.location.origin).toString();
}

async function readWhole(res: Response): Promise<ChatOutcome> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'error', error: { kind: 'gateway', message: errorMessageOf(text), status: res.status } };
  }
  const answer = parseCompletion(json);
  if (answer.type === 'error') return { kind: 'error', error: { kind: 'gateway', message: answer.message, status: res.status } };
  return { kind: 'complete', content: answer.content, usage: answer.usage };
}

async function readStream(body: ReadableStream<Uint8Array>, opts: ChatCallOptions): Promise<ChatOutcome> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = createSseParser();
  for (;;) {
    const { done, value } = await reader.read();
    const events = done
      ? [...parser.push(decoder.decode()), ...parser.end()]
      : parser.push(decoder.decode(value, { stream: true }));
    for (const data of events) {
      const ev = parseStreamData(data);
      if (ev.type === 'delta') {
        if (ev.content) opts.onChunk(ev.content);
        if (ev.usage) opts.onUsage(ev.usage);
        continue;
      }
      // [DONE] or an error event ends the answer; nothing after it is read.
      if (!done) void reader.cancel().catch(() => undefined);
      return ev.type === 'done' ? { kind: 'complete' } : { kind: 'error', error: { kind: 'gateway', message: ev.message } };
    }
    // The stream closed without [DONE]: the answer is not whole.
    if (done) return { kind: 'error', error: { kind: 'cut' } };
  }
}

/** Sends one question; streams the answer through the callbacks when the body asks for a stream. */
export async function postChat(body: ChatRequestBody, opts: ChatCallOptions): Promise<ChatOutcome> {
  try {
    const res = await fetch(playgroundUrl(), {
      method: 'POST',
      credentials: 'same-origin',
      headers: {
        'Content-Type': 'application/json',
        Accept: body.stream ? 'text/event-stream' : 'application/json',
        'New-Api-User': String(opts.userId),
        'Accept-Language': opts.locale,
      },
      body: JSON.stringify(body),
      signal: opts.signal,
    });
    if (!res.ok) {
      const message = errorMessageOf(await res.text());
      return { kind: 'error', error: { kind: 'gateway', message, status: res.status } };
    }
    const type = res.headers.get('Content-Type') ?? '';
    if (!body.stream || !res.body || !type.includes('text/event-stream')) return await readWhole(res);
    return await readStream(res.body, opts);
  } catch {
    // fetch and reads reject once the call is stopped; otherwise the network failed.
    return opts.signal.aborted ? { kind: 'aborted' } : { kind: 'error', error: { kind: 'network' } };
  }
}
