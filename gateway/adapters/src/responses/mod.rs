//! OpenAI Responses API dialect (`/v1/responses`): client requests and answers converted through the IR, for channels that do not speak it.
//!
//! Client side only: requests to OpenAI-type channels pass through untouched; this module is
//! used when the channel speaks Claude, Gemini or plain Chat Completions. Stateless: requests
//! naming stored state (`previous_response_id`, `conversation`, `prompt`) are refused.

mod error;
mod request;
mod response;
mod stream;
#[cfg(test)]
mod tests;

pub use error::error_body;
pub use request::decode_request;
pub use response::encode_response;
pub use stream::StreamEncoder;
