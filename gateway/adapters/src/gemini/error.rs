//! Client side: errors in Google's shape (`google.rpc.Status`).

use serde_json::{Value, json};

/// `{"error":{"code":status,"message":…,"status":…}}` with the canonical status name of the
/// HTTP status (other 4xx `FAILED_PRECONDITION`, other 5xx `INTERNAL`, else `UNKNOWN`).
pub fn error_body(status: u16, message: &str) -> Value {
    json!({"error": {"code": status, "message": message, "status": status_name(status)}})
}

fn status_name(status: u16) -> &'static str {
    match status {
        400 | 413 | 422 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        408 | 504 => "DEADLINE_EXCEEDED",
        409 => "ABORTED",
        429 => "RESOURCE_EXHAUSTED",
        499 => "CANCELLED",
        501 => "UNIMPLEMENTED",
        502 | 503 => "UNAVAILABLE",
        400..=499 => "FAILED_PRECONDITION",
        500..=599 => "INTERNAL",
        _ => "UNKNOWN",
    }
}
