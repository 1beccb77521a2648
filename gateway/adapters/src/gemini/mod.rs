//! Gemini dialect: client requests and answers on `/v1beta/models/{m}:generateContent` (and `/v1/…`), and the Gemini provider protocol, converted through the IR.
//!
//! Client side: [`decode_request`], [`encode_response`], [`StreamEncoder`], [`error_body`],
//! [`model_list`], and embeddings through an OpenAI upstream ([`embed_request_to_openai`],
//! [`openai_embeddings_to_gemini`]). Provider side: [`encode_request`] /
//! [`encode_request_with`] (channel [`EncodeOptions`]: safety settings),
//! [`decode_response`], [`StreamDecoder`]. Gemini has no call ids in older versions and
//! Google refuses them in requests: see `parts.rs` for how ids and thought signatures travel.

mod client_request;
mod client_response;
mod client_stream;
mod embeddings;
mod error;
mod fields;
mod models;
mod parts;
mod parts_out;
mod provider_request;
mod provider_response;
mod provider_stream;
mod schema;
mod schema_check;
mod usage;

#[cfg(test)]
mod tests;

pub use client_request::decode_request;
pub use client_response::encode_response;
pub use client_stream::StreamEncoder;
pub use embeddings::{
    embed_request_to_openai, gemini_embeddings_to_openai, openai_embeddings_request_to_gemini,
    openai_embeddings_to_gemini,
};
pub use error::error_body;
pub use models::model_list;
pub use provider_request::{
    Body, EncodeOptions, HARM_CATEGORIES, encode_request, encode_request_with,
};
pub use provider_response::decode_response;
pub use provider_stream::StreamDecoder;
