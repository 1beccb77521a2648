//! Headers every console page and API reply carries, set in one layer: a Content-Security-Policy
//! (scripts from this origin and the Turnstile widget; inline styles, which antd injects at run
//! time; no framing), `X-Content-Type-Options`, `X-Frame-Options` and `Referrer-Policy`. A
//! header a handler already set is kept.

use axum::http::HeaderValue;
use axum::http::header::{
    CONTENT_SECURITY_POLICY, HeaderName, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::response::Response;

/// The console's policy. `style-src 'unsafe-inline'`: antd 6 writes its CSS into `<style>`
/// elements at run time. `img-src https:`: the logo option is any image URL. `connect-src
/// https:`: the settings screen fetches the OIDC discovery document an administrator names (and
/// the release feed, when built with one). Turnstile's script and frame come from
/// challenges.cloudflare.com. `frame-src https: http:`: the About and Home pages and the chat
/// links an administrator sets to a URL are shown in sandboxed frames of any origin (the
/// Turnstile frame is one of them); operator HTML is sanitized and can carry no frame of its
/// own. Forms are not restricted: online top-up posts a form to the payment provider.
pub const CONTENT_SECURITY_POLICY_VALUE: &str = "default-src 'self'; \
     script-src 'self' https://challenges.cloudflare.com; \
     style-src 'self' 'unsafe-inline'; \
     img-src 'self' data: https:; \
     font-src 'self' data:; \
     connect-src 'self' https:; \
     frame-src https: http:; \
     frame-ancestors 'none'; \
     base-uri 'self'; \
     object-src 'none'";

const HEADERS: [(HeaderName, &str); 4] = [
    (CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY_VALUE),
    (X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (X_FRAME_OPTIONS, "DENY"),
    (REFERRER_POLICY, "strict-origin-when-cross-origin"),
];

/// Adds the headers to a response (`axum::middleware::map_response`).
pub async fn add(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in HEADERS {
        headers
            .entry(name)
            .or_insert(HeaderValue::from_static(value));
    }
    response
}
