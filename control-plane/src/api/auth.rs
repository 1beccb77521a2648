//! Who is calling: a session cookie or an access token, confirmed by the `New-Api-User` header,
//! and the role guards (`Caller`, `AdminCaller`, `RootCaller`) that handlers take as arguments.

use axum::extract::FromRequestParts;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::request::Parts;

use crate::domain::roles::{self, STATUS_ENABLED};
use crate::domain::secrets;
use crate::error::ApiError;
use crate::i18n::Msg;
use crate::state::AppState;
use crate::store::users::UserRecord;
use crate::store::{self, now};

/// Name of the session cookie.
pub const SESSION_COOKIE: &str = "session";
/// Header that must carry the caller's user id on every authenticated call.
pub const USER_HEADER: &str = "New-Api-User";

/// A signed-in, enabled user of any role.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user: UserRecord,
}

/// A caller with role 10 or higher.
#[derive(Debug, Clone)]
pub struct AdminCaller(pub Caller);

/// A caller with role 100.
#[derive(Debug, Clone)]
pub struct RootCaller(pub Caller);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        authenticate(&parts.headers, state).await
    }
}

impl FromRequestParts<AppState> for AdminCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let caller = authenticate(&parts.headers, state).await?;
        if !roles::is_admin(caller.user.role) {
            return Err(ApiError::Forbidden(Msg::PermissionDenied));
        }
        Ok(AdminCaller(caller))
    }
}

impl FromRequestParts<AppState> for RootCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let caller = authenticate(&parts.headers, state).await?;
        if !roles::is_root(caller.user.role) {
            return Err(ApiError::Forbidden(Msg::PermissionDenied));
        }
        Ok(RootCaller(caller))
    }
}

/// The caller behind these headers (session cookie or access token, checked against `New-Api-User`).
pub async fn authenticate(headers: &HeaderMap, state: &AppState) -> Result<Caller, ApiError> {
    let db = state.db();
    let mut user = None;
    if let Some(cookie) = session_cookie(headers) {
        let hash = secrets::sha256_hex(&cookie);
        if let Some(session) = store::sessions::find(db, &hash).await? {
            if session.expires_at > now() {
                user = store::users::find_by_id(db, session.user_id).await?;
            } else {
                store::sessions::delete(db, &hash).await?;
            }
        }
    }
    if user.is_none()
        && let Some(token) = access_token(headers)
    {
        user = store::users::find_by_access_token_hash(db, &secrets::sha256_hex(&token)).await?;
    }
    let user = user
        .filter(|u| u.deleted_at.is_none())
        .ok_or(ApiError::Unauthorized(Msg::NotLoggedIn))?;

    let claimed = headers
        .get(USER_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or(ApiError::Unauthorized(Msg::UserHeaderMissing))?;
    if claimed.parse::<i64>().ok() != Some(user.id) {
        return Err(ApiError::Unauthorized(Msg::UserHeaderMismatch));
    }
    if user.status != STATUS_ENABLED {
        return Err(ApiError::Forbidden(Msg::UserBanned));
    }
    Ok(Caller { user })
}

/// The value of the session cookie, if sent.
pub fn session_cookie(headers: &HeaderMap) -> Option<String> {
    cookie_value(headers, SESSION_COOKIE)
}

/// The value of the cookie `name`, if sent and not empty.
pub fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value.to_string())
        .filter(|v| !v.is_empty())
}

fn access_token(headers: &HeaderMap) -> Option<String> {
    let raw = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let token = raw
        .strip_prefix("Bearer ")
        .or_else(|| raw.strip_prefix("bearer "))
        .unwrap_or(raw)
        .trim();
    (!token.is_empty()).then(|| token.to_string())
}

/// `Set-Cookie` value for a new session.
pub fn session_set_cookie(value: &str, max_age_secs: u64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    let cookie = format!(
        "{SESSION_COOKIE}={value}; Path=/; Max-Age={max_age_secs}; HttpOnly; SameSite=Strict{secure}"
    );
    HeaderValue::from_str(&cookie).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// `Set-Cookie` value that removes the session cookie.
pub fn session_clear_cookie() -> HeaderValue {
    HeaderValue::from_static("session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict")
}
