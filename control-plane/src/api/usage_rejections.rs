//! `GET /api/usage/rejected`: usage records gateways reported that ingest refused (a forged or
//! broken record), with the reason, for admins to look into.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::AdminCaller;
use super::envelope::{EmptyEnvelope, Envelope, Page, PageQuery, ok};
use super::extract::ApiQuery;
use crate::error::ApiResult;
use crate::state::AppState;
use crate::store::usage::{self, RejectionRecord};

/// A refused usage record.
#[derive(Debug, Serialize, ToSchema)]
pub struct RejectionView {
    pub id: i64,
    /// Epoch seconds when it was refused.
    pub created_at: i64,
    /// The gateway that reported it.
    pub gateway_id: String,
    pub request_id: String,
    pub user_id: i64,
    pub token_id: i64,
    /// Quota the record tried to charge (negative ones would have credited).
    pub quota: i64,
    /// Why it was refused.
    pub reason: String,
    /// The record as received (NUL characters replaced, at most 4 KiB).
    pub record: String,
}

impl From<RejectionRecord> for RejectionView {
    fn from(r: RejectionRecord) -> Self {
        RejectionView {
            id: r.id,
            created_at: r.created_at,
            gateway_id: r.gateway_id,
            request_id: r.request_id,
            user_id: r.user_id,
            token_id: r.token_id,
            quota: r.quota,
            reason: r.reason,
            record: r.record,
        }
    }
}

#[utoipa::path(get, path = "/api/usage/rejected", tag = "gateways", params(PageQuery),
    responses((status = 200, body = Envelope<Page<RejectionView>>), (status = 403, body = EmptyEnvelope)))]
pub async fn list_rejections(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(paging): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<RejectionView>>>> {
    let (page, page_size, offset) = paging.resolve();
    let (items, total) = usage::rejections(state.db(), page_size, offset).await?;
    Ok(ok(Page {
        items: items.into_iter().map(RejectionView::from).collect(),
        page,
        page_size,
        total,
    }))
}
