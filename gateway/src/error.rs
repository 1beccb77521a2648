//! Errors of every layer (one enum each, composed into `GatewayError`) and the single
//! place where they become an OpenAI-shaped error answer.

use adapters::convert::Dialect;
use bytes::Bytes;
use serde_json::{Value, json};

/// Request-shape problems found at the edge before any upstream is involved.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("Invalid URL ({method} {path})")]
    NotFound { method: String, path: String },
    #[error("request body too large (limit {limit} bytes)")]
    BodyTooLarge { limit: usize },
    #[error("failed to read request body: {0}")]
    ReadBody(String),
    #[error("unsupported content type {0:?}, expected application/json")]
    ContentType(String),
    #[error("unsupported content encoding {0:?}: send gzip, deflate, br, zstd or none")]
    UnsupportedEncoding(String),
    #[error("request body is not valid {encoding}: {reason}")]
    BadEncoding {
        encoding: &'static str,
        reason: String,
    },
    #[error("invalid JSON body: {0}")]
    MalformedJson(String),
    #[error("field `model` is required")]
    MissingModel,
    #[error("{0}")]
    InvalidRequest(String),
    #[error("The model '{0}' does not exist")]
    UnknownModel(String),
    /// The prompt contains sensitive words (what was found, at most five).
    #[error("sensitive words detected: {}", .0.join(", "))]
    SensitiveWords(Vec<String>),
    /// The answer contains sensitive words and such answers are refused (the words are not
    /// named: they would tell what the answer said).
    #[error("the answer contains sensitive words")]
    SensitiveAnswer,
    /// A channel's `return_error` override rule refused the request.
    #[error("{message}")]
    RefusedByRule { status: u16, message: String },
}

/// Token and user checks.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("Token not provided")]
    NoToken,
    #[error("Invalid token")]
    InvalidToken,
    #[error("Token has expired")]
    Expired,
    #[error("Token quota is exhausted")]
    Exhausted,
    #[error("Token is disabled")]
    Disabled,
    #[error("Your IP {0} is not in the token's allow list")]
    IpNotAllowed(String),
    #[error("Requests from browser extensions are not allowed")]
    BrowserExtension,
    #[error("User has been banned")]
    UserBanned,
    #[error("No access to group {0}")]
    GroupForbidden(String),
    #[error("Group {0} has been removed")]
    GroupRemoved(String),
    #[error("This token has no access to model {0}")]
    ModelForbidden(String),
    #[error("Only administrators may pin a channel")]
    PinNotAdmin,
    #[error("The playground needs a signed-in console session")]
    NoSession,
    #[error("The console session could not be checked; try again")]
    SessionUnchecked,
}

/// Channel selection.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    #[error("No available channel for model {model} under group {group} (distributor)")]
    NoChannel { model: String, group: String },
    #[error("Every channel of model {model} is at its concurrency limit; retry in a moment")]
    ChannelsBusy { model: String },
    #[error("Pinned channel {0} is not available")]
    PinnedUnavailable(i64),
    #[error("model mapping of channel {0} contains a cycle")]
    MappingCycle(i64),
    #[error(
        "the prompt (about {tokens} tokens) is longer than every channel of model {model} accepts"
    )]
    InputTooLong { model: String, tokens: i64 },
}

/// Pricing and quota reservation.
#[derive(Debug, thiserror::Error)]
pub enum BillingError {
    #[error("Model {0} has not been priced by the administrator yet")]
    NotPriced(String),
    #[error("insufficient user quota, remaining: {remaining}")]
    UserQuotaEmpty { remaining: i64 },
    #[error("pre-consume failed, user remaining quota: {remaining}, need: {need}")]
    UserQuotaShort { remaining: i64, need: i64 },
    #[error("token quota is not enough, token remain quota: {remaining}, need quota: {need}")]
    TokenQuotaShort { remaining: i64, need: i64 },
    #[error("too many requests in flight for this user (limit {limit}); retry when one ends")]
    TooManyRequestsInFlight { limit: u32 },
    #[error("insufficient quota: the answer was stopped when its cost reached the balance")]
    StreamOverBudget,
}

/// Talking to an upstream channel.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    #[error("upstream connection failed: {0}")]
    Connect(String),
    #[error("upstream did not answer within {0} ms")]
    Timeout(u64),
    #[error("upstream answered status {status}")]
    Status { status: u16, body: Bytes },
    #[error("upstream response body is invalid: {0}")]
    BadBody(String),
    #[error("upstream stream broke: {0}")]
    Broken(String),
    /// The channel's protocol cannot serve this kind of call (another channel may).
    #[error("channel cannot serve {0}")]
    Unsupported(&'static str),
    #[error("failed to build upstream request: {0}")]
    Build(String),
}

impl From<adapters::ParseError> for RequestError {
    fn from(e: adapters::ParseError) -> Self {
        match e {
            adapters::ParseError::ContentType(ct) => RequestError::ContentType(ct),
            adapters::ParseError::MalformedJson(m) => RequestError::MalformedJson(m),
            adapters::ParseError::MissingModel => RequestError::MissingModel,
            adapters::ParseError::Invalid(m) => RequestError::InvalidRequest(m),
        }
    }
}

impl From<adapters::ParseError> for GatewayError {
    fn from(e: adapters::ParseError) -> Self {
        GatewayError::Request(e.into())
    }
}

impl UpstreamError {
    /// Stable low-cardinality code.
    pub fn code(&self) -> &'static str {
        match self {
            UpstreamError::Connect(_) => "do_request_failed",
            UpstreamError::Timeout(_) => "upstream_timeout",
            UpstreamError::Status { .. } => "bad_response_status_code",
            UpstreamError::BadBody(_) => "bad_response_body",
            UpstreamError::Broken(_) => "bad_response",
            UpstreamError::Build(_) => "convert_request_failed",
            UpstreamError::Unsupported(_) => "channel_unsupported",
        }
    }

    /// What the channel answered, for the control plane's automatic disabling: the upstream's
    /// status (0 when it gave none) and its error message (the `error.message` of its JSON
    /// body, or the body's text), at most `max` bytes. `None` for failures of this gateway's
    /// own making (a request it could not build or convert).
    pub fn channel_failure(&self, max: usize) -> Option<(u16, String)> {
        let (status, text) = match self {
            UpstreamError::Build(_) | UpstreamError::Unsupported(_) => return None,
            UpstreamError::Status { status, body } => {
                let message = serde_json::from_slice::<Value>(body)
                    .ok()
                    .and_then(|v| {
                        let err = v.get("error")?;
                        err.get("message")
                            .and_then(Value::as_str)
                            .or_else(|| err.as_str())
                            .map(str::to_owned)
                    })
                    .unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
                (*status, message)
            }
            other => (0, other.to_string()),
        };
        let mut end = text.len().min(max);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        Some((status, text[..end].to_owned()))
    }

    /// Whether the failure counts against the channel key's circuit breaker: no usable answer,
    /// a server error, a refused key or too many requests (not a request the upstream
    /// rejected on its merits).
    pub fn trips_breaker(&self) -> bool {
        match self {
            UpstreamError::Status { status, .. } => {
                *status >= 500 || matches!(status, 401 | 403 | 429)
            }
            UpstreamError::Build(_) | UpstreamError::Unsupported(_) => false,
            _ => true,
        }
    }

    /// The same failure with nothing of the upstream's own text (its error message, addresses
    /// in connection errors), for `global.hide_upstream_error_enabled`.
    pub fn hidden(&self) -> UpstreamError {
        match self {
            UpstreamError::Status { status, .. } => UpstreamError::Status {
                status: *status,
                body: Bytes::from(
                    json!({"error": {
                        "message": format!("the upstream service failed (status {status})"),
                        "type": "upstream_error",
                    }})
                    .to_string(),
                ),
            },
            UpstreamError::Connect(_) => UpstreamError::Connect("unreachable".into()),
            UpstreamError::BadBody(_) => UpstreamError::BadBody("unreadable answer".into()),
            UpstreamError::Broken(_) => UpstreamError::Broken("the stream ended early".into()),
            UpstreamError::Timeout(ms) => UpstreamError::Timeout(*ms),
            UpstreamError::Unsupported(what) => UpstreamError::Unsupported(what),
            UpstreamError::Build(_) => UpstreamError::Build("invalid channel settings".into()),
        }
    }

    /// Whether another channel may be tried (the status part is decided by the options). A
    /// request this channel's settings could not build (a bad proxy, an override that does
    /// not apply) fails over: another channel may well serve it.
    pub fn retryable(&self, retryable_status: impl Fn(u16) -> bool) -> bool {
        match self {
            UpstreamError::Connect(_)
            | UpstreamError::Timeout(_)
            | UpstreamError::Broken(_)
            | UpstreamError::Unsupported(_)
            | UpstreamError::Build(_) => true,
            UpstreamError::Status { status, .. } => retryable_status(*status),
            UpstreamError::BadBody(_) => false,
        }
    }
}

/// Every way a relayed request can fail.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    #[error(transparent)]
    Request(#[from] RequestError),
    #[error(transparent)]
    Auth(#[from] AuthError),
    #[error(transparent)]
    Route(#[from] RouteError),
    #[error(transparent)]
    Billing(#[from] BillingError),
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
    #[error(transparent)]
    Limited(#[from] crate::limits::Denied),
}

impl GatewayError {
    /// HTTP status sent to the client (before a channel's status_code_mapping).
    pub fn status(&self) -> u16 {
        match self {
            GatewayError::Request(e) => match e {
                RequestError::NotFound { .. } | RequestError::UnknownModel(_) => 404,
                RequestError::BodyTooLarge { .. } => 413,
                RequestError::UnsupportedEncoding(_) => 415,
                RequestError::RefusedByRule { status, .. } => *status,
                _ => 400,
            },
            GatewayError::Auth(e) => match e {
                AuthError::NoToken
                | AuthError::InvalidToken
                | AuthError::Expired
                | AuthError::Exhausted
                | AuthError::Disabled
                | AuthError::NoSession => 401,
                AuthError::SessionUnchecked => 503,
                _ => 403,
            },
            GatewayError::Route(RouteError::NoChannel { .. }) => 503,
            GatewayError::Route(RouteError::ChannelsBusy { .. }) => 429,
            GatewayError::Route(RouteError::PinnedUnavailable(_)) => 403,
            GatewayError::Route(RouteError::MappingCycle(_)) => 500,
            GatewayError::Route(RouteError::InputTooLong { .. }) => 400,
            GatewayError::Billing(BillingError::NotPriced(_)) => 400,
            GatewayError::Billing(BillingError::TooManyRequestsInFlight { .. }) => 429,
            GatewayError::Billing(_) => 403,
            GatewayError::Limited(_) => 429,
            GatewayError::Upstream(e) => match e {
                UpstreamError::Status { status, .. } => *status,
                UpstreamError::Timeout(_) => 504,
                UpstreamError::Build(_) => 500,
                UpstreamError::Unsupported(_) => 400,
                _ => 502,
            },
        }
    }

    /// Stable low-cardinality code (metrics label and the `code` of the error body).
    pub fn code(&self) -> &'static str {
        match self {
            GatewayError::Request(e) => match e {
                RequestError::NotFound { .. } => "invalid_request",
                RequestError::BodyTooLarge { .. } | RequestError::ReadBody(_) => {
                    "read_request_body_failed"
                }
                RequestError::ContentType(_)
                | RequestError::MissingModel
                | RequestError::InvalidRequest(_) => "invalid_request",
                RequestError::MalformedJson(_) | RequestError::BadEncoding { .. } => {
                    "bad_request_body"
                }
                RequestError::UnsupportedEncoding(_) => "unsupported_content_encoding",
                RequestError::UnknownModel(_) => "model_not_found",
                RequestError::SensitiveWords(_) | RequestError::SensitiveAnswer => {
                    "sensitive_words_detected"
                }
                RequestError::RefusedByRule { .. } => "override_return_error",
            },
            GatewayError::Auth(e) => match e {
                AuthError::NoToken => "token_not_provided",
                AuthError::InvalidToken
                | AuthError::Expired
                | AuthError::Exhausted
                | AuthError::Disabled => "invalid_token",
                AuthError::IpNotAllowed(_)
                | AuthError::PinNotAdmin
                | AuthError::BrowserExtension => "access_denied",
                AuthError::UserBanned => "user_banned",
                AuthError::GroupForbidden(_) | AuthError::GroupRemoved(_) => "group_forbidden",
                AuthError::ModelForbidden(_) => "model_forbidden",
                AuthError::NoSession => "invalid_session",
                AuthError::SessionUnchecked => "session_check_failed",
            },
            GatewayError::Route(e) => match e {
                RouteError::NoChannel { .. } => "model_not_found",
                RouteError::ChannelsBusy { .. } => "channel_busy",
                RouteError::PinnedUnavailable(_) => "get_channel_failed",
                RouteError::MappingCycle(_) => "model_mapping_contains_cycle",
                RouteError::InputTooLong { .. } => "context_length_exceeded",
            },
            GatewayError::Billing(e) => match e {
                BillingError::NotPriced(_) => "model_price_error",
                BillingError::UserQuotaEmpty { .. } | BillingError::UserQuotaShort { .. } => {
                    "insufficient_user_quota"
                }
                BillingError::TokenQuotaShort { .. } => "pre_consume_token_quota_failed",
                BillingError::TooManyRequestsInFlight { .. } => "concurrency_limit",
                BillingError::StreamOverBudget => "insufficient_user_quota",
            },
            GatewayError::Upstream(e) => e.code(),
            GatewayError::Limited(_) => "rate_limit_exceeded",
        }
    }

    /// Headers the error answer carries besides the usual ones (`Retry-After` of a 429).
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        match self {
            GatewayError::Limited(d) => d.headers(),
            GatewayError::Route(RouteError::ChannelsBusy { .. }) => {
                vec![("retry-after", "1".to_owned())]
            }
            _ => Vec::new(),
        }
    }

    /// The `code` of the OpenAI error body: the codes of new-api (reference §9), empty
    /// where new-api sends none. Metrics and records use the finer [`Self::code`].
    pub fn openai_code(&self) -> &'static str {
        match self {
            GatewayError::Request(RequestError::NotFound { .. }) => "",
            GatewayError::Auth(AuthError::IpNotAllowed(_) | AuthError::BrowserExtension) => {
                "access_denied"
            }
            GatewayError::Auth(_) => "",
            GatewayError::Route(RouteError::MappingCycle(_)) => "channel:model_mapped_error",
            GatewayError::Upstream(UpstreamError::Timeout(_)) => "do_request_failed",
            _ => self.code(),
        }
    }

    /// The OpenAI-shaped error object (the value under `"error"`), request id appended to
    /// the message. Upstream error objects are kept, as new-api does.
    pub fn to_openai(&self, request_id: &str) -> Value {
        if let GatewayError::Upstream(UpstreamError::Status { status, body }) = self
            && let Ok(Value::Object(mut root)) = serde_json::from_slice::<Value>(body)
            && let Some(Value::Object(mut err)) = root.remove("error")
        {
            let msg = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            let msg = if msg.is_empty() {
                format!("upstream answered status {status}")
            } else {
                msg
            };
            err.insert(
                "message".into(),
                Value::String(format!("{msg} (request id: {request_id})")),
            );
            err.entry("type")
                .or_insert(Value::String("upstream_error".into()));
            err.entry("param").or_insert(Value::Null);
            err.entry("code").or_insert(Value::Null);
            return Value::Object(err);
        }
        let kind = match self {
            GatewayError::Request(
                RequestError::NotFound { .. } | RequestError::UnknownModel(_),
            ) => "invalid_request_error",
            GatewayError::Upstream(UpstreamError::Status { .. }) => "upstream_error",
            _ => "new_api_error",
        };
        json!({
            "message": format!("{self} (request id: {request_id})"),
            "type": kind,
            "param": null,
            "code": self.openai_code(),
        })
    }

    /// The complete JSON body `{"error": {...}}`.
    pub fn body(&self, request_id: &str) -> Bytes {
        Bytes::from(json!({ "error": self.to_openai(request_id) }).to_string())
    }

    /// The message a client reads: the upstream's own when it sent one, else ours; with the
    /// request id.
    pub fn client_message(&self, request_id: &str) -> String {
        match self.to_openai(request_id).get("message") {
            Some(Value::String(m)) => m.clone(),
            _ => format!("{self} (request id: {request_id})"),
        }
    }

    /// The error body of a task API: Midjourney-Proxy's `{code, description}` (the code is
    /// the HTTP status: any code but 1 is a failure to its clients) or Suno's
    /// `{code, message, data}`.
    pub fn task_body(&self, midjourney: bool, status: u16, request_id: &str) -> Bytes {
        let message = self.client_message(request_id);
        let body = if midjourney {
            json!({"code": status, "description": message, "type": "new_api_error", "result": null})
        } else {
            json!({"code": self.code(), "message": message, "data": null})
        };
        Bytes::from(body.to_string())
    }

    /// The complete error body in the client's dialect (`status` as answered).
    pub fn body_in(&self, dialect: Dialect, status: u16, request_id: &str) -> Bytes {
        match dialect {
            Dialect::OpenAi | Dialect::Responses => self.body(request_id),
            Dialect::Claude | Dialect::Gemini => Bytes::from(
                dialect
                    .error_body(status, &self.client_message(request_id))
                    .to_string(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn gateway_errors_have_openai_shape_with_request_id() {
        let status = UpstreamError::Status {
            status: 401,
            body: Bytes::from_static(br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#),
        };
        assert_eq!(
            status.channel_failure(500),
            Some((401, "Incorrect API key provided".to_owned()))
        );
        let text = UpstreamError::Status {
            status: 502,
            body: Bytes::from("bad gateway é".repeat(100)),
        };
        let (code, message) = text.channel_failure(20).unwrap();
        assert_eq!((code, message.len()), (502, 20));
        assert_eq!(UpstreamError::Build("x".into()).channel_failure(500), None);
        assert_eq!(
            UpstreamError::Timeout(5).channel_failure(500).map(|f| f.0),
            Some(0)
        );
        let e = GatewayError::from(AuthError::InvalidToken);
        let v: Value = serde_json::from_slice(&e.body("req1")).unwrap();
        assert_eq!(v["error"]["type"], "new_api_error");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .ends_with("(request id: req1)")
        );
        assert_eq!(e.status(), 401);
    }

    #[test]
    fn upstream_error_objects_are_kept() {
        let body = Bytes::from_static(
            br#"{"error":{"message":"slow down","type":"rate_limit","code":"rl"}}"#,
        );
        let e = GatewayError::from(UpstreamError::Status { status: 429, body });
        let v = e.to_openai("r");
        assert_eq!(v["type"], "rate_limit");
        assert_eq!(v["message"], "slow down (request id: r)");
        let e = GatewayError::from(UpstreamError::Status {
            status: 500,
            body: Bytes::from_static(b"oops"),
        });
        assert_eq!(e.to_openai("r")["type"], "upstream_error");
    }
}
