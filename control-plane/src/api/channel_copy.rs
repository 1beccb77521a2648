//! `POST /api/channel/copy/{id}`: a new channel with the same settings and keys as an
//! existing one, named with a suffix; usage figures start afresh unless asked to be kept.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::AdminCaller;
use super::channels::find;
use super::envelope::{EmptyEnvelope, Envelope, ok};
use super::extract::ApiQuery;
use crate::error::ApiResult;
use crate::state::AppState;
use crate::store::{self, now};

/// Appended to the copied channel's name when the caller gives no suffix.
pub const DEFAULT_COPY_SUFFIX: &str = "_copy";

#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct CopyQuery {
    /// Appended to the name (default `_copy`).
    pub suffix: Option<String>,
    /// Start balance and used quota at zero (default true).
    pub reset_balance: Option<bool>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CopiedChannel {
    /// Id of the new channel.
    pub id: i64,
}

#[utoipa::path(post, path = "/api/channel/copy/{id}", tag = "channels",
    params(("id" = i64, Path), CopyQuery),
    responses((status = 200, description = "the new channel's id", body = Envelope<CopiedChannel>), (status = 403, body = EmptyEnvelope)))]
pub async fn copy_channel(
    State(state): State<AppState>,
    _admin: AdminCaller,
    Path(id): Path<i64>,
    ApiQuery(query): ApiQuery<CopyQuery>,
) -> ApiResult<Json<Envelope<CopiedChannel>>> {
    let source = find(&state, id).await?;
    let suffix = query
        .suffix
        .unwrap_or_else(|| DEFAULT_COPY_SUFFIX.to_owned());
    let mut copy = source.clone();
    copy.name = format!("{}{suffix}", source.name);
    copy.created_time = now();
    let mut tx = state.db().pool.begin().await?;
    let new_id = store::channels::insert(&mut tx, &copy).await?;
    tx.commit().await?;
    if query.reset_balance == Some(false) {
        store::channels::set_usage_figures(state.db(), new_id, &source).await?;
    }
    Ok(ok(CopiedChannel { id: new_id }))
}
