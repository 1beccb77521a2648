//! A relayed request once its body is read: what the client sent, decoded as far as routing,
//! billing and the channel's protocol need. OpenAI requests stay raw until a channel of
//! another protocol needs their IR (the passthrough fast path never decodes it).

use bytes::Bytes;
use http::HeaderMap;
use serde_json::Value;

use super::dialect::Call;
use crate::error::RequestError;
use adapters::convert::Dialect;
use adapters::openai::{self, Endpoint, ParsedRequest};
use adapters::provider::GeminiMethod;
use adapters::{ParseError, claude, gemini, ir, openai_chat, raw_json, responses, tokens};

/// Headers of an Anthropic client passed on to Anthropic channels.
#[derive(Debug, Clone, Default)]
pub struct AnthropicHeaders {
    pub version: Option<String>,
    pub beta: Option<String>,
}

impl AnthropicHeaders {
    fn of(headers: &HeaderMap) -> Self {
        let get = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        AnthropicHeaders {
            version: get("anthropic-version"),
            beta: get("anthropic-beta"),
        }
    }
}

/// A chat request of the Responses, Anthropic or Gemini dialect.
#[derive(Debug)]
pub struct DialectJob {
    pub dialect: Dialect,
    pub ir: ir::Request,
    /// The client's body, for same-dialect passthrough.
    pub raw: Bytes,
    /// Local estimate of the prompt's tokens ([`Job::prompt_estimate`]).
    pub prompt: tokens::PromptCount,
    pub anthropic: AnthropicHeaders,
}

/// A Gemini embedding request (`:embedContent`, `:batchEmbedContents`).
#[derive(Debug)]
pub struct EmbedJob {
    pub model: String,
    pub batch: bool,
    pub raw: Bytes,
    pub prompt_estimate: i64,
}

/// A request ready for the channel loop.
#[derive(Debug)]
pub enum Job {
    OpenAi(ParsedRequest),
    Dialect(Box<DialectJob>),
    GeminiEmbed(EmbedJob),
}

impl Job {
    /// Decodes the body of `call` (`None` for calls that are not relayed).
    pub fn decode(call: &Call, headers: &HeaderMap, body: Bytes) -> Result<Job, RequestError> {
        let job = match call {
            Call::OpenAi(endpoint) => Job::OpenAi(openai::parse_request(*endpoint, body)?),
            Call::Responses => dialect_job(
                Dialect::Responses,
                responses::decode_request(single_model(&body)?)?,
                body,
                headers,
            ),
            Call::Messages => dialect_job(
                Dialect::Claude,
                claude::decode_request(single_model(&body)?)?,
                body,
                headers,
            ),
            Call::Gemini { model, method } => match method {
                GeminiMethod::Generate | GeminiMethod::Stream => {
                    let stream = *method == GeminiMethod::Stream;
                    let ir = gemini::decode_request(model, stream, &body)?;
                    dialect_job(Dialect::Gemini, ir, body, headers)
                }
                GeminiMethod::Embed | GeminiMethod::BatchEmbed => {
                    let batch = *method == GeminiMethod::BatchEmbed;
                    // Checked (and counted) through its OpenAI form.
                    let openai = gemini::embed_request_to_openai(model, &body, batch)?;
                    let text = embed_text(&openai);
                    Job::GeminiEmbed(EmbedJob {
                        model: model.clone(),
                        batch,
                        prompt_estimate: tokens::estimate(model, &text),
                        raw: body,
                    })
                }
            },
            Call::CountTokens
            | Call::ListModels { .. }
            | Call::GeminiModels { .. }
            | Call::Media(_)
            | Call::NotImplemented
            | Call::Billing(_)
            | Call::Task(_) => {
                return Err(RequestError::InvalidRequest(
                    "this call is not relayed".to_owned(),
                ));
            }
        };
        Ok(job)
    }

    pub fn model(&self) -> &str {
        match self {
            Job::OpenAi(p) => &p.model,
            Job::Dialect(d) => &d.ir.model,
            Job::GeminiEmbed(e) => &e.model,
        }
    }

    pub fn stream(&self) -> bool {
        match self {
            Job::OpenAi(p) => p.stream,
            Job::Dialect(d) => d.ir.stream,
            Job::GeminiEmbed(_) => false,
        }
    }

    /// Local estimate of the prompt's tokens.
    pub fn prompt_estimate(&self) -> i64 {
        match self {
            Job::OpenAi(p) => p.prompt_estimate(),
            Job::Dialect(d) => d.prompt.get(&d.ir.model),
            Job::GeminiEmbed(e) => e.prompt_estimate,
        }
    }

    /// The prompt's count, shared: whoever needs it first counts it, once.
    pub fn prompt_count(&self) -> tokens::PromptCount {
        match self {
            Job::OpenAi(p) => p.prompt_count(),
            Job::Dialect(d) => d.prompt.clone(),
            Job::GeminiEmbed(e) => tokens::PromptCount::known(e.prompt_estimate),
        }
    }

    /// An upper bound of [`Job::prompt_estimate`] known without counting.
    pub fn prompt_at_most(&self) -> i64 {
        match self {
            Job::OpenAi(p) => p.prompt_at_most(),
            Job::Dialect(d) => d.prompt.at_most(),
            Job::GeminiEmbed(e) => e.prompt_estimate,
        }
    }

    /// `max(prompt_estimate, floor)`; a chat prompt too short to exceed `floor` is not
    /// counted.
    pub fn prompt_estimate_at_least(&self, floor: i64) -> i64 {
        match self {
            Job::OpenAi(p) => p.prompt_estimate_at_least(floor),
            Job::Dialect(d) => d.prompt.get_at_least(&d.ir.model, floor),
            Job::GeminiEmbed(e) => e.prompt_estimate.max(floor),
        }
    }

    pub fn max_tokens(&self) -> Option<i64> {
        match self {
            Job::OpenAi(p) => p.max_tokens,
            Job::Dialect(d) => d.ir.max_tokens,
            Job::GeminiEmbed(_) => None,
        }
    }

    /// The dialect answers and errors are written in.
    pub fn dialect(&self) -> Dialect {
        match self {
            Job::OpenAi(_) => Dialect::OpenAi,
            Job::Dialect(d) => d.dialect,
            Job::GeminiEmbed(_) => Dialect::Gemini,
        }
    }
}

/// `body`, once it is known to name its `model` at most once: it is passed on as it came, and
/// a provider might read the other one than the gateway billed.
fn single_model(body: &Bytes) -> Result<&Bytes, ParseError> {
    raw_json::member_span(body, "model")?;
    Ok(body)
}

fn dialect_job(dialect: Dialect, ir: ir::Request, raw: Bytes, headers: &HeaderMap) -> Job {
    let prompt = tokens::PromptCount::of_text(ir.prompt_text(), &ir.model, framing(&ir));
    Job::Dialect(Box::new(DialectJob {
        dialect,
        ir,
        raw,
        prompt,
        anthropic: AnthropicHeaders::of(headers),
    }))
}

/// Local estimate of a request's prompt tokens (a few per message for the framing).
pub fn prompt_estimate(ir: &ir::Request) -> i64 {
    tokens::estimate(&ir.model, &ir.prompt_text()) + framing(ir)
}

/// The tokens counted for a request's framing: a few per message and per tool.
fn framing(ir: &ir::Request) -> i64 {
    3 * (ir.messages.len() as i64 + 1) + 8 * ir.tools.len() as i64
}

fn embed_text(openai: &Value) -> String {
    match openai.get("input") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The IR of an OpenAI chat request, for a channel of another protocol.
pub fn openai_ir(parsed: &ParsedRequest) -> Result<ir::Request, ParseError> {
    if parsed.endpoint != Endpoint::ChatCompletions {
        return Err(ParseError::Invalid(
            "only chat completions convert".to_owned(),
        ));
    }
    // parse_request built no tree: the body is decoded here, for this conversion only.
    openai_chat::decode_request(parsed.raw())
}

/// `raw` with its top-level `model` set to `model` (untouched when it already is): the
/// value's bytes are replaced, the rest of the body is the client's.
pub fn with_model(raw: &Bytes, current: &str, model: &str) -> Result<Bytes, ParseError> {
    if current == model {
        return Ok(raw.clone());
    }
    raw_json::set_string_member(raw, "model", model)
}

impl crate::billing::PromptTokens for Job {
    fn at_most(&self) -> i64 {
        self.prompt_at_most()
    }

    fn estimate(&self) -> i64 {
        self.prompt_estimate()
    }
}
