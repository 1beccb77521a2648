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

/// Origins of browser extensions (the pages of an extension calling with a user's key).
const EXTENSION_SCHEMES: &[&str] = &[
    "chrome-extension://",
    "moz-extension://",
    "safari-web-extension://",
    "ms-browser-extension://",
    "extension://",
];

/// Whether the request comes from a browser extension (by its `Origin`).
pub fn from_browser_extension(headers: &http::HeaderMap) -> bool {
    headers
        .get(http::header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .map(|o| o.trim().to_ascii_lowercase())
        .is_some_and(|o| EXTENSION_SCHEMES.iter().any(|s| o.starts_with(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_origins_are_recognised() {
        let with = |origin: &str| {
            let mut h = http::HeaderMap::new();
            h.insert(
                http::header::ORIGIN,
                http::HeaderValue::from_str(origin).unwrap_or(http::HeaderValue::from_static("")),
            );
            from_browser_extension(&h)
        };
        assert!(with("chrome-extension://abcdef"));
        assert!(with("Moz-Extension://x"));
        assert!(!with("https://app.example"));
        assert!(!from_browser_extension(&http::HeaderMap::new()));
    }
}
