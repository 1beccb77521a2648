/**
 * The conversation as a pure reducer (spec 3 §4): a question adds itself and an answer in
 * state `loading`; stream chunks make the answer `incomplete`; it ends `complete` (also when the
 * user stops it) or `error`. Clearing the context empties it. Only the answer being written
 * takes chunks, usage and its end; events for any other message are ignored.
 */
import type { ChatMessage, MessageError, Usage } from './types';

export type ConversationAction =
  | { type: 'sent'; question: { id: string; content: string }; answerId: string }
  | { type: 'chunk'; id: string; content: string }
  | { type: 'usage'; id: string; usage: Usage }
  | { type: 'completed'; id: string; content?: string; usage?: Usage }
  | { type: 'failed'; id: string; error: MessageError }
  | { type: 'stopped'; id: string }
  | { type: 'cleared' };

const inFlight = (m: ChatMessage) => m.role === 'assistant' && (m.status === 'loading' || m.status === 'incomplete');

/** Whether an answer is being written (the last message is an answer still in flight). */
export function isGenerating(messages: ChatMessage[]): boolean {
  const last = messages[messages.length - 1];
  return last !== undefined && inFlight(last);
}

function updateInFlight(messages: ChatMessage[], id: string, f: (m: ChatMessage) => ChatMessage): ChatMessage[] {
  const i = messages.findIndex((m) => m.id === id);
  if (i === -1 || !inFlight(messages[i])) return messages;
  const next = messages.slice();
  next[i] = f(messages[i]);
  return next;
}

export function conversationReducer(messages: ChatMessage[], action: ConversationAction): ChatMessage[] {
  switch (action.type) {
    case 'sent':
      if (isGenerating(messages)) return messages;
      return [
        ...messages,
        { id: action.question.id, role: 'user', content: action.question.content, status: 'complete' },
        { id: action.answerId, role: 'assistant', content: '', status: 'loading' },
      ];
    case 'chunk':
      if (action.content === '') return messages;
      return updateInFlight(messages, action.id, (m) => ({ ...m, content: m.content + action.content, status: 'incomplete' }));
    case 'usage':
      return updateInFlight(messages, action.id, (m) => ({ ...m, usage: action.usage }));
    case 'completed':
      return updateInFlight(messages, action.id, (m) => ({
        ...m,
        content: action.content ?? m.content,
        usage: action.usage ?? m.usage,
        status: 'complete',
      }));
    case 'failed':
      return updateInFlight(messages, action.id, (m) => ({ ...m, status: 'error', error: action.error }));
    case 'stopped':
      return updateInFlight(messages, action.id, (m) => ({ ...m, status: 'complete', stopped: true }));
    case 'cleared':
      return [];
  }
}

const STATUSES = new Set(['loading', 'incomplete', 'complete', 'error']);

function restoreOne(v: unknown): ChatMessage | null {
  if (!v || typeof v !== 'object') return null;
  const m = v as Record<string, unknown>;
  if (typeof m.id !== 'string' || (m.role !== 'user' && m.role !== 'assistant') || typeof m.content !== 'string') return null;
  if (typeof m.status !== 'string' || !STATUSES.has(m.status)) return null;
  const out: ChatMessage = { id: m.id, role: m.role, content: m.content, status: m.status as ChatMessage['status'] };
  if (m.usage && typeof m.usage === 'object') out.usage = m.usage as Usage;
  if (m.error && typeof m.error === 'object' && typeof (m.error as { kind?: unknown }).kind === 'string') {
    out.error = m.error as MessageError;
  }
  if (m.stopped === true) out.stopped = true;
  // An answer that was being written when the page went away ends there.
  if (inFlight(out)) {
    out.status = 'error';
    out.error = { kind: 'interrupted' };
  }
  return out;
}

/** The conversation kept in the browser, read back: malformed entries are dropped. */
export function restoreMessages(stored: unknown): ChatMessage[] {
  if (!Array.isArray(stored)) return [];
  return stored.map(restoreOne).filter((m): m is ChatMessage => m !== null);
}
