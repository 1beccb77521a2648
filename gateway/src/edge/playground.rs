//! The console playground's caller (`POST /pg/chat/completions`): a signed-in console
//! session, checked by the control plane that owns sessions, spends the user's own wallet with
//! no API token, in the group the request names (one the user may use).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::time::Duration;

use http::{HeaderMap, Request};
use serde::Deserialize;

use super::Caller;
use crate::config::{Snapshot, TokenEntry};
use crate::error::AuthError;
use crate::upstream::{Chunks, Upstream};

/// The path the playground posts to.
pub const PATH: &str = "/pg/chat/completions";
/// The name its records carry in place of a token's.
pub const TOKEN_NAME: &str = "playground";
/// How long the control plane gets to answer the session check.
const CHECK_TIMEOUT: Duration = Duration::from_secs(3);
/// The most of its answer that is read.
const MAX_ANSWER: usize = 64 * 1024;

#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    success: bool,
    data: Option<SessionUser>,
}

#[derive(Deserialize)]
struct SessionUser {
    id: i64,
}

/// The user whose console session the request carries (its cookie and `New-Api-User`
/// header), as the control plane at `control_plane` says.
pub async fn session_user(
    upstream: &Upstream,
    control_plane: SocketAddr,
    headers: &HeaderMap,
    client_ip: Option<IpAddr>,
) -> Result<i64, AuthError> {
    let (Some(cookie), Some(user)) = (headers.get("cookie"), headers.get("new-api-user")) else {
        return Err(AuthError::NoSession);
    };
    let mut request = Request::get(format!("http://{control_plane}/api/user/self"))
        .header("accept", "application/json")
        .header("cookie", cookie)
        .header("new-api-user", user);
    if let Some(ip) = client_ip {
        request = request.header("x-forwarded-for", ip.to_string());
    }
    let request = request
        .body(Chunks::default())
        .map_err(|_| AuthError::NoSession)?;
    let response = upstream
        .send(request, CHECK_TIMEOUT)
        .await
        .map_err(|e| {
            tracing::warn!(error = %e, "playground: the control plane did not answer the session check");
            AuthError::SessionUnchecked
        })?;
    let status = response.status();
    if status.is_server_error() {
        return Err(AuthError::SessionUnchecked);
    }
    let body = crate::relay::read_upstream(&mut response.into_body(), MAX_ANSWER, CHECK_TIMEOUT)
        .await
        .map_err(|_| AuthError::SessionUnchecked)?;
    match serde_json::from_slice::<Envelope>(&body) {
        Ok(Envelope {
            success: true,
            data: Some(user),
        }) if status.is_success() && user.id > 0 => Ok(user.id),
        _ => Err(AuthError::NoSession),
    }
}

#[derive(Deserialize, Default)]
struct GroupField {
    #[serde(default)]
    group: Option<String>,
}

/// The group a playground body names (`"group"`), if any.
pub fn requested_group(body: &[u8]) -> Option<String> {
    serde_json::from_slice::<GroupField>(body)
        .ok()
        .and_then(|g| g.group)
        .map(|g| g.trim().to_owned())
        .filter(|g| !g.is_empty())
}

/// The caller of a playground request of `user_id`, in `group` (the user's own when `None`).
pub fn caller(snap: &Snapshot, user_id: i64, group: Option<&str>) -> Result<Caller, AuthError> {
    let user = snap.users.get(&user_id).ok_or(AuthError::NoSession)?;
    if user.status != proto::config::v1::USER_ENABLED {
        return Err(AuthError::UserBanned);
    }
    let group = match group {
        None => user.group.clone(),
        Some(g) if g == user.group => user.group.clone(),
        Some(g) if snap.pricing.usable_groups.contains(g) => g.to_owned(),
        Some(g) => return Err(AuthError::GroupForbidden(g.to_owned())),
    };
    if !snap.pricing.group_ratio.contains_key(&group) {
        return Err(AuthError::GroupRemoved(group));
    }
    Ok(Caller {
        token: Arc::new(TokenEntry {
            id: 0,
            user_id,
            name: TOKEN_NAME.into(),
            status: proto::config::v1::TOKEN_ENABLED,
            expires_at: None,
            unlimited: true,
            remain: AtomicI64::new(0),
            cp_remain: 0,
            used: AtomicI64::new(0),
            model_limits: None,
            allow_ips: Box::default(),
            group: group.as_str().into(),
            rate_limit: None,
        }),
        user: user.clone(),
        group,
        pinned_channel: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_names_the_group() {
        assert_eq!(
            requested_group(br#"{"model":"m","group":" vip ","messages":[]}"#),
            Some("vip".to_owned())
        );
        assert_eq!(requested_group(br#"{"model":"m","group":""}"#), None);
        assert_eq!(requested_group(br#"{"model":"m"}"#), None);
        assert_eq!(requested_group(b"not json"), None);
    }
}
