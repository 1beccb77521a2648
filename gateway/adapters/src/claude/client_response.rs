//! Client side: an IR answer encoded as an Anthropic `message` object.

use serde_json::{Map, Value, json};

use super::wire::{WireUsage, message_id, stop_reason_name};
use crate::ir::{Part, Response, StopReason};

/// Encodes an answer as a Messages API `message`: text, thinking, redacted thinking and
/// tool_use blocks in order (tool arguments parsed back to an object, `{}` when they are
/// not a JSON object), the stop reason (`tool_use` rather than `end_turn` when tools were
/// called: Anthropic clients run tools on it), and usage with `input_tokens` excluding cached
/// tokens as Anthropic counts them (all zeros when the provider sent none).
pub fn encode_response(r: &Response) -> Value {
    let content: Vec<Value> = r.content.iter().filter_map(block).collect();
    let usage = r.usage.as_ref().map(WireUsage::of).unwrap_or_default();
    let called = r.content.iter().any(|p| matches!(p, Part::ToolCall { .. }));
    let stop = match r.stop {
        StopReason::EndTurn if called => StopReason::ToolUse,
        s => s,
    };
    json!({
        "id": message_id(&r.id, &r.output_text()),
        "type": "message",
        "role": "assistant",
        "model": r.model,
        "content": content,
        "stop_reason": stop_reason_name(stop),
        "stop_sequence": null,
        "usage": usage.to_json(),
    })
}

/// The block of an answer part; tool results and images (not produced by models) are
/// skipped, as is empty text.
fn block(p: &Part) -> Option<Value> {
    match p {
        Part::Text(t) if t.is_empty() => None,
        Part::Text(t) => Some(json!({ "type": "text", "text": t })),
        Part::Thinking { text, signature } => Some(json!({
            "type": "thinking",
            "thinking": text,
            "signature": signature.as_deref().unwrap_or(""),
        })),
        Part::RedactedThinking(data) => Some(json!({ "type": "redacted_thinking", "data": data })),
        Part::ToolCall {
            id,
            name,
            arguments,
        } => Some(json!({
            "type": "tool_use",
            "id": id,
            "name": name,
            "input": arguments_object(arguments),
        })),
        Part::Image(_) | Part::ToolResult { .. } => None,
    }
}

/// Tool arguments (JSON text) as the object Anthropic sends; `{}` when they are empty,
/// unparsable or not an object.
pub(super) fn arguments_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ => Value::Object(Map::new()),
    }
}

/// The answer to `POST /v1/messages/count_tokens`: `{"input_tokens": n}`.
pub fn count_tokens_body(input_tokens: i64) -> Value {
    json!({ "input_tokens": input_tokens })
}
