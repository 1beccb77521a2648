//! Checks of OpenAI request bodies with OpenAI's error shape (`message`, `type`, `param`,
//! `code`): image URLs shared by Chat Completions and Responses, and the Chat Completions
//! rules a converted request can break (tool-call pairing, content parts, tools).

use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::{MockBody, b64, json_response};

/// A refused request: OpenAI's `invalid_request_error` with the field at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invalid {
    pub message: String,
    pub param: Option<String>,
    pub code: Option<&'static str>,
}

impl Invalid {
    pub(crate) fn new(message: String, param: &str, code: &'static str) -> Invalid {
        Invalid {
            message,
            param: Some(param.to_owned()),
            code: Some(code),
        }
    }

    /// `Missing required parameter: '{param}'.`
    pub(crate) fn missing(param: &str) -> Invalid {
        let message = format!("Missing required parameter: '{param}'.");
        Invalid::new(message, param, "missing_required_parameter")
    }

    /// `Invalid type for '{param}': expected {expected}, but got {got} instead.`
    pub(crate) fn kind(param: &str, expected: &str, got: &Value) -> Invalid {
        let got = match got {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        };
        let message =
            format!("Invalid type for '{param}': expected {expected}, but got {got} instead.");
        Invalid::new(message, param, "invalid_type")
    }

    /// `Invalid value: '{value}'. Supported values are: …`
    pub(crate) fn value(param: &str, value: &str, supported: &[&str]) -> Invalid {
        let quoted: Vec<String> = supported.iter().map(|s| format!("'{s}'")).collect();
        let message = format!(
            "Invalid value: '{value}'. Supported values are: {}.",
            quoted.join(", ")
        );
        Invalid::new(message, param, "invalid_value")
    }

    /// The 400 answer.
    pub(crate) fn response(&self) -> Response<MockBody> {
        let body = json!({"error": {
            "message": self.message,
            "type": "invalid_request_error",
            "param": self.param,
            "code": self.code,
        }});
        json_response(StatusCode::BAD_REQUEST, &body)
    }
}

pub(crate) type Checked<T = ()> = Result<T, Invalid>;

/// Checks an image URL at `param`: `http(s)://…`, or a base64 data URL of a PNG, JPEG, GIF
/// or WebP whose bytes match its type.
pub(crate) fn image_url(url: &str, param: &str) -> Checked {
    if url.starts_with("https://") || url.starts_with("http://") {
        return Ok(());
    }
    let unsupported = || {
        Invalid::new(
            "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].".to_owned(),
            param,
            "invalid_image_format",
        )
    };
    let Some(rest) = url.strip_prefix("data:") else {
        let message = format!(
            "Invalid '{param}'. Expected a valid URL, but got a value with an invalid format."
        );
        return Err(Invalid::new(message, param, "invalid_value"));
    };
    let Some((mime, data)) = rest.split_once(";base64,") else {
        return Err(unsupported());
    };
    match b64::sniff_image(data) {
        Some(seen) if seen == mime && b64::strict(data) => Ok(()),
        _ => Err(unsupported()),
    }
}

const CHAT_ROLES: &[&str] = &[
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "function",
];

/// What the Chat Completions checks saw that the answer echoes.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Seen {
    /// `image_url` content parts.
    pub images: usize,
}

/// Checks what a Chat Completions body carries when present: roles, content parts and images,
/// tool definitions, and that tool calls and tool messages pair up. Missing messages are
/// let through (load tests send minimal bodies).
pub(crate) fn chat(body: &Value) -> Checked<Seen> {
    if let Some(tools) = body.get("tools").and_then(Value::as_array) {
        for (i, t) in tools.iter().enumerate() {
            if t.get("type").and_then(Value::as_str) != Some("function") {
                continue;
            }
            if t.pointer("/function/name")
                .and_then(Value::as_str)
                .is_none()
            {
                return Err(Invalid::missing(&format!("tools[{i}].function.name")));
            }
        }
    }
    let mut seen = Seen::default();
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return Ok(seen);
    };
    let mut open: Vec<&str> = Vec::new();
    let mut asked_at = 0;
    for (i, m) in messages.iter().enumerate() {
        let Some(role) = m.get("role").and_then(Value::as_str) else {
            return Err(Invalid::missing(&format!("messages[{i}].role")));
        };
        if !CHAT_ROLES.contains(&role) {
            return Err(Invalid::value(
                &format!("messages[{i}].role"),
                role,
                CHAT_ROLES,
            ));
        }
        if role == "tool" {
            let id = m.get("tool_call_id").and_then(Value::as_str);
            let Some(pos) = id.and_then(|id| open.iter().position(|o| *o == id)) else {
                return Err(Invalid::new(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.".to_owned(),
                    &format!("messages.[{i}].role"),
                    "invalid_value",
                ));
            };
            open.remove(pos);
            continue;
        }
        unanswered(&open, asked_at)?;
        if let Some(calls) = m.get("tool_calls").and_then(Value::as_array) {
            open = calls
                .iter()
                .filter_map(|c| c.get("id").and_then(Value::as_str))
                .collect();
            asked_at = i;
        }
        if let Some(parts) = m.get("content").and_then(Value::as_array) {
            for (j, p) in parts.iter().enumerate() {
                seen.images += part(p, role, &format!("messages[{i}].content[{j}]"))?;
            }
        }
    }
    unanswered(&open, asked_at)?;
    Ok(seen)
}

fn unanswered(open: &[&str], at: usize) -> Checked {
    if open.is_empty() {
        return Ok(());
    }
    Err(Invalid {
        message: format!(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
            open.join(", ")
        ),
        param: Some(format!("messages.[{at}].role")),
        code: None,
    })
}

/// Checks one content part of a message with `role`; returns the images it holds.
fn part(p: &Value, role: &str, at: &str) -> Checked<usize> {
    let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
    let allowed: &[&str] = match role {
        "assistant" => &["text", "refusal"],
        "user" => &["text", "image_url", "input_audio", "file"],
        _ => &["text"],
    };
    if !allowed.contains(&kind) {
        return Err(Invalid::value(&format!("{at}.type"), kind, allowed));
    }
    if kind != "image_url" {
        return Ok(0);
    }
    let Some(url) = p.pointer("/image_url/url").and_then(Value::as_str) else {
        return Err(Invalid::missing(&format!("{at}.image_url.url")));
    };
    image_url(url, &format!("{at}.image_url.url")).map(|()| 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    fn message(v: Checked<Seen>) -> String {
        v.err().map(|e| e.message).unwrap_or_default()
    }

    #[test]
    fn checks_image_urls() {
        assert_eq!(image_url("https://x/cat.png", "p"), Ok(()));
        assert_eq!(
            image_url(&format!("data:image/png;base64,{PNG}"), "p"),
            Ok(())
        );
        let wrong_type = image_url(&format!("data:image/jpeg;base64,{PNG}"), "p");
        assert_eq!(
            wrong_type.map_err(|e| e.code),
            Err(Some("invalid_image_format"))
        );
        assert_eq!(
            image_url("cat.png", "p").map_err(|e| e.code),
            Err(Some("invalid_value"))
        );
    }

    #[test]
    fn pairs_tool_calls_and_counts_images() {
        let image = json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}});
        let call = json!({"role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "w", "arguments": "{}"}}]});
        let ok = json!({"messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}, image]},
            call, {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}]});
        assert_eq!(chat(&ok), Ok(Seen { images: 1 }));
        let orphan = json!({"messages": [{"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "call_9", "content": "sunny"}]});
        assert!(message(chat(&orphan)).contains("must be a response to a preceeding message"));
        let unanswered = json!({"messages": [{"role": "user", "content": "hi"}, call,
            {"role": "user", "content": "and?"}]});
        assert!(message(chat(&unanswered)).ends_with("did not have response messages: call_1"));
        let bad_part = json!({"messages": [{"role": "assistant", "content": [image]}]});
        assert_eq!(
            chat(&bad_part).map_err(|e| e.param),
            Err(Some("messages[0].content[0].type".into()))
        );
        let bad_tool = json!({"tools": [{"type": "function", "name": "w"}]});
        assert_eq!(
            message(chat(&bad_tool)),
            "Missing required parameter: 'tools[0].function.name'."
        );
        let bad_role = json!({"messages": [{"role": "robot", "content": "hi"}]});
        assert_eq!(
            chat(&bad_role).map_err(|e| e.param),
            Err(Some("messages[0].role".into()))
        );
        assert_eq!(chat(&json!({"model": "x"})), Ok(Seen::default()));
    }
}
