//! The media requests as the client sent them, checked as OpenAI checks them and measured for
//! the reservation: JSON bodies (images, speech, rerank, moderations) and multipart uploads
//! (transcriptions, translations, image edits), each with its default model and the figures
//! its price needs.

use bytes::Bytes;
use serde_json::Value;

use super::multipart::{self, Form};
use super::price::{self, Measure};
use super::{MediaKind, duration};
use crate::error::RequestError;
use adapters::{ParseError, raw_json, tokens};

/// Most images one request may ask for.
const MAX_IMAGES: i64 = 10;

/// The client's body.
#[derive(Debug)]
pub enum Body {
    Json(Bytes),
    Form(Form),
}

/// A decoded media request.
#[derive(Debug)]
pub struct MediaJob {
    pub kind: MediaKind,
    pub model: String,
    pub body: Body,
    /// The measure as far as the request tells (the answer may refine it).
    pub estimate: Measure,
    /// Local estimate of the input tokens (limits, `max_input_tokens`).
    pub prompt_estimate: i64,
}

fn bad(message: impl Into<String>) -> RequestError {
    RequestError::InvalidRequest(message.into())
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(text_of).collect::<Vec<_>>().join("\n"),
        Value::Object(o) => o.get("text").map(text_of).unwrap_or_default(),
        _ => String::new(),
    }
}

fn non_empty_str<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// The images `n`, size and quality ratios of a request for `model`.
fn image_measure(
    model: &str,
    n: Option<&Value>,
    size: Option<&str>,
    quality: Option<&str>,
) -> Result<Measure, RequestError> {
    let n = match n {
        None | Some(Value::Null) => 1,
        Some(v) => v
            .as_i64()
            .filter(|n| (1..=MAX_IMAGES).contains(n))
            .ok_or_else(|| bad(format!("n must be an integer from 1 to {MAX_IMAGES}")))?,
    };
    Ok(Measure::Images {
        n,
        size_ratio: price::size_ratio(model, size),
        quality_ratio: price::quality_ratio(model, size, quality),
        usage: None,
    })
}

impl MediaJob {
    /// Decodes a JSON body of `kind`.
    pub fn from_json(kind: MediaKind, body: Bytes) -> Result<MediaJob, RequestError> {
        let v: Value = serde_json::from_slice(&body)
            .map_err(|e| RequestError::MalformedJson(e.to_string()))?;
        if !v.is_object() {
            return Err(RequestError::MalformedJson(
                "the body is not an object".into(),
            ));
        }
        // A body naming its model twice could be billed for one and served by the other.
        raw_json::member_span(&body, "model")?;
        let model = match v.get("model") {
            Some(Value::String(m)) if !m.trim().is_empty() => m.clone(),
            None | Some(Value::Null) => kind
                .default_model()
                .ok_or(RequestError::MissingModel)?
                .to_owned(),
            Some(Value::String(_)) => match kind.default_model() {
                Some(m) => m.to_owned(),
                None => return Err(RequestError::MissingModel),
            },
            Some(_) => return Err(bad("model must be a string")),
        };
        let (estimate, prompt_estimate) = match kind {
            MediaKind::ImageGenerations | MediaKind::ImageEdits => {
                let prompt =
                    non_empty_str(&v, "prompt").ok_or_else(|| bad("prompt is required"))?;
                let size = v.get("size").and_then(Value::as_str);
                let quality = v.get("quality").and_then(Value::as_str);
                (
                    image_measure(&model, v.get("n"), size, quality)?,
                    tokens::estimate(&model, prompt),
                )
            }
            MediaKind::Speech => {
                let input = non_empty_str(&v, "input").ok_or_else(|| bad("input is required"))?;
                if v.get("voice").is_none_or(Value::is_null) {
                    return Err(bad("voice is required"));
                }
                let chars = i64::try_from(input.chars().count()).unwrap_or(i64::MAX);
                (Measure::Tokens(price::prompt_usage(chars)), chars)
            }
            MediaKind::Rerank => {
                let query = v.get("query").map(text_of).unwrap_or_default();
                if query.trim().is_empty() {
                    return Err(bad("query is required"));
                }
                let docs = match v.get("documents") {
                    Some(Value::Array(d)) if !d.is_empty() => d,
                    _ => return Err(bad("documents must be a non-empty array")),
                };
                let text = [
                    query,
                    docs.iter().map(text_of).collect::<Vec<_>>().join("\n"),
                ]
                .join("\n");
                let t = tokens::estimate(&model, &text);
                (Measure::Tokens(price::prompt_usage(t)), t)
            }
            MediaKind::Moderations => {
                let input = v.get("input").map(text_of).unwrap_or_default();
                if input.is_empty() {
                    return Err(bad("input is required"));
                }
                let t = tokens::estimate(&model, &input);
                (Measure::Tokens(price::prompt_usage(t)), t)
            }
            MediaKind::Transcriptions | MediaKind::Translations => {
                return Err(bad(
                    "unsupported content type application/json, expected multipart/form-data",
                ));
            }
        };
        Ok(MediaJob {
            kind,
            model,
            body: Body::Json(body),
            estimate,
            prompt_estimate,
        })
    }

    /// Decodes a multipart body of `kind` (audio uploads, image edits).
    pub fn from_form(
        kind: MediaKind,
        body: Bytes,
        boundary: &str,
    ) -> Result<MediaJob, RequestError> {
        let form = multipart::parse(body, boundary)?;
        let model = match form.text("model").map(str::trim) {
            Some(m) if !m.is_empty() => m.to_owned(),
            _ => kind
                .default_model()
                .ok_or(RequestError::MissingModel)?
                .to_owned(),
        };
        let (estimate, prompt_estimate) = match kind {
            MediaKind::Transcriptions | MediaKind::Translations => {
                let file = form
                    .part("file")
                    .filter(|p| !p.data.is_empty())
                    .ok_or_else(|| bad("file is required"))?;
                let (seconds, _read) = duration::seconds(&form.data(file));
                let t = price::audio_tokens(seconds);
                (Measure::Tokens(price::prompt_usage(t)), t)
            }
            MediaKind::ImageEdits => {
                let prompt = form
                    .text("prompt")
                    .filter(|p| !p.trim().is_empty())
                    .ok_or_else(|| bad("prompt is required"))?;
                if !form
                    .parts
                    .iter()
                    .any(|p| (p.name == "image" || p.name == "image[]") && !p.data.is_empty())
                {
                    return Err(bad("image is required"));
                }
                let n = form
                    .text("n")
                    .map(|n| {
                        n.trim()
                            .parse::<i64>()
                            .map(Value::from)
                            .map_err(|_| bad("n must be an integer"))
                    })
                    .transpose()?;
                let measure =
                    image_measure(&model, n.as_ref(), form.text("size"), form.text("quality"))?;
                (measure, tokens::estimate(&model, prompt))
            }
            _ => {
                return Err(bad(
                    "unsupported content type multipart/form-data, expected application/json",
                ));
            }
        };
        Ok(MediaJob {
            kind,
            model,
            body: Body::Form(form),
            estimate,
            prompt_estimate,
        })
    }

    /// The upstream body for `model` (slices of the client's bytes around the model's value)
    /// and its content type.
    pub fn upstream_body(&self, model: &str) -> Result<(Vec<Bytes>, String), ParseError> {
        match &self.body {
            Body::Json(raw) => {
                let value = raw_json::json_string(model);
                let edit = match raw_json::member_span(raw, "model")? {
                    Some(span) => (span, value),
                    None => {
                        let mut member = raw_json::json_string("model");
                        member.push(b':');
                        member.extend_from_slice(&value);
                        raw_json::insert_first(raw, member)
                    }
                };
                Ok((
                    raw_json::splice_chunks(raw, vec![edit]),
                    "application/json".to_owned(),
                ))
            }
            Body::Form(form) => Ok((form.with_model(model)?, form.content_type())),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn json(kind: MediaKind, v: Value) -> Result<MediaJob, RequestError> {
        MediaJob::from_json(kind, Bytes::from(v.to_string()))
    }

    fn joined(chunks: &[Bytes]) -> Value {
        let b: Vec<u8> = chunks.iter().flat_map(|c| c.iter().copied()).collect();
        serde_json::from_slice(&b).unwrap()
    }

    #[test]
    fn defaults_and_checks_of_json_bodies() {
        let j = json(
            MediaKind::ImageGenerations,
            serde_json::json!({"prompt": "a cat"}),
        )
        .unwrap();
        assert_eq!(j.model, "dall-e");
        let (chunks, ct) = j.upstream_body("dall-e-3").unwrap();
        assert_eq!(ct, "application/json");
        assert_eq!(
            joined(&chunks),
            serde_json::json!({"model": "dall-e-3", "prompt": "a cat"})
        );
        assert_eq!(
            json(
                MediaKind::Speech,
                serde_json::json!({"input": "héllo", "voice": "alloy"})
            )
            .unwrap()
            .estimate,
            Measure::Tokens(price::prompt_usage(5))
        );
        assert_eq!(
            json(MediaKind::Moderations, serde_json::json!({"input": ["a"]}))
                .unwrap()
                .model,
            "text-moderation-stable"
        );
        for (kind, body) in [
            (
                MediaKind::ImageGenerations,
                serde_json::json!({"model": "dall-e-3"}),
            ),
            (
                MediaKind::ImageGenerations,
                serde_json::json!({"prompt": "x", "n": 0}),
            ),
            (MediaKind::Speech, serde_json::json!({"input": "x"})),
            (MediaKind::Speech, serde_json::json!({"voice": "alloy"})),
            (
                MediaKind::Rerank,
                serde_json::json!({"model": "r", "query": "q", "documents": []}),
            ),
            (MediaKind::Moderations, serde_json::json!({})),
            (MediaKind::Transcriptions, serde_json::json!({"file": "x"})),
        ] {
            assert!(
                matches!(
                    json(kind, body.clone()),
                    Err(RequestError::InvalidRequest(_))
                ),
                "{kind:?} {body}"
            );
        }
        assert!(matches!(
            json(
                MediaKind::Rerank,
                serde_json::json!({"query": "q", "documents": ["d"]})
            ),
            Err(RequestError::MissingModel)
        ));
        let dup = MediaJob::from_json(
            MediaKind::Speech,
            Bytes::from_static(br#"{"model":"a","model":"b","input":"x","voice":"v"}"#),
        );
        assert!(dup.is_err());
    }

    #[test]
    fn forms_need_their_file() {
        let body =
            "--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--b--\r\n";
        let err =
            MediaJob::from_form(MediaKind::Transcriptions, Bytes::from(body), "b").unwrap_err();
        assert!(err.to_string().contains("file is required"), "{err}");
        let wav = duration::tests::wav(8000, 6);
        let mut body =
            b"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\n"
                .to_vec();
        body.extend_from_slice(&wav);
        body.extend_from_slice(b"\r\n--b--\r\n");
        let j = MediaJob::from_form(MediaKind::Translations, Bytes::from(body), "b").unwrap();
        assert_eq!(j.model, "whisper-1");
        assert_eq!(j.estimate, Measure::Tokens(price::prompt_usage(100)));
    }
}
