//! Ollama's native API (`POST /api/chat` JSON and NDJSON streams, `POST /api/embed`,
//! `GET /api/tags`): no key needed (like a local Ollama), request checks like the real
//! server, answers and `{"error": "…"}` errors in its shapes.

use bytes::Bytes;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::scenario::{self, THOUGHT_PIECES};
use crate::{Call, MockBody, Scenario, b64, broken_json, json_response, sse};

/// `created_at` of every mock answer.
const CREATED_AT: &str = "2025-05-01T10:00:00.000000Z";
const MODELS: [&str; 2] = ["llama3.2:latest", "nomic-embed-text:latest"];

/// Whether the path is one of Ollama's.
pub(crate) fn serves(path: &str) -> bool {
    matches!(path, "/api/chat" | "/api/embed" | "/api/tags")
}

/// Whether a chat body asks for a stream (Ollama streams unless told not to).
pub(crate) fn streamed(body: Option<&Value>) -> bool {
    body.and_then(|b| b.get("stream"))
        .and_then(Value::as_bool)
        .unwrap_or(true)
}

/// An Ollama error: `{"error": message}`.
pub(crate) fn error(status: u16, message: &str) -> Response<MockBody> {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_response(code, &json!({ "error": message }))
}

pub(crate) fn handle(call: &Call) -> Response<MockBody> {
    let s = &call.scenario;
    if s.status != 200 {
        return error(s.status, &format!("mock error {}", s.status));
    }
    let get = call.method == http::Method::GET;
    match (call.path.as_str(), get) {
        ("/api/tags", true) => return tags(),
        ("/api/chat" | "/api/embed", false) => {}
        _ => return error(405, "405 method not allowed"),
    }
    let Some(body) = call.json.as_ref().filter(|b| b.is_object()) else {
        return error(400, "invalid character 'x' looking for beginning of value");
    };
    let model = match body.get("model").and_then(Value::as_str) {
        Some(m) if !m.is_empty() => m,
        _ => return error(400, "model is required"),
    };
    if call.path == "/api/embed" {
        return embed(s, model, body);
    }
    let images = match check_chat(body) {
        Ok(n) => n,
        Err(msg) => return error(400, &msg),
    };
    if streamed(Some(body)) {
        let (frames, content) = frames(s, model, images);
        let cut = s.cut_after.map(|n| sse::cut_index(&content, n));
        return sse::response(frames, cut, s, call.stats.clone(), "application/x-ndjson");
    }
    if s.malformed {
        return broken_json();
    }
    let mut v = line(message(s, images), true, model);
    finish(&mut v, s);
    json_response(StatusCode::OK, &v)
}

/// Checks `messages` (roles, string content, base64 images, tool calls with object
/// arguments); returns the number of images.
fn check_chat(body: &Value) -> Result<usize, String> {
    let messages = match body.get("messages") {
        None | Some(Value::Null) => return Ok(0),
        Some(Value::Array(m)) => m,
        Some(_) => {
            return Err("json: cannot unmarshal object into Go struct field ChatRequest.messages of type []api.Message".into());
        }
    };
    let mut images = 0;
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        if !matches!(role, "system" | "user" | "assistant" | "tool") {
            return Err(format!("messages[{i}]: invalid role {role:?}"));
        }
        if m.get("content")
            .is_some_and(|c| !c.is_string() && !c.is_null())
        {
            return Err("json: cannot unmarshal array into Go struct field Message.messages.content of type string".into());
        }
        for img in m
            .get("images")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match img.as_str() {
                Some(data) if b64::strict(data) => images += 1,
                _ => return Err("illegal base64 data at input byte 0".into()),
            }
        }
        for c in m
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let f = c.get("function");
            let named = f
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .is_some();
            let object = f
                .and_then(|f| f.get("arguments"))
                .is_some_and(Value::is_object);
            if !named || !object {
                return Err("json: cannot unmarshal string into Go struct field ToolCallFunction.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments".into());
            }
        }
    }
    Ok(images)
}

/// One answer object (a whole answer or a stream line).
fn line(message: Value, done: bool, model: &str) -> Value {
    json!({"model": model, "created_at": CREATED_AT, "message": message, "done": done})
}

/// Marks `v` as the last object: `done_reason` and, unless `usage=off`, the counts.
fn finish(v: &mut Value, s: &Scenario) {
    v["done"] = json!(true);
    v["done_reason"] = json!("stop");
    v["total_duration"] = json!(1_000_000);
    if s.usage {
        v["prompt_eval_count"] = json!(s.prompt_tokens);
        v["eval_count"] = json!(s.chunks as u64 + s.thinking_tokens());
    }
}

fn tool_call(name: &str) -> Value {
    json!({"function": {"name": name, "arguments": scenario::tool_input()}})
}

/// The whole answer's message.
fn message(s: &Scenario, images: usize) -> Value {
    let mut m = json!({"role": "assistant", "content": ""});
    if s.thinking {
        m["thinking"] = json!(THOUGHT_PIECES.concat());
    }
    match &s.tool {
        Some(name) => m["tool_calls"] = json!([tool_call(name)]),
        None => m["content"] = json!(s.text_pieces(images).concat()),
    }
    m
}

/// The NDJSON lines of a streamed answer and the indexes of its content lines.
fn frames(s: &Scenario, model: &str, images: usize) -> (Vec<Bytes>, Vec<usize>) {
    let mut lines: Vec<Value> = Vec::new();
    if s.thinking {
        for t in THOUGHT_PIECES {
            lines.push(line(
                json!({"role": "assistant", "content": "", "thinking": t}),
                false,
                model,
            ));
        }
    }
    match &s.tool {
        Some(name) => lines.push(line(
            json!({"role": "assistant", "content": "", "tool_calls": [tool_call(name)]}),
            false,
            model,
        )),
        None => lines.extend(
            s.text_pieces(images)
                .into_iter()
                .map(|t| line(json!({"role": "assistant", "content": t}), false, model)),
        ),
    }
    let mut out = Vec::with_capacity(lines.len() + 2);
    if s.malformed {
        out.push(Bytes::from_static(b"{\"model\": broken\n"));
    }
    let content: Vec<usize> = (out.len()..out.len() + lines.len()).collect();
    let mut last = line(json!({"role": "assistant", "content": ""}), true, model);
    finish(&mut last, s);
    for v in lines.iter().chain([&last]) {
        out.push(Bytes::from(format!("{v}\n")));
    }
    (out, content)
}

fn embed(s: &Scenario, model: &str, body: &Value) -> Response<MockBody> {
    let count = match body.get("input") {
        Some(Value::String(_)) => 1,
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items.len(),
        _ => return error(400, "invalid input type"),
    };
    if s.malformed {
        return broken_json();
    }
    let dims = body
        .get("dimensions")
        .and_then(Value::as_u64)
        .unwrap_or(3)
        .clamp(1, 4096) as usize;
    let embeddings: Vec<Vec<f64>> = (0..count)
        .map(|i| (0..dims).map(|d| ((i + d) % 10) as f64 / 10.0).collect())
        .collect();
    let mut v = json!({"model": model, "embeddings": embeddings,
        "total_duration": 1_000_000, "load_duration": 1000});
    if s.usage {
        v["prompt_eval_count"] = json!(s.prompt_tokens);
    }
    json_response(StatusCode::OK, &v)
}

fn tags() -> Response<MockBody> {
    let models: Vec<Value> = MODELS
        .iter()
        .map(|m| {
            json!({"name": m, "model": m, "modified_at": CREATED_AT, "size": 2_019_393_189_u64,
                "digest": "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
                "details": {"format": "gguf", "family": "llama", "parameter_size": "3.2B",
                    "quantization_level": "Q4_K_M"}})
        })
        .collect();
    json_response(StatusCode::OK, &json!({ "models": models }))
}
