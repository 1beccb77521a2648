//! The admin port: `/metrics` (Prometheus), `/healthz` (process alive) and `/readyz`
//! (a snapshot is loaded).

use std::sync::Arc;

use async_trait::async_trait;
use http::{Response, StatusCode};
use pingora::apps::http_app::ServeHttp;
use pingora::protocols::http::ServerSession;

use crate::state::{GatewayState, ReadyState};

/// Serves the admin endpoints.
pub struct AdminApp {
    pub state: Arc<GatewayState>,
}

fn reply(status: StatusCode, ctype: &str, body: Vec<u8>) -> Response<Vec<u8>> {
    let mut resp = Response::new(body);
    *resp.status_mut() = status;
    if let Ok(v) = http::HeaderValue::from_str(ctype) {
        resp.headers_mut().insert(http::header::CONTENT_TYPE, v);
    }
    if let Ok(v) = http::HeaderValue::from_str(&resp.body().len().to_string()) {
        resp.headers_mut().insert(http::header::CONTENT_LENGTH, v);
    }
    resp
}

#[async_trait]
impl ServeHttp for AdminApp {
    async fn response(&self, session: &mut ServerSession) -> Response<Vec<u8>> {
        let path = session.req_header().uri.path().to_owned();
        match path.as_str() {
            "/metrics" => {
                let snap = self.state.config.load();
                self.state
                    .metrics
                    .snapshot_version
                    .set(i64::try_from(snap.version).unwrap_or(i64::MAX));
                self.state
                    .metrics
                    .config_stale_seconds
                    .set(i64::try_from(self.state.readiness.stale_secs()).unwrap_or(i64::MAX));
                self.state.metrics.in_flight.set(
                    i64::try_from(
                        self.state
                            .in_flight
                            .load(std::sync::atomic::Ordering::Acquire),
                    )
                    .unwrap_or(i64::MAX),
                );
                reply(
                    StatusCode::OK,
                    "text/plain; version=0.0.4",
                    self.state.metrics.render(),
                )
            }
            "/healthz" => reply(
                StatusCode::OK,
                "application/json",
                br#"{"status":"ok"}"#.to_vec(),
            ),
            "/readyz" => {
                let version = self.state.config.load().version;
                let (status, body) = match self.state.readiness.state() {
                    ReadyState::Ready => (
                        StatusCode::OK,
                        format!(r#"{{"status":"ready","config_version":{version}}}"#),
                    ),
                    ReadyState::Draining => (
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!(r#"{{"status":"draining","config_version":{version}}}"#),
                    ),
                    ReadyState::Stale(secs) => (
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!(
                            r#"{{"status":"stale","config_version":{version},"stale_seconds":{secs}}}"#
                        ),
                    ),
                };
                reply(status, "application/json", body.into_bytes())
            }
            _ => reply(
                StatusCode::NOT_FOUND,
                "application/json",
                br#"{"error":"not found"}"#.to_vec(),
            ),
        }
    }
}
