//! A user's API tokens: list, search, get, create (also in batches), full and status-only update,
//! delete (`/api/token/*`). Lists and single reads show masked keys; the whole key is returned
//! only on creation and by the owner's explicit `POST /api/token/{id}/key`.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::Caller;
use super::envelope::{EmptyEnvelope, Envelope, Page, PageQuery, done, ok};
use super::extract::{ApiJson, ApiQuery};
use super::me::usable_groups;
use crate::domain::tokens::{self, KEY_PREFIX, NEVER_EXPIRES, STATUS_DISABLED, STATUS_ENABLED};
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::tokens::{TokenFields, TokenFilter, TokenRecord};
use crate::store::{self, now};

/// A token as its owner sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenView {
    pub id: i64,
    pub user_id: i64,
    pub name: String,
    /// Masked (`sk-abcd**********wxyz`) everywhere except in the creation answer, which holds
    /// the whole key (`sk-` and 48 letters and digits). `POST /api/token/{id}/key` reads it later.
    pub key: String,
    /// 1 enabled, 2 disabled, 3 expired, 4 exhausted.
    pub status: i64,
    pub created_time: i64,
    pub accessed_time: i64,
    /// Epoch seconds; -1 never expires.
    pub expired_time: i64,
    pub remain_quota: i64,
    pub used_quota: i64,
    pub unlimited_quota: bool,
    pub model_limits_enabled: bool,
    /// Comma-separated model names.
    pub model_limits: String,
    /// One IP or CIDR per line.
    pub allow_ips: String,
    pub group: String,
    pub rate_limit_enabled: bool,
    /// Seconds.
    pub rate_limit_period: i64,
    pub rate_limit_count: i64,
    pub rate_limit_success: i64,
}

/// The bare key of a token, or `None` (logged) when it cannot be decrypted.
fn bare_key(state: &AppState, t: &TokenRecord) -> Option<String> {
    match state.cipher().decrypt(&t.key_enc) {
        Ok(key) => Some(key),
        Err(err) => {
            tracing::error!(token_id = t.id, error = %err, "token key cannot be decrypted");
            None
        }
    }
}

/// The token with its key masked, as every list and read shows it.
fn view(state: &AppState, t: TokenRecord) -> TokenView {
    let key = bare_key(state, &t)
        .map(|k| tokens::mask_key(&k))
        .unwrap_or_default();
    view_with_key(t, key)
}

/// The token with its whole key (the creation answer only).
fn view_unmasked(state: &AppState, t: TokenRecord) -> TokenView {
    let key = bare_key(state, &t)
        .map(|k| format!("{KEY_PREFIX}{k}"))
        .unwrap_or_default();
    view_with_key(t, key)
}

fn view_with_key(t: TokenRecord, key: String) -> TokenView {
    let unlimited = t.unlimited_quota != 0;
    TokenView {
        id: t.id,
        user_id: t.user_id,
        status: tokens::effective_status(
            t.status,
            t.expired_time,
            t.remain_quota,
            unlimited,
            now(),
        ),
        name: t.name,
        key,
        created_time: t.created_time,
        accessed_time: t.accessed_time,
        expired_time: t.expired_time,
        remain_quota: t.remain_quota,
        used_quota: t.used_quota,
        unlimited_quota: unlimited,
        model_limits_enabled: t.model_limits_enabled != 0,
        model_limits: t.model_limits,
        allow_ips: t.allow_ips,
        group: t.group,
        rate_limit_enabled: t.rate_limit_enabled != 0,
        rate_limit_period: t.rate_limit_period,
        rate_limit_count: t.rate_limit_count,
        rate_limit_success: t.rate_limit_success,
    }
}

#[utoipa::path(get, path = "/api/token/", tag = "tokens", params(PageQuery),
    responses((status = 200, body = Envelope<Page<TokenView>>), (status = 401, body = EmptyEnvelope)))]
pub async fn list_tokens(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(page): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<TokenView>>>> {
    page_of_tokens(&state, &caller, &TokenFilter::default(), &page).await
}

/// Token search.
#[derive(Debug, Deserialize, IntoParams)]
pub struct TokenSearch {
    /// Part of the token name.
    pub keyword: Option<String>,
    /// A whole key (`sk-…`).
    pub token: Option<String>,
}

#[utoipa::path(get, path = "/api/token/search", tag = "tokens", params(TokenSearch, PageQuery),
    responses((status = 200, body = Envelope<Page<TokenView>>), (status = 401, body = EmptyEnvelope)))]
pub async fn search_tokens(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(search): ApiQuery<TokenSearch>,
    ApiQuery(page): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<TokenView>>>> {
    let filter = TokenFilter {
        keyword: search.keyword,
        key_hash: search
            .token
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(tokens::key_hash),
    };
    page_of_tokens(&state, &caller, &filter, &page).await
}

async fn page_of_tokens(
    state: &AppState,
    caller: &Caller,
    filter: &TokenFilter,
    page: &PageQuery,
) -> ApiResult<Json<Envelope<Page<TokenView>>>> {
    let (page, page_size, offset) = page.resolve();
    let (items, total) =
        store::tokens::list_own(state.db(), caller.user.id, filter, offset, page_size).await?;
    Ok(ok(Page {
        items: items.into_iter().map(|t| view(state, t)).collect(),
        page,
        page_size,
        total,
    }))
}

#[utoipa::path(get, path = "/api/token/{id}", tag = "tokens", params(("id" = i64, Path)),
    responses((status = 200, body = Envelope<TokenView>), (status = 401, body = EmptyEnvelope)))]
pub async fn get_token(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<i64>,
) -> ApiResult<Json<Envelope<TokenView>>> {
    let token = own_token(&state, &caller, id).await?;
    Ok(ok(view(&state, token)))
}

/// The whole key of a token.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenKey {
    /// `sk-` and 48 letters and digits.
    pub key: String,
}

/// The one way to read a token's whole key after creation (the console's copy and show
/// buttons). Owner only: anyone else, administrators included, gets 404.
#[utoipa::path(post, path = "/api/token/{id}/key", tag = "tokens", params(("id" = i64, Path)),
    responses((status = 200, body = Envelope<TokenKey>), (status = 401, body = EmptyEnvelope),
        (status = 404, description = "no such token of the caller", body = EmptyEnvelope)))]
pub async fn reveal_key(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<i64>,
) -> ApiResult<impl IntoResponse> {
    let token = store::tokens::find_own(state.db(), caller.user.id, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let bare = bare_key(&state, &token)
        .ok_or_else(|| ApiError::Internal(format!("token {id}: key cannot be decrypted")))?;
    tracing::info!(token_id = id, user_id = caller.user.id, "token key read");
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        ok(TokenKey {
            key: format!("{KEY_PREFIX}{bare}"),
        }),
    ))
}

async fn own_token(state: &AppState, caller: &Caller, id: i64) -> ApiResult<TokenRecord> {
    store::tokens::find_own(state.db(), caller.user.id, id)
        .await?
        .ok_or(ApiError::Rejected(Msg::TokenNotFound))
}

/// The settings of a token, as sent by the console.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TokenInput {
    /// Present on updates.
    pub id: Option<i64>,
    #[serde(default)]
    pub name: String,
    /// Epoch seconds; -1 (default) never expires.
    pub expired_time: Option<i64>,
    #[serde(default)]
    pub remain_quota: i64,
    #[serde(default)]
    pub unlimited_quota: bool,
    #[serde(default)]
    pub model_limits_enabled: bool,
    #[serde(default)]
    pub model_limits: String,
    #[serde(default)]
    pub allow_ips: String,
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub rate_limit_enabled: bool,
    pub rate_limit_period: Option<i64>,
    #[serde(default)]
    pub rate_limit_count: i64,
    #[serde(default)]
    pub rate_limit_success: i64,
    /// On updates: 1 enabled or 2 disabled.
    pub status: Option<i64>,
    /// On creation: how many tokens to create (default 1).
    pub count: Option<i64>,
}

/// Checks and normalises token settings for `caller`.
async fn validate(state: &AppState, caller: &Caller, input: &TokenInput) -> ApiResult<TokenFields> {
    let name = input.name.trim().to_string();
    tokens::check_name(&name).map_err(ApiError::Rejected)?;
    let expired_time = input.expired_time.unwrap_or(NEVER_EXPIRES);
    tokens::check_expiry(expired_time).map_err(ApiError::Rejected)?;
    if input.remain_quota < 0 {
        return Err(ApiError::Rejected(Msg::QuotaNegative));
    }
    let rate_limit_period = input.rate_limit_period.unwrap_or(60);
    tokens::check_rate_limit(
        rate_limit_period,
        input.rate_limit_count,
        input.rate_limit_success,
    )
    .map_err(ApiError::Rejected)?;
    let group = input.group.trim().to_string();
    if !group.is_empty() {
        let options = state.options().await?;
        let usable = usable_groups(&options, &caller.user.group);
        let priced = options.json_keys("GroupRatio");
        if !usable.contains_key(&group) || !priced.contains(&group) {
            return Err(ApiError::Rejected(Msg::GroupNotUsable {
                group: group.chars().take(64).collect(),
            }));
        }
    }
    Ok(TokenFields {
        name,
        expired_time,
        remain_quota: input.remain_quota,
        unlimited_quota: input.unlimited_quota,
        model_limits_enabled: input.model_limits_enabled,
        model_limits: tokens::normalize_model_limits(&input.model_limits),
        allow_ips: tokens::normalize_allow_ips(&input.allow_ips).map_err(ApiError::Rejected)?,
        group,
        rate_limit_enabled: input.rate_limit_enabled,
        rate_limit_period,
        rate_limit_count: input.rate_limit_count,
        rate_limit_success: input.rate_limit_success,
    })
}

#[utoipa::path(post, path = "/api/token/", tag = "tokens", request_body = TokenInput,
    responses((status = 200, description = "the created tokens, with their whole keys (shown once)", body = Envelope<Vec<TokenView>>), (status = 401, body = EmptyEnvelope)))]
pub async fn create_token(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(input): ApiJson<TokenInput>,
) -> ApiResult<Json<Envelope<Vec<TokenView>>>> {
    let fields = validate(&state, &caller, &input).await?;
    let names =
        tokens::batch_names(&fields.name, input.count.unwrap_or(1)).map_err(ApiError::Rejected)?;
    let db = state.db();
    let now = now();
    let mut ids = Vec::with_capacity(names.len());
    let mut tx = db.pool.begin().await?;
    for name in names {
        let key = tokens::new_key();
        let fields = TokenFields {
            name,
            ..fields.clone()
        };
        let id = store::tokens::insert(
            &mut *tx,
            caller.user.id,
            &tokens::key_hash(&key),
            &state.cipher().encrypt(&key),
            &fields,
            now,
        )
        .await?;
        ids.push(id);
    }
    tx.commit().await?;
    let mut created = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(token) = store::tokens::find_own(db, caller.user.id, id).await? {
            created.push(view_unmasked(&state, token));
        }
    }
    Ok(ok(created))
}

/// `?status_only=true` changes only the status.
#[derive(Debug, Deserialize, IntoParams)]
pub struct UpdateMode {
    #[serde(default)]
    pub status_only: Option<bool>,
}

#[utoipa::path(put, path = "/api/token/", tag = "tokens", request_body = TokenInput, params(UpdateMode),
    responses((status = 200, body = Envelope<TokenView>), (status = 401, body = EmptyEnvelope)))]
pub async fn update_token(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(mode): ApiQuery<UpdateMode>,
    ApiJson(input): ApiJson<TokenInput>,
) -> ApiResult<Json<Envelope<TokenView>>> {
    let id = input.id.ok_or(ApiError::Rejected(Msg::TokenNotFound))?;
    let current = own_token(&state, &caller, id).await?;
    let now = now();
    if mode.status_only.unwrap_or(false) {
        let status = input.status.ok_or(ApiError::Rejected(Msg::StatusInvalid))?;
        check_new_status(
            status,
            current.expired_time,
            current.remain_quota,
            current.unlimited_quota != 0,
            now,
        )?;
        store::tokens::set_status(state.db(), id, status).await?;
    } else {
        let fields = validate(&state, &caller, &input).await?;
        let status = input.status.unwrap_or(current.status);
        let status = if status == current.status && status != STATUS_ENABLED {
            status
        } else {
            check_new_status(
                status,
                fields.expired_time,
                fields.remain_quota,
                fields.unlimited_quota,
                now,
            )?;
            status
        };
        store::tokens::update(state.db(), id, &fields, status).await?;
    }
    let updated = own_token(&state, &caller, id).await?;
    Ok(ok(view(&state, updated)))
}

/// Only 1 and 2 may be set; enabling needs a live, funded token.
fn check_new_status(
    status: i64,
    expired_time: i64,
    remain: i64,
    unlimited: bool,
    now: i64,
) -> ApiResult<()> {
    match status {
        STATUS_ENABLED => {
            tokens::check_enable(expired_time, remain, unlimited, now).map_err(ApiError::Rejected)
        }
        STATUS_DISABLED => Ok(()),
        _ => Err(ApiError::Rejected(Msg::StatusInvalid)),
    }
}

#[utoipa::path(delete, path = "/api/token/{id}/", tag = "tokens", params(("id" = i64, Path)),
    responses((status = 200, body = EmptyEnvelope), (status = 401, body = EmptyEnvelope)))]
pub async fn delete_token(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<i64>,
) -> ApiResult<Json<Envelope<()>>> {
    if !store::tokens::soft_delete(state.db(), caller.user.id, id, now()).await? {
        return Err(ApiError::Rejected(Msg::TokenNotFound));
    }
    Ok(done())
}
