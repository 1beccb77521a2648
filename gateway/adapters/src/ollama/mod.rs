//! Ollama's native API as a provider protocol: `POST /api/chat` (JSON answers and NDJSON
//! streams), `POST /api/embed` and `GET /api/tags`, converted through the IR and OpenAI's
//! embeddings shapes.
//!
//! Chat: [`encode_request`] (IR → body), [`decode_response`] (answer → IR),
//! [`StreamDecoder`] (one NDJSON line → IR events) and [`NdjsonToSse`] (upstream bytes →
//! `data: {line}\n\n` frames, so the SSE-based transcoder can run over them). Embeddings:
//! [`openai_embeddings_to_ollama`] and [`ollama_embed_to_openai`]; models: [`tag_ids`].

mod embed;
mod ndjson;
mod request;
mod response;
mod stream;

#[cfg(test)]
mod tests;

pub use embed::{ollama_embed_to_openai, openai_embeddings_to_ollama, tag_ids};
pub use ndjson::{MAX_LINE, NdjsonError, NdjsonToSse};
pub use request::{Body, encode_request};
pub use response::{decode_response, error_message};
pub use stream::StreamDecoder;

/// Chat path (JSON and streams: the body's `stream` decides).
pub const CHAT_PATH: &str = "/api/chat";
/// Embeddings path.
pub const EMBED_PATH: &str = "/api/embed";
/// Local model list path (`GET`).
pub const TAGS_PATH: &str = "/api/tags";
/// Content type of Ollama's streamed answers.
pub const NDJSON_CONTENT_TYPE: &str = "application/x-ndjson";
