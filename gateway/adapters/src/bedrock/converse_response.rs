//! Converse answer → IR answer; stop reasons and usage shared with the stream decoder;
//! Bedrock error bodies.

use serde_json::Value;

use crate::ParseError;
use crate::ir::{Part, Response, StopReason, Usage};

/// Decodes a Converse answer: `output.message.content` blocks (text, `toolUse` with its
/// input kept as JSON text, `reasoningContent` as thinking with its signature or as redacted
/// thinking), `stopReason`, `usage`. Converse answers carry no id or model: both are empty.
/// An error body (`{"message": …}` without `output`) is an `Err` with its message.
pub fn decode_response(v: &Value) -> Result<Response, ParseError> {
    let Some(output) = v.get("output") else {
        let msg =
            error_message(v).unwrap_or_else(|| "the Converse answer has no `output`".to_owned());
        return Err(ParseError::Invalid(msg));
    };
    let blocks = output
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .ok_or_else(|| {
            ParseError::Invalid("the Converse answer has no `output.message.content`".into())
        })?;
    let mut content = Vec::with_capacity(blocks.len());
    for b in blocks {
        if let Some(t) = b.get("text").and_then(Value::as_str) {
            if !t.is_empty() {
                content.push(Part::Text(t.to_owned()));
            }
        } else if let Some(t) = b.get("toolUse") {
            content.push(Part::ToolCall {
                id: str_of(t, "toolUseId").to_owned(),
                name: str_of(t, "name").to_owned(),
                arguments: match t.get("input") {
                    None | Some(Value::Null) => "{}".to_owned(),
                    Some(input) => input.to_string(),
                },
            });
        } else if let Some(r) = b.get("reasoningContent") {
            if let Some(rt) = r.get("reasoningText") {
                content.push(Part::Thinking {
                    text: str_of(rt, "text").to_owned(),
                    signature: rt
                        .get("signature")
                        .and_then(Value::as_str)
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned),
                });
            } else if let Some(d) = r.get("redactedContent").and_then(Value::as_str) {
                content.push(Part::RedactedThinking(d.to_owned()));
            }
        }
        // Images, documents, guardrail and citation blocks have no IR part here.
    }
    Ok(Response {
        id: String::new(),
        model: String::new(),
        content,
        stop: v
            .get("stopReason")
            .and_then(Value::as_str)
            .map_or(StopReason::EndTurn, stop_reason),
        usage: v.get("usage").filter(|u| u.is_object()).map(usage),
    })
}

/// The message of a Bedrock error body (`message`, or `Message` as some errors spell it),
/// prefixed by its `__type` when given; `None` for anything else.
pub fn error_message(v: &Value) -> Option<String> {
    let msg = v
        .get("message")
        .or_else(|| v.get("Message"))
        .and_then(Value::as_str)?;
    Some(match v.get("__type").and_then(Value::as_str) {
        Some(t) if !t.is_empty() => format!("{}: {msg}", t.rsplit('#').next().unwrap_or(t)),
        _ => msg.to_owned(),
    })
}

/// The IR stop of a Converse `stopReason`: guardrails and content filters are
/// `ContentFilter`, a full context window `MaxTokens`, unknown reasons `EndTurn`.
pub(super) fn stop_reason(name: &str) -> StopReason {
    match name {
        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        "tool_use" => StopReason::ToolUse,
        "guardrail_intervened" | "content_filtered" => StopReason::ContentFilter,
        _ => StopReason::EndTurn,
    }
}

/// IR usage of a Converse `usage`: Bedrock's `inputTokens` leaves out the cache reads and
/// writes (as Anthropic's does), so the IR input is their sum; `cacheReadInputTokens` and
/// `cacheWriteInputTokens` are the IR cache read and creation counts.
pub(super) fn usage(u: &Value) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_i64).unwrap_or(0).max(0);
    let (read, write) = (n("cacheReadInputTokens"), n("cacheWriteInputTokens"));
    Usage {
        input_tokens: n("inputTokens").saturating_add(read).saturating_add(write),
        output_tokens: n("outputTokens"),
        cache_read_tokens: read,
        cache_creation_tokens: write,
        reasoning_tokens: 0,
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}
