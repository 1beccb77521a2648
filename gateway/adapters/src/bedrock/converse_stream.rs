//! ConverseStream events (as [`super::EventStreamToSse`] wraps them:
//! `{"<eventType>": <payload>}` per `data:` payload) decoded to IR stream events.

use serde_json::Value;

use super::converse_response::{stop_reason, usage};
use crate::ParseError;
use crate::ir::{StreamEvent, Usage};

/// Per-request state turning ConverseStream events into IR events.
///
/// `messageStart` gives `Start` (empty id and model: Converse sends neither);
/// `contentBlockStart` with `toolUse` gives `ToolCallStart` (tool calls numbered from 0);
/// `contentBlockDelta` gives `TextDelta`, `ToolCallDelta` (`toolUse.input` fragments),
/// `ThinkingDelta` / `ThinkingSignature` (`reasoningContent.text` / `.signature`;
/// `redactedContent` has no IR stream event and is dropped); `messageStop` gives `Finish`;
/// `metadata` gives `Usage`. `contentBlockStop` and unknown events give nothing. An
/// exception (a member named `…Exception`) is an `Err` with its message.
#[derive(Debug, Default)]
pub struct StreamDecoder {
    /// Tool calls by Converse content block index (a short list).
    tools: Vec<(u64, usize)>,
    next_tool: usize,
    usage: Option<Usage>,
}

impl StreamDecoder {
    pub fn new() -> Self {
        StreamDecoder::default()
    }

    /// Decodes one `data:` payload, appending IR events to `out`.
    pub fn decode(&mut self, data: &str, out: &mut Vec<StreamEvent>) -> Result<(), ParseError> {
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let v: Value =
            serde_json::from_str(data).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
        let Some(obj) = v.as_object() else {
            return Err(ParseError::Invalid(
                "a ConverseStream event must be a JSON object".into(),
            ));
        };
        for (name, ev) in obj {
            match name.as_str() {
                "messageStart" => out.push(StreamEvent::Start {
                    id: String::new(),
                    model: String::new(),
                }),
                "contentBlockStart" => self.block_start(ev, out),
                "contentBlockDelta" => self.block_delta(ev, out),
                "messageStop" => out.push(StreamEvent::Finish(
                    ev.get("stopReason")
                        .and_then(Value::as_str)
                        .map_or(Default::default(), stop_reason),
                )),
                "metadata" => {
                    if let Some(u) = ev.get("usage").filter(|u| u.is_object()) {
                        let u = usage(u);
                        self.usage = Some(u);
                        out.push(StreamEvent::Usage(u));
                    }
                }
                n if n.ends_with("Exception") || n.ends_with("exception") => {
                    let msg = ev
                        .get("message")
                        .or_else(|| ev.get("Message"))
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    return Err(ParseError::Invalid(format!("{n}: {msg}")));
                }
                // contentBlockStop and events added later.
                _ => {}
            }
        }
        Ok(())
    }

    /// The usage of the `metadata` event, once seen.
    pub fn usage(&self) -> Option<Usage> {
        self.usage
    }

    fn block_start(&mut self, ev: &Value, out: &mut Vec<StreamEvent>) {
        let index = ev
            .get("contentBlockIndex")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let Some(t) = ev.get("start").and_then(|s| s.get("toolUse")) else {
            return;
        };
        let n = self.next_tool;
        self.next_tool += 1;
        self.tools.push((index, n));
        let s = |k: &str| {
            t.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        out.push(StreamEvent::ToolCallStart {
            index: n,
            id: s("toolUseId"),
            name: s("name"),
        });
    }

    fn block_delta(&mut self, ev: &Value, out: &mut Vec<StreamEvent>) {
        let index = ev
            .get("contentBlockIndex")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let Some(d) = ev.get("delta") else { return };
        let text = |v: &Value, k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
        };
        if let Some(t) = text(d, "text") {
            out.push(StreamEvent::TextDelta(t));
        } else if let Some(tu) = d.get("toolUse") {
            let tool = self.tools.iter().rev().find(|(i, _)| *i == index);
            if let (Some((_, n)), Some(input)) = (tool, text(tu, "input")) {
                out.push(StreamEvent::ToolCallDelta {
                    index: *n,
                    arguments: input,
                });
            }
        } else if let Some(r) = d.get("reasoningContent") {
            if let Some(t) = text(r, "text") {
                out.push(StreamEvent::ThinkingDelta(t));
            }
            if let Some(s) = text(r, "signature") {
                out.push(StreamEvent::ThinkingSignature(s));
            }
        }
    }
}
