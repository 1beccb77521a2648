//! Dashboard data: hourly consumption by model (admin, optionally for one user), by user (admin),
//! and the caller's own by model (at most 30 days at a time).

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::{AdminCaller, Caller};
use super::envelope::{EmptyEnvelope, Envelope, ok};
use super::extract::ApiQuery;
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::quota_data::{RollupBy, RollupRow};
use crate::store::{self, now};

/// Longest range of the caller's own dashboard.
pub const SELF_RANGE_DAYS: i64 = 30;

/// One hour of consumption of a model.
#[derive(Debug, Serialize, ToSchema)]
pub struct ModelPoint {
    pub model_name: String,
    /// Start of the hour (epoch seconds).
    pub created_at: i64,
    pub count: i64,
    pub quota: i64,
    pub token_used: i64,
}

/// One hour of consumption of a user.
#[derive(Debug, Serialize, ToSchema)]
pub struct UserPoint {
    pub username: String,
    pub created_at: i64,
    pub count: i64,
    pub quota: i64,
    pub token_used: i64,
}

/// Time range (epoch seconds; default the last 24 hours).
#[derive(Debug, Deserialize, IntoParams)]
pub struct RangeQuery {
    pub start_timestamp: Option<i64>,
    pub end_timestamp: Option<i64>,
    /// Admin only: one user's data.
    pub username: Option<String>,
}

fn range(query: &RangeQuery) -> (i64, i64) {
    let end = query.end_timestamp.filter(|e| *e > 0).unwrap_or_else(now);
    let start = query
        .start_timestamp
        .filter(|s| *s > 0)
        .unwrap_or(end - 86_400);
    (start, end)
}

fn by_model(rows: Vec<RollupRow>) -> Vec<ModelPoint> {
    rows.into_iter()
        .map(|r| ModelPoint {
            model_name: r.name,
            created_at: r.created_at,
            count: r.count,
            quota: r.quota,
            token_used: r.token_used,
        })
        .collect()
}

#[utoipa::path(get, path = "/api/data/", tag = "dashboard", params(RangeQuery),
    responses((status = 200, body = Envelope<Vec<ModelPoint>>), (status = 403, body = EmptyEnvelope)))]
pub async fn all_by_model(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(query): ApiQuery<RangeQuery>,
) -> ApiResult<Json<Envelope<Vec<ModelPoint>>>> {
    let (start, end) = range(&query);
    let rows = store::quota_data::series(
        state.db(),
        RollupBy::Model,
        start,
        end,
        None,
        query.username.as_deref(),
    )
    .await?;
    Ok(ok(by_model(rows)))
}

#[utoipa::path(get, path = "/api/data/users", tag = "dashboard", params(RangeQuery),
    responses((status = 200, body = Envelope<Vec<UserPoint>>), (status = 403, body = EmptyEnvelope)))]
pub async fn all_by_user(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(query): ApiQuery<RangeQuery>,
) -> ApiResult<Json<Envelope<Vec<UserPoint>>>> {
    let (start, end) = range(&query);
    let rows = store::quota_data::series(
        state.db(),
        RollupBy::User,
        start,
        end,
        None,
        query
            .username
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty()),
    )
    .await?;
    Ok(ok(rows
        .into_iter()
        .map(|r| UserPoint {
            username: r.name,
            created_at: r.created_at,
            count: r.count,
            quota: r.quota,
            token_used: r.token_used,
        })
        .collect()))
}

#[utoipa::path(get, path = "/api/data/self", tag = "dashboard", params(RangeQuery),
    responses((status = 200, body = Envelope<Vec<ModelPoint>>), (status = 401, body = EmptyEnvelope)))]
pub async fn own_by_model(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(query): ApiQuery<RangeQuery>,
) -> ApiResult<Json<Envelope<Vec<ModelPoint>>>> {
    let (start, end) = range(&query);
    if end - start > SELF_RANGE_DAYS * 86_400 {
        return Err(ApiError::Rejected(Msg::DashboardRangeTooLong {
            days: SELF_RANGE_DAYS,
        }));
    }
    let rows = store::quota_data::series(
        state.db(),
        RollupBy::Model,
        start,
        end,
        Some(caller.user.id),
        None,
    )
    .await?;
    Ok(ok(by_model(rows)))
}
