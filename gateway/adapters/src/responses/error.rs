//! The OpenAI error shape sent to Responses clients.

use serde_json::{Value, json};

/// `{"error": {"message", "type", "param": null, "code": null}}`, the type following the
/// HTTP status (OpenAI SDKs pick the exception class by status, not by type).
pub fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        429 => "rate_limit_error",
        500..=599 => "server_error",
        _ => "invalid_request_error",
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
}
