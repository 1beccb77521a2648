//! User administration (admin and above): list, search, create, get, edit, manage actions, and
//! the group list.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::{AdminCaller, session_cookie};
use super::envelope::{EmptyEnvelope, Envelope, Page, PageQuery, done, ok};
use super::extract::{ApiJson, ApiQuery};
use super::views::UserView;
use crate::domain::quota::{self, QuotaEdit};
use crate::domain::roles::{self, ManageAction, ROLE_COMMON};
use crate::domain::{accounts, secrets};
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::logs::{EventLog, LogType};
use crate::store::users::{AdminUpdate, NewUser, UserFilter, UserRecord};
use crate::store::{self, is_unique_violation, now};

#[utoipa::path(get, path = "/api/user/", tag = "users", params(PageQuery),
    responses((status = 200, body = Envelope<Page<UserView>>), (status = 401, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn list_users(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(page): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<UserView>>>> {
    page_of_users(&state, &UserFilter::default(), &page).await
}

/// Filters of the user search.
#[derive(Debug, Deserialize, IntoParams)]
pub struct SearchQuery {
    /// Matches id, username, display name or email.
    pub keyword: Option<String>,
    /// Exact group name.
    pub group: Option<String>,
}

#[utoipa::path(get, path = "/api/user/search", tag = "users", params(SearchQuery, PageQuery),
    responses((status = 200, body = Envelope<Page<UserView>>), (status = 401, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn search_users(
    State(state): State<AppState>,
    _admin: AdminCaller,
    ApiQuery(search): ApiQuery<SearchQuery>,
    ApiQuery(page): ApiQuery<PageQuery>,
) -> ApiResult<Json<Envelope<Page<UserView>>>> {
    let filter = UserFilter {
        keyword: search.keyword,
        group: search.group,
    };
    page_of_users(&state, &filter, &page).await
}

async fn page_of_users(
    state: &AppState,
    filter: &UserFilter,
    page: &PageQuery,
) -> ApiResult<Json<Envelope<Page<UserView>>>> {
    let (page, page_size, offset) = page.resolve();
    let (items, total) = store::users::list(state.db(), filter, offset, page_size).await?;
    Ok(ok(Page {
        items: items.into_iter().map(UserView::for_admin).collect(),
        page,
        page_size,
        total,
    }))
}

/// A new account created by an administrator.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateUser {
    #[serde(default)]
    pub username: String,
    #[serde(default)]
    pub display_name: String,
    #[serde(default)]
    pub password: String,
    /// Role of the new account; must be lower than the creator's (default 1).
    pub role: Option<i64>,
}

#[utoipa::path(post, path = "/api/user/", tag = "users", request_body = CreateUser,
    responses((status = 200, body = EmptyEnvelope), (status = 401, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn create_user(
    State(state): State<AppState>,
    AdminCaller(admin): AdminCaller,
    ApiJson(form): ApiJson<CreateUser>,
) -> ApiResult<Json<Envelope<()>>> {
    let username = form.username.trim();
    if username.is_empty() || form.password.is_empty() {
        return Err(ApiError::Rejected(Msg::UsernamePasswordRequired));
    }
    accounts::check_username(username).map_err(ApiError::Rejected)?;
    accounts::check_password(&form.password).map_err(ApiError::Rejected)?;
    let display_name = match form.display_name.trim() {
        "" => username,
        name => name,
    };
    accounts::check_display_name(display_name).map_err(ApiError::Rejected)?;
    let role = form.role.unwrap_or(ROLE_COMMON);
    if role >= admin.user.role || ![roles::ROLE_COMMON, roles::ROLE_ADMIN].contains(&role) {
        return Err(ApiError::Rejected(Msg::CannotCreateEqualOrHigherRole));
    }
    let db = state.db();
    if store::users::username_taken(db, username, None).await? {
        return Err(ApiError::Rejected(Msg::UsernameTaken));
    }
    let options = state.options().await?;
    let hash = state.passwords().hash(form.password.clone()).await?;
    let new_user = NewUser {
        username,
        password_hash: &hash,
        display_name,
        role,
        email: "",
        group: "default",
        quota: options.i64("QuotaForNewUser"),
        inviter_id: 0,
        created_at: now(),
    };
    match store::users::insert(&db.pool, &new_user).await {
        Err(err) if is_unique_violation(&err) => Err(ApiError::Rejected(Msg::UsernameTaken)),
        Err(err) => Err(err.into()),
        Ok(_) => Ok(done()),
    }
}

/// Loads a user the admin may act on.
async fn target_user(state: &AppState, admin: &AdminCaller, id: i64) -> ApiResult<UserRecord> {
    let user = store::users::find_by_id(state.db(), id)
        .await?
        .ok_or(ApiError::Rejected(Msg::UserNotFound))?;
    let actor = &admin.0.user;
    if !roles::may_act_on(actor.id, actor.role, user.id, user.role) {
        return Err(ApiError::Rejected(Msg::CannotActOnEqualOrHigherRole));
    }
    Ok(user)
}

#[utoipa::path(get, path = "/api/user/{id}", tag = "users", params(("id" = i64, Path)),
    responses((status = 200, body = Envelope<UserView>), (status = 401, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn get_user(
    State(state): State<AppState>,
    admin: AdminCaller,
    Path(id): Path<i64>,
) -> ApiResult<Json<Envelope<UserView>>> {
    Ok(ok(UserView::for_admin(
        target_user(&state, &admin, id).await?,
    )))
}

/// An administrator's edit of an account. Balances change with every request, so a new quota is
/// compare-and-set against the value the form was loaded with (`quota_before`), or a change is
/// sent as `quota_delta`; a quota equal to `quota_before` leaves the balance as it is now.
#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateUser {
    pub id: i64,
    pub username: Option<String>,
    pub display_name: Option<String>,
    /// A new password (8 to 20 characters); empty keeps the current one. A new password ends
    /// every session of the user.
    pub password: Option<String>,
    pub email: Option<String>,
    pub group: Option<String>,
    /// New remaining quota (integer, not negative). Needs `quota_before` unless it equals the
    /// current quota.
    pub quota: Option<i64>,
    /// The quota the form was loaded with: `quota` is applied only if the balance still is this.
    pub quota_before: Option<i64>,
    /// Added to the balance as it is when the edit lands (negative to take; the result may not
    /// go below 0). Not together with a changed `quota`.
    pub quota_delta: Option<i64>,
    pub remark: Option<String>,
}

#[utoipa::path(put, path = "/api/user/", tag = "users", request_body = UpdateUser,
    responses((status = 200, body = EmptyEnvelope), (status = 401, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn update_user(
    State(state): State<AppState>,
    admin: AdminCaller,
    headers: HeaderMap,
    ApiJson(form): ApiJson<UpdateUser>,
) -> ApiResult<Json<Envelope<()>>> {
    let user = target_user(&state, &admin, form.id).await?;
    if user.deleted_at.is_some() {
        return Err(ApiError::Rejected(Msg::UserNotFound));
    }
    let username = form
        .username
        .as_deref()
        .map(str::trim)
        .unwrap_or(&user.username);
    accounts::check_username(username).map_err(ApiError::Rejected)?;
    let display_name = form
        .display_name
        .as_deref()
        .map(str::trim)
        .unwrap_or(&user.display_name);
    accounts::check_display_name(display_name).map_err(ApiError::Rejected)?;
    let email = form.email.as_deref().map(str::trim).unwrap_or(&user.email);
    if !email.is_empty() {
        accounts::email_domain(email).map_err(ApiError::Rejected)?;
    }
    let options = state.options().await?;
    let group = form.group.as_deref().map(str::trim).unwrap_or(&user.group);
    if group != user.group && !options.json_keys("GroupRatio").iter().any(|g| g == group) {
        return Err(ApiError::Rejected(Msg::GroupUnknown {
            group: group.chars().take(64).collect(),
        }));
    }
    let quota_edit = quota::plan_edit(form.quota, form.quota_before, form.quota_delta, user.quota)
        .map_err(ApiError::Rejected)?;
    let password_hash = match form.password.as_deref().filter(|p| !p.is_empty()) {
        Some(p) => {
            accounts::check_password(p).map_err(ApiError::Rejected)?;
            Some(state.passwords().hash(p.to_string()).await?)
        }
        None => None,
    };
    let db = state.db();
    if store::users::username_taken(db, username, Some(user.id)).await? {
        return Err(ApiError::Rejected(Msg::UsernameTaken));
    }
    let update = AdminUpdate {
        username,
        display_name,
        email,
        group,
        remark: form.remark.as_deref().unwrap_or(&user.remark),
        password_hash: password_hash.as_deref(),
    };
    let mut tx = db.pool.begin().await?;
    match store::users::update_by_admin(&mut *tx, user.id, &update).await {
        Err(err) if is_unique_violation(&err) => {
            return Err(ApiError::Rejected(Msg::UsernameTaken));
        }
        other => other?,
    }
    let changed = match quota_edit {
        QuotaEdit::Keep => None,
        QuotaEdit::Set { from, to } => {
            if !store::users::set_quota_if(&mut *tx, user.id, from, to).await? {
                drop(tx);
                let current = store::users::find_by_id(db, user.id)
                    .await?
                    .map_or(user.quota, |u| u.quota);
                return Err(ApiError::Rejected(Msg::QuotaChanged { current }));
            }
            Some((from, to))
        }
        QuotaEdit::Add(delta) => {
            let Some(to) = store::users::add_quota_within(&mut *tx, user.id, delta).await? else {
                return Err(ApiError::Rejected(Msg::QuotaNegative));
            };
            Some((to - delta, to))
        }
    };
    if let Some((from, to)) = changed {
        let actor = &admin.0.user;
        store::logs::insert_event(
            &mut *tx,
            EventLog {
                user_id: user.id,
                username: &user.username,
                kind: LogType::Manage,
                content: format!(
                    "administrator {} (id {}) changed quota from {from} to {to}",
                    actor.username, actor.id
                ),
                quota: to - from,
            },
        )
        .await?;
    }
    if password_hash.is_some() {
        // Every session of the user ends; an administrator editing their own account keeps the
        // session making the change.
        let keep = (user.id == admin.0.user.id)
            .then(|| session_cookie(&headers).map(|c| secrets::sha256_hex(&c)))
            .flatten();
        store::sessions::delete_for_user_except(&mut *tx, user.id, keep.as_deref()).await?;
    }
    tx.commit().await?;
    Ok(done())
}

/// A management action on an account.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ManageRequest {
    pub id: i64,
    /// promote, demote, disable, enable or delete.
    pub action: String,
}

/// Role and status after a management action.
#[derive(Debug, Serialize, ToSchema)]
pub struct ManageResult {
    pub role: i64,
    pub status: i64,
}

#[utoipa::path(post, path = "/api/user/manage", tag = "users", request_body = ManageRequest,
    responses((status = 200, body = Envelope<ManageResult>), (status = 401, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn manage_user(
    State(state): State<AppState>,
    admin: AdminCaller,
    ApiJson(form): ApiJson<ManageRequest>,
) -> ApiResult<Json<Envelope<ManageResult>>> {
    let action = ManageAction::parse(form.action.trim()).map_err(ApiError::Rejected)?;
    let user = store::users::find_by_id(state.db(), form.id)
        .await?
        .filter(|u| u.deleted_at.is_none())
        .ok_or(ApiError::Rejected(Msg::UserNotFound))?;
    let actor = &admin.0.user;
    let outcome = roles::decide_manage(
        actor.id,
        actor.role,
        user.id,
        user.role,
        user.status,
        action,
    )
    .map_err(ApiError::Rejected)?;
    let mut tx = state.db().pool.begin().await?;
    store::users::set_role_status(&mut *tx, user.id, outcome.role, outcome.status).await?;
    if outcome.deleted {
        store::users::soft_delete(&mut *tx, user.id, now()).await?;
    }
    if outcome.deleted || outcome.status != roles::STATUS_ENABLED {
        store::sessions::delete_for_user(&mut *tx, user.id).await?;
    }
    tx.commit().await?;
    Ok(ok(ManageResult {
        role: outcome.role,
        status: outcome.status,
    }))
}

#[utoipa::path(get, path = "/api/group/", tag = "users",
    responses((status = 200, description = "group names (keys of GroupRatio)", body = Envelope<Vec<String>>), (status = 401, body = EmptyEnvelope), (status = 403, body = EmptyEnvelope)))]
pub async fn list_groups(
    State(state): State<AppState>,
    _admin: AdminCaller,
) -> ApiResult<Json<Envelope<Vec<String>>>> {
    Ok(ok(state.options().await?.json_keys("GroupRatio")))
}
