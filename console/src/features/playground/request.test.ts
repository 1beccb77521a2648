import { describe, expect, it } from 'vitest';
import { defaultParams } from './params';
import { buildRequestBody, contextMessages, errorMessageOf, parseCompletion, parseStreamData } from './request';
import type { ChatMessage, PlaygroundParams } from './types';

const params: PlaygroundParams = { ...defaultParams('Be brief.'), model: 'gpt-4o-mini' };
const q = (id: string, content: string): ChatMessage => ({ id, role: 'user', content, status: 'complete' });
const a = (id: string, content: string, status: ChatMessage['status'] = 'complete'): ChatMessage => ({
  id,
  role: 'assistant',
  content,
  status,
});

describe('request body (spec 3 §2.6, §7)', () => {
  it('sends the defaults: model, system prompt, stream with usage, the temperature at the slider minimum, no max tokens', () => {
    expect(buildRequestBody(params, [q('1', 'Hi')])).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.1,
    });
  });

  it('leaves max tokens 0 out and sends a positive count as a whole number', () => {
    expect(buildRequestBody({ ...params, maxTokens: 0 }, [q('1', 'Hi')])).not.toHaveProperty('max_tokens');
    expect(buildRequestBody({ ...params, maxTokens: 256 }, [q('1', 'Hi')]).max_tokens).toBe(256);
    expect(buildRequestBody({ ...params, maxTokens: 99.7 }, [q('1', 'Hi')]).max_tokens).toBe(99);
  });

  it('sends the group only when one is chosen, trimmed', () => {
    expect(buildRequestBody(params, [])).not.toHaveProperty('group');
    expect(buildRequestBody({ ...params, group: ' vip ' }, []).group).toBe('vip');
  });

  it('sends top_p only below 1, and no stream options without a stream', () => {
    expect(buildRequestBody(params, [])).not.toHaveProperty('top_p');
    expect(buildRequestBody({ ...params, topP: 0.85 }, []).top_p).toBe(0.85);
    const whole = buildRequestBody({ ...params, stream: false }, []);
    expect(whole.stream).toBe(false);
    expect(whole).not.toHaveProperty('stream_options');
  });

  it('keeps the temperature on the slider scale', () => {
    expect(buildRequestBody({ ...params, temperature: 0.7 }, []).temperature).toBe(0.7);
    expect(buildRequestBody({ ...params, temperature: 0.30000000000000004 }, []).temperature).toBe(0.3);
    expect(buildRequestBody({ ...params, temperature: 1.6 }, []).temperature).toBe(1);
  });

  it('sends the conversation as context, without failed or empty answers, nor a blank system prompt', () => {
    const messages: ChatMessage[] = [
      q('1', 'First'),
      a('2', 'Answer one'),
      q('3', 'Second'),
      { ...a('4', 'partial', 'error'), error: { kind: 'network' } },
      q('5', 'Third'),
      { ...a('6', 'stopped half', 'complete'), stopped: true },
      a('7', ''),
      q('8', 'Fourth'),
    ];
    expect(contextMessages('  ', messages)).toEqual([
      { role: 'user', content: 'First' },
      { role: 'assistant', content: 'Answer one' },
      { role: 'user', content: 'Second' },
      { role: 'user', content: 'Third' },
      { role: 'assistant', content: 'stopped half' },
      { role: 'user', content: 'Fourth' },
    ]);
  });
});

describe('stream events', () => {
  it('reads [DONE], content deltas and the usage of the last chunk', () => {
    expect(parseStreamData('[DONE]')).toEqual({ type: 'done' });
    expect(parseStreamData(' [DONE] ')).toEqual({ type: 'done' });
    expect(parseStreamData('{"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}')).toEqual({
      type: 'delta',
      content: 'Hel',
    });
    expect(parseStreamData('{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}')).toEqual({
      type: 'delta',
      content: '',
    });
    expect(parseStreamData('{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}')).toEqual({
      type: 'delta',
      content: '',
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    });
    expect(parseStreamData('{"choices":[{"delta":{"content":"x"}}],"usage":null}')).toEqual({ type: 'delta', content: 'x' });
  });

  it('takes an error event or data that is not JSON for an error', () => {
    expect(parseStreamData('{"error":{"message":"upstream timed out","type":"upstream_error"}}')).toEqual({
      type: 'error',
      message: 'upstream timed out',
    });
    expect(parseStreamData('{"broken')).toEqual({ type: 'error', message: '{"broken' });
  });
});

describe('whole answers', () => {
  it('reads the content and the usage of a chat.completion', () => {
    expect(
      parseCompletion({
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'word0 word1 ' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 },
      }),
    ).toEqual({ type: 'answer', content: 'word0 word1 ', usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 } });
  });

  it('fills a missing total and reads an error body', () => {
    expect(
      parseCompletion({ choices: [{ message: { content: 'a' } }], usage: { prompt_tokens: 3, completion_tokens: 4 } }),
    ).toEqual({
      type: 'answer',
      content: 'a',
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
    expect(parseCompletion({ error: { message: 'no channel', type: 'x', code: 'y' } })).toEqual({
      type: 'error',
      message: 'no channel',
    });
  });
});

describe("the gateway's error body", () => {
  it('shows error.message, else an envelope message, else the text', () => {
    expect(
      errorMessageOf('{"error":{"message":"insufficient user quota","type":"quota","code":"insufficient_user_quota"}}'),
    ).toBe('insufficient user quota');
    expect(errorMessageOf('{"success":false,"message":"not logged in"}')).toBe('not logged in');
    expect(errorMessageOf(' Bad Gateway ')).toBe('Bad Gateway');
    expect(errorMessageOf('')).toBe('');
    expect(errorMessageOf('x'.repeat(600))).toHaveLength(501);
  });
});
