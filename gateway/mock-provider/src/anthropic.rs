//! Anthropic Messages (`POST /v1/messages`, `/v1/messages/count_tokens`): the `x-api-key`
//! and `anthropic-version` headers, request checks, answers and errors in Anthropic's shapes.

use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::anthropic_check::{self, Endpoint};
use crate::scenario::{self, THINKING_SIGNATURE, THOUGHT_PIECES, TOOL_USE_ID};
use crate::{Call, MockBody, Scenario, anthropic_stream, broken_json, json_response};

/// Id of every mock message.
pub(crate) const MESSAGE_ID: &str = "msg_mock01";

/// Whether `path` is an Anthropic endpoint (any prefix before `/v1/messages`).
pub(crate) fn serves(path: &str) -> bool {
    path.ends_with("/v1/messages") || path.ends_with("/v1/messages/count_tokens")
}

/// One content block of the answer, in order.
pub(crate) enum Block {
    Thinking,
    Text(Vec<String>),
    ToolUse(String),
}

/// The blocks answering `s` for a request that carried `images` images.
pub(crate) fn plan(s: &Scenario, images: usize) -> Vec<Block> {
    let mut out = Vec::with_capacity(2);
    if s.thinking {
        out.push(Block::Thinking);
    }
    out.push(match &s.tool {
        Some(name) => Block::ToolUse(name.clone()),
        None => Block::Text(s.text_pieces(images)),
    });
    out
}

/// `tool_use` when the answer calls a tool, else `end_turn`.
pub(crate) fn stop_reason(s: &Scenario) -> &'static str {
    if s.tool.is_some() {
        "tool_use"
    } else {
        "end_turn"
    }
}

/// Output tokens: one per text piece of the scenario, plus thinking.
pub(crate) fn output_tokens(s: &Scenario) -> u64 {
    s.chunks as u64 + s.thinking_tokens()
}

/// Usage with `output` output tokens; `input_tokens` excludes the cache tokens.
pub(crate) fn usage(s: &Scenario, output: u64) -> Value {
    json!({
        "input_tokens": s.prompt_tokens,
        "cache_creation_input_tokens": s.cache_creation,
        "cache_read_input_tokens": s.cache_read,
        "output_tokens": output,
    })
}

/// An Anthropic error: `{"type":"error","error":{"type":…,"message":…}}`.
pub(crate) fn error(status: u16, message: &str) -> Response<MockBody> {
    let kind = match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        504 => "timeout_error",
        529 => "overloaded_error",
        s if s >= 500 => "api_error",
        _ => "invalid_request_error",
    };
    let body = json!({
        "type": "error",
        "error": {"type": kind, "message": message},
        "request_id": "req_mock01",
    });
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_response(code, &body)
}

/// Answers one Anthropic request: auth, version, scenario status, checks, then the answer.
pub(crate) fn handle(call: &Call) -> Response<MockBody> {
    let s = &call.scenario;
    if call.header("x-api-key").is_none_or(str::is_empty) {
        return error(401, "x-api-key header is required");
    }
    if call.header("anthropic-version").is_none_or(str::is_empty) {
        return error(400, "anthropic-version: header is required");
    }
    if s.status != 200 {
        return error(s.status, &format!("mock error {}", s.status));
    }
    if call.method != http::Method::POST {
        return error(405, &format!("Method {} not allowed", call.method));
    }
    let Some(body) = &call.json else {
        return error(
            400,
            "There was an issue with the request body: not valid JSON",
        );
    };
    let endpoint = if call.path.ends_with("/count_tokens") {
        Endpoint::CountTokens
    } else {
        Endpoint::Messages
    };
    let seen = match anthropic_check::request(body, endpoint) {
        Ok(seen) => seen,
        Err(message) => return error(400, &message),
    };
    if endpoint == Endpoint::CountTokens {
        return json_response(
            StatusCode::OK,
            &json!({"input_tokens": s.prompt_tokens + s.cache_read + s.cache_creation}),
        );
    }
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    let stream = body.get("stream").and_then(Value::as_bool) == Some(true);
    answer(call, model, seen.images, stream)
}

/// The answer to a checked Messages request: SSE when `stream`, else the message.
pub(crate) fn answer(call: &Call, model: &str, images: usize, stream: bool) -> Response<MockBody> {
    let s = &call.scenario;
    if stream {
        return anthropic_stream::response(s, model, images, call.stats.clone());
    }
    if s.malformed {
        return broken_json();
    }
    json_response(StatusCode::OK, &message(s, model, images))
}

/// The complete (non-stream) message.
pub(crate) fn message(s: &Scenario, model: &str, images: usize) -> Value {
    let content: Vec<Value> = plan(s, images)
        .into_iter()
        .map(|b| match b {
            Block::Thinking => json!({
                "type": "thinking",
                "thinking": THOUGHT_PIECES.concat(),
                "signature": THINKING_SIGNATURE,
            }),
            Block::Text(pieces) => json!({"type": "text", "text": pieces.concat()}),
            Block::ToolUse(name) => json!({
                "type": "tool_use",
                "id": TOOL_USE_ID,
                "name": name,
                "input": scenario::tool_input(),
            }),
        })
        .collect();
    let mut v = json!({
        "id": MESSAGE_ID,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason(s),
        "stop_sequence": null,
    });
    if s.usage {
        v["usage"] = usage(s, output_tokens(s));
    }
    v
}
