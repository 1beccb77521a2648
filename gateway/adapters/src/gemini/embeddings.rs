//! Client side: Gemini `embedContent` / `batchEmbedContents` through an OpenAI embeddings
//! upstream.

use serde_json::{Map, Value, json};

use super::fields::{self, get, invalid};
use crate::ParseError;

/// The OpenAI `/v1/embeddings` body for an `embedContent` body (`input` a string) or, with
/// `batch`, a `batchEmbedContents` body (`input` an array, one entry per request, in
/// order). A content's text parts are joined with `\n`; `outputDimensionality` (of the
/// first request) → `dimensions`. `taskType` and `title` have no OpenAI field and are
/// dropped; each batch request's own `model` is ignored for `model` (from the URL).
pub fn embed_request_to_openai(model: &str, body: &[u8], batch: bool) -> Result<Value, ParseError> {
    let v: Value =
        serde_json::from_slice(body).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
    if !v.is_object() {
        return Err(ParseError::Invalid(
            "request body must be a JSON object".into(),
        ));
    }
    let mut out = Map::new();
    out.insert("model".into(), json!(model));
    let dims_from = if batch {
        let requests = fields::array(&v, "requests", "requests")?;
        if requests.is_empty() {
            return Err(ParseError::Invalid(
                "field `requests` must be a non-empty array".into(),
            ));
        }
        let inputs = requests
            .iter()
            .enumerate()
            .map(|(i, r)| content_text(r, &format!("requests[{i}].content")))
            .collect::<Result<Vec<_>, _>>()?;
        out.insert("input".into(), json!(inputs));
        requests.first().unwrap_or(&v)
    } else {
        out.insert("input".into(), json!(content_text(&v, "content")?));
        &v
    };
    if let Some(d) = fields::int(dims_from, "outputDimensionality", "output_dimensionality")? {
        out.insert("dimensions".into(), json!(d));
    }
    Ok(Value::Object(out))
}

fn content_text(request: &Value, at: &str) -> Result<String, ParseError> {
    let content = get(request, "content", "content").ok_or_else(|| invalid(at, "an object"))?;
    let mut text = String::new();
    let mut any = false;
    for p in fields::array(content, "parts", "parts")? {
        if let Some(t) = p.get("text").and_then(Value::as_str) {
            if any {
                text.push('\n');
            }
            text.push_str(t);
            any = true;
        }
    }
    if !any {
        return Err(invalid(&format!("{at}.parts"), "a list with text parts"));
    }
    Ok(text)
}

/// The Gemini answer for an OpenAI embeddings answer: `{"embedding":{"values":[…]}}`, or
/// with `batch` `{"embeddings":[{"values":[…]},…]}` in `index` order. An error object, a
/// missing `data` list or a non-array (e.g. base64) embedding is `Err(Invalid)`.
pub fn openai_embeddings_to_gemini(v: &Value, batch: bool) -> Result<Value, ParseError> {
    if let Some(msg) = fields::error_message(v) {
        return Err(ParseError::Invalid(msg));
    }
    let data = v
        .get("data")
        .and_then(Value::as_array)
        .filter(|d| !d.is_empty())
        .ok_or_else(|| invalid("data", "a non-empty array"))?;
    let mut items: Vec<(u64, &Value)> = Vec::with_capacity(data.len());
    for (i, d) in data.iter().enumerate() {
        let values = d
            .get("embedding")
            .filter(|e| e.is_array())
            .ok_or_else(|| invalid(&format!("data[{i}].embedding"), "an array of numbers"))?;
        let index = d.get("index").and_then(Value::as_u64).unwrap_or(i as u64);
        items.push((index, values));
    }
    items.sort_by_key(|(index, _)| *index);
    if batch {
        let list: Vec<Value> = items.iter().map(|(_, e)| json!({"values": e})).collect();
        return Ok(json!({ "embeddings": list }));
    }
    let first = items.first().map(|(_, e)| *e);
    Ok(json!({"embedding": {"values": first}}))
}

/// Provider side: the `batchEmbedContents` body for an OpenAI `/v1/embeddings` body (`input`
/// a string or an array of strings; token-id inputs have no Gemini form and are refused);
/// `dimensions` → `outputDimensionality`.
pub fn openai_embeddings_request_to_gemini(model: &str, body: &Value) -> Result<Value, ParseError> {
    let inputs: Vec<&str> = match body.get("input") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|i| {
                i.as_str()
                    .ok_or_else(|| invalid("input", "a string or an array of strings"))
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(invalid("input", "a string or a non-empty array of strings")),
    };
    let dims = body.get("dimensions").and_then(Value::as_i64);
    let requests: Vec<Value> = inputs
        .iter()
        .map(|text| {
            let mut r =
                json!({"model": format!("models/{model}"), "content": {"parts": [{"text": text}]}});
            if let (Some(d), Some(o)) = (dims, r.as_object_mut()) {
                o.insert("outputDimensionality".into(), json!(d));
            }
            r
        })
        .collect();
    Ok(json!({ "requests": requests }))
}

/// Provider side: the OpenAI embeddings answer for a `batchEmbedContents` answer, with the
/// locally counted `prompt_tokens` as usage (Gemini reports none).
pub fn gemini_embeddings_to_openai(
    v: &Value,
    model: &str,
    prompt_tokens: i64,
) -> Result<Value, ParseError> {
    if let Some(msg) = fields::error_message(v) {
        return Err(ParseError::Invalid(msg));
    }
    let list = v
        .get("embeddings")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("embeddings", "an array"))?;
    let data = list
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let values = e.get("values").filter(|x| x.is_array()).ok_or_else(|| {
                invalid(&format!("embeddings[{i}].values"), "an array of numbers")
            })?;
            Ok(json!({"object": "embedding", "index": i, "embedding": values}))
        })
        .collect::<Result<Vec<_>, ParseError>>()?;
    Ok(json!({
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens},
    }))
}

#[cfg(test)]
mod openai_client_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn openai_embeddings_go_to_gemini_and_back() {
        let body = json!({"model": "e", "input": ["a", "b"], "dimensions": 4});
        let g = openai_embeddings_request_to_gemini("text-embedding-004", &body).unwrap();
        assert_eq!(g["requests"][1]["model"], "models/text-embedding-004");
        assert_eq!(g["requests"][1]["content"]["parts"][0]["text"], "b");
        assert_eq!(g["requests"][0]["outputDimensionality"], 4);
        assert!(openai_embeddings_request_to_gemini("m", &json!({"input": [1, 2]})).is_err());
        let answer = json!({"embeddings": [{"values": [0.1]}, {"values": [0.2]}]});
        let o = gemini_embeddings_to_openai(&answer, "e", 3).unwrap();
        assert_eq!(o["data"][1]["index"], 1);
        assert_eq!(o["data"][1]["embedding"], json!([0.2]));
        assert_eq!(o["usage"]["prompt_tokens"], 3);
        assert!(gemini_embeddings_to_openai(&json!({"error": {"message": "x"}}), "e", 0).is_err());
    }
}
