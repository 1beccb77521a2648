//! Conversion between a client's dialect and a channel's protocol through the IR: which
//! codec decodes a client request, encodes it for the channel, decodes the channel's answer
//! and encodes it back, and error bodies in the client's dialect. Streams are in [`stream`].

pub mod stream;
mod tap;

use serde_json::Value;

use crate::ParseError;
use crate::ir;
use crate::provider::Protocol;
use crate::{bedrock, claude, cohere, gemini, ollama, openai_chat, responses};

pub use self::stream::Transcoder;

/// The API a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAI Chat Completions (and the other OpenAI endpoints, for errors).
    OpenAi,
    /// OpenAI Responses.
    Responses,
    /// Anthropic Messages.
    Claude,
    /// Google Gemini.
    Gemini,
}

impl Dialect {
    /// The channel protocol that speaks this dialect natively (same-dialect passthrough).
    pub fn native_protocol(self) -> Protocol {
        match self {
            Dialect::OpenAi | Dialect::Responses => Protocol::OpenAi,
            Dialect::Claude => Protocol::Anthropic,
            Dialect::Gemini => Protocol::Gemini,
        }
    }

    /// An error body in this dialect's shape.
    pub fn error_body(self, status: u16, message: &str) -> Value {
        match self {
            Dialect::OpenAi => openai_chat::error_body(status, message),
            Dialect::Responses => responses::error_body(status, message),
            Dialect::Claude => claude::error_body(status, message),
            Dialect::Gemini => gemini::error_body(status, message),
        }
    }

    /// The SSE event that ends a stream broken after bytes were sent, in this dialect.
    pub fn error_event(self, status: u16, message: &str) -> Vec<u8> {
        let body = self.error_body(status, message);
        match self {
            Dialect::OpenAi | Dialect::Gemini => format!("data: {body}\n\n").into_bytes(),
            Dialect::Claude => format!("event: error\ndata: {body}\n\n").into_bytes(),
            Dialect::Responses => {
                let message = body
                    .pointer("/error/message")
                    .cloned()
                    .unwrap_or(Value::Null);
                let event = serde_json::json!({
                    "type": "error",
                    "code": null,
                    "message": message,
                    "param": null,
                    "sequence_number": 0,
                });
                format!("event: error\ndata: {event}\n\n").into_bytes()
            }
        }
    }

    /// An answer in this dialect (`created`: unix seconds, for dialects that carry it).
    pub fn encode_response(self, r: &ir::Response, created: i64) -> Value {
        match self {
            Dialect::OpenAi => openai_chat::encode_response(r, created),
            Dialect::Responses => responses::encode_response(r, created),
            Dialect::Claude => claude::encode_response(r),
            Dialect::Gemini => gemini::encode_response(r),
        }
    }

    /// [`Dialect::encode_response`] as the bytes of the body (OpenAI's written without
    /// building a tree: the most common converted answer).
    pub fn encode_response_bytes(self, r: &ir::Response, created: i64) -> Vec<u8> {
        match self {
            Dialect::OpenAi => openai_chat::encode_response_bytes(r, created),
            other => other.encode_response(r, created).to_string().into_bytes(),
        }
    }
}

/// Settings of the channel's protocol that shape a converted request.
#[derive(Debug, Clone, Copy, Default)]
pub struct EncodeOptions<'a> {
    /// Gemini safety thresholds by harm category ("default" for the rest).
    pub gemini_safety: Option<&'a std::collections::HashMap<String, String>>,
    /// Gemini: ask for images as well as text (the model is one of `gemini.supported_imagine_models`).
    pub gemini_image_output: bool,
}

/// The body of `req` for a channel speaking `protocol`, for `upstream_model`, as bytes.
pub fn encode_request(
    protocol: Protocol,
    req: &ir::Request,
    upstream_model: &str,
    opts: EncodeOptions<'_>,
) -> Result<Vec<u8>, ParseError> {
    let written = match protocol {
        Protocol::OpenAi => serde_json::to_vec(&openai_chat::encode_request(req, upstream_model)),
        Protocol::Anthropic => serde_json::to_vec(&claude::encode_request(req, upstream_model)),
        Protocol::Gemini => {
            let mut body = gemini::encode_request(req, upstream_model);
            if let Some(safety) = opts.gemini_safety {
                body.set_safety(gemini_safety(safety));
            }
            if opts.gemini_image_output {
                body.set_image_output();
            }
            serde_json::to_vec(&body)
        }
        Protocol::Converse => serde_json::to_vec(&bedrock::encode_request(req, upstream_model)?),
        Protocol::Ollama => serde_json::to_vec(&ollama::encode_request(req, upstream_model)?),
        Protocol::Cohere => serde_json::to_vec(&cohere::encode_request(req, upstream_model)),
        Protocol::Task => return Err(task_channel()),
    };
    written.map_err(|e| ParseError::Invalid(format!("cannot write the request: {e}")))
}

/// A chat sent to an asynchronous task channel (Midjourney-Proxy, Suno).
fn task_channel() -> ParseError {
    ParseError::Invalid("a task channel (Midjourney, Suno) takes no chat requests".to_owned())
}

/// `safetySettings` from the option: each category's own threshold, else "default", else OFF.
fn gemini_safety(
    settings: &std::collections::HashMap<String, String>,
) -> impl Iterator<Item = (&'static str, &str)> {
    let default = settings.get("default").map_or("OFF", String::as_str);
    gemini::HARM_CATEGORIES
        .iter()
        .map(move |c| (*c, settings.get(*c).map_or(default, String::as_str)))
}

/// A channel's complete answer in `protocol`, as IR.
pub fn decode_response(protocol: Protocol, v: &Value) -> Result<ir::Response, ParseError> {
    match protocol {
        Protocol::OpenAi => openai_chat::decode_response(v),
        Protocol::Anthropic => claude::decode_response(v),
        Protocol::Gemini => gemini::decode_response(v),
        Protocol::Converse => bedrock::decode_response(v),
        Protocol::Ollama => ollama::decode_response(v),
        Protocol::Cohere => cohere::decode_response(v),
        Protocol::Task => Err(task_channel()),
    }
}

/// Usage of a complete answer the client gets as it is (same-dialect passthrough).
pub fn passthrough_usage(dialect: Dialect, v: &Value) -> Option<ir::Usage> {
    match dialect {
        Dialect::Responses => tap::responses_usage(v.get("usage")?),
        Dialect::OpenAi | Dialect::Claude | Dialect::Gemini => {
            decode_response(dialect.native_protocol(), v).ok()?.usage
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn safety_settings_fill_every_category() {
        let mut s = std::collections::HashMap::new();
        s.insert("default".to_owned(), "BLOCK_NONE".to_owned());
        s.insert(
            "HARM_CATEGORY_CIVIC_INTEGRITY".to_owned(),
            "BLOCK_ONLY_HIGH".to_owned(),
        );
        let v: Vec<_> = gemini_safety(&s).collect();
        assert_eq!(v.len(), 5);
        assert_eq!(v[0].1, "BLOCK_NONE");
        assert_eq!(v[4], ("HARM_CATEGORY_CIVIC_INTEGRITY", "BLOCK_ONLY_HIGH"));
        let empty = std::collections::HashMap::new();
        assert_eq!(gemini_safety(&empty).nth(1).map(|(_, t)| t), Some("OFF"));
        let req = ir::Request {
            model: "m".into(),
            ..Default::default()
        };
        let opts = EncodeOptions {
            gemini_safety: Some(&s),
            gemini_image_output: false,
        };
        let body: Value =
            serde_json::from_slice(&encode_request(Protocol::Gemini, &req, "m", opts).unwrap())
                .unwrap();
        assert_eq!(body["safetySettings"][4]["threshold"], "BLOCK_ONLY_HIGH");
        assert_eq!(
            body["safetySettings"][0]["category"],
            "HARM_CATEGORY_HARASSMENT"
        );
    }

    #[test]
    fn errors_take_each_dialects_shape() {
        let claude = Dialect::Claude.error_body(401, "bad key");
        assert_eq!(claude["type"], "error");
        assert_eq!(claude["error"]["type"], "authentication_error");
        let gemini = Dialect::Gemini.error_body(400, "bad");
        assert_eq!(gemini["error"]["status"], "INVALID_ARGUMENT");
        let event = String::from_utf8(Dialect::Claude.error_event(500, "x")).unwrap();
        assert!(event.starts_with("event: error\ndata: {"));
    }
}
