//! Gateway sync: the gRPC services gateways talk to (config push from the outbox, usage
//! reporting), served on the control plane's HTTP port next to the REST API.

pub mod config;
pub mod snapshot;
pub mod usage;

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use proto::config::v1::config_service_server::ConfigServiceServer;
use proto::usage::v1::usage_service_server::UsageServiceServer;
use sha2::{Digest, Sha256};
use tonic::server::NamedService;

use crate::state::AppState;

/// Largest gRPC message accepted or sent (a usage batch, a snapshot).
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// Environment variable holding the secret gateways present (`authorization: Bearer …`).
/// Without it, only loopback peers may use the gRPC services (they carry channel keys).
pub const SYNC_TOKEN_ENV: &str = "GATEWAY_SYNC_TOKEN";

/// The gRPC services as axum routes (`/<package>.<Service>/<method>`), to merge into the app.
/// Starts the config feed's background reader.
pub fn grpc_router(state: AppState) -> Router {
    let feed = config::Feed::start(state.clone());
    let config = ConfigServiceServer::new(config::ConfigApi::new(state.clone(), feed))
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    let usage = UsageServiceServer::new(usage::UsageApi::new(state))
        .max_decoding_message_size(MAX_MESSAGE_BYTES);
    Router::new()
        .route_service(&path::<ConfigServiceServer<config::ConfigApi>>(), config)
        .route_service(&path::<UsageServiceServer<usage::UsageApi>>(), usage)
        .layer(middleware::from_fn(require_gateway))
}

/// Lets a call through when it carries the sync token, or, when no token is configured, when
/// it comes from loopback.
async fn require_gateway(request: Request, next: Next) -> Response {
    let token = std::env::var(SYNC_TOKEN_ENV).ok().filter(|t| !t.is_empty());
    let allowed = match token {
        Some(token) => request
            .headers()
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            // Digests are compared, so the time taken says nothing about the secret.
            .is_some_and(|given| Sha256::digest(given) == Sha256::digest(&token)),
        None => request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .is_some_and(|ConnectInfo(peer)| peer.ip().is_loopback()),
    };
    if allowed {
        next.run(request).await
    } else {
        tonic::Status::unauthenticated("gateway credentials required")
            .into_http::<axum::body::Body>()
            .into_response()
    }
}

/// The route of every method of a service.
fn path<S: NamedService>() -> String {
    format!("/{}/{{*rest}}", S::NAME)
}
