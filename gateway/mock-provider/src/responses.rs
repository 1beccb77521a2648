//! OpenAI Responses API (`POST /v1/responses`): Bearer auth, request checks, the Response
//! object (message, function call and reasoning output items, usage) and errors in
//! OpenAI's shape; streams are in `responses_stream`.

use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::scenario::{THOUGHT_PIECES, TOOL_INPUT_PIECES};
use crate::{Call, MockBody, Scenario, answer, broken_json, json_response, responses_check};

/// Id of every mock response.
pub(crate) const RESPONSE_ID: &str = "resp_mock01";
/// Ids of the output items.
pub(crate) const MESSAGE_ID: &str = "msg_mock01";
pub(crate) const REASONING_ID: &str = "rs_mock01";
pub(crate) const FUNCTION_CALL_ID: &str = "fc_mock01";
/// `call_id` of the function call (what a `function_call_output` answers).
pub(crate) const CALL_ID: &str = "call_mock01";
const CREATED: i64 = 1_700_000_000;

/// One output item of the answer, in order.
pub(crate) enum Item {
    Reasoning,
    Message(Vec<String>),
    FunctionCall(String),
}

/// The items answering `s` for a request that carried `images` images.
pub(crate) fn plan(s: &Scenario, images: usize) -> Vec<Item> {
    let mut out = Vec::with_capacity(2);
    if s.thinking {
        out.push(Item::Reasoning);
    }
    out.push(match &s.tool {
        Some(name) => Item::FunctionCall(name.clone()),
        None => Item::Message(s.text_pieces(images)),
    });
    out
}

/// An output item: complete (`done`), or as `response.output_item.added` shows it.
pub(crate) fn item(it: &Item, done: bool) -> Value {
    let status = if done { "completed" } else { "in_progress" };
    match it {
        Item::Reasoning => {
            let summary = if done {
                json!([{"type": "summary_text", "text": THOUGHT_PIECES.concat()}])
            } else {
                json!([])
            };
            json!({"id": REASONING_ID, "type": "reasoning", "summary": summary, "status": status})
        }
        Item::Message(pieces) => {
            let content = if done {
                json!([output_text(&pieces.concat())])
            } else {
                json!([])
            };
            json!({"id": MESSAGE_ID, "type": "message", "status": status, "role": "assistant",
                "content": content})
        }
        Item::FunctionCall(name) => {
            let arguments = if done {
                TOOL_INPUT_PIECES.concat()
            } else {
                String::new()
            };
            json!({"id": FUNCTION_CALL_ID, "type": "function_call", "status": status,
                "call_id": CALL_ID, "name": name, "arguments": arguments})
        }
    }
}

/// An `output_text` content part.
pub(crate) fn output_text(text: &str) -> Value {
    json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
}

/// Usage: reasoning tokens are part of `output_tokens`, cached tokens part of
/// `input_tokens`, as OpenAI reports them.
pub(crate) fn usage(s: &Scenario) -> Value {
    let output = s.chunks as u64 + s.thinking_tokens();
    json!({
        "input_tokens": s.prompt_tokens,
        "input_tokens_details": {"cached_tokens": s.cached_tokens, "cache_write_tokens": 0},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": s.thinking_tokens()},
        "total_tokens": s.prompt_tokens + output,
    })
}

/// The Response object with `status` and `output`, echoing the request's settings; usage
/// only once completed.
pub(crate) fn object(s: &Scenario, req: &Value, status: &str, output: Vec<Value>) -> Value {
    let echo = |k: &str, default: Value| req.get(k).cloned().unwrap_or(default);
    let completed = status == "completed";
    json!({
        "id": RESPONSE_ID,
        "object": "response",
        "created_at": CREATED,
        "status": status,
        "background": false,
        "completed_at": if completed { json!(CREATED + 1) } else { Value::Null },
        "error": null,
        "incomplete_details": null,
        "instructions": echo("instructions", Value::Null),
        "max_output_tokens": echo("max_output_tokens", Value::Null),
        "model": echo("model", Value::Null),
        "output": output,
        "parallel_tool_calls": echo("parallel_tool_calls", json!(true)),
        "previous_response_id": null,
        "reasoning": echo("reasoning", json!({"effort": null, "summary": null})),
        "service_tier": "default",
        "store": echo("store", json!(true)),
        "temperature": echo("temperature", json!(1.0)),
        "text": echo("text", json!({"format": {"type": "text"}})),
        "tool_choice": echo("tool_choice", json!("auto")),
        "tools": echo("tools", json!([])),
        "top_p": echo("top_p", json!(1.0)),
        "truncation": "disabled",
        "usage": if completed && s.usage { usage(s) } else { Value::Null },
        "user": null,
        "metadata": echo("metadata", json!({})),
    })
}

/// Answers `POST /v1/responses`: auth, scenario status, checks, then the answer.
pub(crate) fn handle(call: &Call) -> Response<MockBody> {
    let s = &call.scenario;
    let bearer = call
        .header("authorization")
        .and_then(|v| v.strip_prefix("Bearer "));
    // Azure's key travels in `api-key` (checked by `azure::refusal`).
    if bearer.is_none_or(str::is_empty) && !crate::azure::serves(&call.path) {
        let body = json!({"error": {
            "message": "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
            "type": "invalid_request_error", "param": null, "code": null,
        }});
        return json_response(StatusCode::UNAUTHORIZED, &body);
    }
    if s.status != 200 {
        return answer::error(s);
    }
    if call.method != http::Method::POST {
        let body = json!({"error": {
            "message": format!("Invalid method for URL (/v1/responses): {}", call.method),
            "type": "invalid_request_error", "param": null, "code": null,
        }});
        return json_response(StatusCode::METHOD_NOT_ALLOWED, &body);
    }
    let Some(body) = &call.json else {
        let body = json!({"error": {
            "message": "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
            "type": "invalid_request_error", "param": null, "code": null,
        }});
        return json_response(StatusCode::BAD_REQUEST, &body);
    };
    let seen = match responses_check::request(body) {
        Ok(seen) => seen,
        Err(invalid) => return invalid.response(),
    };
    if body.get("stream").and_then(Value::as_bool) == Some(true) {
        return crate::responses_stream::response(s, body, seen.images, call.stats.clone());
    }
    if s.malformed {
        return broken_json();
    }
    let output = plan(s, seen.images)
        .iter()
        .map(|it| item(it, true))
        .collect();
    json_response(StatusCode::OK, &object(s, body, "completed", output))
}
