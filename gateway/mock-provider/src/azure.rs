//! Azure OpenAI as the mock serves it: `/openai/deployments/{deployment}/{task}` and the
//! Responses paths (`/openai/v1/responses`, `/openai/responses`), each with an `api-version`
//! query parameter and the key in the `api-key` header, as the real service requires.
//! Checked here; the answers are the OpenAI ones.

use http::StatusCode;
use hyper::Response;
use serde_json::json;

use crate::{Call, MockBody, json_response};

/// Whether `path` is an Azure OpenAI path.
pub(crate) fn serves(path: &str) -> bool {
    path.starts_with("/openai/")
}

/// The deployment a path names (`/openai/deployments/{d}/…`).
pub(crate) fn deployment(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/openai/deployments/")?;
    let (name, _) = rest.split_once('/')?;
    (!name.is_empty()).then_some(name)
}

fn azure_error(status: StatusCode, code: &str, message: &str) -> Response<MockBody> {
    json_response(
        status,
        &json!({"error": {"code": code, "message": message}}),
    )
}

/// The answer to what Azure refuses: no `api-key` (or an `Authorization` header instead), no
/// `api-version`, a path that is neither a deployment task nor the Responses API.
pub(crate) fn refusal(call: &Call) -> Option<Response<MockBody>> {
    let key = call.header("api-key").unwrap_or("").trim();
    if key.is_empty() {
        return Some(azure_error(
            StatusCode::UNAUTHORIZED,
            "401",
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.",
        ));
    }
    let version = call.query_param("api-version").unwrap_or("");
    if version.is_empty() {
        return Some(azure_error(
            StatusCode::NOT_FOUND,
            "404",
            "Resource not found",
        ));
    }
    let path = call.path.as_str();
    let known = path == "/openai/v1/responses"
        || path == "/openai/responses"
        || path.starts_with("/openai/models")
        || deployment(path).is_some_and(|_| {
            [
                "/chat/completions",
                "/completions",
                "/embeddings",
                "/images/generations",
                "/images/edits",
                "/audio/speech",
                "/audio/transcriptions",
                "/audio/translations",
            ]
            .iter()
            .any(|task| path.ends_with(task))
        });
    if !known {
        return Some(azure_error(
            StatusCode::NOT_FOUND,
            "404",
            "Resource not found",
        ));
    }
    None
}
