//! Provider side: the data payloads of an Anthropic Messages stream decoded to IR stream
//! events (the payload's `type` names the event, so SSE event names are not needed).

use serde::Deserialize;
use serde_json::Value;

use super::error::error_message;
use super::wire::{WireUsage, stop_reason_of, str_field};
use crate::ParseError;
use crate::ir::{StreamEvent, Usage};
use crate::loose::{Object, Text};

/// What an upstream content block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    /// A tool call, by IR tool call index.
    Tool(usize),
    /// Redacted thinking (the IR stream has no event for it), server tool calls and
    /// results: their deltas are dropped.
    Other,
}

/// Per-request state turning Anthropic stream payloads into IR events.
///
/// `message_start` gives `Start`; text, thinking (and its signature) and tool_use blocks
/// give deltas, tool calls numbered from 0 in order; `message_delta` gives `Finish` then
/// `Usage` (its counts merged over `message_start`'s). `ping`, block stops, `message_stop`
/// and unknown events give nothing; an `error` event is an `Err` with its message.
#[derive(Debug, Default)]
pub struct StreamDecoder {
    /// Blocks seen, by upstream block index (a short list: searched from the end).
    blocks: Vec<(u64, Block)>,
    tools: usize,
    usage: WireUsage,
}

impl StreamDecoder {
    pub fn new() -> Self {
        StreamDecoder::default()
    }

    /// Decodes one event's `data:` payload, appending IR events to `out`.
    pub fn decode(&mut self, data: &str, out: &mut Vec<StreamEvent>) -> Result<(), ParseError> {
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        if self.decode_common(data, out) {
            return Ok(());
        }
        self.decode_tree(data, out)
    }

    /// Decodes a trimmed payload from its value tree (any event).
    pub(super) fn decode_tree(
        &mut self,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ParseError> {
        let v: Value =
            serde_json::from_str(data).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
        match str_field(&v, "type") {
            Some("message_start") => {
                let m = v.get("message").unwrap_or(&Value::Null);
                if let Some(u) = m.get("usage") {
                    self.usage.merge(u);
                }
                out.push(StreamEvent::Start {
                    id: str_field(m, "id").unwrap_or_default().to_owned(),
                    model: str_field(m, "model").unwrap_or_default().to_owned(),
                });
            }
            Some("content_block_start") => self.block_start(&v, out),
            Some("content_block_delta") => self.block_delta(&v, out),
            Some("message_delta") => {
                if let Some(stop) = v.get("delta").and_then(|d| str_field(d, "stop_reason")) {
                    out.push(StreamEvent::Finish(stop_reason_of(stop)));
                }
                if let Some(u) = v.get("usage") {
                    self.usage.merge(u);
                }
                out.push(StreamEvent::Usage(self.usage()));
            }
            Some("error") => {
                let msg = error_message(&v).unwrap_or_else(|| data.to_owned());
                return Err(ParseError::Invalid(msg));
            }
            // ping, content_block_stop, message_stop and events added later.
            _ => {}
        }
        Ok(())
    }

    /// Decodes the events most of a stream is made of (block deltas, pings, block and
    /// message stops) without a value tree; false, having written nothing, for any other
    /// event and for one the typed read cannot settle (a field of an unexpected kind, a
    /// repeated field, text that is not JSON), which the value tree then decodes to the same
    /// IR events.
    pub(super) fn decode_common(&mut self, data: &str, out: &mut Vec<StreamEvent>) -> bool {
        let Ok(Object(ev)) = serde_json::from_str::<Object<WireEvent<'_>>>(data) else {
            return false;
        };
        match ev.kind.as_ref().map(Text::as_str) {
            Some("content_block_delta") => {
                let d = ev.delta.map(|Object(d)| d).unwrap_or_default();
                let fields = DeltaFields {
                    kind: d.kind.as_ref().map(Text::as_str),
                    text: d.text.as_ref().map(Text::as_str),
                    thinking: d.thinking.as_ref().map(Text::as_str),
                    signature: d.signature.as_ref().map(Text::as_str),
                    partial_json: d.partial_json.as_ref().map(Text::as_str),
                };
                self.delta(ev.index.unwrap_or(0), &fields, out);
                true
            }
            Some("ping" | "content_block_stop" | "message_stop") => true,
            _ => false,
        }
    }

    /// The usage merged so far.
    pub fn usage(&self) -> Usage {
        self.usage.to_ir()
    }

    fn block_start(&mut self, v: &Value, out: &mut Vec<StreamEvent>) {
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        let b = v.get("content_block").unwrap_or(&Value::Null);
        let kind = match str_field(b, "type") {
            Some("text") => {
                push_text(out, str_field(b, "text"), StreamEvent::TextDelta);
                Block::Text
            }
            Some("thinking") => {
                push_text(out, str_field(b, "thinking"), StreamEvent::ThinkingDelta);
                push_text(
                    out,
                    str_field(b, "signature"),
                    StreamEvent::ThinkingSignature,
                );
                Block::Thinking
            }
            Some("tool_use") => {
                let n = self.tools;
                self.tools += 1;
                out.push(StreamEvent::ToolCallStart {
                    index: n,
                    id: str_field(b, "id").unwrap_or_default().to_owned(),
                    name: str_field(b, "name").unwrap_or_default().to_owned(),
                });
                // Anthropic starts with `{}` and streams the input; some relays send it whole.
                if let Some(input) = b.get("input").filter(|i| match i {
                    Value::Object(m) => !m.is_empty(),
                    _ => false,
                }) {
                    out.push(StreamEvent::ToolCallDelta {
                        index: n,
                        arguments: input.to_string(),
                    });
                }
                Block::Tool(n)
            }
            _ => Block::Other,
        };
        self.blocks.push((index, kind));
    }

    fn block_delta(&mut self, v: &Value, out: &mut Vec<StreamEvent>) {
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        let d = v.get("delta").unwrap_or(&Value::Null);
        let fields = DeltaFields {
            kind: str_field(d, "type"),
            text: str_field(d, "text"),
            thinking: str_field(d, "thinking"),
            signature: str_field(d, "signature"),
            partial_json: str_field(d, "partial_json"),
        };
        self.delta(index, &fields, out);
    }

    /// The IR events of a delta of the block at upstream `index`.
    fn delta(&mut self, index: u64, d: &DeltaFields<'_>, out: &mut Vec<StreamEvent>) {
        let block = self
            .blocks
            .iter()
            .rev()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| *b);
        match (d.kind, block) {
            (_, Some(Block::Other)) => {}
            (Some("text_delta"), _) => push_text(out, d.text, StreamEvent::TextDelta),
            (Some("thinking_delta"), _) => {
                push_text(out, d.thinking, StreamEvent::ThinkingDelta);
            }
            (Some("signature_delta"), _) => {
                push_text(out, d.signature, StreamEvent::ThinkingSignature);
            }
            (Some("input_json_delta"), Some(Block::Tool(n))) => {
                if let Some(j) = d.partial_json.filter(|j| !j.is_empty()) {
                    out.push(StreamEvent::ToolCallDelta {
                        index: n,
                        arguments: j.to_owned(),
                    });
                }
            }
            // Citations, deltas of blocks never started, and delta types added later.
            _ => {}
        }
    }
}

/// The string fields of a `content_block_delta`'s `delta` (`None`: absent or not a string).
struct DeltaFields<'a> {
    kind: Option<&'a str>,
    text: Option<&'a str>,
    thinking: Option<&'a str>,
    signature: Option<&'a str>,
    partial_json: Option<&'a str>,
}

/// The fields of an event [`StreamDecoder::decode_common`] reads; the others are checked as
/// JSON and skipped. Strings without escapes borrow from the payload.
#[derive(Deserialize)]
struct WireEvent<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Text<'a>>,
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    delta: Option<Object<WireDelta<'a>>>,
}

/// A `delta`'s string fields, whatever its type.
#[derive(Deserialize, Default)]
struct WireDelta<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Text<'a>>,
    #[serde(borrow, default)]
    text: Option<Text<'a>>,
    #[serde(borrow, default)]
    thinking: Option<Text<'a>>,
    #[serde(borrow, default)]
    signature: Option<Text<'a>>,
    #[serde(borrow, default)]
    partial_json: Option<Text<'a>>,
}

/// Pushes `make(text)` when `text` is a non-empty string.
fn push_text(out: &mut Vec<StreamEvent>, text: Option<&str>, make: fn(String) -> StreamEvent) {
    if let Some(t) = text.filter(|t| !t.is_empty()) {
        out.push(make(t.to_owned()));
    }
}
