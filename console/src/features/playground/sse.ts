/**
 * Server-sent events as they arrive from a streaming reader: text comes in arbitrary pieces
 * (an event, even a line or a CRLF pair, may be split across reads). The parser keeps what is
 * not finished yet and hands out the `data` of each complete event (its `data:` lines joined
 * by newlines). Comments (`:`) and the other fields (`event`, `id`, `retry`) are ignored.
 */

export interface SseParser {
  /** Feeds the next piece of text; answers the data of the events it completed, in order. */
  push(text: string): string[];
  /** The stream ended: answers the data of a last event not closed by a blank line. */
  end(): string[];
}

export function createSseParser(): SseParser {
  let buffer = '';
  let data: string[] = [];
  let hasData = false;

  const dispatch = (out: string[]) => {
    if (hasData) out.push(data.join('\n'));
    data = [];
    hasData = false;
  };

  const line = (l: string, out: string[]) => {
    if (l === '') {
      dispatch(out);
      return;
    }
    if (l.startsWith(':')) return;
    const colon = l.indexOf(':');
    const field = colon === -1 ? l : l.slice(0, colon);
    if (field !== 'data') return;
    let value = colon === -1 ? '' : l.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    data.push(value);
    hasData = true;
  };

  return {
    push(text) {
      const out: string[] = [];
      buffer += text;
      for (;;) {
        const m = /\r\n|\r|\n/.exec(buffer);
        if (!m) break;
        // A CR at the very end may be the first half of a CRLF split across reads: wait.
        if (m[0] === '\r' && m.index === buffer.length - 1) break;
        line(buffer.slice(0, m.index), out);
        buffer = buffer.slice(m.index + m[0].length);
      }
      return out;
    },
    end() {
      const out: string[] = [];
      if (buffer !== '') {
        line(buffer.replace(/\r$/, ''), out);
        buffer = '';
      }
      dispatch(out);
      return out;
    },
  };
}
