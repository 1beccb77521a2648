//! OpenAI dialect: parses inbound requests, rewrites them for an OpenAI-compatible
//! upstream (model and stream_options only), and reads usage from answers. Pure functions.

mod chunk_view;
mod scan;

pub use chunk_view::ChunkView;

#[cfg(test)]
mod cache_usage_tests;

use bytes::Bytes;
use serde_json::{Map, Value};

use crate::ParseError;
use crate::loose::{Loose, Object};
use crate::raw_json::{self, Span};
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
    /// Prompt tokens written to the provider's cache (Claude); part of `prompt_tokens`.
    pub cache_creation_tokens: i64,
}

impl From<crate::ir::Usage> for Usage {
    fn from(u: crate::ir::Usage) -> Self {
        Usage {
            prompt_tokens: u.input_tokens,
            completion_tokens: u.output_tokens,
            cached_tokens: u.cache_read_tokens,
            cache_creation_tokens: u.cache_creation_tokens,
        }
    }
}

/// What the gateway needs to know of an inbound request. The body stays as the client's
/// bytes: nothing of it is held as a value tree.
#[derive(Debug)]
pub struct ParsedRequest {
    pub endpoint: Endpoint,
    pub model: String,
    pub stream: bool,
    /// Whether the client asked for the usage chunk (`stream_options.include_usage`).
    pub client_include_usage: bool,
    /// `max_tokens` / `max_completion_tokens`, if given.
    pub max_tokens: Option<i64>,
    /// Local estimate of prompt tokens ([`ParsedRequest::prompt_estimate`]).
    prompt: tokens::PromptCount,
    raw: Bytes,
    /// Where the values of the top-level `model` and `stream_options` are in `raw`.
    model_span: Span,
    stream_options_span: Option<Span>,
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

/// Parses and checks an inbound JSON body in one pass that builds no value tree (see
/// [`scan`]); the text of the prompt is estimated as it is read. Limits on the body's shape
/// are the caller's ([`crate::raw_json::check_limits`]).
pub fn parse_request(endpoint: Endpoint, raw: Bytes) -> Result<ParsedRequest, ParseError> {
    let found = scan::scan(endpoint, &raw).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
    let (Some(model), Some(model_span)) = (found.model, found.model_span) else {
        return Err(ParseError::MissingModel);
    };
    let model = model.trim();
    if model.is_empty() {
        return Err(ParseError::MissingModel);
    }
    let model = model.to_owned();
    let prompt = tokens::PromptCount::new(found.text, &model, found.overhead);
    Ok(ParsedRequest {
        endpoint,
        stream: endpoint != Endpoint::Embeddings && found.stream,
        client_include_usage: found.include_usage,
        max_tokens: found.max_tokens.map(|n| n.max(0)),
        prompt,
        model,
        raw,
        model_span,
        stream_options_span: found.stream_options_span,
    })
}

impl ParsedRequest {
    /// Local estimate of the prompt's tokens (counted at the first call for short prompts).
    pub fn prompt_estimate(&self) -> i64 {
        self.prompt.get(&self.model)
    }

    /// An upper bound of [`ParsedRequest::prompt_estimate`] known without counting.
    pub fn prompt_at_most(&self) -> i64 {
        self.prompt.at_most()
    }

    /// The prompt's count, shared: whoever needs it first counts it, once.
    pub fn prompt_count(&self) -> tokens::PromptCount {
        self.prompt.clone()
    }

    /// `max(prompt_estimate, floor)`, without counting a prompt too short to exceed `floor`.
    pub fn prompt_estimate_at_least(&self, floor: i64) -> i64 {
        self.prompt.get_at_least(&self.model, floor)
    }

    /// The client's body as it came.
    pub fn raw(&self) -> &Bytes {
        &self.raw
    }

    /// The body for the upstream: the client's bytes untouched when nothing changes,
    /// otherwise with the value of `model` replaced and `stream_options.include_usage`
    /// forced on, in place (the rest of the bytes are the client's).
    pub fn upstream_body(
        &self,
        upstream_model: &str,
        force_usage: bool,
    ) -> Result<Bytes, ParseError> {
        let chunks = self.upstream_chunks(upstream_model, force_usage)?;
        Ok(match chunks.as_slice() {
            [one] => one.clone(),
            _ => Bytes::from(chunks.concat()),
        })
    }

    /// [`Self::upstream_body`] as the pieces to send one after another: slices of the
    /// client's bytes (shared, not copied) around the replaced values.
    pub fn upstream_chunks(
        &self,
        upstream_model: &str,
        force_usage: bool,
    ) -> Result<Vec<Bytes>, ParseError> {
        let add_usage = self.stream && force_usage && !self.client_include_usage;
        if upstream_model == self.model && !add_usage {
            return Ok(vec![self.raw.clone()]);
        }
        let mut edits = Vec::new();
        if upstream_model != self.model {
            edits.push((
                self.model_span.clone(),
                raw_json::json_string(upstream_model),
            ));
        }
        if add_usage {
            match &self.stream_options_span {
                Some(span) => {
                    let mut options = match serde_json::from_slice(&self.raw[span.clone()]) {
                        Ok(Value::Object(o)) => o,
                        _ => Map::new(),
                    };
                    options.insert("include_usage".to_owned(), Value::Bool(true));
                    let options = serde_json::to_vec(&options)
                        .map_err(|e| ParseError::MalformedJson(e.to_string()))?;
                    edits.push((span.clone(), options));
                }
                None => edits.push(raw_json::insert_first(
                    &self.raw,
                    br#""stream_options":{"include_usage":true}"#.to_vec(),
                )),
            }
        }
        Ok(raw_json::splice_chunks(&self.raw, edits))
    }
}

/// Reads `usage` from an answer or stream chunk object. Cached prompt tokens (part of
/// `prompt_tokens`, billed at the cache ratio) are read from wherever the provider puts
/// them, the first non-zero of:
/// - `prompt_tokens_details.cached_tokens`: OpenAI, Azure, xAI, OpenRouter, Zhipu, Qwen,
///   Volcengine, and DeepSeek's newer answers;
/// - `prompt_cache_hit_tokens`: DeepSeek (with `prompt_cache_miss_tokens`, hit + miss =
///   `prompt_tokens`), and relays of DeepSeek models that copy its usage;
/// - `cached_tokens` at the top of `usage`: Moonshot/Kimi.
///
/// Only read once a chunk is parsed anyway: the passthrough's bytes are not touched.
pub fn usage_of(v: &Value) -> Option<Usage> {
    let u = v.get("usage")?.as_object()?;
    let n = |k: &str| u.get(k).and_then(Value::as_i64).unwrap_or(0);
    let prompt = n("prompt_tokens");
    Some(Usage {
        prompt_tokens: prompt,
        completion_tokens: n("completion_tokens"),
        cached_tokens: cached_prompt_tokens(u).min(prompt.max(0)),
        cache_creation_tokens: 0,
    })
}

/// Cached prompt tokens of a `usage` object in any provider's field (see [`usage_of`]).
fn cached_prompt_tokens(u: &Map<String, Value>) -> i64 {
    let details = u
        .get("prompt_tokens_details")
        .and_then(|d| d.get("cached_tokens"));
    [
        details,
        u.get("prompt_cache_hit_tokens"),
        u.get("cached_tokens"),
    ]
    .into_iter()
    .flatten()
    .filter_map(Value::as_i64)
    .find(|n| *n > 0)
    .unwrap_or(0)
}

/// [`usage_of`] of a stream chunk, or of its first choice when the chunk has none at the
/// top (Moonshot puts the last chunk's usage in `choices[0].usage`).
pub fn chunk_usage_of(v: &Value) -> Option<Usage> {
    usage_of(v).or_else(|| usage_of(v.get("choices")?.as_array()?.first()?))
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
    if let Some(u) = chunk_usage_of(answer)
        && (u.prompt_tokens > 0 || u.completion_tokens > 0)
    {
        return (u, false);
    }
    let mut text = String::new();
    push_output_text(answer, &mut text);
    let usage = Usage {
        prompt_tokens: parsed.prompt_estimate(),
        completion_tokens: tokens::estimate(&parsed.model, &text),
        cached_tokens: 0,
        cache_creation_tokens: 0,
    };
    (usage, true)
}

/// [`answer_usage`] read from the answer's bytes without building its value tree: `usage`
/// is read into typed counts and the rest is checked as JSON and skipped. Whatever the typed
/// read does not settle (no usage or only zeros, so the answer is counted locally; not an
/// object; a repeated key; a `usage` that is not an object) goes through the value tree, so
/// the result is always [`answer_usage`]'s. Err: the answer is not JSON.
pub fn answer_usage_of(
    parsed: &ParsedRequest,
    answer: &[u8],
) -> Result<(Usage, bool), serde_json::Error> {
    let object = answer.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if let Some(Ok(AnswerHead {
        usage: Some(wire), ..
    })) = object.then(|| serde_json::from_slice::<AnswerHead>(answer))
    {
        let u = wire.0.usage();
        if u.prompt_tokens > 0 || u.completion_tokens > 0 {
            return Ok((u, false));
        }
    }
    Ok(answer_usage(parsed, &serde_json::from_slice(answer)?))
}

/// The top of an answer as [`answer_usage_of`] reads it: everything but `usage` is skipped.
#[derive(serde::Deserialize)]
struct AnswerHead {
    #[serde(default)]
    usage: Option<Object<WireUsage>>,
}

/// A `usage` object's counts, each read as [`usage_of`] reads it (an integer that fits
/// `i64`, else 0).
#[derive(serde::Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Loose,
    #[serde(default)]
    completion_tokens: Loose,
    #[serde(default)]
    prompt_tokens_details: Option<Object<WireDetails>>,
    #[serde(default)]
    prompt_cache_hit_tokens: Loose,
    #[serde(default)]
    cached_tokens: Loose,
}

#[derive(serde::Deserialize)]
struct WireDetails {
    #[serde(default)]
    cached_tokens: Loose,
}

impl WireUsage {
    fn usage(&self) -> Usage {
        let prompt = self.prompt_tokens.int();
        let details = self
            .prompt_tokens_details
            .as_ref()
            .map_or(0, |d| d.0.cached_tokens.int());
        let cached = [
            details,
            self.prompt_cache_hit_tokens.int(),
            self.cached_tokens.int(),
        ]
        .into_iter()
        .find(|n| *n > 0)
        .unwrap_or(0);
        Usage {
            prompt_tokens: prompt,
            completion_tokens: self.completion_tokens.int(),
            cached_tokens: cached.min(prompt.max(0)),
            cache_creation_tokens: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

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
        assert!(p.prompt_estimate() > 0);
        assert_eq!(&p.upstream_body("a", false).unwrap()[..], raw.as_bytes());
        let v: Value = serde_json::from_slice(&p.upstream_body("b", true).unwrap()).unwrap();
        assert_eq!(v["model"], "b");
        assert_eq!(v["stream_options"]["include_usage"], true);
    }

    #[test]
    fn rewrites_in_place_keeping_the_clients_bytes() {
        let raw = r#" { "stream_options" : {"continuous_usage_stats": true},
            "messages": [{"role": "user", "content": "caf\u00e9", "model": "inner"}],
            "model" : "a" , "stream": true, "z": 1.50 }"#;
        let p = parse(raw).unwrap();
        let out = p.upstream_body("b\"c", false).unwrap();
        assert_eq!(
            String::from_utf8(out.to_vec()).unwrap(),
            raw.replace(r#""model" : "a""#, r#""model" : "b\"c""#)
        );
        let out = p.upstream_body("a", true).unwrap();
        assert_eq!(
            String::from_utf8(out.to_vec()).unwrap(),
            raw.replace(
                r#"{"continuous_usage_stats": true}"#,
                r#"{"continuous_usage_stats":true,"include_usage":true}"#
            )
        );
        // The pieces sent are slices of the client's bytes around the new value.
        let chunks = p.upstream_chunks("b", false).unwrap();
        assert_eq!(chunks.len(), 3);
        let base = p.raw().as_ptr() as usize;
        assert_eq!(chunks[0].as_ptr() as usize, base);
        assert_eq!(&chunks[1][..], br#""b""#);
        assert!(
            chunks[2].as_ptr() as usize > base && (chunks[2].as_ptr() as usize) < base + raw.len()
        );
        // Without stream_options, it is added as the first member.
        let p = parse(r#"{"model":"a","stream":true,"messages":[]}"#).unwrap();
        assert_eq!(
            &p.upstream_body("b", true).unwrap()[..],
            br#"{"stream_options":{"include_usage":true},"model":"b","stream":true,"messages":[]}"#
        );
        // Asked for by the client: nothing to add.
        let p = parse(r#"{"model":"a","stream":true,"stream_options":{"include_usage":true}}"#)
            .unwrap();
        assert!(p.client_include_usage);
        assert_eq!(p.upstream_body("a", true).unwrap(), p.raw());
    }

    #[test]
    fn escaped_text_is_counted_as_its_characters() {
        let content = "caf\u{e9} 😀 \"q\" \\ / \u{8}\u{c}\n\r\t end \u{fffd}";
        for encoded in [
            serde_json::to_string(content).unwrap(),
            r#""caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t end \ud800""#.to_owned(),
        ] {
            for model in ["gpt-4o", "other"] {
                let raw = format!(
                    r#"{{"model":"{model}","messages":[{{"role":"user","content":{encoded}}},{{"content":[{{"text":{encoded}}}]}}]}}"#
                );
                let p = parse(&raw).unwrap();
                let text = format!("{content}\n{content} \n");
                assert_eq!(
                    p.prompt_estimate(),
                    tokens::estimate(model, &text) + 9,
                    "{encoded}"
                );
            }
        }
    }

    #[test]
    fn in_place_rewrites_equal_a_value_tree_rewrite() {
        let bodies = [
            r#"{"model":"a","stream":true,"messages":[{"role":"user","content":"x"}]}"#,
            "\n{ \"stream\" :true ,\"model\":\"a\"\t}\n",
            r#"{"stream":true,"stream_options":null,"model":"a"}"#,
            r#"{"stream":true,"stream_options":{"include_usage":false,"x":[1,{"y":2}]},"model":"a"}"#,
            r#"{"model":"a","stream":true,"tools":[{"type":"function"}],"stream_options":{}}"#,
        ];
        for raw in bodies {
            let p = parse(raw).unwrap();
            for (model, force) in [("a", true), ("b\u{e9}\"", false), ("c", true)] {
                let mut want: Value = serde_json::from_str(raw).unwrap();
                want["model"] = json!(model);
                if force {
                    if !want["stream_options"].is_object() {
                        want["stream_options"] = json!({});
                    }
                    want["stream_options"]["include_usage"] = json!(true);
                }
                let got: Value =
                    serde_json::from_slice(&p.upstream_body(model, force).unwrap()).unwrap();
                assert_eq!(got, want, "{raw} with {model}, {force}");
            }
        }
        // Every prefix of a body either fails to parse or (the whole body) parses: no panic.
        let raw = bodies[3];
        for end in 0..raw.len() {
            assert!(parse(&raw[..end]).is_err(), "{}", &raw[..end]);
        }
    }

    #[test]
    fn reads_fields_loosely_and_refuses_ambiguity() {
        let p = parse(
            r#"{"model":" m ","stream":"yes","max_tokens":5,"max_completion_tokens":9,
                "max_output_tokens":1.5,"stream_options":[1],"extra":{"deep":[[[{}]]]}}"#,
        )
        .unwrap();
        assert_eq!(p.model, "m");
        assert!(!p.stream && !p.client_include_usage);
        assert_eq!(p.max_tokens, Some(9));
        let p = parse(r#"{"model":"m","max_tokens":-4}"#).unwrap();
        assert_eq!(p.max_tokens, Some(0));
        for bad in [
            r#"{"model":"a","model":"b"}"#,
            r#"{"model":"a","stream":false,"stream":true}"#,
            r#"{"model":"a","messages":[],"messages":[]}"#,
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.to_string().contains("duplicate field"), "{bad}: {err}");
        }
        assert_eq!(
            parse(r#"{"model":7}"#).unwrap_err(),
            ParseError::MissingModel
        );
        assert_eq!(
            parse(r#"{"model":"  "}"#).unwrap_err(),
            ParseError::MissingModel
        );
        assert!(matches!(
            parse(r#"{"model":"a"} trailing"#),
            Err(ParseError::MalformedJson(_))
        ));
        assert!(matches!(
            parse(r#"{"model":"a","x":[1,}"#),
            Err(ParseError::MalformedJson(_))
        ));
        // Embeddings never stream; other endpoints read their own text field.
        let p = parse_request(
            Endpoint::Embeddings,
            Bytes::from_static(br#"{"model":"e","stream":true,"input":["a b","c"]}"#),
        )
        .unwrap();
        assert!(!p.stream);
        assert_eq!(p.prompt_estimate(), tokens::estimate("e", "a b c "));
    }

    #[test]
    fn estimates_the_prompt_text_as_a_value_tree_walk_did() {
        let raw = r#"{"model":"gpt-4o","messages":[
            {"role":"system","content":"Be brief.","name":"boss"},
            {"role":"user","content":[{"type":"text","text":"Hello"},{"type":"image_url","image_url":{"url":"data:x"}},"raw part"]},
            {"role":"assistant","content":null,"tool_calls":[{"id":"1"}]},
            7],
            "tools":[{"type":"function", "function":{"name":"f","parameters":{"type":"object"}}}]}"#;
        let p = parse(raw).unwrap();
        // Text: each message's content then a newline; content parts each followed by a
        // space; tool definitions as compact JSON.
        let text = "Be brief.\nHello  raw part \n\n\n".to_owned()
            + r#"{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}"#;
        // Framing: 3 per message (4) + 1 name + 3 + 8 per tool.
        let overhead = 3 * 4 + 1 + 3 + 8;
        assert_eq!(
            p.prompt_estimate(),
            tokens::estimate("gpt-4o", &text) + overhead
        );
        let body: Value = serde_json::from_slice(p.raw()).unwrap();
        assert_eq!(body["messages"].as_array().unwrap().len(), 4);
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
                    cached_tokens: 1,
                    cache_creation_tokens: 0,
                },
                false
            )
        );
        let without: Value =
            serde_json::from_str(r#"{"choices":[{"message":{"content":"one two three four"}}]}"#)
                .unwrap();
        let (u, local) = answer_usage(&p, &without);
        assert!(local && u.completion_tokens > 0 && u.prompt_tokens == p.prompt_estimate());
    }

    #[test]
    fn usage_read_from_bytes_is_the_value_trees() {
        let p =
            parse(r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hello"}]}"#).unwrap();
        let answers = [
            r#"{"id":"x","choices":[{"message":{"content":"a b"}}],"usage":{"prompt_tokens":3,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":1}}}"#,
            r#" {"usage":{"prompt_tokens":9,"completion_tokens":0,"prompt_cache_hit_tokens":20}}"#,
            r#"{"choices":[{"message":{"content":"one two three four"}}]}"#,
            r#"{"choices":[{"message":{"content":"x"},"usage":{"prompt_tokens":2,"completion_tokens":5,"cached_tokens":1}}]}"#,
            r#"{"usage":{"prompt_tokens":0,"completion_tokens":0},"choices":[{"text":"five six"}]}"#,
            r#"{"usage":null,"choices":null}"#,
            r#"{"usage":"many","choices":[{"delta":{"content":"z"}}]}"#,
            r#"{"usage":{"prompt_tokens":1},"usage":{"prompt_tokens":2,"completion_tokens":1}}"#,
            r#"{"usage":{"prompt_tokens":1.5,"completion_tokens":7}}"#,
            r#"{"usage":{"prompt_tokens":"3","completion_tokens":[1,{"a":2}],"x":{"y":[]}}}"#,
            r#"{"usage":{"prompt_tokens":18446744073709551615,"completion_tokens":-4}}"#,
            r#"{"usage":{"prompt_tokens":-2,"completion_tokens":5,"cached_tokens":9}}"#,
            r#"{"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":null,"prompt_cache_hit_tokens":0,"cached_tokens":3}}"#,
            r#"{"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":-1,"audio_tokens":2},"cached_tokens":2}}"#,
            r#"{"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":7,"cached_tokens":2}}"#,
            r#"{"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":1,"cached_tokens":3}}}"#,
            r#"{"usage":{"prompt_tokens":5,"prompt_tokens":6,"completion_tokens":1}}"#,
            r#"{"usage":[3,4]}"#,
            r#"{"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":[2]}}"#,
            r#"{"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":[2],"cached_tokens":1}}"#,
            r#"{"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6,"completion_tokens_details":{"reasoning_tokens":1}},"id":"a\"b","choices":[]}"#,
            r#"{"usage":{"prompt_tokens":0,"completion_tokens":0},"choices":[{"usage":{"prompt_tokens":2,"completion_tokens":2}}]}"#,
            r#"[{"usage":{"prompt_tokens":1,"completion_tokens":1}}]"#,
            r#""text""#,
            "{}",
        ];
        for answer in answers {
            let tree: Value = serde_json::from_str(answer).unwrap();
            assert_eq!(
                answer_usage_of(&p, answer.as_bytes()).unwrap(),
                answer_usage(&p, &tree),
                "{answer}"
            );
        }
        for bad in [
            "",
            "{",
            r#"{"usage":{"prompt_tokens":1}"#,
            "not json",
            "{} {}",
        ] {
            assert!(answer_usage_of(&p, bad.as_bytes()).is_err(), "{bad}");
        }
    }
}
