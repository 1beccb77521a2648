/**
 * What the playground sends and how it reads the answers, as pure functions: the request body
 * from the parameters and the conversation, one stream event, a whole (non-stream) answer,
 * and the gateway's error body.
 */
import { DONE_EVENT } from './constants';
import { shownTemperature } from './params';
import type { ChatMessage, ChatRequestBody, PlaygroundParams, Usage, WireMessage } from './types';

/**
 * The context sent with a question: the system prompt (when there is one), then every
 * question and every answer that holds text. Failed or empty answers are left out.
 */
export function contextMessages(systemPrompt: string, messages: ChatMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  if (systemPrompt.trim() !== '') out.push({ role: 'system', content: systemPrompt });
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    else if (m.status === 'complete' && m.content !== '') out.push({ role: 'assistant', content: m.content });
  }
  return out;
}

/**
 * The body of POST /pg/chat/completions. Max tokens 0 is not sent (nor a top_p of 1, which
 * cuts nothing); the group only when one is chosen; a stream asks for the usage in its last chunk.
 */
export function buildRequestBody(params: PlaygroundParams, messages: ChatMessage[]): ChatRequestBody {
  const body: ChatRequestBody = {
    model: params.model.trim(),
    messages: contextMessages(params.systemPrompt, messages),
    stream: params.stream,
    temperature: shownTemperature(params.temperature),
  };
  if (params.topP < 1) body.top_p = params.topP;
  const maxTokens = Math.floor(params.maxTokens);
  if (Number.isFinite(maxTokens) && maxTokens > 0) body.max_tokens = maxTokens;
  const group = params.group.trim();
  if (group !== '') body.group = group;
  if (params.stream) body.stream_options = { include_usage: true };
  return body;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readUsage(v: unknown): Usage | undefined {
  if (!isObject(v)) return undefined;
  const n = (k: string) => (typeof v[k] === 'number' ? (v[k] as number) : 0);
  const prompt = n('prompt_tokens');
  const completion = n('completion_tokens');
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: n('total_tokens') || prompt + completion };
}

/** The message of an `{"error": {"message"}}` (or `{"error": "…"}`) object, if it is one. */
function errorOf(v: unknown): string | undefined {
  if (!isObject(v) || !('error' in v)) return undefined;
  const e = v.error;
  if (typeof e === 'string') return e;
  if (isObject(e) && typeof e.message === 'string') return e.message;
  return JSON.stringify(e);
}

export type StreamEvent =
  { type: 'done' } | { type: 'delta'; content: string; usage?: Usage } | { type: 'error'; message: string };

/**
 * One stream event's data: `[DONE]`, an OpenAI chunk (`choices[0].delta.content`, and `usage`
 * in the last one), or an error. Anything else is an error that shows the data as it came.
 */
export function parseStreamData(data: string): StreamEvent {
  const trimmed = data.trim();
  if (trimmed === DONE_EVENT) return { type: 'done' };
  let v: unknown;
  try {
    v = JSON.parse(trimmed);
  } catch {
    return { type: 'error', message: trimmed };
  }
  const error = errorOf(v);
  if (error !== undefined) return { type: 'error', message: error };
  if (!isObject(v)) return { type: 'error', message: trimmed };
  const choices = Array.isArray(v.choices) ? v.choices : [];
  const first: unknown = choices[0];
  const delta = isObject(first) && isObject(first.delta) ? first.delta : {};
  const content = typeof delta.content === 'string' ? delta.content : '';
  const usage = v.usage === null || v.usage === undefined ? undefined : readUsage(v.usage);
  return usage ? { type: 'delta', content, usage } : { type: 'delta', content };
}

export type Completion = { type: 'answer'; content: string; usage?: Usage } | { type: 'error'; message: string };

/** A whole answer (chat.completion JSON): `choices[0].message.content` and `usage`. */
export function parseCompletion(v: unknown): Completion {
  const error = errorOf(v);
  if (error !== undefined) return { type: 'error', message: error };
  if (!isObject(v) || !Array.isArray(v.choices)) return { type: 'error', message: JSON.stringify(v) };
  const first: unknown = v.choices[0];
  const message = isObject(first) && isObject(first.message) ? first.message : {};
  const content = typeof message.content === 'string' ? message.content : '';
  const usage = readUsage(v.usage);
  return usage ? { type: 'answer', content, usage } : { type: 'answer', content };
}

/** The most of a non-JSON error body that is shown. */
const MAX_ERROR_TEXT = 500;

/**
 * The text of a refused call: the gateway's `{"error":{"message"}}`, else the console API's
 * envelope `message`, else the body itself (shortened); empty when there is nothing to show.
 */
export function errorMessageOf(body: string): string {
  const text = body.trim();
  try {
    const v: unknown = JSON.parse(text);
    const error = errorOf(v);
    if (error !== undefined) return error;
    if (isObject(v) && typeof v.message === 'string') return v.message;
  } catch {
    // not JSON: the text itself
  }
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
}
