//! Adapters: pure protocol code (no I/O): the provider registry, the OpenAI dialect,
//! incremental SSE relaying and local token counting.

pub mod openai;
pub mod provider;
pub mod stream;
pub mod tokens;
