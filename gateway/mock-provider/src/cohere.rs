//! Cohere's v2 API (`POST /v2/chat` JSON and SSE with Cohere's event names, `POST
//! /v2/rerank`): `Authorization: Bearer` key, request checks like the real service, answers
//! and `{"id", "message"}` errors in its shapes.

use bytes::Bytes;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::scenario::{THOUGHT_PIECES, TOOL_INPUT_PIECES};
use crate::{Call, MockBody, Scenario, broken_json, json_response, sse};

/// `id` of every mock answer.
pub(crate) const ANSWER_ID: &str = "c14c80c3-18eb-4519-9460-6c92edd8cfb4";
/// Id of the mock's tool call (Cohere ids are `{name}_{random}`).
pub(crate) const TOOL_CALL_SUFFIX: &str = "_mock01";
/// Tokens Cohere's chat template adds to the billed input (`tokens` vs `billed_units`).
const TEMPLATE_TOKENS: u64 = 100;

/// Whether the path is one of Cohere's v2 paths.
pub(crate) fn serves(path: &str) -> bool {
    matches!(path, "/v2/chat" | "/v2/rerank")
}

/// A Cohere error: `{"id": …, "message": …}`.
pub(crate) fn error(status: u16, message: &str) -> Response<MockBody> {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_response(code, &json!({"id": "err-mock", "message": message}))
}

pub(crate) fn handle(call: &Call) -> Response<MockBody> {
    match call.header("authorization") {
        None => return error(401, "no api key supplied"),
        Some(a)
            if a.strip_prefix("Bearer ")
                .is_none_or(|k| k.trim().is_empty()) =>
        {
            return error(401, "invalid api token");
        }
        Some(_) => {}
    }
    let s = &call.scenario;
    if s.status != 200 {
        return error(s.status, &format!("mock error {}", s.status));
    }
    if call.method != http::Method::POST {
        return error(405, "method not allowed");
    }
    let Some(body) = call.json.as_ref().filter(|b| b.is_object()) else {
        return error(400, "invalid request: body must be a JSON object");
    };
    if body
        .get("model")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return error(400, "invalid request: model must be specified");
    }
    if call.path == "/v2/rerank" {
        return rerank(s, body);
    }
    if let Err(msg) = check_chat(body) {
        return error(400, &format!("invalid request: {msg}"));
    }
    let images = match count_images(body) {
        Ok(n) => n,
        Err(msg) => return error(400, &format!("invalid request: {msg}")),
    };
    if body.get("stream").and_then(Value::as_bool) == Some(true) {
        let (frames, content) = frames(s, images);
        let cut = s.cut_after.map(|n| sse::cut_index(&content, n));
        return sse::response(frames, cut, s, call.stats.clone(), "text/event-stream");
    }
    if s.malformed {
        return broken_json();
    }
    json_response(StatusCode::OK, &answer(s, images))
}

/// The `image_url` parts of user messages; inline images must be `data:` URLs of base64.
fn count_images(body: &Value) -> Result<usize, String> {
    let mut n = 0;
    let messages = body.get("messages").and_then(Value::as_array);
    for m in messages.into_iter().flatten() {
        let parts = m.get("content").and_then(Value::as_array);
        for p in parts.into_iter().flatten() {
            if p.get("type").and_then(Value::as_str) != Some("image_url") {
                continue;
            }
            let url = p
                .pointer("/image_url/url")
                .and_then(Value::as_str)
                .ok_or("image_url.url is required")?;
            if let Some(data) = url.strip_prefix("data:") {
                let (_, b64) = data
                    .split_once(";base64,")
                    .ok_or("inline images are base64")?;
                if !crate::b64::strict(b64) {
                    return Err("image data is not base64".into());
                }
            }
            n += 1;
        }
    }
    Ok(n)
}

/// Checks `messages`: present and non-empty, known roles, tool calls with an id, a name and
/// string arguments, tool results answering an earlier call.
fn check_chat(body: &Value) -> Result<(), String> {
    let messages = match body.get("messages").and_then(Value::as_array) {
        Some(m) if !m.is_empty() => m,
        _ => return Err("messages must not be empty".into()),
    };
    let mut call_ids: Vec<&str> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        match m.get("role").and_then(Value::as_str).unwrap_or("") {
            "system" | "user" => {}
            "assistant" => {
                for c in m
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let id = c.get("id").and_then(Value::as_str).unwrap_or("");
                    let f = c.get("function");
                    let named = f
                        .and_then(|f| f.get("name"))
                        .and_then(Value::as_str)
                        .is_some();
                    let text = f
                        .and_then(|f| f.get("arguments"))
                        .is_some_and(Value::is_string);
                    if id.is_empty() || !named || !text {
                        return Err(format!(
                            "messages[{i}].tool_calls: id, function.name and function.arguments (a string) are required"
                        ));
                    }
                    call_ids.push(id);
                }
            }
            "tool" => {
                let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
                if !call_ids.contains(&id) {
                    return Err(format!(
                        "messages[{i}]: tool_call_id {id:?} does not match any tool call"
                    ));
                }
            }
            other => return Err(format!("messages[{i}]: invalid role {other:?}")),
        }
    }
    Ok(())
}

fn usage(s: &Scenario) -> Value {
    let output = s.chunks as u64 + s.thinking_tokens();
    json!({
        "billed_units": {"input_tokens": s.prompt_tokens, "output_tokens": output},
        "tokens": {"input_tokens": s.prompt_tokens + TEMPLATE_TOKENS, "output_tokens": output},
    })
}

fn finish_reason(s: &Scenario) -> &'static str {
    if s.tool.is_some() {
        "TOOL_CALL"
    } else {
        "COMPLETE"
    }
}

fn call_id(name: &str) -> String {
    format!("{name}{TOOL_CALL_SUFFIX}")
}

fn answer(s: &Scenario, images: usize) -> Value {
    let mut content = Vec::new();
    if s.thinking {
        content.push(json!({"type": "thinking", "thinking": THOUGHT_PIECES.concat()}));
    }
    let mut message = json!({"role": "assistant"});
    match &s.tool {
        Some(name) => {
            message["tool_plan"] = json!(format!("I will call {name}."));
            message["tool_calls"] = json!([{"id": call_id(name), "type": "function",
                "function": {"name": name, "arguments": TOOL_INPUT_PIECES.concat()}}]);
        }
        None => content.push(json!({"type": "text", "text": s.text_pieces(images).concat()})),
    }
    if !content.is_empty() {
        message["content"] = json!(content);
    }
    let mut v = json!({"id": ANSWER_ID, "finish_reason": finish_reason(s), "message": message});
    if s.usage {
        v["usage"] = usage(s);
    }
    v
}

fn event(name: &str, mut data: Value) -> Bytes {
    data["type"] = json!(name);
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

/// The SSE frames of a streamed answer and the indexes of its content deltas.
fn frames(s: &Scenario, images: usize) -> (Vec<Bytes>, Vec<usize>) {
    let mut out = Vec::new();
    let mut content = Vec::new();
    if s.malformed {
        out.push(Bytes::from_static(
            b"event: message-start\ndata: {\"type\": broken\n\n",
        ));
    }
    out.push(event(
        "message-start",
        json!({"id": ANSWER_ID, "delta": {"message": {
        "role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}}}),
    ));
    let mut index = 0;
    if s.thinking {
        out.push(event(
            "content-start",
            json!({"index": index,
            "delta": {"message": {"content": {"type": "thinking", "thinking": ""}}}}),
        ));
        for t in THOUGHT_PIECES {
            content.push(out.len());
            out.push(event(
                "content-delta",
                json!({"index": index,
                "delta": {"message": {"content": {"thinking": t}}}}),
            ));
        }
        out.push(event("content-end", json!({ "index": index })));
        index += 1;
    }
    match &s.tool {
        Some(name) => {
            out.push(event(
                "tool-plan-delta",
                json!({"delta": {"message": {"tool_plan": format!("I will call {name}.")}}}),
            ));
            out.push(event("tool-call-start", json!({"index": 0, "delta": {"message": {"tool_calls": {
                "id": call_id(name), "type": "function", "function": {"name": name, "arguments": ""}}}}})));
            for piece in TOOL_INPUT_PIECES {
                content.push(out.len());
                out.push(event(
                    "tool-call-delta",
                    json!({"index": 0, "delta": {"message": {
                    "tool_calls": {"function": {"arguments": piece}}}}}),
                ));
            }
            out.push(event("tool-call-end", json!({"index": 0})));
        }
        None => {
            out.push(event(
                "content-start",
                json!({"index": index,
                "delta": {"message": {"content": {"type": "text", "text": ""}}}}),
            ));
            for piece in s.text_pieces(images) {
                content.push(out.len());
                out.push(event(
                    "content-delta",
                    json!({"index": index,
                    "delta": {"message": {"content": {"text": piece}}}}),
                ));
            }
            out.push(event("content-end", json!({ "index": index })));
        }
    }
    let mut delta = json!({ "finish_reason": finish_reason(s) });
    if s.usage {
        delta["usage"] = usage(s);
    }
    out.push(event("message-end", json!({ "delta": delta })));
    (out, content)
}

/// `/v2/rerank`: `query` and string `documents` required; scores fall with the index (the
/// last document ranks first), `top_n` of them; one search unit.
fn rerank(s: &Scenario, body: &Value) -> Response<MockBody> {
    if body
        .get("query")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return error(400, "invalid request: query must not be empty");
    }
    let docs = match body.get("documents").and_then(Value::as_array) {
        Some(d) if !d.is_empty() && d.iter().all(Value::is_string) => d,
        Some(d) if !d.is_empty() => {
            return error(400, "invalid request: documents must be a list of strings");
        }
        _ => return error(400, "invalid request: documents must not be empty"),
    };
    if s.malformed {
        return broken_json();
    }
    let n = docs.len();
    let top = body
        .get("top_n")
        .and_then(Value::as_u64)
        .map_or(n, |t| (t as usize).min(n));
    let results: Vec<Value> = (0..n)
        .rev()
        .take(top)
        .map(|i| json!({"index": i, "relevance_score": (i + 1) as f64 / (n + 1) as f64}))
        .collect();
    let mut v = json!({"id": ANSWER_ID, "results": results,
        "meta": {"api_version": {"version": "2"}}});
    if s.usage {
        v["meta"]["billed_units"] = json!({"search_units": 1});
    }
    json_response(StatusCode::OK, &v)
}
