//! OpenAI-compatible answers: errors, model list, complete JSON and SSE streams; chat
//! answers call `tool=NAME` and echo images like the other dialects. `/v1/responses` is
//! handed to `responses`.

use bytes::Bytes;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::scenario::{CacheUsage, TOOL_INPUT_PIECES};
use crate::{Call, MockBody, Scenario, broken_json, json_response, openai_check, responses, sse};

/// Which OpenAI endpoint is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Chat,
    Completion,
    Embedding,
}

const CREATED: i64 = 1_700_000_000;

/// Answers an OpenAI-compatible request (any path that is not Anthropic or Gemini).
pub(crate) fn handle(call: &Call) -> Response<MockBody> {
    let (scenario, rest) = (&call.scenario, call.path.as_str());
    if crate::azure::serves(rest)
        && let Some(refused) = crate::azure::refusal(call)
    {
        return refused;
    }
    if rest.ends_with("/responses") {
        return responses::handle(call);
    }
    if scenario.status != 200 {
        return error(scenario);
    }
    if let Some(answered) = crate::media_route(call, rest) {
        return answered;
    }
    let kind = if rest.ends_with("/chat/completions") {
        Kind::Chat
    } else if rest.ends_with("/completions") {
        Kind::Completion
    } else if rest.ends_with("/embeddings") {
        Kind::Embedding
    } else if call.method == http::Method::GET && rest.ends_with("/models") {
        return models();
    } else {
        let body = json!({"error": {"message": format!("mock: no route {rest}"), "type": "invalid_request_error"}});
        return json_response(StatusCode::NOT_FOUND, &body);
    };
    let Some(parsed) = &call.json else {
        let body = json!({"error": {"message": "mock: body is not JSON", "type": "invalid_request_error"}});
        return json_response(StatusCode::BAD_REQUEST, &body);
    };
    let images = match kind {
        Kind::Chat => match openai_check::chat(parsed) {
            Ok(seen) => seen.images,
            Err(invalid) => return invalid.response(),
        },
        _ => 0,
    };
    let model = call.field("model").and_then(Value::as_str).unwrap_or("");
    let streamed = call.field("stream").and_then(Value::as_bool) == Some(true);
    if streamed && kind != Kind::Embedding {
        let include_usage = call
            .field("stream_options")
            .and_then(|o| o.get("include_usage"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let events = events(kind, scenario, model, include_usage, images);
        // Index of the event at which the connection is cut instead of sent.
        let cut = scenario
            .cut_after
            .map(|n| n + usize::from(scenario.malformed));
        sse::response(
            events,
            cut,
            scenario,
            call.stats.clone(),
            "text/event-stream",
        )
    } else {
        complete(kind, scenario, model, parsed, images)
    }
}

/// An OpenAI error for a `status=` scenario.
pub(crate) fn error(s: &Scenario) -> Response<MockBody> {
    let status = StatusCode::from_u16(s.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = json!({"error": {
        "message": format!("mock error {}", s.status),
        "type": "upstream_error",
        "param": null,
        "code": format!("mock_{}", s.status),
    }});
    json_response(status, &body)
}

fn models() -> Response<MockBody> {
    let data: Vec<Value> = ["mock-model", "gpt-4o-mini"]
        .iter()
        .map(|id| json!({"id": id, "object": "model", "created": CREATED, "owned_by": "mock"}))
        .collect();
    json_response(StatusCode::OK, &json!({"object": "list", "data": data}))
}

fn usage(s: &Scenario, completion: u64) -> Value {
    let mut u = json!({
        "prompt_tokens": s.prompt_tokens,
        "completion_tokens": completion,
        "total_tokens": s.prompt_tokens + completion,
    });
    match s.cache_usage {
        CacheUsage::OpenAi if s.cached_tokens > 0 => {
            u["prompt_tokens_details"] = json!({"cached_tokens": s.cached_tokens});
        }
        CacheUsage::OpenAi => {}
        CacheUsage::DeepSeek => {
            let hit = s.cached_tokens.min(s.prompt_tokens);
            u["prompt_cache_hit_tokens"] = json!(hit);
            u["prompt_cache_miss_tokens"] = json!(s.prompt_tokens - hit);
        }
        CacheUsage::Moonshot => u["cached_tokens"] = json!(s.cached_tokens),
    }
    u
}

fn input_count(req: &Value) -> usize {
    match req.get("input") {
        Some(Value::Array(a)) => a.len(),
        _ => 1,
    }
}

/// Id of the chat tool call (`tool=NAME`).
const TOOL_CALL_ID: &str = "call_mock01";

/// The chat tool call: whole, or opening a stream (empty arguments).
fn tool_call(name: &str, arguments: &str, index: Option<usize>) -> Value {
    let mut call = json!({"id": TOOL_CALL_ID, "type": "function",
        "function": {"name": name, "arguments": arguments}});
    if let Some(i) = index {
        call["index"] = json!(i);
    }
    call
}

fn finish_reason(s: &Scenario) -> &'static str {
    if s.tool.is_some() {
        "tool_calls"
    } else {
        "stop"
    }
}

fn complete(
    kind: Kind,
    s: &Scenario,
    model: &str,
    req: &Value,
    images: usize,
) -> Response<MockBody> {
    if s.malformed {
        return broken_json();
    }
    let completion = s.chunks as u64;
    let mut body = match kind {
        Kind::Chat => {
            let message = match &s.tool {
                Some(name) => json!({"role": "assistant", "content": null,
                    "tool_calls": [tool_call(name, &TOOL_INPUT_PIECES.concat(), None)]}),
                None => json!({"role": "assistant", "content": s.text_pieces(images).concat()}),
            };
            json!({
                "id": "chatcmpl-mock", "object": "chat.completion", "created": CREATED, "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(s)}],
            })
        }
        Kind::Completion => json!({
            "id": "cmpl-mock", "object": "text_completion", "created": CREATED, "model": model,
            "choices": [{"index": 0, "text": s.pieces().concat(), "finish_reason": "stop"}],
        }),
        Kind::Embedding => {
            let data: Vec<Value> = (0..input_count(req))
                .map(|i| json!({"object": "embedding", "index": i, "embedding": [0.1, 0.2, 0.3]}))
                .collect();
            json!({"object": "list", "data": data, "model": model})
        }
    };
    if s.usage {
        body["usage"] = match kind {
            Kind::Embedding => {
                json!({"prompt_tokens": s.prompt_tokens, "total_tokens": s.prompt_tokens})
            }
            _ => usage(s, completion),
        };
    }
    json_response(StatusCode::OK, &body)
}

fn event(v: &Value) -> Bytes {
    Bytes::from(format!("data: {v}\n\n"))
}

/// The SSE events of one answer, in order.
fn events(kind: Kind, s: &Scenario, model: &str, include_usage: bool, images: usize) -> Vec<Bytes> {
    let chunk = |choice: Value, usage: Option<Value>| {
        let (id, object) = match kind {
            Kind::Completion => ("cmpl-mock", "text_completion"),
            _ => ("chatcmpl-mock", "chat.completion.chunk"),
        };
        let mut v = json!({"id": id, "object": object, "created": CREATED, "model": model,
            "choices": choice});
        if let Some(u) = usage {
            v["usage"] = u;
        }
        event(&v)
    };
    let mut out = Vec::new();
    if s.malformed {
        out.push(Bytes::from_static(b"data: {\"id\": broken\n\n"));
    }
    let deltas: Vec<Value> = match (&s.tool, kind) {
        (Some(name), Kind::Chat) => TOOL_INPUT_PIECES
            .iter()
            .enumerate()
            .map(|(i, piece)| {
                let call = if i == 0 {
                    tool_call(name, piece, Some(0))
                } else {
                    json!({"index": 0, "function": {"arguments": piece}})
                };
                json!({"tool_calls": [call]})
            })
            .collect(),
        (_, Kind::Chat) => s
            .text_pieces(images)
            .into_iter()
            .map(|piece| json!({"content": piece}))
            .collect(),
        _ => s.pieces().into_iter().map(|p| json!(p)).collect(),
    };
    for (i, delta) in deltas.into_iter().enumerate() {
        let choice = match kind {
            Kind::Completion => json!([{"index": 0, "text": delta, "finish_reason": null}]),
            _ => {
                let mut delta = delta;
                if i == 0 {
                    delta["role"] = json!("assistant");
                }
                json!([{"index": 0, "delta": delta, "finish_reason": null}])
            }
        };
        out.push(chunk(choice, None));
    }
    let finish = match kind {
        Kind::Completion => json!([{"index": 0, "text": "", "finish_reason": "stop"}]),
        _ => json!([{"index": 0, "delta": {}, "finish_reason": finish_reason(s)}]),
    };
    out.push(chunk(finish, None));
    if include_usage && s.usage {
        out.push(chunk(json!([]), Some(usage(s, s.chunks as u64))));
    }
    out.push(Bytes::from_static(b"data: [DONE]\n\n"));
    out
}
