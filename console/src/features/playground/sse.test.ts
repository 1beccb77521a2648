import { describe, expect, it } from 'vitest';
import { createSseParser } from './sse';

describe('SSE parsing', () => {
  it('hands out the data of each event', () => {
    const p = createSseParser();
    expect(p.push('data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n')).toEqual(['{"a":1}', '{"b":2}', '[DONE]']);
    expect(p.end()).toEqual([]);
  });

  it('keeps events split across reads, even inside a line', () => {
    const p = createSseParser();
    expect(p.push('da')).toEqual([]);
    expect(p.push('ta: {"choices":[{"delta":{"con')).toEqual([]);
    expect(p.push('tent":"Hi"}}]}\n')).toEqual([]);
    expect(p.push('\ndata: [DO')).toEqual(['{"choices":[{"delta":{"content":"Hi"}}]}']);
    expect(p.push('NE]\n\n')).toEqual(['[DONE]']);
  });

  it('reads the stream one character at a time', () => {
    const text = 'data: one\n\ndata: two\n\n';
    const p = createSseParser();
    const out = [...text].flatMap((c) => p.push(c));
    expect(out).toEqual(['one', 'two']);
  });

  it('takes CRLF and CR line ends, also a CRLF split between reads', () => {
    const p = createSseParser();
    expect(p.push('data: a\r\n\r\ndata: b\r')).toEqual(['a']);
    expect(p.push('\n\r')).toEqual([]);
    expect(p.push('\n')).toEqual(['b']);
    expect(p.push('data: c\r\rdata: d\r\r\n')).toEqual(['c', 'd']);
    expect(p.end()).toEqual([]);
  });

  it('joins the data lines of one event and strips one leading space only', () => {
    const p = createSseParser();
    expect(p.push('data: line 1\ndata:  line 2\ndata:x\n\n')).toEqual(['line 1\n line 2\nx']);
  });

  it('ignores comments, other fields and blank events', () => {
    const p = createSseParser();
    expect(p.push(': keep-alive\n\nevent: message\nid: 7\nretry: 3000\ndata: ok\n\n\n\n')).toEqual(['ok']);
  });

  it('gives an empty data line as an empty event', () => {
    const p = createSseParser();
    expect(p.push('data\n\ndata:\n\n')).toEqual(['', '']);
  });

  it('hands out a last event not closed by a blank line when the stream ends', () => {
    const p = createSseParser();
    expect(p.push('data: first\n\ndata: last')).toEqual(['first']);
    expect(p.end()).toEqual(['last']);
    expect(p.end()).toEqual([]);
  });
});
