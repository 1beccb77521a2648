//! The admin listener (`--admin-listen`): Prometheus metrics and health for the platform,
//! on an address of its own so that neither reaches the public port; and the middleware that
//! counts the public port's HTTP requests by route.

use std::time::Instant;

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::state::AppState;

/// `GET /metrics` (Prometheus text), `GET /healthz` (the process runs) and `GET /readyz`
/// (the database answers and the replica is not shutting down).
pub fn router(state: AppState) -> Router {
    Router::new()
        .route(
            "/metrics",
            get(|State(state): State<AppState>| async move { state.metrics().render() }),
        )
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .with_state(state)
}

async fn ready(State(state): State<AppState>) -> Response {
    if state.is_shutting_down() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down").into_response();
    }
    match sqlx::query("SELECT 1").execute(&state.db().pool).await {
        Ok(_) => "ready".into_response(),
        Err(err) => {
            tracing::warn!(error = %err, "readiness: the database does not answer");
            (StatusCode::SERVICE_UNAVAILABLE, "database unavailable").into_response()
        }
    }
}

/// Counts a request and its latency by method, route template (`other` when no route
/// matched: console files, unknown paths) and status class: labels stay bounded whatever
/// clients send.
pub async fn count_requests(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let method = method_label(request.method());
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "other".to_owned(), |p| p.as_str().to_owned());
    let response = next.run(request).await;
    let status = match response.status().as_u16() {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    };
    let m = state.metrics();
    m.http_requests
        .with_label_values(&[method, &route, status])
        .inc();
    m.http_seconds
        .with_label_values(&[method, &route])
        .observe(started.elapsed().as_secs_f64());
    response
}

fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}
