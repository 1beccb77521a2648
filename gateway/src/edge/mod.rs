//! The edge: everything decided about a request before a channel is chosen (body cap,
//! key extraction, token and user checks).

mod auth;

pub use auth::{Caller, authenticate, check_model, extract_key, key_hash};
