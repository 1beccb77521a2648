//! Provider side: an Anthropic `message` answer decoded to an IR answer.

use serde_json::Value;

use super::error::error_message;
use super::wire::{WireUsage, signature, stop_reason_of, str_field};
use crate::ParseError;
use crate::ir::{Part, Response, StopReason};

/// Decodes a Messages API answer: text, thinking, redacted thinking and tool_use blocks
/// (tool input kept as JSON text); server tool blocks and citations are dropped. Usage
/// `input_tokens` counts cache reads and writes too. An `{"type":"error"}` body is an
/// `Err` with its message.
pub fn decode_response(v: &Value) -> Result<Response, ParseError> {
    if let Some(msg) = error_message(v) {
        return Err(ParseError::Invalid(msg));
    }
    let Some(blocks) = v.get("content").and_then(Value::as_array) else {
        return Err(ParseError::Invalid(
            "the Anthropic answer has no `content` array".to_owned(),
        ));
    };
    let mut content = Vec::with_capacity(blocks.len());
    for b in blocks {
        match str_field(b, "type") {
            Some("text") => {
                if let Some(t) = str_field(b, "text").filter(|t| !t.is_empty()) {
                    content.push(Part::Text(t.to_owned()));
                }
            }
            Some("thinking") => content.push(Part::Thinking {
                text: str_field(b, "thinking").unwrap_or_default().to_owned(),
                signature: signature(b),
            }),
            Some("redacted_thinking") => {
                if let Some(d) = str_field(b, "data") {
                    content.push(Part::RedactedThinking(d.to_owned()));
                }
            }
            Some("tool_use") => content.push(Part::ToolCall {
                id: str_field(b, "id").unwrap_or_default().to_owned(),
                name: str_field(b, "name").unwrap_or_default().to_owned(),
                arguments: match b.get("input") {
                    None | Some(Value::Null) => "{}".to_owned(),
                    Some(input) => input.to_string(),
                },
            }),
            _ => {}
        }
    }
    let usage = v.get("usage").filter(|u| u.is_object()).map(|u| {
        let mut w = WireUsage::default();
        w.merge(u);
        w.to_ir()
    });
    Ok(Response {
        id: str_field(v, "id").unwrap_or_default().to_owned(),
        model: str_field(v, "model").unwrap_or_default().to_owned(),
        content,
        stop: str_field(v, "stop_reason").map_or(StopReason::EndTurn, stop_reason_of),
        usage,
    })
}
