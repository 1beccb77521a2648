//! Builds the mock's answers: errors, model list, complete JSON and SSE streams.

use bytes::Bytes;
use futures_util::stream;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::{MockBody, Scenario, SharedStats, json_response, lock};

/// Which OpenAI endpoint is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Chat,
    Completion,
    Embedding,
}

const CREATED: i64 = 1_700_000_000;

pub fn error(s: &Scenario) -> Response<MockBody> {
    let status = StatusCode::from_u16(s.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = json!({"error": {
        "message": format!("mock error {}", s.status),
        "type": "upstream_error",
        "param": null,
        "code": format!("mock_{}", s.status),
    }});
    json_response(status, &body)
}

pub fn models() -> Response<MockBody> {
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
    if s.cached_tokens > 0 {
        u["prompt_tokens_details"] = json!({"cached_tokens": s.cached_tokens});
    }
    u
}

fn input_count(req: &Value) -> usize {
    match req.get("input") {
        Some(Value::Array(a)) => a.len(),
        _ => 1,
    }
}

pub fn complete(kind: Kind, s: &Scenario, model: &str, req: &Value) -> Response<MockBody> {
    if s.malformed {
        let mut resp = json_response(StatusCode::OK, &Value::Null);
        *resp.body_mut() = http_body_util::Full::new(Bytes::from_static(b"{\"id\": \"broken"))
            .map_err(|e| match e {})
            .boxed();
        return resp;
    }
    let text: String = s.pieces().concat();
    let completion = s.chunks as u64;
    let mut body = match kind {
        Kind::Chat => json!({
            "id": "chatcmpl-mock", "object": "chat.completion", "created": CREATED, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }),
        Kind::Completion => json!({
            "id": "cmpl-mock", "object": "text_completion", "created": CREATED, "model": model,
            "choices": [{"index": 0, "text": text, "finish_reason": "stop"}],
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

/// Counts how a stream ended when it is dropped.
struct StreamGuard {
    stats: SharedStats,
    finished: bool,
}

impl StreamGuard {
    fn finish(&mut self) {
        self.finished = true;
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let mut st = lock(&self.stats);
        if self.finished {
            st.completed_streams += 1;
        } else {
            st.aborted_streams += 1;
        }
    }
}

fn event(v: &Value) -> Bytes {
    Bytes::from(format!("data: {v}\n\n"))
}

/// The SSE events of one answer, in order.
fn events(kind: Kind, s: &Scenario, model: &str, include_usage: bool) -> Vec<Bytes> {
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
    for (i, piece) in s.pieces().iter().enumerate() {
        let choice = match kind {
            Kind::Completion => json!([{"index": 0, "text": piece, "finish_reason": null}]),
            _ if i == 0 => {
                json!([{"index": 0, "delta": {"role": "assistant", "content": piece}, "finish_reason": null}])
            }
            _ => json!([{"index": 0, "delta": {"content": piece}, "finish_reason": null}]),
        };
        out.push(chunk(choice, None));
    }
    let finish = match kind {
        Kind::Completion => json!([{"index": 0, "text": "", "finish_reason": "stop"}]),
        _ => json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
    };
    out.push(chunk(finish, None));
    if include_usage && s.usage {
        out.push(chunk(json!([]), Some(usage(s, s.chunks as u64))));
    }
    out.push(Bytes::from_static(b"data: [DONE]\n\n"));
    out
}

pub fn stream(
    kind: Kind,
    s: &Scenario,
    model: &str,
    include_usage: bool,
    stats: SharedStats,
) -> Response<MockBody> {
    let events = events(kind, s, model, include_usage);
    // Index of the event at which the connection is cut instead of sent.
    let cut = s.cut_after.map(|n| n + usize::from(s.malformed));
    let guard = StreamGuard {
        stats,
        finished: false,
    };
    let (delay, first) = (s.chunk_delay, s.first_event);
    let state = (events.into_iter().enumerate(), guard, cut, delay);
    let body = stream::unfold(state, move |(mut it, mut guard, cut, delay)| async move {
        let (i, ev) = match it.next() {
            Some(x) => x,
            None => {
                guard.finish();
                return None;
            }
        };
        let wait = if i == 0 { first } else { delay };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        if cut == Some(i) {
            let err = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "mock cut");
            return Some((Err(err), (it, guard, None, delay)));
        }
        Some((Ok(Frame::data(ev)), (it, guard, cut, delay)))
    });
    let mut resp = Response::new(BodyExt::boxed(StreamBody::new(body)));
    let headers = resp.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-cache"),
    );
    resp
}
