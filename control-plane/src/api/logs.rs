//! Usage logs: the admin list and the caller's own (`/api/log/`, `/api/log/self/`) with every
//! filter of spec 3 §7, their stats (quota, requests and tokens of the last minute), and deletion
//! of old records.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::{AdminCaller, Caller, RootCaller};
use super::envelope::{EmptyEnvelope, Envelope, Page, PageQuery, ok};
use super::extract::ApiQuery;
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::logs::{LogFilter, LogRecord};
use crate::store::{self, now};

/// A log record.
#[derive(Debug, Serialize, ToSchema)]
pub struct LogView {
    pub id: i64,
    pub created_at: i64,
    /// 1 top-up, 2 consume, 3 manage, 4 system, 5 check-in, 6 failed request.
    #[serde(rename = "type")]
    pub kind: i64,
    pub content: String,
    pub username: String,
    pub user_id: i64,
    pub token_name: String,
    pub token_id: i64,
    pub group: String,
    pub model_name: String,
    /// Channel id (0 in the caller's own logs).
    pub channel: i64,
    pub channel_name: String,
    /// Seconds the request took.
    pub use_time: i64,
    pub is_stream: bool,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub quota: i64,
    pub request_id: String,
    /// JSON with ratios, first-response time, mapping and (for admins) the channels tried.
    pub other: String,
}

fn view(l: LogRecord, admin: bool) -> LogView {
    let other = if admin {
        l.other
    } else {
        strip_admin_info(&l.other)
    };
    LogView {
        id: l.id,
        created_at: l.created_at,
        kind: l.kind,
        content: l.content,
        username: l.username,
        user_id: l.user_id,
        token_name: l.token_name,
        token_id: l.token_id,
        group: l.group,
        model_name: l.model_name,
        channel: if admin { l.channel_id } else { 0 },
        channel_name: if admin {
            l.channel_name.unwrap_or_default()
        } else {
            String::new()
        },
        use_time: l.use_time,
        is_stream: l.is_stream != 0,
        prompt_tokens: l.prompt_tokens,
        completion_tokens: l.completion_tokens,
        quota: l.quota,
        request_id: l.request_id.unwrap_or_default(),
        other,
    }
}

/// `other` without the administrator-only part (which channels were tried).
fn strip_admin_info(other: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(other) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.remove("admin_info");
            serde_json::Value::Object(map).to_string()
        }
        _ => other.to_string(),
    }
}

/// Log filters (the caller's own list ignores `username` and `channel`).
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct LogQuery {
    /// 0 all, 1 top-up, 2 consume, 3 manage, 4 system, 5 check-in, 6 failed request.
    #[serde(rename = "type")]
    pub kind: Option<i64>,
    pub username: Option<String>,
    pub token_name: Option<String>,
    pub model_name: Option<String>,
    pub start_timestamp: Option<i64>,
    pub end_timestamp: Option<i64>,
    pub channel: Option<i64>,
    pub group: Option<String>,
    pub request_id: Option<String>,
}

impl LogQuery {
    fn filter(self, own: Option<i64>) -> LogFilter {
        let admin = own.is_none();
        LogFilter {
            user_id: own,
            kind: self.kind,
            username: self.username.filter(|_| admin),
            token_name: self.token_name,
            model_name: self.model_name,
            start: self.start_timestamp,
            end: self.end_timestamp,
            channel_id: self.channel.filter(|_| admin),
            group: self.group,
            request_id: self.request_id,
        }
    }
}

async fn page(
    state: &AppState,
    filter: LogFilter,
    page: &PageQuery,
    admin: bool,
) -> ApiResult<Json<Envelope<Page<LogView>>>> {
    let (page, page_size, offset) = page.resolve();
    let (items, total) = store::logs::list(state.db(), &filter, offset, page_size).await?;
    Ok(ok(Page {
        items: items.into_iter().map(|l| view(l, admin)).collect(),
        page,
        page_size,
        total,
    }))
}

#[utoipa::path(get, path = "/api/log/", tag = "logs", params(LogQuery, PageQuery),
    responses((status = 200, body = Envelope<Page<LogView>>), (status = 403, body = EmptyEnvelope)))]
pub async fn list_logs(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(query): ApiQuery<LogQuery>,
    ApiQuery(paging): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<LogView>>>> {
    page(&state, query.filter(None), &paging, true).await
}

#[utoipa::path(get, path = "/api/log/self/", tag = "logs", params(LogQuery, PageQuery),
    responses((status = 200, body = Envelope<Page<LogView>>), (status = 401, body = EmptyEnvelope)))]
pub async fn list_own_logs(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(query): ApiQuery<LogQuery>,
    ApiQuery(paging): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<LogView>>>> {
    page(&state, query.filter(Some(caller.user.id)), &paging, false).await
}

/// Totals of the filtered logs (consumption records).
#[derive(Debug, Serialize, ToSchema)]
pub struct LogStats {
    /// Quota consumed by the matching records.
    pub quota: i64,
    /// Requests and tokens per minute: averaged over the filtered range when it has a start
    /// time (up to its end, or now), else those of the last 60 seconds.
    pub rpm: i64,
    pub tpm: i64,
    /// Matching requests and their tokens.
    pub requests: i64,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub tokens: i64,
}

async fn stats(state: &AppState, filter: LogFilter) -> ApiResult<Json<Envelope<LogStats>>> {
    let t = store::logs::stats(state.db(), &filter, now()).await?;
    Ok(ok(LogStats {
        quota: t.quota,
        rpm: t.rpm,
        tpm: t.tpm,
        requests: t.requests,
        prompt_tokens: t.prompt_tokens,
        completion_tokens: t.completion_tokens,
        tokens: t.prompt_tokens + t.completion_tokens,
    }))
}

#[utoipa::path(get, path = "/api/log/stat", tag = "logs", params(LogQuery),
    responses((status = 200, body = Envelope<LogStats>), (status = 403, body = EmptyEnvelope)))]
pub async fn log_stats(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(query): ApiQuery<LogQuery>,
) -> ApiResult<Json<Envelope<LogStats>>> {
    stats(&state, query.filter(None)).await
}

#[utoipa::path(get, path = "/api/log/self/stat", tag = "logs", params(LogQuery),
    responses((status = 200, body = Envelope<LogStats>), (status = 401, body = EmptyEnvelope)))]
pub async fn own_log_stats(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(query): ApiQuery<LogQuery>,
) -> ApiResult<Json<Envelope<LogStats>>> {
    stats(&state, query.filter(Some(caller.user.id))).await
}

/// Logs created before this time are deleted.
#[derive(Debug, Deserialize, IntoParams)]
pub struct DeleteQuery {
    pub target_timestamp: Option<i64>,
}

#[utoipa::path(delete, path = "/api/log/", tag = "logs", params(DeleteQuery),
    responses((status = 200, description = "how many were deleted", body = Envelope<u64>), (status = 403, body = EmptyEnvelope)))]
pub async fn delete_logs(
    State(state): State<AppState>,
    _root: RootCaller,
    ApiQuery(query): ApiQuery<DeleteQuery>,
) -> ApiResult<Json<Envelope<u64>>> {
    let before = query
        .target_timestamp
        .filter(|t| *t > 0)
        .ok_or(ApiError::Rejected(Msg::TargetTimestampRequired))?;
    Ok(ok(store::logs::delete_before(state.db(), before).await?))
}
