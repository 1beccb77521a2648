//! Provider side: a `chat.completion` answer decoded to an IR response.

use serde_json::Value;

use super::error::upstream_error;
use super::wire::{arguments_text, content_text, stop_reason, str_field, usage_of};
use crate::ParseError;
use crate::ir::{Part, Response};

/// Decodes an upstream answer (the first choice). `reasoning_content` (DeepSeek, Qwen…) or
/// `reasoning` (OpenRouter, vLLM) becomes a thinking part placed first; `content` (a string
/// or text parts) text, or the `refusal` when there is no content; `tool_calls` (and a
/// legacy `function_call`) tool calls. An `{"error": …}` answer is an error.
pub fn decode_response(v: &Value) -> Result<Response, ParseError> {
    if let Some(message) = upstream_error(v) {
        return Err(ParseError::Invalid(message));
    }
    let Some(Value::Array(choices)) = v.get("choices") else {
        return Err(ParseError::Invalid(
            "the answer has no `choices` array".to_owned(),
        ));
    };
    let choice = choices
        .iter()
        .find(|c| c.get("index").and_then(Value::as_i64) == Some(0))
        .or_else(|| choices.first());
    let mut content = Vec::new();
    let mut finish = "";
    if let Some(choice) = choice {
        finish = choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .unwrap_or("");
        if let Some(m) = choice.get("message").filter(|m| m.is_object()) {
            message_parts(m, &mut content);
        }
    }
    let has_calls = content.iter().any(|p| matches!(p, Part::ToolCall { .. }));
    Ok(Response {
        id: str_field(v, "id").unwrap_or_default().to_owned(),
        model: str_field(v, "model").unwrap_or_default().to_owned(),
        content,
        stop: stop_reason(finish, has_calls),
        usage: usage_of(v).or_else(|| choice.and_then(usage_of)),
    })
}

fn message_parts(m: &Value, out: &mut Vec<Part>) {
    if let Some(t) = str_field(m, "reasoning_content").or_else(|| str_field(m, "reasoning")) {
        out.push(Part::Thinking {
            text: t.to_owned(),
            signature: None,
        });
    }
    let text = content_text(m.get("content"), "");
    if !text.is_empty() {
        out.push(Part::Text(text));
    } else if let Some(r) = str_field(m, "refusal") {
        out.push(Part::Text(r.to_owned()));
    }
    if let Some(Value::Array(calls)) = m.get("tool_calls") {
        for (j, c) in calls.iter().enumerate() {
            let f = c.get("function");
            out.push(Part::ToolCall {
                id: str_field(c, "id")
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("call_{j}")),
                name: f
                    .and_then(|f| str_field(f, "name"))
                    .unwrap_or_default()
                    .to_owned(),
                arguments: arguments_text(f.and_then(|f| f.get("arguments"))),
            });
        }
    }
    if let Some(f) = m.get("function_call").filter(|f| f.is_object()) {
        out.push(Part::ToolCall {
            id: "call_0".to_owned(),
            name: str_field(f, "name").unwrap_or_default().to_owned(),
            arguments: arguments_text(f.get("arguments")),
        });
    }
}
