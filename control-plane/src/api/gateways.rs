//! `GET /api/gateway/`: the gateways that follow the config feed, with the version each
//! applied, how far behind the newest version it is, and when it was last heard from.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::AdminCaller;
use super::envelope::{EmptyEnvelope, Envelope, ok};
use crate::error::ApiResult;
use crate::state::AppState;
use crate::store::config_changes;

/// One gateway as the control plane knows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct GatewayView {
    /// The name the gateway gave (`--gateway-id`).
    pub gateway_id: String,
    /// Config version the gateway reported applying.
    pub version: i64,
    /// Versions behind the newest one (0 when up to date).
    pub lag: i64,
    /// Epoch seconds of the last Watch or acknowledgement.
    pub last_contact: i64,
    /// Whether its Watch stream is open now.
    pub connected: bool,
}

/// The gateways and the newest config version.
#[derive(Debug, Serialize, ToSchema)]
pub struct GatewayList {
    /// The newest config version.
    pub version: i64,
    pub items: Vec<GatewayView>,
}

#[utoipa::path(get, path = "/api/gateway/", tag = "gateways",
    responses((status = 200, body = Envelope<GatewayList>), (status = 403, body = EmptyEnvelope)))]
pub async fn list_gateways(
    State(state): State<AppState>,
    _admin: AdminCaller,
) -> ApiResult<Json<Envelope<GatewayList>>> {
    let version = config_changes::max_version(state.db()).await?;
    let items = config_changes::gateways(state.db())
        .await?
        .into_iter()
        .map(|g| GatewayView {
            lag: (version - g.applied_version).max(0),
            gateway_id: g.gateway_id,
            version: g.applied_version,
            last_contact: g.last_contact,
            connected: g.connected != 0,
        })
        .collect();
    Ok(ok(GatewayList { version, items }))
}
