//! Provider side: an Anthropic `message` answer decoded to an IR answer, from its value tree
//! or, for the common shape, straight from its bytes.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::error::error_message;
use super::wire::{WireUsage, signature, stop_reason_of, str_field};
use crate::ParseError;
use crate::ir::{Part, Response, StopReason};
use crate::loose::{Loose, Object};

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

/// [`decode_response`] of the answer's bytes without building its value tree, for the common
/// shape: a `message` whose blocks are text, thinking and redacted thinking. Anything else
/// (an error, a tool call, a field of an unexpected kind, a repeated field, bytes that are
/// not JSON) is `None`, and the caller decodes the value tree. When it is `Some`, the answer
/// is what [`decode_response`] makes of the same bytes.
pub fn decode_response_bytes(bytes: &[u8]) -> Option<Response> {
    let Object(m) = serde_json::from_slice::<Object<WireMessage>>(bytes).ok()?;
    if m.kind.as_deref() == Some("error") || m.error.is_some() {
        return None;
    }
    let mut content = Vec::with_capacity(m.content.len());
    for Object(b) in m.content {
        match b.kind.as_deref() {
            Some("text") => {
                if let Some(t) = b.text.filter(|t| !t.is_empty()) {
                    content.push(Part::Text(t));
                }
            }
            Some("thinking") => content.push(Part::Thinking {
                text: b.thinking.unwrap_or_default(),
                signature: b.signature.filter(|s| !s.is_empty()),
            }),
            Some("redacted_thinking") => {
                if let Some(d) = b.data {
                    content.push(Part::RedactedThinking(d));
                }
            }
            // Its input is written again from the value tree.
            Some("tool_use") => return None,
            _ => {}
        }
    }
    let usage = m.usage.map(|Object(u)| {
        WireUsage {
            input: u.input_tokens.int().max(0),
            output: u.output_tokens.int().max(0),
            cache_read: u.cache_read_input_tokens.int().max(0),
            cache_creation: u.cache_creation_input_tokens.int().max(0),
        }
        .to_ir()
    });
    Some(Response {
        id: m.id.unwrap_or_default(),
        model: m.model.unwrap_or_default(),
        content,
        stop: m
            .stop_reason
            .as_deref()
            .map_or(StopReason::EndTurn, stop_reason_of),
        usage,
    })
}

/// The fields of a `message` [`decode_response_bytes`] reads; the others are checked as JSON
/// and skipped.
#[derive(Deserialize)]
struct WireMessage {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    error: Option<IgnoredAny>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    content: Vec<Object<WireBlock>>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    usage: Option<Object<WireCounts>>,
}

/// A content block's fields, whatever its type.
#[derive(Deserialize)]
struct WireBlock {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    signature: Option<String>,
    #[serde(default)]
    data: Option<String>,
}

/// A `usage` object's counts, each read as `Value::as_i64` reads it.
#[derive(Deserialize)]
struct WireCounts {
    #[serde(default)]
    input_tokens: Loose,
    #[serde(default)]
    output_tokens: Loose,
    #[serde(default)]
    cache_read_input_tokens: Loose,
    #[serde(default)]
    cache_creation_input_tokens: Loose,
}
