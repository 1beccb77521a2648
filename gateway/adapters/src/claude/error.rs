//! Errors in Anthropic's shape for clients, and the message of an upstream error payload.

use serde_json::{Value, json};

use super::wire::str_field;

/// The error body an Anthropic client expects:
/// `{"type":"error","error":{"type","message"}}`, the type chosen by status as Anthropic
/// does (400 `invalid_request_error`, 401 `authentication_error`, 402 `billing_error`, 403
/// `permission_error`, 404 `not_found_error`, 413 `request_too_large`, 429
/// `rate_limit_error`, 504 `timeout_error`, 529 `overloaded_error`, other 4xx
/// `invalid_request_error`, anything else `api_error`).
pub fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        504 => "timeout_error",
        529 => "overloaded_error",
        400..=499 => "invalid_request_error",
        _ => "api_error",
    };
    json!({
        "type": "error",
        "error": { "type": kind, "message": message },
    })
}

/// The message of an Anthropic error payload (`{"type":"error","error":{…}}`, in a body or
/// a stream `error` event) as `type: message` (e.g. `overloaded_error: Overloaded`), or
/// `None` when `v` is not one. Falls back to the type alone, or the JSON text.
pub fn error_message(v: &Value) -> Option<String> {
    let is_error = str_field(v, "type") == Some("error");
    let err = v.get("error").filter(|e| !e.is_null());
    if !is_error && err.is_none() {
        return None;
    }
    let Some(err) = err else {
        return Some(v.to_string());
    };
    if let Value::String(s) = err {
        return Some(s.clone());
    }
    let kind = str_field(err, "type").filter(|t| !t.is_empty());
    let msg = str_field(err, "message").filter(|m| !m.is_empty());
    Some(match (kind, msg) {
        (Some(k), Some(m)) => format!("{k}: {m}"),
        (None, Some(m)) => m.to_owned(),
        (Some(k), None) => k.to_owned(),
        (None, None) => err.to_string(),
    })
}
