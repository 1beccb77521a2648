//! Anthropic Messages dialect: client requests and answers on `/v1/messages`, and the Anthropic provider protocol, converted through the IR.
//!
//! Client side: [`decode_request`] / [`decode_count_tokens`] (bodies to IR),
//! [`encode_response`], [`StreamEncoder`] (IR events to Anthropic SSE), [`error_body`],
//! [`count_tokens_body`] and [`anthropic_model_list`]. Provider side: [`encode_request`]
//! (IR to a Messages body), [`decode_response`] and [`StreamDecoder`] (stream payloads to
//! IR events), [`error_message`] for upstream error payloads.

mod client_request;
mod client_response;
mod client_stream;
mod error;
mod models;
mod provider_request;
mod provider_response;
mod provider_stream;
mod wire;

#[cfg(test)]
mod tests;

pub use client_request::{decode_count_tokens, decode_request};
pub use client_response::{count_tokens_body, encode_response};
pub use client_stream::StreamEncoder;
pub use error::{error_body, error_message};
pub use models::anthropic_model_list;
pub use provider_request::{DEFAULT_MAX_TOKENS, encode_request};
pub use provider_response::{decode_response, decode_response_bytes};
pub use provider_stream::StreamDecoder;
