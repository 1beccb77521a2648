//! Provider side: a Cohere v2 Chat answer decoded to an IR answer, and the pieces the stream
//! decoder shares (errors, finish reasons, usage).

use serde_json::Value;

use crate::ParseError;
use crate::ir::{Part, Response, StopReason, Usage};

/// The message of a Cohere error body (`{"id": …, "message": "invalid request: …"}`), or of
/// an `{"error": …}` body some proxies send. An answer (it has `finish_reason` or a
/// `message` object) is not an error.
pub fn error_message(v: &Value) -> Option<String> {
    if v.get("finish_reason").is_some() {
        return None;
    }
    if let Some(Value::String(m)) = v.get("message") {
        return Some(m.clone());
    }
    match v.get("error")? {
        Value::String(s) => Some(s.clone()),
        e => e
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| Some(e.to_string())),
    }
}

/// Decodes an answer: `message.content` (`text` parts → text, `thinking` parts →
/// thinking), `message.tool_plan` (→ thinking, first), `message.tool_calls`,
/// `finish_reason` (see [`stop_reason`]) and `usage` (see [`usage_of`]). v2 answers carry
/// no model: `model` is empty. An error body is `Err(Invalid(message))`.
pub fn decode_response(v: &Value) -> Result<Response, ParseError> {
    if let Some(msg) = error_message(v) {
        return Err(ParseError::Invalid(msg));
    }
    let Some(m) = v.get("message").filter(|m| m.is_object()) else {
        return Err(ParseError::Invalid(
            "Cohere answer has no `message` object".into(),
        ));
    };
    let mut content = Vec::new();
    if let Some(plan) = str_field(m, "tool_plan") {
        content.push(Part::Thinking {
            text: plan.to_owned(),
            signature: None,
        });
    }
    if let Some(Value::Array(parts)) = m.get("content") {
        for p in parts {
            match str_field(p, "type") {
                Some("thinking") => {
                    if let Some(t) = str_field(p, "thinking") {
                        content.push(Part::Thinking {
                            text: t.to_owned(),
                            signature: None,
                        });
                    }
                }
                _ => {
                    if let Some(t) = str_field(p, "text") {
                        content.push(Part::Text(t.to_owned()));
                    }
                }
            }
        }
    } else if let Some(t) = str_field(m, "content") {
        content.push(Part::Text(t.to_owned()));
    }
    if let Some(Value::Array(calls)) = m.get("tool_calls") {
        for (i, c) in calls.iter().enumerate() {
            let f = c.get("function").unwrap_or(&Value::Null);
            content.push(Part::ToolCall {
                id: str_field(c, "id")
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("call_{i}")),
                name: str_field(f, "name").unwrap_or_default().to_owned(),
                arguments: arguments_text(f.get("arguments")),
            });
        }
    }
    let has_calls = content.iter().any(|p| matches!(p, Part::ToolCall { .. }));
    Ok(Response {
        id: str_field(v, "id").unwrap_or_default().to_owned(),
        model: String::new(),
        content,
        stop: stop_reason(str_field(v, "finish_reason").unwrap_or(""), has_calls),
        usage: v.get("usage").and_then(usage_of),
    })
}

/// A non-empty string field.
pub(super) fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Arguments as JSON text: a string as given (empty → `{}`), an object serialised.
pub(super) fn arguments_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(o @ Value::Object(_)) => o.to_string(),
        _ => "{}".to_owned(),
    }
}

/// `COMPLETE` ends the turn (a tool use after tool calls), `STOP_SEQUENCE`, `MAX_TOKENS`,
/// `TOOL_CALL`, `ERROR_TOXIC` (v1) → content filter; `ERROR`, `TIMEOUT` and unknown
/// reasons end the turn.
pub fn stop_reason(finish_reason: &str, has_calls: bool) -> StopReason {
    match finish_reason {
        "MAX_TOKENS" => StopReason::MaxTokens,
        "STOP_SEQUENCE" => StopReason::StopSequence,
        "TOOL_CALL" => StopReason::ToolUse,
        "ERROR_TOXIC" => StopReason::ContentFilter,
        _ if has_calls => StopReason::ToolUse,
        _ => StopReason::EndTurn,
    }
}

/// A `usage` object: `billed_units` (what Cohere charges: the prompt without its chat
/// template) when present, else `tokens` (everything the model read and wrote);
/// `cached_tokens` (newer models) as cache reads, at most the input.
pub fn usage_of(u: &Value) -> Option<Usage> {
    let counts = u
        .get("billed_units")
        .filter(|b| b.is_object())
        .or_else(|| u.get("tokens").filter(|t| t.is_object()))?;
    let n = |k: &str| {
        counts
            .get(k)
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
            .max(0.0) as i64
    };
    let input = n("input_tokens");
    let cached = u
        .get("cached_tokens")
        .and_then(Value::as_f64)
        .unwrap_or(0.0)
        .max(0.0) as i64;
    Some(Usage {
        input_tokens: input,
        output_tokens: n("output_tokens"),
        cache_read_tokens: cached.min(input),
        ..Usage::default()
    })
}
