//! Encodes a complete IR answer as a Responses API `Response` object, and the pieces of
//! it (ids, output items, usage) that the stream encoder shares.

use serde_json::{Value, json};

use crate::ir::{self, Part, StopReason, Usage};

/// The Responses id for an upstream answer id: kept when it already is one, else prefixed;
/// derived from `created_at` when the upstream sent none.
pub(super) fn response_id(upstream: &str, created_at: i64) -> String {
    if upstream.is_empty() {
        format!("resp_{created_at}")
    } else if upstream.starts_with("resp_") {
        upstream.to_owned()
    } else {
        format!("resp_{upstream}")
    }
}

/// The id of output item `index` of response `response_id` (`prefix` is `msg`, `rs` or `fc`).
pub(super) fn item_id(response_id: &str, prefix: &str, index: usize) -> String {
    let core = response_id.strip_prefix("resp_").unwrap_or(response_id);
    format!("{prefix}_{core}_{index}")
}

/// How an answer ended, as the Responses API says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    InProgress,
    Completed,
    /// Cut short; the reason is `max_output_tokens`, `content_filter` or unknown (`None`).
    Incomplete(Option<&'static str>),
}

impl Status {
    /// The final status for a stop reason (`None`: the upstream never said why it stopped).
    pub(super) fn of(stop: Option<StopReason>) -> Status {
        match stop {
            Some(StopReason::MaxTokens) => Status::Incomplete(Some("max_output_tokens")),
            Some(StopReason::ContentFilter) => Status::Incomplete(Some("content_filter")),
            Some(StopReason::EndTurn | StopReason::StopSequence | StopReason::ToolUse) => {
                Status::Completed
            }
            None => Status::Incomplete(None),
        }
    }

    /// The `status` field of the response.
    pub(super) fn name(self) -> &'static str {
        match self {
            Status::InProgress => "in_progress",
            Status::Completed => "completed",
            Status::Incomplete(_) => "incomplete",
        }
    }

    /// The `status` of the last output item once the answer ended this way.
    pub(super) fn last_item(self) -> &'static str {
        match self {
            Status::Incomplete(_) => "incomplete",
            Status::InProgress | Status::Completed => "completed",
        }
    }
}

/// An `output_text` content part.
pub(super) fn output_text(text: &str) -> Value {
    json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
}

/// A `summary_text` part of a reasoning item.
pub(super) fn summary_text(text: &str) -> Value {
    json!({"type": "summary_text", "text": text})
}

/// An assistant `message` output item.
pub(super) fn message_item(id: &str, status: &str, content: Vec<Value>) -> Value {
    json!({
        "id": id,
        "type": "message",
        "role": "assistant",
        "status": status,
        "content": content,
    })
}

/// A `reasoning` output item: the thinking text as its one summary part (none when empty)
/// and the signature or encrypted reasoning as `encrypted_content`.
pub(super) fn reasoning_item(id: &str, text: &str, encrypted: Option<&str>) -> Value {
    let summary = if text.is_empty() {
        Vec::new()
    } else {
        vec![summary_text(text)]
    };
    let mut item = json!({"id": id, "type": "reasoning", "summary": summary});
    if let (Some(enc), Value::Object(map)) = (encrypted, &mut item) {
        map.insert("encrypted_content".into(), Value::String(enc.to_owned()));
    }
    item
}

/// A `function_call` output item.
pub(super) fn function_call_item(
    id: &str,
    call_id: &str,
    name: &str,
    arguments: &str,
    status: &str,
) -> Value {
    json!({
        "id": id,
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
    })
}

/// The `usage` object.
pub(super) fn usage_json(u: &Usage) -> Value {
    json!({
        "input_tokens": u.input_tokens,
        "input_tokens_details": {"cached_tokens": u.cache_read_tokens},
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
        "total_tokens": u.input_tokens.saturating_add(u.output_tokens),
    })
}

/// A whole `response` object. Request settings the IR answer does not carry get the API's
/// defaults (no tools echoed, `tool_choice` `auto`); sampling settings are `null`.
pub(super) fn response_object(
    id: &str,
    created_at: i64,
    model: &str,
    status: Status,
    output: Vec<Value>,
    usage: Option<&Usage>,
) -> Value {
    let incomplete_details = match status {
        Status::Incomplete(Some(reason)) => json!({"reason": reason}),
        _ => Value::Null,
    };
    json!({
        "id": id,
        "object": "response",
        "created_at": created_at,
        "status": status.name(),
        "background": false,
        "error": null,
        "incomplete_details": incomplete_details,
        "instructions": null,
        "max_output_tokens": null,
        "metadata": {},
        "model": model,
        "output": output,
        "parallel_tool_calls": true,
        "previous_response_id": null,
        "reasoning": null,
        "store": false,
        "temperature": null,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": null,
        "truncation": "disabled",
        "usage": usage.map(usage_json),
        "user": null,
    })
}

/// Encodes a complete answer as a `Response` object created at `created_at` (epoch seconds).
///
/// Consecutive text parts become one `message` item (one `output_text` part each), each
/// thinking part a `reasoning` item, each tool call a `function_call` item; images and tool
/// results in an answer have no Responses form and are left out. Item ids derive from the
/// response id and the item's position.
pub fn encode_response(r: &ir::Response, created_at: i64) -> Value {
    let id = response_id(&r.id, created_at);
    let status = Status::of(Some(r.stop));
    let mut output: Vec<Value> = Vec::new();
    let mut texts: Vec<Value> = Vec::new();
    for part in &r.content {
        match part {
            Part::Text(t) => {
                texts.push(output_text(t));
                continue;
            }
            Part::Image(_) | Part::ToolResult { .. } => continue,
            Part::Thinking { .. } | Part::RedactedThinking(_) | Part::ToolCall { .. } => {}
        }
        flush_message(&id, &mut texts, &mut output);
        let index = output.len();
        let item = match part {
            Part::Thinking { text, signature } => {
                reasoning_item(&item_id(&id, "rs", index), text, signature.as_deref())
            }
            Part::RedactedThinking(data) => {
                reasoning_item(&item_id(&id, "rs", index), "", Some(data))
            }
            Part::ToolCall {
                id: call_id,
                name,
                arguments,
            } => function_call_item(
                &item_id(&id, "fc", index),
                call_id,
                name,
                arguments,
                "completed",
            ),
            Part::Text(_) | Part::Image(_) | Part::ToolResult { .. } => continue,
        };
        output.push(item);
    }
    flush_message(&id, &mut texts, &mut output);
    if let (Status::Incomplete(_), Some(Value::Object(last))) = (status, output.last_mut())
        && last.contains_key("status")
    {
        last.insert("status".into(), Value::String(status.last_item().into()));
    }
    response_object(&id, created_at, &r.model, status, output, r.usage.as_ref())
}

/// Appends the pending text parts as one message item.
fn flush_message(id: &str, texts: &mut Vec<Value>, output: &mut Vec<Value>) {
    if texts.is_empty() {
        return;
    }
    let item_id = item_id(id, "msg", output.len());
    output.push(message_item(&item_id, "completed", std::mem::take(texts)));
}
