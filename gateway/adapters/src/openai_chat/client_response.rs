//! Client side: an IR answer encoded as a `chat.completion` object.

use serde_json::{Value, json};

use super::wire::{completion_id, finish_reason, usage_json};
use crate::ir::{Part, Response};

/// Encodes a complete answer. The crate has no clock, so `created` (Unix seconds) is the
/// caller's. The id gets a `chatcmpl-` prefix when it has none. Text parts are joined into
/// `content` (`null` without text), thinking into `reasoning_content` (omitted without
/// thinking), tool calls into `tool_calls`; redacted thinking is dropped. `usage` is
/// omitted when the answer has none (the caller fills in a local count first).
pub fn encode_response(r: &Response, created: i64) -> Value {
    let mut text: Option<String> = None;
    let mut thinking: Option<String> = None;
    let mut calls = Vec::new();
    for p in &r.content {
        match p {
            Part::Text(t) => text.get_or_insert_with(String::new).push_str(t),
            Part::Thinking { text: t, .. } => thinking.get_or_insert_with(String::new).push_str(t),
            Part::ToolCall {
                id,
                name,
                arguments,
            } => {
                let id = if id.is_empty() {
                    format!("call_{}", calls.len())
                } else {
                    id.clone()
                };
                calls.push(json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }));
            }
            Part::Image(_) | Part::RedactedThinking(_) | Part::ToolResult { .. } => {}
        }
    }
    let finish = finish_reason(r.stop, !calls.is_empty());
    let mut message = json!({"role": "assistant", "content": text});
    if let Some(t) = thinking {
        message["reasoning_content"] = Value::String(t);
    }
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    let mut out = json!({
        "id": completion_id(&r.id, created),
        "object": "chat.completion",
        "created": created,
        "model": r.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    });
    if let Some(u) = &r.usage {
        out["usage"] = usage_json(u);
    }
    out
}
