//! AWS Bedrock Runtime (channel type 33): channel keys, endpoints and model ids, SigV4
//! signing, the `application/vnd.amazon.eventstream` framing, Claude through `InvokeModel`
//! and any model through `Converse`, all pure (time is passed in).
//!
//! - Keys ([`parse_key`]): `AK|SK|region`, `AK|SK|SESSION_TOKEN|region` (SigV4) or
//!   `APIKEY|region` (a Bedrock API key, sent as `Authorization: Bearer`).
//! - URLs: [`runtime_base`], [`model_url`] with an [`Action`]; model ids: [`resolve_model`]
//!   (see `models.rs`), [`is_claude`].
//! - Signing: [`auth_headers`] (either kind of key) over [`sigv4::sign`].
//! - Claude: [`claude_invoke_body`] turns an Anthropic Messages body into an `InvokeModel`
//!   body; answers are Anthropic's, decoded by `claude::decode_response`, and streams are
//!   turned into Anthropic SSE by [`EventStreamToSse`] for `claude::StreamDecoder`.
//! - Converse: [`encode_request`] (IR → body), [`decode_response`], and [`StreamDecoder`]
//!   over the SSE [`EventStreamToSse`] makes of ConverseStream frames.

pub mod eventstream;
pub mod sigv4;

mod converse_request;
mod converse_response;
mod converse_stream;
mod invoke;
mod models;
mod stream;

pub use converse_request::{Body, encode_request};
pub use converse_response::{decode_response, error_message};
pub use converse_stream::StreamDecoder;
pub use invoke::{BEDROCK_ANTHROPIC_VERSION, claude_invoke_body};
pub use models::{bedrock_model_id, is_claude, resolve_model};
pub use sigv4::{Credentials, SignError};
pub use stream::{EventStreamToSse, StreamKind};

/// The service name SigV4 signs Bedrock Runtime requests for.
pub const SERVICE: &str = "bedrock";

/// Why a channel key cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Not 2, 3 or 4 `|`-separated parts (the key itself is never shown).
    #[error(
        "a Bedrock key is `ACCESS_KEY|SECRET_KEY|REGION`, `ACCESS_KEY|SECRET_KEY|SESSION_TOKEN|REGION` or `API_KEY|REGION` ({0} parts given)"
    )]
    Shape(usize),
    /// A part is empty.
    #[error("a Bedrock key has an empty {0}")]
    Empty(&'static str),
    #[error("invalid AWS region {0:?}: letters, digits and dashes only")]
    Region(String),
}

/// How requests are authenticated.
#[derive(Clone, PartialEq, Eq)]
pub enum Auth {
    /// IAM credentials: requests are signed with SigV4.
    SigV4(Credentials),
    /// A Bedrock API key, sent as `Authorization: Bearer {key}`.
    ApiKey(String),
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::SigV4(c) => f.debug_tuple("SigV4").field(c).finish(),
            Auth::ApiKey(_) => f.write_str("ApiKey(<redacted>)"),
        }
    }
}

/// A parsed channel key: credentials and region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelKey {
    pub auth: Auth,
    pub region: String,
}

/// Parses a channel key (parts separated by `|`, spaces around each part trimmed):
/// - `ACCESS_KEY|SECRET_KEY|REGION` (new-api's AK/SK form),
/// - `ACCESS_KEY|SECRET_KEY|SESSION_TOKEN|REGION` (temporary credentials),
/// - `API_KEY|REGION` (new-api's API key form).
///
/// The region is checked by [`valid_region`]. Errors never contain the key.
pub fn parse_key(key: &str) -> Result<ChannelKey, KeyError> {
    let parts: Vec<&str> = key.trim().split('|').map(str::trim).collect();
    let (auth, region) = match parts.as_slice() {
        [api_key, region] => {
            non_empty(api_key, "API key")?;
            (Auth::ApiKey((*api_key).to_owned()), *region)
        }
        [ak, sk, region] => (credentials(ak, sk, None)?, *region),
        [ak, sk, token, region] => (credentials(ak, sk, Some(token))?, *region),
        other => return Err(KeyError::Shape(other.len())),
    };
    non_empty(region, "region")?;
    if !valid_region(region) {
        return Err(KeyError::Region(region.to_owned()));
    }
    Ok(ChannelKey {
        auth,
        region: region.to_owned(),
    })
}

fn non_empty(part: &str, what: &'static str) -> Result<(), KeyError> {
    if part.is_empty() {
        Err(KeyError::Empty(what))
    } else {
        Ok(())
    }
}

fn credentials(ak: &str, sk: &str, token: Option<&str>) -> Result<Auth, KeyError> {
    non_empty(ak, "access key id")?;
    non_empty(sk, "secret access key")?;
    if let Some(t) = token {
        non_empty(t, "session token")?;
    }
    Ok(Auth::SigV4(Credentials::new(ak, sk, token)))
}

/// Whether `region` looks like an AWS region (`us-east-1`, `eu-central-2`, `us-gov-west-1`):
/// ASCII letters, digits and dashes, 1 to 32 characters, not starting or ending with a dash.
/// It goes into a host name, so nothing else is allowed.
pub fn valid_region(region: &str) -> bool {
    (1..=32).contains(&region.len())
        && region
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !region.starts_with('-')
        && !region.ends_with('-')
}

/// The Bedrock Runtime base URL: the channel's base URL when set (VPC endpoints, proxies,
/// tests; trailing `/` removed), else `https://bedrock-runtime.{region}.amazonaws.com`.
pub fn runtime_base(region: &str, base_url_override: &str) -> String {
    let over = base_url_override.trim().trim_end_matches('/');
    if over.is_empty() {
        format!("https://bedrock-runtime.{region}.amazonaws.com")
    } else {
        over.to_owned()
    }
}

/// A Bedrock Runtime call on a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `InvokeModel`: the model's native body (Claude: Anthropic Messages).
    Invoke,
    /// `InvokeModelWithResponseStream`.
    InvokeStream,
    /// `Converse`.
    Converse,
    /// `ConverseStream`.
    ConverseStream,
}

impl Action {
    /// The last path segment.
    pub fn path_suffix(self) -> &'static str {
        match self {
            Action::Invoke => "invoke",
            Action::InvokeStream => "invoke-with-response-stream",
            Action::Converse => "converse",
            Action::ConverseStream => "converse-stream",
        }
    }

    /// Whether the answer is an event stream.
    pub fn is_stream(self) -> bool {
        matches!(self, Action::InvokeStream | Action::ConverseStream)
    }
}

/// `{base}/model/{model-id}/{action}`, the model id percent-encoded as one path segment
/// (everything but `A-Z a-z 0-9 - . _ ~`: `:` → `%3A`, an ARN's `/` → `%2F`), as the AWS SDKs
/// send it. [`sigv4::sign`] encodes this path once more for the canonical request.
pub fn model_url(base: &str, model_id: &str, action: Action) -> String {
    format!(
        "{}/model/{}/{}",
        base.trim_end_matches('/'),
        sigv4::uri_encode(model_id, true),
        action.path_suffix()
    )
}

/// The headers that authenticate a request of `key` to `url` with `body` at `unix_time`
/// (seconds): `authorization: Bearer …` for an API key; for IAM credentials the SigV4
/// headers (`authorization`, `x-amz-date`, `x-amz-content-sha256`, and
/// `x-amz-security-token` with a session token) signing `host` (from `url`; the request must
/// carry exactly that `Host`), those `x-amz-*` headers and `extra_signed` (e.g.
/// `content-type`, which must then be sent with the same value).
pub fn auth_headers(
    key: &ChannelKey,
    method: &str,
    url: &str,
    extra_signed: &[(&str, &str)],
    body: &[u8],
    unix_time: i64,
) -> Result<Vec<(&'static str, String)>, SignError> {
    match &key.auth {
        Auth::ApiKey(k) => Ok(vec![("authorization", format!("Bearer {k}"))]),
        Auth::SigV4(creds) => sigv4::sign(&sigv4::SigningInput {
            method,
            url,
            headers: extra_signed,
            body,
            credentials: creds,
            region: &key.region,
            service: SERVICE,
            unix_time,
        }),
    }
}

#[cfg(test)]
mod tests;
