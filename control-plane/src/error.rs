//! The control plane's one error type, and its mapping to the spec's `{success, message, data}`
//! envelope (HTTP status, localised message) in exactly one place.

use axum::Json;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::i18n::{Lang, Msg};

/// Everything a handler can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Not signed in, or the credentials do not check out: HTTP 401.
    #[error("unauthorized: {0:?}")]
    Unauthorized(Msg),
    /// Signed in, but the role or state does not allow this: HTTP 403.
    #[error("forbidden: {0:?}")]
    Forbidden(Msg),
    /// A rule of the product refused the request: HTTP 200 with `success: false`, as the spec's
    /// console expects for business failures.
    #[error("rejected: {0:?}")]
    Rejected(Msg),
    /// The body or query could not be read at all: HTTP 400.
    #[error("bad request: {0:?}")]
    BadRequest(Msg),
    /// No such route or resource: HTTP 404.
    #[error("not found")]
    NotFound,
    /// Too many attempts at a guarded endpoint: HTTP 429 with `Retry-After` (seconds).
    #[error("too many attempts; retry after {retry_after} s")]
    TooManyAttempts { retry_after: u64 },
    /// Busy for now (every password-hashing slot taken): HTTP 503.
    #[error("unavailable: {0:?}")]
    Unavailable(Msg),
    /// A failure of ours (database, hashing); the detail is logged, never sent.
    #[error("internal: {0}")]
    Internal(String),
}

impl ApiError {
    fn status_and_msg(&self) -> (StatusCode, Msg) {
        match self {
            ApiError::Unauthorized(m) => (StatusCode::UNAUTHORIZED, m.clone()),
            ApiError::Forbidden(m) => (StatusCode::FORBIDDEN, m.clone()),
            ApiError::Rejected(m) => (StatusCode::OK, m.clone()),
            ApiError::BadRequest(m) => (StatusCode::BAD_REQUEST, m.clone()),
            ApiError::NotFound => (StatusCode::NOT_FOUND, Msg::NotFound),
            ApiError::TooManyAttempts { retry_after } => (
                StatusCode::TOO_MANY_REQUESTS,
                Msg::TooManyAttempts {
                    seconds: *retry_after,
                },
            ),
            ApiError::Unavailable(m) => (StatusCode::SERVICE_UNAVAILABLE, m.clone()),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, Msg::Internal),
        }
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(err: sqlx::Error) -> Self {
        ApiError::Internal(format!("database: {err}"))
    }
}

impl From<crate::hashing::HashError> for ApiError {
    fn from(err: crate::hashing::HashError) -> Self {
        match err {
            crate::hashing::HashError::Busy => ApiError::Unavailable(Msg::ServerBusy),
            crate::hashing::HashError::Failed(detail) => ApiError::Internal(detail),
        }
    }
}

impl From<sqlx::migrate::MigrateError> for ApiError {
    fn from(err: sqlx::migrate::MigrateError) -> Self {
        ApiError::Internal(format!("migration: {err}"))
    }
}

/// The message of a failed reply, kept on the response so [`localize_errors`] can re-render it in
/// the caller's language.
#[derive(Clone)]
struct FailureMessage(Msg);

fn envelope_failure(status: StatusCode, msg: &Msg, lang: Lang) -> Response {
    let body = Json(json!({"success": false, "message": msg.text(lang), "data": null}));
    let mut response = (status, body).into_response();
    response
        .extensions_mut()
        .insert(FailureMessage(msg.clone()));
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(detail) = &self {
            tracing::error!(detail = %detail, "request failed");
        }
        let (status, msg) = self.status_and_msg();
        let mut response = envelope_failure(status, &msg, Lang::En);
        if let ApiError::TooManyAttempts { retry_after } = self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
        }
        response
    }
}

/// Middleware: failures are rendered in English by [`ApiError`]; re-render them in the language
/// the caller asked for.
pub async fn localize_errors(request: Request, next: Next) -> Response {
    let lang = Lang::from_accept_language(
        request
            .headers()
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok()),
    );
    let response = next.run(request).await;
    if lang == Lang::En {
        return response;
    }
    match response.extensions().get::<FailureMessage>().cloned() {
        Some(FailureMessage(msg)) => {
            let status = response.status();
            let mut localized = envelope_failure(status, &msg, lang);
            for (name, value) in response.headers() {
                if name != header::CONTENT_LENGTH && name != header::CONTENT_TYPE {
                    localized.headers_mut().insert(name.clone(), value.clone());
                }
            }
            localized
                .headers_mut()
                .insert(header::CONTENT_LANGUAGE, HeaderValue::from_static("zh-CN"));
            localized
        }
        None => response,
    }
}

/// Result alias for handlers.
pub type ApiResult<T> = Result<T, ApiError>;
