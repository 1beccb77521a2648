//! Provider side: an Ollama `/api/chat` answer decoded to an IR answer, and the pieces the
//! stream decoder shares (error objects, tool calls, stop reasons, usage).

use serde_json::Value;

use crate::ParseError;
use crate::ir::{Part, Response, StopReason, Usage};

/// The message of an Ollama error object (`{"error": "…"}`; some proxies send
/// `{"error": {"message": …}}`).
pub fn error_message(v: &Value) -> Option<String> {
    match v.get("error")? {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => Some(
            o.get("message")
                .and_then(Value::as_str)
                .unwrap_or("upstream error")
                .to_owned(),
        ),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Decodes a complete answer: `message.thinking` (a thinking part, first),
/// `message.content` (text), `message.tool_calls` (tool calls; ids are Ollama's when it
/// sends them, else `call_{digits of created_at}_{n}`), `done_reason` (`length` →
/// `MaxTokens`, others end the turn, `ToolUse` after tool calls), and usage from
/// `prompt_eval_count` (input; Ollama leaves it out when the whole prompt came from its
/// cache) and `eval_count` (output). An error object is `Err(Invalid(message))`.
pub fn decode_response(v: &Value) -> Result<Response, ParseError> {
    if let Some(msg) = error_message(v) {
        return Err(ParseError::Invalid(msg));
    }
    if !v.is_object() {
        return Err(ParseError::Invalid(
            "Ollama answer must be a JSON object".into(),
        ));
    }
    let mut content = Vec::new();
    let prefix = call_prefix(v);
    if let Some(m) = v.get("message").filter(|m| m.is_object()) {
        if let Some(t) = str_field(m, "thinking") {
            content.push(Part::Thinking {
                text: t.to_owned(),
                signature: None,
            });
        }
        if let Some(t) = str_field(m, "content") {
            content.push(Part::Text(t.to_owned()));
        }
        for (id, name, arguments) in tool_calls(m, &prefix, 0) {
            content.push(Part::ToolCall {
                id,
                name,
                arguments,
            });
        }
    }
    let has_calls = content.iter().any(|p| matches!(p, Part::ToolCall { .. }));
    Ok(Response {
        id: String::new(),
        model: str_field(v, "model").unwrap_or_default().to_owned(),
        content,
        stop: stop_reason(str_field(v, "done_reason").unwrap_or(""), has_calls),
        usage: usage_of(v),
    })
}

/// A non-empty string field.
pub(super) fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// `length` → `MaxTokens`; `stop`, `load`, `unload` and the rest end the turn (a tool use
/// when the answer called tools).
pub(super) fn stop_reason(done_reason: &str, has_calls: bool) -> StopReason {
    match done_reason {
        "length" => StopReason::MaxTokens,
        _ if has_calls => StopReason::ToolUse,
        _ => StopReason::EndTurn,
    }
}

/// Usage of a final object: `prompt_eval_count` and `eval_count` (either may be missing;
/// `None` when both are).
pub(super) fn usage_of(v: &Value) -> Option<Usage> {
    let input = v.get("prompt_eval_count").and_then(Value::as_i64);
    let output = v.get("eval_count").and_then(Value::as_i64);
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(Usage {
        input_tokens: input.unwrap_or(0).max(0),
        output_tokens: output.unwrap_or(0).max(0),
        ..Usage::default()
    })
}

/// `call_{digits of created_at}_`: ids unique per answer when Ollama sends none.
pub(super) fn call_prefix(v: &Value) -> String {
    let digits: String = str_field(v, "created_at")
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    if digits.is_empty() {
        "call_".to_owned()
    } else {
        format!("call_{digits}_")
    }
}

/// The `tool_calls` of `message` as (id, name, arguments JSON text); calls without an id
/// are numbered from `first`.
pub(super) fn tool_calls(
    message: &Value,
    prefix: &str,
    first: usize,
) -> Vec<(String, String, String)> {
    let Some(Value::Array(calls)) = message.get("tool_calls") else {
        return Vec::new();
    };
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let f = c.get("function").unwrap_or(&Value::Null);
            let id = str_field(c, "id")
                .map(str::to_owned)
                .unwrap_or_else(|| format!("{prefix}{}", first + i));
            let arguments = match f.get("arguments") {
                Some(a @ Value::Object(_)) => a.to_string(),
                Some(Value::String(s)) if !s.is_empty() => s.clone(),
                _ => "{}".to_owned(),
            };
            let name = str_field(f, "name").unwrap_or_default().to_owned();
            (id, name, arguments)
        })
        .collect()
}
