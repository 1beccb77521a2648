//! Adapters: pure protocol code (no I/O), shared by the gateway and, for channel tests and
//! model fetching, the control plane: the provider registry, the OpenAI dialect, incremental
//! SSE relaying and local token counting.

pub mod openai;
pub mod provider;
pub mod stream;
pub mod tokens;

/// Why an inbound request body cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("unsupported content type {0:?}, expected application/json")]
    ContentType(String),
    #[error("invalid JSON body: {0}")]
    MalformedJson(String),
    #[error("field `model` is required")]
    MissingModel,
}
