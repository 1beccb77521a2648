//! Errors in the Chat Completions shape for clients, and the message of an upstream
//! `{"error": …}` payload.

use serde_json::{Value, json};

/// The error body a Chat Completions client expects:
/// `{"error":{"message","type","param":null,"code":null}}`. `type` is
/// `invalid_request_error` for 4xx, `upstream_error` for 502–504 (the provider failed) and
/// `api_error` for other statuses.
pub fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        400..=499 => "invalid_request_error",
        502..=504 => "upstream_error",
        _ => "api_error",
    };
    json!({
        "error": {
            "message": message,
            "type": kind,
            "param": null,
            "code": null,
        }
    })
}

/// The message of an upstream error value (the value under `"error"`): its `message`, the
/// string itself, or the JSON text.
pub(crate) fn error_message(err: &Value) -> String {
    match err {
        Value::String(s) => s.clone(),
        _ => match err.get("message").and_then(Value::as_str) {
            Some(m) if !m.is_empty() => m.to_owned(),
            _ => err.to_string(),
        },
    }
}

/// The upstream error carried by an answer or chunk, if any (`"error": null` is none).
pub(crate) fn upstream_error(v: &Value) -> Option<String> {
    match v.get("error") {
        None | Some(Value::Null) => None,
        Some(err) => Some(error_message(err)),
    }
}
