//! OpenAI dialect: parses inbound requests, rewrites them for an OpenAI-compatible
//! upstream (model and stream_options only), and reads usage from answers. Pure functions.

use bytes::Bytes;
use serde_json::{Map, Value};

use crate::ParseError;
use crate::tokens;

/// The OpenAI endpoints relayed in this version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    ChatCompletions,
    Completions,
    Embeddings,
}

impl Endpoint {
    /// Recognises a POST path.
    pub fn from_path(path: &str) -> Option<Endpoint> {
        match path.trim_end_matches('/') {
            "/v1/chat/completions" => Some(Endpoint::ChatCompletions),
            "/v1/completions" => Some(Endpoint::Completions),
            "/v1/embeddings" => Some(Endpoint::Embeddings),
            _ => None,
        }
    }

    /// The path sent upstream.
    pub fn path(self) -> &'static str {
        match self {
            Endpoint::ChatCompletions => "/v1/chat/completions",
            Endpoint::Completions => "/v1/completions",
            Endpoint::Embeddings => "/v1/embeddings",
        }
    }
}

/// Token usage of one answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub cached_tokens: i64,
}

/// What the gateway needs to know of an inbound request.
#[derive(Debug)]
pub struct ParsedRequest {
    pub endpoint: Endpoint,
    pub model: String,
    pub stream: bool,
    /// Whether the client asked for the usage chunk (`stream_options.include_usage`).
    pub client_include_usage: bool,
    /// `max_tokens` / `max_completion_tokens`, if given.
    pub max_tokens: Option<i64>,
    /// Local estimate of prompt tokens.
    pub prompt_estimate: i64,
    body: Map<String, Value>,
    raw: Bytes,
}

/// Checks the content type is JSON (`application/json`, parameters allowed).
pub fn check_content_type(content_type: Option<&str>) -> Result<(), ParseError> {
    let ct = content_type.unwrap_or("");
    let essence = ct.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(ParseError::ContentType(ct.to_owned()))
    }
}

fn prompt_text(endpoint: Endpoint, body: &Map<String, Value>) -> (String, i64) {
    let mut text = String::new();
    let mut overhead = 0;
    let push_content = |v: &Value, text: &mut String| match v {
        Value::String(s) => text.push_str(s),
        Value::Array(parts) => {
            for p in parts {
                match p {
                    Value::String(s) => text.push_str(s),
                    Value::Object(o) => {
                        if let Some(Value::String(s)) = o.get("text") {
                            text.push_str(s);
                        }
                    }
                    _ => {}
                }
                text.push(' ');
            }
        }
        _ => {}
    };
    match endpoint {
        Endpoint::ChatCompletions => {
            if let Some(Value::Array(messages)) = body.get("messages") {
                for m in messages {
                    overhead += 3;
                    if let Some(c) = m.get("content") {
                        push_content(c, &mut text);
                    }
                    if m.get("name").is_some() {
                        overhead += 1;
                    }
                    text.push('\n');
                }
                overhead += 3;
            }
            if let Some(Value::Array(tools)) = body.get("tools") {
                overhead += 8 * tools.len() as i64;
                for t in tools {
                    text.push_str(&t.to_string());
                }
            }
        }
        Endpoint::Completions => {
            if let Some(p) = body.get("prompt") {
                push_content(p, &mut text);
            }
        }
        Endpoint::Embeddings => {
            if let Some(i) = body.get("input") {
                push_content(i, &mut text);
            }
        }
    }
    (text, overhead)
}

/// Parses and checks an inbound JSON body.
pub fn parse_request(endpoint: Endpoint, raw: Bytes) -> Result<ParsedRequest, ParseError> {
    let value: Value =
        serde_json::from_slice(&raw).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
    let Value::Object(body) = value else {
        return Err(ParseError::MalformedJson(
            "the body must be a JSON object".to_owned(),
        ));
    };
    let model = match body.get("model") {
        Some(Value::String(m)) if !m.trim().is_empty() => m.trim().to_owned(),
        _ => return Err(ParseError::MissingModel),
    };
    let stream = endpoint != Endpoint::Embeddings
        && body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let client_include_usage = body
        .get("stream_options")
        .and_then(|o| o.get("include_usage"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let max_tokens = ["max_tokens", "max_completion_tokens", "max_output_tokens"]
        .iter()
        .filter_map(|k| body.get(*k).and_then(Value::as_i64))
        .max()
        .map(|n| n.max(0));
    let (text, overhead) = prompt_text(endpoint, &body);
    let prompt_estimate = tokens::estimate(&model, &text) + overhead;
    Ok(ParsedRequest {
        endpoint,
        model,
        stream,
        client_include_usage,
        max_tokens,
        prompt_estimate,
        body,
        raw,
    })
}

impl ParsedRequest {
    /// The body for the upstream: the client's bytes untouched when nothing changes,
    /// otherwise with `model` replaced and `stream_options.include_usage` forced on.
    pub fn upstream_body(
        &self,
        upstream_model: &str,
        force_usage: bool,
    ) -> Result<Bytes, ParseError> {
        let add_usage = self.stream && force_usage && !self.client_include_usage;
        if upstream_model == self.model && !add_usage {
            return Ok(self.raw.clone());
        }
        let mut body = self.body.clone();
        body.insert("model".to_owned(), Value::String(upstream_model.to_owned()));
        if add_usage {
            let opts = body
                .entry("stream_options")
                .or_insert_with(|| Value::Object(Map::new()));
            if !opts.is_object() {
                *opts = Value::Object(Map::new());
            }
            if let Value::Object(o) = opts {
                o.insert("include_usage".to_owned(), Value::Bool(true));
            }
        }
        serde_json::to_vec(&body)
            .map(Bytes::from)
            .map_err(|e| ParseError::MalformedJson(e.to_string()))
    }
}

/// Reads `usage` from an answer or stream chunk object.
pub fn usage_of(v: &Value) -> Option<Usage> {
    let u = v.get("usage")?.as_object()?;
    let n = |k: &str| u.get(k).and_then(Value::as_i64).unwrap_or(0);
    let cached = u
        .get("prompt_tokens_details")
        .and_then(|d| d.get("cached_tokens"))
        .and_then(Value::as_i64)
        .unwrap_or(0);
    Some(Usage {
        prompt_tokens: n("prompt_tokens"),
        completion_tokens: n("completion_tokens"),
        cached_tokens: cached,
    })
}

/// Appends the generated text of an answer or chunk (`message.content`, `delta.content`,
/// `text`, reasoning) to `out`, for local counting when usage is missing.
pub fn push_output_text(v: &Value, out: &mut String) {
    let Some(Value::Array(choices)) = v.get("choices") else {
        return;
    };
    for c in choices {
        for holder in [c.get("message"), c.get("delta")].into_iter().flatten() {
            for k in ["content", "reasoning_content"] {
                if let Some(Value::String(s)) = holder.get(k) {
                    out.push_str(s);
                }
            }
        }
        if let Some(Value::String(s)) = c.get("text") {
            out.push_str(s);
        }
    }
}

/// Usage of a complete (non-stream) answer; counted locally when the upstream gave none.
pub fn answer_usage(parsed: &ParsedRequest, answer: &Value) -> (Usage, bool) {
    if let Some(u) = usage_of(answer)
        && (u.prompt_tokens > 0 || u.completion_tokens > 0)
    {
        return (u, false);
    }
    let mut text = String::new();
    push_output_text(answer, &mut text);
    let usage = Usage {
        prompt_tokens: parsed.prompt_estimate,
        completion_tokens: tokens::estimate(&parsed.model, &text),
        cached_tokens: 0,
    };
    (usage, true)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn parse(body: &str) -> Result<ParsedRequest, ParseError> {
        parse_request(Endpoint::ChatCompletions, Bytes::from(body.to_owned()))
    }

    #[test]
    fn rejects_bad_bodies() {
        assert!(matches!(
            parse("{not json"),
            Err(ParseError::MalformedJson(_))
        ));
        assert!(matches!(parse("[1]"), Err(ParseError::MalformedJson(_))));
        assert!(matches!(
            parse(r#"{"messages":[]}"#),
            Err(ParseError::MissingModel)
        ));
        assert!(check_content_type(Some("application/json; charset=utf-8")).is_ok());
        assert!(check_content_type(Some("text/plain")).is_err());
        assert!(check_content_type(None).is_err());
    }

    #[test]
    fn rewrites_only_when_needed() {
        let raw = r#"{"model":"a","stream":true,"messages":[{"role":"user","content":"hi there"}],"max_tokens":7}"#;
        let p = parse(raw).unwrap();
        assert_eq!(p.max_tokens, Some(7));
        assert!(p.prompt_estimate > 0);
        assert_eq!(&p.upstream_body("a", false).unwrap()[..], raw.as_bytes());
        let v: Value = serde_json::from_slice(&p.upstream_body("b", true).unwrap()).unwrap();
        assert_eq!(v["model"], "b");
        assert_eq!(v["stream_options"]["include_usage"], true);
    }

    #[test]
    fn reads_usage_or_counts_locally() {
        let p =
            parse(r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hello"}]}"#).unwrap();
        let with: Value = serde_json::from_str(
            r#"{"usage":{"prompt_tokens":3,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":1}}}"#,
        )
        .unwrap();
        assert_eq!(
            answer_usage(&p, &with),
            (
                Usage {
                    prompt_tokens: 3,
                    completion_tokens: 4,
                    cached_tokens: 1
                },
                false
            )
        );
        let without: Value =
            serde_json::from_str(r#"{"choices":[{"message":{"content":"one two three four"}}]}"#)
                .unwrap();
        let (u, local) = answer_usage(&p, &without);
        assert!(local && u.completion_tokens > 0 && u.prompt_tokens == p.prompt_estimate);
    }
}
