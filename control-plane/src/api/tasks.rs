//! The drawing log and the task log (`/api/mj/…`, `/api/task/…`): asynchronous job records,
//! for admins over everyone's jobs (with a channel filter) and for each user over their own.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::{AdminCaller, Caller};
use super::envelope::{EmptyEnvelope, Envelope, Page, PageQuery, ok};
use super::extract::ApiQuery;
use crate::error::ApiResult;
use crate::state::AppState;
use crate::store;
use crate::store::tasks::{DrawingRecord, TaskFilter, TaskRecord};

/// A drawing job.
#[derive(Debug, Serialize, ToSchema)]
pub struct DrawingView {
    pub id: i64,
    /// Submit result: 1 submitted, 21 waiting, 22 duplicate, 0 not submitted.
    pub code: i64,
    pub user_id: i64,
    /// IMAGINE, UPSCALE, VARIATION, …
    pub action: String,
    pub mj_id: String,
    pub prompt: String,
    pub prompt_en: String,
    pub description: String,
    pub state: String,
    /// Epoch milliseconds.
    pub submit_time: i64,
    pub start_time: i64,
    pub finish_time: i64,
    pub image_url: String,
    /// NOT_START, SUBMITTED, IN_PROGRESS, SUCCESS, FAILURE, MODAL.
    pub status: String,
    /// A percentage such as "50%".
    pub progress: String,
    pub fail_reason: String,
    /// 0 in a user's own list.
    pub channel_id: i64,
    pub quota: i64,
}

fn drawing_view(r: DrawingRecord, admin: bool) -> DrawingView {
    DrawingView {
        id: r.id,
        code: r.code,
        user_id: r.user_id,
        action: r.action,
        mj_id: r.mj_id,
        prompt: r.prompt,
        prompt_en: r.prompt_en,
        description: r.description,
        state: r.state,
        submit_time: r.submit_time,
        start_time: r.start_time,
        finish_time: r.finish_time,
        image_url: r.image_url,
        status: r.status,
        progress: r.progress,
        fail_reason: r.fail_reason,
        channel_id: if admin { r.channel_id } else { 0 },
        quota: r.quota,
    }
}

/// A generic task (music, lyrics, video).
#[derive(Debug, Serialize, ToSchema)]
pub struct TaskView {
    pub id: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub task_id: String,
    /// The provider platform, such as "suno".
    pub platform: String,
    pub user_id: i64,
    /// 0 in a user's own list.
    pub channel_id: i64,
    pub quota: i64,
    /// MUSIC, LYRICS, …
    pub action: String,
    /// NOT_START, SUBMITTED, QUEUED, IN_PROGRESS, SUCCESS, FAILURE, UNKNOWN ("" while submitting).
    pub status: String,
    pub fail_reason: String,
    /// Epoch seconds.
    pub submit_time: i64,
    pub start_time: i64,
    pub finish_time: i64,
    pub progress: String,
    /// The provider's result (JSON text).
    pub data: String,
}

fn task_view(r: TaskRecord, admin: bool) -> TaskView {
    TaskView {
        id: r.id,
        created_at: r.created_at,
        updated_at: r.updated_at,
        task_id: r.task_id,
        platform: r.platform,
        user_id: r.user_id,
        channel_id: if admin { r.channel_id } else { 0 },
        quota: r.quota,
        action: r.action,
        status: r.status,
        fail_reason: r.fail_reason,
        submit_time: r.submit_time,
        start_time: r.start_time,
        finish_time: r.finish_time,
        progress: r.progress,
        data: r.data,
    }
}

/// Drawing log filters (a user's own list ignores `channel_id`).
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct DrawingQuery {
    pub channel_id: Option<i64>,
    pub mj_id: Option<String>,
    /// Submit time bounds, epoch milliseconds as the drawing records keep them.
    pub start_timestamp: Option<i64>,
    pub end_timestamp: Option<i64>,
    /// Only drawings in this status (`NOT_START`, `SUBMITTED`, `IN_PROGRESS`, `SUCCESS`,
    /// `FAILURE`, `MODAL`).
    pub status: Option<String>,
}

/// Task log filters (a user's own list ignores `channel_id`).
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct TaskQuery {
    pub channel_id: Option<i64>,
    pub task_id: Option<String>,
    /// Submit time bounds, epoch seconds.
    pub start_timestamp: Option<i64>,
    pub end_timestamp: Option<i64>,
    /// Only tasks in this status (`NOT_START`, `SUBMITTED`, `QUEUED`, `IN_PROGRESS`, `SUCCESS`,
    /// `FAILURE`, `UNKNOWN`).
    pub status: Option<String>,
    /// Only tasks of this platform (`suno`).
    pub platform: Option<String>,
}

async fn drawing_page(
    state: &AppState,
    query: DrawingQuery,
    own: Option<i64>,
    paging: &PageQuery,
) -> ApiResult<Json<Envelope<Page<DrawingView>>>> {
    let admin = own.is_none();
    let filter = TaskFilter {
        user_id: own,
        channel_id: query.channel_id.filter(|_| admin),
        job_id: query.mj_id,
        start: query.start_timestamp,
        end: query.end_timestamp,
        status: query.status,
        platform: None,
    };
    let (page, page_size, offset) = paging.resolve();
    let (items, total) = store::tasks::drawings(state.db(), &filter, offset, page_size).await?;
    Ok(ok(Page {
        items: items.into_iter().map(|r| drawing_view(r, admin)).collect(),
        page,
        page_size,
        total,
    }))
}

async fn task_page(
    state: &AppState,
    query: TaskQuery,
    own: Option<i64>,
    paging: &PageQuery,
) -> ApiResult<Json<Envelope<Page<TaskView>>>> {
    let admin = own.is_none();
    let filter = TaskFilter {
        user_id: own,
        channel_id: query.channel_id.filter(|_| admin),
        job_id: query.task_id,
        start: query.start_timestamp,
        end: query.end_timestamp,
        status: query.status,
        platform: query.platform,
    };
    let (page, page_size, offset) = paging.resolve();
    let (items, total) = store::tasks::tasks(state.db(), &filter, offset, page_size).await?;
    Ok(ok(Page {
        items: items.into_iter().map(|r| task_view(r, admin)).collect(),
        page,
        page_size,
        total,
    }))
}

#[utoipa::path(get, path = "/api/mj/", tag = "tasks", params(DrawingQuery, PageQuery),
    responses((status = 200, body = Envelope<Page<DrawingView>>), (status = 403, body = EmptyEnvelope)))]
pub async fn list_drawings(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(query): ApiQuery<DrawingQuery>,
    ApiQuery(paging): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<DrawingView>>>> {
    drawing_page(&state, query, None, &paging).await
}

#[utoipa::path(get, path = "/api/mj/self/", tag = "tasks", params(DrawingQuery, PageQuery),
    responses((status = 200, body = Envelope<Page<DrawingView>>), (status = 401, body = EmptyEnvelope)))]
pub async fn list_own_drawings(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(query): ApiQuery<DrawingQuery>,
    ApiQuery(paging): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<DrawingView>>>> {
    drawing_page(&state, query, Some(caller.user.id), &paging).await
}

#[utoipa::path(get, path = "/api/task/", tag = "tasks", params(TaskQuery, PageQuery),
    responses((status = 200, body = Envelope<Page<TaskView>>), (status = 403, body = EmptyEnvelope)))]
pub async fn list_tasks(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(query): ApiQuery<TaskQuery>,
    ApiQuery(paging): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<TaskView>>>> {
    task_page(&state, query, None, &paging).await
}

#[utoipa::path(get, path = "/api/task/self", tag = "tasks", params(TaskQuery, PageQuery),
    responses((status = 200, body = Envelope<Page<TaskView>>), (status = 401, body = EmptyEnvelope)))]
pub async fn list_own_tasks(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(query): ApiQuery<TaskQuery>,
    ApiQuery(paging): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<TaskView>>>> {
    task_page(&state, query, Some(caller.user.id), &paging).await
}
