//! Gateway sync: the gRPC services gateways talk to (config push from the outbox, usage
//! reporting), served on the control plane's HTTP port next to the REST API or on a listener
//! of their own (optionally TLS and mTLS). Every call needs a gateway credential.

pub mod config;
pub mod credentials;
pub mod ingest_sched;
pub mod snapshot;
pub mod tls;
pub mod usage;

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use proto::config::v1::config_service_server::ConfigServiceServer;
use proto::usage::v1::usage_service_server::UsageServiceServer;
use tonic::server::NamedService;

use crate::state::AppState;
use tls::GrpcPeer;

/// Largest gRPC message accepted or sent (a usage batch, a snapshot).
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// The gRPC services as axum routes (`/<package>.<Service>/<method>`), to merge into the app
/// or serve alone. Starts the config feed's background reader.
pub fn grpc_router(state: AppState) -> Router {
    let feed = config::Feed::start(state.clone());
    let config = ConfigServiceServer::new(config::ConfigApi::new(state.clone(), feed))
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    let usage = UsageServiceServer::new(usage::UsageApi::new(state.clone()))
        .max_decoding_message_size(MAX_MESSAGE_BYTES);
    Router::new()
        .route_service(&path::<ConfigServiceServer<config::ConfigApi>>(), config)
        .route_service(&path::<UsageServiceServer<usage::UsageApi>>(), usage)
        .layer(middleware::from_fn_with_state(state, require_gateway))
}

/// Tells the config feed after every API call that may write (any method but GET, HEAD and
/// OPTIONS), once its answer is ready and so its transaction committed: a new token, a ban or
/// a top-up reaches the gateways without waiting for the feed's next poll. (Usage batches do
/// not: the balances they move travel with the poll, one delta for many batches.)
pub async fn note_writes(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let reads = matches!(
        *request.method(),
        axum::http::Method::GET | axum::http::Method::HEAD | axum::http::Method::OPTIONS
    );
    let response = next.run(request).await;
    if !reads {
        state.note_write();
    }
    response
}

/// Lets a call through only with the gateway credentials (sync token and/or verified client
/// certificate); the peer's address is logged, never trusted.
async fn require_gateway(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let ext = request.extensions();
    let (peer, client_cert) = match (
        ext.get::<ConnectInfo<GrpcPeer>>(),
        ext.get::<ConnectInfo<SocketAddr>>(),
    ) {
        (Some(ConnectInfo(p)), _) => (Some(p.addr), p.client_cert.is_some()),
        (None, Some(ConnectInfo(addr))) => (Some(*addr), false),
        (None, None) => (None, false),
    };
    let authorization = request
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    match state
        .gateway_credentials()
        .check(authorization, client_cert)
    {
        Ok(()) => next.run(request).await,
        Err(refusal) => {
            state
                .metrics()
                .gateways_refused
                .with_label_values(&[refusal.code()])
                .inc();
            tracing::warn!(
                peer = peer.map(|p| p.to_string()).unwrap_or_default(),
                path = request.uri().path(),
                reason = refusal.as_str(),
                "gateway refused"
            );
            tonic::Status::unauthenticated("gateway credentials required")
                .into_http::<axum::body::Body>()
                .into_response()
        }
    }
}

/// The route of every method of a service.
fn path<S: NamedService>() -> String {
    format!("/{}/{{*rest}}", S::NAME)
}
