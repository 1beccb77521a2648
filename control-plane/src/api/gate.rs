//! Until setup is done, only setup, status and the OpenAPI document answer: other API calls are
//! refused and console pages redirect to `/setup`.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

use crate::error::ApiError;
use crate::i18n::Msg;
use crate::state::AppState;

const OPEN_API_PATHS: &[&str] = &["/api/setup", "/api/status", "/api/openapi.json"];

pub async fn require_setup(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    let exempt = OPEN_API_PATHS.contains(&path)
        || path == "/setup"
        || path.starts_with("/assets/")
        || is_static_file(path);
    if exempt {
        return next.run(request).await;
    }
    match state.is_initialized().await {
        Ok(true) => next.run(request).await,
        Ok(false) if path.starts_with("/api/") || path == "/api" => {
            ApiError::Forbidden(Msg::NotInitialized).into_response()
        }
        Ok(false) => Redirect::temporary("/setup").into_response(),
        Err(err) => ApiError::from(err).into_response(),
    }
}

/// A file at the top of the console (`/favicon.ico`, `/logo.png`), not a page.
fn is_static_file(path: &str) -> bool {
    !path.starts_with("/api")
        && path
            .rsplit('/')
            .next()
            .is_some_and(|last| last.contains('.'))
}
