import { describe, expect, it } from 'vitest';
import { conversationReducer, isGenerating, restoreMessages, type ConversationAction } from './conversation';
import type { ChatMessage } from './types';

const run = (actions: ConversationAction[], from: ChatMessage[] = []) => actions.reduce(conversationReducer, from);
const sent = (n: number): ConversationAction => ({
  type: 'sent',
  question: { id: `q${n}`, content: `question ${n}` },
  answerId: `a${n}`,
});
const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };

describe('message states (spec 3 §4)', () => {
  it('a question adds itself and a loading answer', () => {
    const s = run([sent(1)]);
    expect(s).toEqual([
      { id: 'q1', role: 'user', content: 'question 1', status: 'complete' },
      { id: 'a1', role: 'assistant', content: '', status: 'loading' },
    ]);
    expect(isGenerating(s)).toBe(true);
  });

  it('loading → incomplete while chunks arrive → complete with the usage', () => {
    let s = run([sent(1), { type: 'chunk', id: 'a1', content: '' }]);
    expect(s[1].status).toBe('loading');
    s = run(
      [
        { type: 'chunk', id: 'a1', content: 'Hel' },
        { type: 'chunk', id: 'a1', content: 'lo' },
      ],
      s,
    );
    expect(s[1]).toMatchObject({ content: 'Hello', status: 'incomplete' });
    s = run(
      [
        { type: 'usage', id: 'a1', usage },
        { type: 'completed', id: 'a1' },
      ],
      s,
    );
    expect(s[1]).toEqual({ id: 'a1', role: 'assistant', content: 'Hello', status: 'complete', usage });
    expect(isGenerating(s)).toBe(false);
  });

  it('a whole answer completes a loading message at once', () => {
    const s = run([sent(1), { type: 'completed', id: 'a1', content: 'All of it', usage }]);
    expect(s[1]).toMatchObject({ content: 'All of it', status: 'complete', usage });
  });

  it('an error keeps what arrived and carries the reason', () => {
    const s = run([
      sent(1),
      { type: 'chunk', id: 'a1', content: 'part' },
      { type: 'failed', id: 'a1', error: { kind: 'gateway', message: 'quota exceeded', status: 403 } },
    ]);
    expect(s[1]).toMatchObject({
      content: 'part',
      status: 'error',
      error: { kind: 'gateway', message: 'quota exceeded', status: 403 },
    });
  });

  it('stopping completes the answer as far as it got, marked stopped', () => {
    const s = run([sent(1), { type: 'chunk', id: 'a1', content: 'half' }, { type: 'stopped', id: 'a1' }]);
    expect(s[1]).toMatchObject({ content: 'half', status: 'complete', stopped: true });
  });

  it('an ended answer takes no more chunks, usage or ends', () => {
    const done = run([sent(1), { type: 'completed', id: 'a1', content: 'final' }]);
    const after = run(
      [
        { type: 'chunk', id: 'a1', content: 'late' },
        { type: 'failed', id: 'a1', error: { kind: 'network' } },
        { type: 'stopped', id: 'a1' },
        { type: 'usage', id: 'a1', usage },
      ],
      done,
    );
    expect(after).toBe(done);
  });

  it('takes no new question while an answer is being written, and then one after the other', () => {
    const s = run([sent(1), sent(2)]);
    expect(s).toHaveLength(2);
    const t = run([{ type: 'completed', id: 'a1' }, sent(2)], s);
    expect(t.map((m) => m.id)).toEqual(['q1', 'a1', 'q2', 'a2']);
  });

  it('ignores events for unknown messages and clears the context', () => {
    const s = run([sent(1)]);
    expect(run([{ type: 'chunk', id: 'nope', content: 'x' }], s)).toBe(s);
    expect(run([{ type: 'cleared' }], s)).toEqual([]);
  });
});

describe('the stored conversation', () => {
  it('reads back whole messages and drops malformed ones', () => {
    const stored = [
      { id: 'q1', role: 'user', content: 'hi', status: 'complete' },
      { id: 'a1', role: 'assistant', content: 'hello', status: 'complete', usage, stopped: true },
      { id: 'x', role: 'system', content: 'no', status: 'complete' },
      { id: 'y', role: 'user', content: 3, status: 'complete' },
      { id: 'z', role: 'user', content: 'bad status', status: 'weird' },
      null,
    ];
    expect(restoreMessages(stored)).toEqual([
      { id: 'q1', role: 'user', content: 'hi', status: 'complete' },
      { id: 'a1', role: 'assistant', content: 'hello', status: 'complete', usage, stopped: true },
    ]);
    expect(restoreMessages('not a list')).toEqual([]);
  });

  it('ends an answer that was being written when the page went away', () => {
    const [, a] = restoreMessages([
      { id: 'q1', role: 'user', content: 'hi', status: 'complete' },
      { id: 'a1', role: 'assistant', content: 'par', status: 'incomplete' },
    ]);
    expect(a).toMatchObject({ status: 'error', content: 'par', error: { kind: 'interrupted' } });
    expect(isGenerating(restoreMessages([{ id: 'a', role: 'assistant', content: '', status: 'loading' }]))).toBe(false);
  });
});
