//! Google Vertex AI (channel type 41): the channel key, the service-account token flow, URLs
//! and the Claude body; Gemini models reuse the [`crate::gemini`] codec, Claude models the
//! [`crate::claude`] one.
//!
//! A call on `model` with channel key `key`, region setting `other` and base URL `base_url`:
//! 1. [`VertexKey::parse`] once per key (the RSA key is parsed there, errors at save time).
//! 2. Service account: the caller's token cache sends [`token_request`]`(sa, now)` to the
//!    key file's `token_uri` when it holds no fresh token, reads the answer with
//!    [`parse_token_response`] and sends [`AccessToken::header`]; the URL is
//!    [`url`]`(&`[`base`]`(&region, base_url), &sa.project_id, &region, model, stream)` with
//!    `region = `[`region_for`]`(other, model)`. API key (express mode, Gemini only):
//!    [`express_url`]`(&base(GLOBAL, base_url), model, stream)` and the key in
//!    [`API_KEY_HEADER`].
//! 3. The body: Gemini models ([`Publisher::Google`]) take the Gemini `generateContent`
//!    body; Claude models ([`Publisher::Anthropic`]) the Anthropic Messages body through
//!    [`claude_body`]. Answers and streams are Gemini's and Anthropic's own.

mod claude;
mod jwt;
mod key;
mod url;

pub use claude::{VERTEX_ANTHROPIC_VERSION, claude_body};
pub use jwt::{
    ASSERTION_LIFETIME_SECS, AccessToken, CLOUD_PLATFORM_SCOPE, DEFAULT_EXPIRES_IN_SECS,
    FORM_CONTENT_TYPE, JWT_BEARER_GRANT, TOKEN_AUDIENCE, TokenError, TokenRequest, jwt_assertion,
    parse_token_response, token_request,
};
pub use key::{DEFAULT_TOKEN_URI, ServiceAccount, VertexKey};
pub use url::{
    API_KEY_HEADER, GLOBAL, Publisher, base, check_region_setting, claude_model_id, express_url,
    region_for, url,
};
