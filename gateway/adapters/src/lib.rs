//! Adapters: pure protocol code (no I/O), shared by the gateway and, for channel tests and
//! model fetching, the control plane: the provider registry, the canonical internal
//! representation ([`ir`]) and the dialects converting through it, the OpenAI passthrough,
//! incremental SSE relaying, per-channel request shaping ([`shaping`]) and local token
//! counting.

pub mod bedrock;
pub mod claude;
pub mod client_ip;
pub mod cloud;
pub mod cohere;
pub mod convert;
pub mod gemini;
pub mod ir;
pub mod json_out;
pub mod json_tree;
pub(crate) mod loose;
pub mod ollama;
pub mod openai;
pub mod openai_chat;
pub mod provider;
pub mod raw_json;
pub mod responses;
pub mod shaping;
pub mod stream;
pub mod tokens;
pub mod vertex;

/// Why an inbound request body cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("unsupported content type {0:?}, expected application/json")]
    ContentType(String),
    #[error("invalid JSON body: {0}")]
    MalformedJson(String),
    #[error("field `model` is required")]
    MissingModel,
    /// The body is JSON but not a valid request or answer of its dialect.
    #[error("{0}")]
    Invalid(String),
}
