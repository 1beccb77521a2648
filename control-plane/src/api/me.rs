//! The caller's own account: profile, password, deletion, access token, invitation code,
//! usable models and groups (`/api/user/self`, `/token`, `/aff`, `/models`, `/self/groups`).

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::{Caller, session_cookie};
use super::envelope::{EmptyEnvelope, Envelope, done, ok};
use super::extract::ApiJson;
use super::views::UserView;
use crate::domain::options::Options;
use crate::domain::{accounts, roles, secrets};
use crate::error::{ApiError, ApiResult};
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::{self, is_unique_violation, now};

#[utoipa::path(get, path = "/api/user/self", tag = "self",
    responses((status = 200, body = Envelope<UserView>), (status = 401, body = EmptyEnvelope)))]
pub async fn get_self(caller: Caller) -> Json<Envelope<UserView>> {
    ok(caller.user.into())
}

/// A change to one's own profile: display name and username, or the password.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SelfUpdate {
    pub username: Option<String>,
    pub display_name: Option<String>,
    /// A new password (8 to 20 characters).
    pub password: Option<String>,
    /// The current password; required together with `password`.
    pub original_password: Option<String>,
}

#[utoipa::path(put, path = "/api/user/self", tag = "self", request_body = SelfUpdate,
    responses((status = 200, description = "saved; a new password ends every other session of the user", body = EmptyEnvelope), (status = 401, body = EmptyEnvelope)))]
pub async fn update_self(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    ApiJson(form): ApiJson<SelfUpdate>,
) -> ApiResult<Json<Envelope<()>>> {
    let db = state.db();
    let user = &caller.user;
    if let Some(new_password) = form.password.as_deref().filter(|p| !p.is_empty()) {
        accounts::check_password(new_password).map_err(ApiError::Rejected)?;
        let original = form
            .original_password
            .as_deref()
            .filter(|p| !p.is_empty())
            .ok_or(ApiError::Rejected(Msg::OriginalPasswordRequired))?;
        if !state.passwords().verify(original, &user.password).await? {
            return Err(ApiError::Rejected(Msg::WrongOriginalPassword));
        }
        let hash = state.passwords().hash(new_password.to_string()).await?;
        // The session making the change stays; every other one ends.
        let current = session_cookie(&headers).map(|c| secrets::sha256_hex(&c));
        let mut tx = db.pool.begin().await?;
        store::users::set_password_hash(&mut *tx, user.id, &hash).await?;
        store::sessions::delete_for_user_except(&mut *tx, user.id, current.as_deref()).await?;
        tx.commit().await?;
    }
    let username = form
        .username
        .as_deref()
        .map(str::trim)
        .unwrap_or(&user.username);
    let display_name = form
        .display_name
        .as_deref()
        .map(str::trim)
        .unwrap_or(&user.display_name);
    if username != user.username || display_name != user.display_name {
        accounts::check_username(username).map_err(ApiError::Rejected)?;
        accounts::check_display_name(display_name).map_err(ApiError::Rejected)?;
        if store::users::username_taken(db, username, Some(user.id)).await? {
            return Err(ApiError::Rejected(Msg::UsernameTaken));
        }
        match store::users::update_profile(db, user.id, username, display_name).await {
            Err(err) if is_unique_violation(&err) => {
                return Err(ApiError::Rejected(Msg::UsernameTaken));
            }
            other => other?,
        }
    }
    Ok(done())
}

#[utoipa::path(delete, path = "/api/user/self", tag = "self",
    responses((status = 200, body = EmptyEnvelope), (status = 401, body = EmptyEnvelope)))]
pub async fn delete_self(
    State(state): State<AppState>,
    caller: Caller,
) -> ApiResult<Json<Envelope<()>>> {
    if roles::is_root(caller.user.role) {
        return Err(ApiError::Rejected(Msg::CannotDeleteRoot));
    }
    let mut tx = state.db().pool.begin().await?;
    store::users::soft_delete(&mut *tx, caller.user.id, now()).await?;
    store::sessions::delete_for_user(&mut *tx, caller.user.id).await?;
    tx.commit().await?;
    Ok(done())
}

/// Length of a generated access token.
pub const ACCESS_TOKEN_LEN: usize = 32;

#[utoipa::path(get, path = "/api/user/token", tag = "self",
    responses((status = 200, description = "a new access token (replaces the previous one)", body = Envelope<String>)))]
pub async fn generate_access_token(
    State(state): State<AppState>,
    caller: Caller,
) -> ApiResult<Json<Envelope<String>>> {
    let token = secrets::random_alphanumeric(ACCESS_TOKEN_LEN);
    store::users::set_access_token_hash(state.db(), caller.user.id, &secrets::sha256_hex(&token))
        .await?;
    Ok(ok(token))
}

/// Length of a generated invitation code.
pub const AFF_CODE_LEN: usize = 8;

#[utoipa::path(get, path = "/api/user/aff", tag = "self",
    responses((status = 200, description = "the caller's invitation code", body = Envelope<String>)))]
pub async fn get_aff_code(
    State(state): State<AppState>,
    caller: Caller,
) -> ApiResult<Json<Envelope<String>>> {
    if let Some(code) = caller.user.aff_code.filter(|c| !c.is_empty()) {
        return Ok(ok(code));
    }
    let db = state.db();
    for _ in 0..5 {
        let code = secrets::random_alphanumeric(AFF_CODE_LEN);
        match store::users::set_aff_code_if_empty(db, caller.user.id, &code).await {
            Ok(true) => return Ok(ok(code)),
            Ok(false) => break,
            Err(err) if is_unique_violation(&err) => continue,
            Err(err) => return Err(err.into()),
        }
    }
    // Another request set the code first: return what is stored.
    let stored = store::users::find_by_id(db, caller.user.id)
        .await?
        .and_then(|u| u.aff_code)
        .ok_or_else(|| ApiError::Internal("invitation code could not be generated".into()))?;
    Ok(ok(stored))
}

/// Groups a user may use: the `UserUsableGroups` option plus the user's own group.
pub fn usable_groups(options: &Options, user_group: &str) -> BTreeMap<String, String> {
    let mut groups: BTreeMap<String, String> = match options.json("UserUsableGroups") {
        serde_json::Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string()))
            .collect(),
        _ => BTreeMap::new(),
    };
    groups.entry(user_group.to_string()).or_default();
    groups
}

#[utoipa::path(get, path = "/api/user/models", tag = "self",
    responses((status = 200, description = "models the caller's groups can use", body = Envelope<Vec<String>>)))]
pub async fn get_models(
    State(state): State<AppState>,
    caller: Caller,
) -> ApiResult<Json<Envelope<Vec<String>>>> {
    let options = state.options().await?;
    let groups: Vec<String> = usable_groups(&options, &caller.user.group)
        .into_keys()
        .collect();
    Ok(ok(
        store::abilities::models_for_groups(state.db(), &groups).await?
    ))
}

/// A group the caller may pick for a token.
#[derive(Debug, Serialize, ToSchema)]
pub struct GroupInfo {
    pub desc: String,
    pub ratio: f64,
}

#[utoipa::path(get, path = "/api/user/self/groups", tag = "self",
    responses((status = 200, description = "usable groups with description and ratio", body = Envelope<BTreeMap<String, GroupInfo>>)))]
pub async fn get_self_groups(
    State(state): State<AppState>,
    caller: Caller,
) -> ApiResult<Json<Envelope<BTreeMap<String, GroupInfo>>>> {
    let options = state.options().await?;
    let ratios = options.json("GroupRatio");
    let groups = usable_groups(&options, &caller.user.group)
        .into_iter()
        .filter_map(|(name, desc)| {
            let ratio = ratios.get(&name)?.as_f64()?;
            let desc = if desc.is_empty() { name.clone() } else { desc };
            Some((name, GroupInfo { desc, ratio }))
        })
        .collect();
    Ok(ok(groups))
}
