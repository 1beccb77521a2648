//! `/v1/rerank` as Jina and Cohere (and OpenAI-compatible hosts) serve it: JSON with `model`,
//! a `query` and non-empty `documents` (strings or `{text}`); answers
//! `results[{index, relevance_score, document}]` sorted by score (at most `top_n`) and
//! `usage.total_tokens` (the `prompt_tokens=` scenario key, default 10).

use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::{Call, MockBody, json_response, media_error};

pub(crate) fn handle(call: &Call) -> Response<MockBody> {
    let Some(v) = &call.json else {
        return media_error(StatusCode::BAD_REQUEST, "the body must be JSON", None);
    };
    if v.get("model")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return media_error(StatusCode::BAD_REQUEST, "model is required", Some("model"));
    }
    if v.get("query").is_none_or(Value::is_null) {
        return media_error(StatusCode::BAD_REQUEST, "query is required", Some("query"));
    }
    let Some(docs) = v
        .get("documents")
        .and_then(Value::as_array)
        .filter(|d| !d.is_empty())
    else {
        return media_error(
            StatusCode::BAD_REQUEST,
            "documents must be a non-empty list",
            Some("documents"),
        );
    };
    let top_n = v
        .get("top_n")
        .and_then(Value::as_u64)
        .map_or(docs.len(), |n| n as usize);
    // Later documents score higher: a deterministic order the tests can check.
    let mut results: Vec<Value> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let text = d.as_str().or_else(|| d.get("text").and_then(Value::as_str)).unwrap_or("");
            json!({"index": i, "relevance_score": (i + 1) as f64 / (docs.len() + 1) as f64, "document": {"text": text}})
        })
        .collect();
    results.reverse();
    results.truncate(top_n);
    let tokens = call.scenario.prompt_tokens;
    json_response(
        StatusCode::OK,
        &json!({"id": "rerank-mock", "model": v["model"], "results": results,
                "usage": {"total_tokens": tokens, "prompt_tokens": tokens}}),
    )
}
