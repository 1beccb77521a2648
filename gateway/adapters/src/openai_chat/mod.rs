//! OpenAI Chat Completions through the IR: client requests and answers when the channel speaks another protocol, and the OpenAI provider protocol for clients of other dialects.
//!
//! Client side: [`decode_request`] (+ [`client_wants_usage`]),
//! [`encode_response`], [`StreamEncoder`], [`error_body`]. Provider side: [`encode_request`],
//! [`decode_response`], [`StreamDecoder`]. The same-dialect passthrough is
//! [`crate::openai`]; this module is used only when the two ends differ.

mod client_request;
mod client_response;
mod client_stream;
mod error;
mod provider_request;
mod provider_response;
mod provider_stream;
mod wire;

#[cfg(test)]
mod tests;

pub use client_request::{client_wants_usage, decode_request};
pub use client_response::{encode_response, encode_response_bytes};
pub use client_stream::StreamEncoder;
pub use error::error_body;
pub use provider_request::encode_request;
pub use provider_response::decode_response;
pub use provider_stream::StreamDecoder;
