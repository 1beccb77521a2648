//! Redemption codes for administrators (`/api/redemption/*`): list, search, get, create (random
//! or custom keys, gift codes with max uses and a validity window), edit, status, delete, batch
//! disable, delete disabled, count and delete by name.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::AdminCaller;
use super::envelope::{EmptyEnvelope, Envelope, Page, PageQuery, ok};
use super::extract::{ApiJson, ApiQuery};
use super::tokens::UpdateMode;
use crate::domain::redemption::{self, CREATE_MAX, STATUS_DISABLED, STATUS_UNUSED, STATUS_USED};
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::redemptions::{CodeFields, RedemptionRecord};
use crate::store::{self, is_unique_violation, now};

/// A redemption code.
#[derive(Debug, Serialize, ToSchema)]
pub struct RedemptionView {
    pub id: i64,
    pub user_id: i64,
    pub key: String,
    pub name: String,
    /// 1 unused, 2 disabled, 3 used.
    pub status: i64,
    pub quota: i64,
    pub created_time: i64,
    pub redeemed_time: i64,
    pub used_user_id: i64,
    pub is_gift: bool,
    /// -1 unlimited.
    pub max_uses: i64,
    pub used_count: i64,
    /// Epoch seconds; 0 none.
    pub valid_from: i64,
    /// Epoch seconds; 0 none.
    pub valid_until: i64,
}

impl From<RedemptionRecord> for RedemptionView {
    fn from(r: RedemptionRecord) -> Self {
        RedemptionView {
            id: r.id,
            user_id: r.user_id,
            key: r.key,
            name: r.name,
            status: r.status,
            quota: r.quota,
            created_time: r.created_time,
            redeemed_time: r.redeemed_time,
            used_user_id: r.used_user_id,
            is_gift: r.is_gift != 0,
            max_uses: r.max_uses,
            used_count: r.used_count,
            valid_from: r.valid_from,
            valid_until: r.valid_until,
        }
    }
}

#[utoipa::path(get, path = "/api/redemption/", tag = "redemptions", params(PageQuery),
    responses((status = 200, body = Envelope<Page<RedemptionView>>), (status = 403, body = EmptyEnvelope)))]
pub async fn list_codes(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(page): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<RedemptionView>>>> {
    page_of_codes(&state, None, &page).await
}

/// Search by id, name or whole code.
#[derive(Debug, Deserialize, IntoParams)]
pub struct KeywordQuery {
    pub keyword: Option<String>,
}

#[utoipa::path(get, path = "/api/redemption/search", tag = "redemptions", params(KeywordQuery, PageQuery),
    responses((status = 200, body = Envelope<Page<RedemptionView>>), (status = 403, body = EmptyEnvelope)))]
pub async fn search_codes(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(search): ApiQuery<KeywordQuery>,
    ApiQuery(page): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<RedemptionView>>>> {
    page_of_codes(&state, search.keyword.as_deref(), &page).await
}

async fn page_of_codes(
    state: &AppState,
    keyword: Option<&str>,
    page: &PageQuery,
) -> ApiResult<Json<Envelope<Page<RedemptionView>>>> {
    let (page, page_size, offset) = page.resolve();
    let (items, total) = store::redemptions::list(state.db(), keyword, offset, page_size).await?;
    Ok(ok(Page {
        items: items.into_iter().map(RedemptionView::from).collect(),
        page,
        page_size,
        total,
    }))
}

#[utoipa::path(get, path = "/api/redemption/{id}", tag = "redemptions", params(("id" = i64, Path)),
    responses((status = 200, body = Envelope<RedemptionView>), (status = 403, body = EmptyEnvelope)))]
pub async fn get_code(
    State(state): State<AppState>,
    _admin: AdminCaller,
    Path(id): Path<i64>,
) -> ApiResult<Json<Envelope<RedemptionView>>> {
    let code = store::redemptions::find(state.db(), id)
        .await?
        .ok_or(ApiError::Rejected(Msg::RedemptionNotFound))?;
    Ok(ok(code.into()))
}

/// A code's settings as sent by the console.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CodeInput {
    /// Present on updates.
    pub id: Option<i64>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub quota: i64,
    /// How many codes to create (default 1).
    pub count: Option<i64>,
    #[serde(default)]
    pub is_gift: bool,
    /// Blank or -1: unlimited.
    pub max_uses: Option<i64>,
    #[serde(default)]
    pub valid_from: i64,
    #[serde(default)]
    pub valid_until: i64,
    /// A custom code instead of a random one (only with count 1).
    pub key: Option<String>,
    /// On status-only updates: 1 or 2.
    pub status: Option<i64>,
}

async fn fields_of(state: &AppState, input: &CodeInput) -> ApiResult<CodeFields> {
    redemption::check_quota(input.quota).map_err(ApiError::Rejected)?;
    redemption::check_window(input.valid_from, input.valid_until).map_err(ApiError::Rejected)?;
    let name = match input.name.trim() {
        "" => redemption::default_name(input.quota, state.options().await?.i64("QuotaPerUnit")),
        name => name.chars().take(64).collect(),
    };
    Ok(CodeFields {
        name,
        quota: input.quota,
        is_gift: input.is_gift,
        max_uses: redemption::normalize_max_uses(input.max_uses),
        valid_from: input.valid_from,
        valid_until: input.valid_until,
    })
}

#[utoipa::path(post, path = "/api/redemption/", tag = "redemptions", request_body = CodeInput,
    responses((status = 200, description = "the created codes", body = Envelope<Vec<String>>), (status = 403, body = EmptyEnvelope)))]
pub async fn create_codes(
    State(state): State<AppState>,
    AdminCaller(admin): AdminCaller,
    ApiJson(input): ApiJson<CodeInput>,
) -> ApiResult<Json<Envelope<Vec<String>>>> {
    let fields = fields_of(&state, &input).await?;
    let count = input.count.unwrap_or(1);
    if !(1..=CREATE_MAX).contains(&count) {
        return Err(ApiError::Rejected(Msg::RedemptionCountInvalid {
            max: CREATE_MAX,
        }));
    }
    let custom = input
        .key
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty());
    if let Some(key) = custom {
        redemption::check_custom_key(key).map_err(ApiError::Rejected)?;
        if count != 1 {
            return Err(ApiError::Rejected(Msg::RedemptionKeyInvalid));
        }
    }
    let now = now();
    let mut keys = Vec::with_capacity(count as usize);
    let mut tx = state.db().pool.begin().await?;
    for _ in 0..count {
        let key = custom
            .map(str::to_string)
            .unwrap_or_else(redemption::new_key);
        match store::redemptions::insert(&mut *tx, admin.user.id, &key, &fields, now).await {
            Err(err) if is_unique_violation(&err) => {
                return Err(ApiError::Rejected(Msg::RedemptionKeyTaken));
            }
            other => other?,
        };
        keys.push(key);
    }
    tx.commit().await?;
    Ok(ok(keys))
}

#[utoipa::path(put, path = "/api/redemption/", tag = "redemptions", request_body = CodeInput, params(UpdateMode),
    responses((status = 200, body = Envelope<RedemptionView>), (status = 403, body = EmptyEnvelope)))]
pub async fn update_code(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(mode): ApiQuery<UpdateMode>,
    ApiJson(input): ApiJson<CodeInput>,
) -> ApiResult<Json<Envelope<RedemptionView>>> {
    let id = input
        .id
        .ok_or(ApiError::Rejected(Msg::RedemptionNotFound))?;
    let db = state.db();
    let current = store::redemptions::find(db, id)
        .await?
        .ok_or(ApiError::Rejected(Msg::RedemptionNotFound))?;
    if mode.status_only.unwrap_or(false) {
        let status = input.status.ok_or(ApiError::Rejected(Msg::StatusInvalid))?;
        if status != STATUS_UNUSED && status != STATUS_DISABLED {
            return Err(ApiError::Rejected(Msg::StatusInvalid));
        }
        if current.status == STATUS_USED {
            return Err(ApiError::Rejected(Msg::RedemptionUsedCannotEnable));
        }
        store::redemptions::set_status(db, id, status).await?;
    } else {
        if current.status != STATUS_UNUSED {
            return Err(ApiError::Rejected(Msg::RedemptionNotEditable));
        }
        let fields = fields_of(&state, &input).await?;
        if !store::redemptions::update_unused(db, id, &fields).await? {
            return Err(ApiError::Rejected(Msg::RedemptionNotEditable));
        }
    }
    let updated = store::redemptions::find(db, id)
        .await?
        .ok_or(ApiError::Rejected(Msg::RedemptionNotFound))?;
    Ok(ok(updated.into()))
}

#[utoipa::path(delete, path = "/api/redemption/{id}/", tag = "redemptions", params(("id" = i64, Path)),
    responses((status = 200, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn delete_code(
    State(state): State<AppState>,
    _admin: AdminCaller,
    Path(id): Path<i64>,
) -> ApiResult<Json<Envelope<()>>> {
    if !store::redemptions::soft_delete(state.db(), id, now()).await? {
        return Err(ApiError::Rejected(Msg::RedemptionNotFound));
    }
    Ok(ok(()))
}

/// Codes chosen in the table.
#[derive(Debug, Deserialize, ToSchema)]
pub struct IdsRequest {
    #[serde(default)]
    pub ids: Vec<i64>,
}

#[utoipa::path(put, path = "/api/redemption/batch-disable", tag = "redemptions", request_body = IdsRequest,
    responses((status = 200, description = "how many were disabled", body = Envelope<u64>), (status = 403, body = EmptyEnvelope)))]
pub async fn batch_disable(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiJson(request): ApiJson<IdsRequest>,
) -> ApiResult<Json<Envelope<u64>>> {
    if request.ids.is_empty() {
        return Err(ApiError::Rejected(Msg::RedemptionIdsRequired));
    }
    Ok(ok(store::redemptions::disable_many(
        state.db(),
        &request.ids,
    )
    .await?))
}

#[utoipa::path(delete, path = "/api/redemption/delete-disabled", tag = "redemptions",
    responses((status = 200, description = "how many disabled, used or expired codes were deleted", body = Envelope<u64>), (status = 403, body = EmptyEnvelope)))]
pub async fn delete_disabled(
    State(state): State<AppState>,
    _admin: AdminCaller,
) -> ApiResult<Json<Envelope<u64>>> {
    Ok(ok(
        store::redemptions::delete_invalid(state.db(), now()).await?
    ))
}

/// A code name.
#[derive(Debug, Deserialize, IntoParams)]
pub struct NameQuery {
    pub name: Option<String>,
}

fn required_name(query: &NameQuery) -> ApiResult<&str> {
    query
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or(ApiError::Rejected(Msg::NameRequired))
}

#[utoipa::path(get, path = "/api/redemption/count-by-name", tag = "redemptions", params(NameQuery),
    responses((status = 200, body = Envelope<i64>), (status = 403, body = EmptyEnvelope)))]
pub async fn count_by_name(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(query): ApiQuery<NameQuery>,
) -> ApiResult<Json<Envelope<i64>>> {
    Ok(ok(store::redemptions::count_by_name(
        state.db(),
        required_name(&query)?,
    )
    .await?))
}

#[utoipa::path(delete, path = "/api/redemption/delete-by-name", tag = "redemptions", params(NameQuery),
    responses((status = 200, description = "how many were deleted", body = Envelope<u64>), (status = 403, body = EmptyEnvelope)))]
pub async fn delete_by_name(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(query): ApiQuery<NameQuery>,
) -> ApiResult<Json<Envelope<u64>>> {
    Ok(ok(store::redemptions::delete_by_name(
        state.db(),
        required_name(&query)?,
        now(),
    )
    .await?))
}
