//! The edge: everything decided about a request before a channel is chosen (the client's
//! address, key extraction, token and user checks).

mod auth;
pub mod content;
pub mod playground;

pub use adapters::client_ip::TrustedProxies;
pub use auth::{Caller, authenticate, check_model, extract_key, key_hash};

/// The `X-Forwarded-For` values of a request, in order.
pub fn forwarded_for(headers: &http::HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
}
