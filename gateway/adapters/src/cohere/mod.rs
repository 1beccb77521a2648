//! Cohere's v2 API as a provider protocol: chat (`POST /v2/chat`, JSON and SSE) converted
//! through the IR, and rerank (`POST /v2/rerank`) from and to the Jina/OpenAI-style shape.
//!
//! v2, not new-api's v1 (`/v1/chat`): v2 is Cohere's current API (v1 is legacy), and its
//! shape is the IR's: `system`/`user`/`assistant`/`tool` messages, OpenAI-style tools and
//! `tool_calls` with ids and JSON-text arguments, tool results by call id, image parts and
//! typed stream events per content block and tool call. v1 needs a `message` +
//! `chat_history` split, tool results matched by name and parameter definitions in its own
//! schema. Both authenticate with `Authorization: Bearer {key}`.
//!
//! Chat: [`encode_request`], [`decode_response`], [`StreamDecoder`] (SSE `data:` payloads).
//! Rerank: [`jina_rerank_to_cohere`], [`cohere_rerank_to_jina`], [`rerank_usage`].

mod request;
mod rerank;
mod response;
mod stream;

#[cfg(test)]
mod tests;

pub use request::{Body, encode_request};
pub use rerank::{RerankUsage, cohere_rerank_to_jina, jina_rerank_to_cohere, rerank_usage};
pub use response::{decode_response, error_message, stop_reason, usage_of};
pub use stream::StreamDecoder;

/// Chat path (JSON, or SSE with `stream: true`).
pub const CHAT_PATH: &str = "/v2/chat";
/// Rerank path.
pub const RERANK_PATH: &str = "/v2/rerank";
