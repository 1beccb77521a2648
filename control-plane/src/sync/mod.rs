//! Gateway sync: the gRPC services gateways talk to (usage reporting; config push), served on
//! the control plane's HTTP port next to the REST API.

pub mod usage;

use axum::Router;
use proto::usage::v1::usage_service_server::UsageServiceServer;
use tonic::server::NamedService;

use crate::state::AppState;

/// Largest gRPC message accepted (a usage batch or a config message).
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// The gRPC services as axum routes (`/<package>.<Service>/<method>`), to merge into the app.
pub fn grpc_router(state: AppState) -> Router {
    let usage = UsageServiceServer::new(usage::UsageApi::new(state))
        .max_decoding_message_size(MAX_MESSAGE_BYTES);
    Router::new().route_service(
        &format!(
            "/{}/{{*rest}}",
            <UsageServiceServer<usage::UsageApi> as NamedService>::NAME
        ),
        usage,
    )
}
