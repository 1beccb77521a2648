//! Client side: IR stream events encoded as `chat.completion.chunk` SSE frames.

use serde_json::{Value, json};

use super::wire::{completion_id, finish_reason, usage_json};
use crate::ir::{StreamEvent, Usage};
use crate::json_out;

/// Encodes one streamed answer. The first chunk carries `delta.role`; text goes to
/// `delta.content`, thinking to `delta.reasoning_content`, tool calls to
/// `delta.tool_calls` (IR indices kept); `Finish` becomes the chunk with `finish_reason`
/// (sent once). Usage is held: [`finish`](Self::finish) sends the last one as the final
/// `choices: []` chunk when the client asked for it (feed a locally counted `Usage` before
/// `finish` when the provider sent none; without any usage no usage chunk is sent), then
/// `data: [DONE]`. Thinking signatures have no place in this dialect and are dropped.
#[derive(Debug)]
pub struct StreamEncoder {
    include_usage: bool,
    created: i64,
    /// The chunk's fields before `choices` (`{"id":…,"model":…,`), set when the answer starts.
    head: Option<String>,
    usage: Option<Usage>,
    finish_sent: bool,
    tool_calls_seen: bool,
    done: bool,
}

impl StreamEncoder {
    /// `include_usage`: the client's `stream_options.include_usage`; `created`: Unix seconds
    /// stamped on every chunk (the crate has no clock).
    pub fn new(include_usage: bool, created: i64) -> Self {
        StreamEncoder {
            include_usage,
            created,
            head: None,
            usage: None,
            finish_sent: false,
            tool_calls_seen: false,
            done: false,
        }
    }

    /// Appends the frames for `ev` to `out`.
    pub fn encode(&mut self, ev: &StreamEvent, out: &mut Vec<u8>) {
        if self.done {
            return;
        }
        if let StreamEvent::Start { id, model } = ev {
            self.start(id, model, out);
            return;
        }
        if let StreamEvent::Usage(u) = ev {
            self.usage = Some(*u);
            return;
        }
        self.start("", "", out);
        let delta = match ev {
            StreamEvent::TextDelta(t) if !t.is_empty() => {
                self.text_chunk(b"content", t, out);
                return;
            }
            StreamEvent::ThinkingDelta(t) if !t.is_empty() => {
                self.text_chunk(b"reasoning_content", t, out);
                return;
            }
            StreamEvent::ToolCallStart { index, id, name } => {
                self.tool_calls_seen = true;
                json!({"tool_calls": [{
                    "index": index,
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }]})
            }
            StreamEvent::ToolCallDelta { index, arguments } if !arguments.is_empty() => {
                json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]})
            }
            StreamEvent::Finish(stop) if !self.finish_sent => {
                self.finish_sent = true;
                let reason = finish_reason(*stop, self.tool_calls_seen);
                self.chunk(&json!({}), Value::from(reason), out);
                return;
            }
            _ => return,
        };
        self.chunk(&delta, Value::Null, out);
    }

    /// Appends the usage chunk (if asked for and known) and `data: [DONE]`, once.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.done {
            return;
        }
        if self.include_usage
            && let Some(u) = self.usage
        {
            self.start("", "", out);
            self.frame(out, |out| {
                out.extend_from_slice(br#""choices":[],"usage":"#);
                usage_json(&u).write(out);
            });
        }
        out.extend_from_slice(b"data: [DONE]\n\n");
        self.done = true;
    }

    /// Sets the chunk head and sends the role chunk, the first time only.
    fn start(&mut self, id: &str, model: &str, out: &mut Vec<u8>) {
        if self.head.is_some() {
            return;
        }
        let mut head = String::from(r#"{"id":"#);
        head.push_str(&Value::from(completion_id(id, self.created)).to_string());
        head.push_str(r#","object":"chat.completion.chunk","created":"#);
        head.push_str(&self.created.to_string());
        head.push_str(r#","model":"#);
        head.push_str(&Value::from(model).to_string());
        head.push(',');
        self.head = Some(head);
        self.frame(out, |out| {
            out.extend_from_slice(ROLE_CHOICE);
        });
    }

    /// One chunk with a single choice.
    fn chunk(&self, delta: &Value, finish_reason: Value, out: &mut Vec<u8>) {
        self.frame(out, |out| {
            out.extend_from_slice(br#""choices":[{"index":0,"delta":"#);
            write_json(out, delta);
            out.extend_from_slice(br#","finish_reason":"#);
            write_json(out, &finish_reason);
            out.extend_from_slice(b"}]");
        });
    }

    /// One chunk whose delta is the one string member `key` (the most frequent chunk, written
    /// without building its delta).
    fn text_chunk(&self, key: &[u8], text: &str, out: &mut Vec<u8>) {
        self.frame(out, |out| {
            out.extend_from_slice(br#""choices":[{"index":0,"delta":{""#);
            out.extend_from_slice(key);
            out.extend_from_slice(b"\":");
            json_out::string(text, out);
            out.extend_from_slice(br#"},"finish_reason":null}]"#);
        });
    }

    /// `data: {head…body}\n\n`.
    fn frame(&self, out: &mut Vec<u8>, body: impl FnOnce(&mut Vec<u8>)) {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(self.head.as_deref().unwrap_or("{").as_bytes());
        body(out);
        out.extend_from_slice(b"}\n\n");
    }
}

/// The first chunk's choice (written as-is: the key order is fixed).
const ROLE_CHOICE: &[u8] =
    br#""choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]"#;

fn write_json(out: &mut Vec<u8>, v: &impl serde::Serialize) {
    // Serialising a `Value` or a plain struct into a Vec cannot fail (no I/O error, string
    // keys only).
    let _ = serde_json::to_writer(&mut *out, v);
}
