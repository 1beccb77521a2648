//! Provider side: the data payloads of an Anthropic Messages stream decoded to IR stream
//! events (the payload's `type` names the event, so SSE event names are not needed).

use serde_json::Value;

use super::error::error_message;
use super::wire::{WireUsage, stop_reason_of, str_field};
use crate::ParseError;
use crate::ir::{StreamEvent, Usage};

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
        let block = self
            .blocks
            .iter()
            .rev()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| *b);
        let d = v.get("delta").unwrap_or(&Value::Null);
        match (str_field(d, "type"), block) {
            (_, Some(Block::Other)) => {}
            (Some("text_delta"), _) => push_text(out, str_field(d, "text"), StreamEvent::TextDelta),
            (Some("thinking_delta"), _) => {
                push_text(out, str_field(d, "thinking"), StreamEvent::ThinkingDelta);
            }
            (Some("signature_delta"), _) => {
                push_text(
                    out,
                    str_field(d, "signature"),
                    StreamEvent::ThinkingSignature,
                );
            }
            (Some("input_json_delta"), Some(Block::Tool(n))) => {
                if let Some(j) = str_field(d, "partial_json").filter(|j| !j.is_empty()) {
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

/// Pushes `make(text)` when `text` is a non-empty string.
fn push_text(out: &mut Vec<StreamEvent>, text: Option<&str>, make: fn(String) -> StreamEvent) {
    if let Some(t) = text.filter(|t| !t.is_empty()) {
        out.push(make(t.to_owned()));
    }
}
