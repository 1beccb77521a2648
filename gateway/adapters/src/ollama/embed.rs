//! Ollama embeddings (`POST /api/embed`) from and to OpenAI's `/v1/embeddings` shapes, and
//! the model ids of `GET /api/tags`.

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::response::error_message;
use crate::ParseError;

fn invalid(msg: &str) -> ParseError {
    ParseError::Invalid(msg.to_owned())
}

/// The `/api/embed` body for an OpenAI embeddings body: `{model, input: [texts]}` (`input`
/// a string or an array of strings; token-id inputs have no Ollama form and are refused),
/// `dimensions` kept (Ollama reads it too). `encoding_format` and `user` are OpenAI's only:
/// the answer is encoded by [`ollama_embed_to_openai`].
pub fn openai_embeddings_to_ollama(
    body: &Value,
    upstream_model: &str,
) -> Result<Value, ParseError> {
    let inputs: Vec<&str> = match body.get("input") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|i| {
                i.as_str()
                    .ok_or_else(|| invalid("`input` must be a string or an array of strings"))
            })
            .collect::<Result<_, _>>()?,
        _ => {
            return Err(invalid(
                "`input` must be a string or a non-empty array of strings",
            ));
        }
    };
    let mut out = Map::new();
    out.insert("model".into(), json!(upstream_model));
    out.insert("input".into(), json!(inputs));
    if let Some(d) = body.get("dimensions").and_then(Value::as_i64) {
        out.insert("dimensions".into(), json!(d));
    }
    Ok(Value::Object(out))
}

/// The OpenAI embeddings answer for an `/api/embed` answer: `{object: "list", data:
/// [{object: "embedding", index, embedding}], model, usage: {prompt_tokens, total_tokens}}`
/// (`prompt_eval_count` as the tokens). With `base64` (the client's `encoding_format:
/// "base64"`, what OpenAI's Python SDK asks for) each vector is the base64 of its
/// little-endian `f32`s, as OpenAI sends it. An error object or a missing `embeddings`
/// list is `Err(Invalid)`.
pub fn ollama_embed_to_openai(v: &Value, model: &str, base64: bool) -> Result<Value, ParseError> {
    if let Some(msg) = error_message(v) {
        return Err(ParseError::Invalid(msg));
    }
    let vectors = v
        .get("embeddings")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("Ollama embed answer has no `embeddings` array"))?;
    let mut data = Vec::with_capacity(vectors.len());
    for (i, e) in vectors.iter().enumerate() {
        let numbers = e
            .as_array()
            .ok_or_else(|| invalid("Ollama embedding must be an array of numbers"))?;
        let embedding = if base64 {
            let mut bytes = Vec::with_capacity(numbers.len() * 4);
            for n in numbers {
                let x = n
                    .as_f64()
                    .ok_or_else(|| invalid("Ollama embedding must be an array of numbers"))?;
                bytes.extend_from_slice(&(x as f32).to_le_bytes());
            }
            json!(base64::engine::general_purpose::STANDARD.encode(bytes))
        } else {
            e.clone()
        };
        data.push(json!({"object": "embedding", "index": i, "embedding": embedding}));
    }
    let tokens = v
        .get("prompt_eval_count")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    Ok(json!({
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }))
}

/// Model ids of a `GET /api/tags` answer (`models[].name`, else `models[].model`), in order.
pub fn tag_ids(v: &Value) -> Result<Vec<String>, ParseError> {
    if let Some(msg) = error_message(v) {
        return Err(ParseError::Invalid(msg));
    }
    let models = v
        .get("models")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("Ollama tags answer has no `models` array"))?;
    Ok(models
        .iter()
        .filter_map(|m| {
            m.get("name")
                .or_else(|| m.get("model"))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        })
        .collect())
}
