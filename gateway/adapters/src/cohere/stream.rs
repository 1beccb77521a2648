//! Provider side: the data payloads of a Cohere v2 Chat SSE stream decoded to IR events
//! (each payload's `type` repeats its SSE event name, so event names are not needed).

use serde_json::Value;

use super::response::{error_message, stop_reason, str_field, usage_of};
use crate::ParseError;
use crate::ir::StreamEvent;

/// Per-request state turning Cohere stream payloads into IR events.
///
/// `message-start` gives `Start` (its `id`; v2 names no model); `content-start` /
/// `content-delta` give `TextDelta` (`…content.text`) or `ThinkingDelta`
/// (`…content.thinking`); `tool-plan-delta` gives `ThinkingDelta`; `tool-call-start` gives
/// `ToolCallStart` (and a `ToolCallDelta` when it carries arguments), `tool-call-delta`
/// `ToolCallDelta` for the call of its `index`; `message-end` gives `Finish` then `Usage`.
/// `content-end`, `tool-call-end`, citations, `debug` and unknown events give nothing; an
/// error payload is `Err(Invalid(message))`.
#[derive(Debug, Default)]
pub struct StreamDecoder {
    /// Upstream `index` of each tool call, in our order.
    calls: Vec<u64>,
    finished: bool,
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
        let kind = str_field(&v, "type");
        if kind.is_none()
            && let Some(msg) = error_message(&v)
        {
            return Err(ParseError::Invalid(msg));
        }
        let message = v.pointer("/delta/message").unwrap_or(&Value::Null);
        match kind {
            Some("message-start") => out.push(StreamEvent::Start {
                id: str_field(&v, "id").unwrap_or_default().to_owned(),
                model: String::new(),
            }),
            Some("content-start" | "content-delta") => {
                let c = message.get("content").unwrap_or(&Value::Null);
                if let Some(t) = str_field(c, "thinking") {
                    out.push(StreamEvent::ThinkingDelta(t.to_owned()));
                } else if let Some(t) = str_field(c, "text") {
                    out.push(StreamEvent::TextDelta(t.to_owned()));
                }
            }
            Some("tool-plan-delta") => {
                if let Some(t) = str_field(message, "tool_plan") {
                    out.push(StreamEvent::ThinkingDelta(t.to_owned()));
                }
            }
            Some("tool-call-start") => {
                let call = message.get("tool_calls").unwrap_or(&Value::Null);
                let f = call.get("function").unwrap_or(&Value::Null);
                let index = self.calls.len();
                self.calls.push(upstream_index(&v, index));
                out.push(StreamEvent::ToolCallStart {
                    index,
                    id: str_field(call, "id")
                        .map_or_else(|| format!("call_{index}"), str::to_owned),
                    name: str_field(f, "name").unwrap_or_default().to_owned(),
                });
                if let Some(a) = str_field(f, "arguments") {
                    out.push(StreamEvent::ToolCallDelta {
                        index,
                        arguments: a.to_owned(),
                    });
                }
            }
            Some("tool-call-delta") => {
                let upstream = upstream_index(&v, self.calls.len().saturating_sub(1));
                let arguments = message
                    .pointer("/tool_calls/function/arguments")
                    .and_then(Value::as_str)
                    .filter(|a| !a.is_empty());
                if let (Some(index), Some(a)) =
                    (self.calls.iter().rposition(|u| *u == upstream), arguments)
                {
                    out.push(StreamEvent::ToolCallDelta {
                        index,
                        arguments: a.to_owned(),
                    });
                }
            }
            Some("message-end") => {
                let delta = v.get("delta").unwrap_or(&Value::Null);
                if !self.finished {
                    self.finished = true;
                    let reason = str_field(delta, "finish_reason").unwrap_or("");
                    out.push(StreamEvent::Finish(stop_reason(
                        reason,
                        !self.calls.is_empty(),
                    )));
                }
                if let Some(u) = delta.get("usage").and_then(usage_of) {
                    out.push(StreamEvent::Usage(u));
                }
            }
            // content-end, tool-call-end, citation-start/end, debug and later events.
            _ => {}
        }
        Ok(())
    }
}

/// The event's `index`, or `default` when it has none.
fn upstream_index(v: &Value, default: usize) -> u64 {
    v.get("index")
        .and_then(Value::as_u64)
        .unwrap_or(default as u64)
}
