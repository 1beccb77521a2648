//! Authentication: key extraction in the reference's order, token lookup by hash, token
//! and user checks, group resolution and model limits.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use http::HeaderMap;
use proto::config::v1 as pb;
use sha2::{Digest, Sha256};

use crate::config::{Snapshot, TokenEntry, UserEntry};
use crate::error::AuthError;

/// Who is calling, after every check passed.
#[derive(Debug, Clone)]
pub struct Caller {
    pub token: Arc<TokenEntry>,
    pub user: Arc<UserEntry>,
    /// The group used for routing and pricing.
    pub group: String,
    /// Channel forced by an admin with `sk-KEY-CHANNELID`.
    pub pinned_channel: Option<i64>,
}

/// The raw key: `Authorization: Bearer …`, then `x-api-key`, `x-goog-api-key`,
/// `mj-api-secret`, `?key=`.
pub fn extract_key<'a>(headers: &'a HeaderMap, query: Option<&'a str>) -> Option<&'a str> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    if let Some(auth) = header("authorization") {
        let key = auth
            .strip_prefix("Bearer ")
            .or_else(|| auth.strip_prefix("bearer "))
            .unwrap_or(auth)
            .trim();
        // Midjourney-Proxy clients send this placeholder and the key in `mj-api-secret`.
        if !key.is_empty() && key != "midjourney-proxy" {
            return Some(key);
        }
    }
    if let Some(k) = header("x-api-key")
        .or_else(|| header("x-goog-api-key"))
        .or_else(|| header("mj-api-secret"))
    {
        return Some(k);
    }
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("key="))
        .filter(|k| !k.is_empty())
}

/// Lower-case hex SHA-256 of a token key (without `sk-`), as stored in snapshots.
pub fn key_hash(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

fn ip_allowed(token: &TokenEntry, ip: Option<IpAddr>) -> bool {
    if token.allow_ips.is_empty() {
        return true;
    }
    let Some(ip) = ip else { return false };
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    token.allow_ips.iter().any(|net| net.contains(&ip))
}

/// Runs the token and user checks of the reference (§1.4, §2 step 2).
pub fn authenticate(
    snap: &Snapshot,
    raw_key: Option<&str>,
    ip: Option<IpAddr>,
    now: i64,
) -> Result<Caller, AuthError> {
    let raw_key = raw_key.ok_or(AuthError::NoToken)?;
    let key = raw_key.strip_prefix("sk-").unwrap_or(raw_key);
    let mut parts = key.splitn(2, '-');
    let key = parts.next().unwrap_or("");
    let pinned = match parts.next() {
        Some(id) => Some(id.parse::<i64>().map_err(|_| AuthError::InvalidToken)?),
        None => None,
    };
    if key.is_empty() {
        return Err(AuthError::NoToken);
    }
    let token = snap
        .tokens
        .get(&crate::config::KeyHash::of_key(key))
        .ok_or(AuthError::InvalidToken)?;
    match token.status {
        pb::TOKEN_ENABLED => {}
        3 => return Err(AuthError::Expired),
        4 => return Err(AuthError::Exhausted),
        _ => return Err(AuthError::Disabled),
    }
    if token.expires_at.is_some_and(|t| t.get() <= now) {
        return Err(AuthError::Expired);
    }
    if !token.unlimited && token.remain.load(Ordering::Acquire) <= 0 {
        return Err(AuthError::Exhausted);
    }
    if !ip_allowed(token, ip) {
        return Err(AuthError::IpNotAllowed(
            ip.map(|i| i.to_string()).unwrap_or_default(),
        ));
    }
    let user = snap
        .users
        .get(&token.user_id)
        .ok_or(AuthError::InvalidToken)?;
    if user.status != pb::USER_ENABLED {
        return Err(AuthError::UserBanned);
    }
    if pinned.is_some() && user.role < pb::ROLE_ADMIN {
        return Err(AuthError::PinNotAdmin);
    }
    let group = if token.group.is_empty() || *token.group == *user.group {
        user.group.clone()
    } else {
        if !snap.pricing.usable_groups.contains(&*token.group) {
            return Err(AuthError::GroupForbidden(token.group.to_string()));
        }
        token.group.to_string()
    };
    if !snap.pricing.group_ratio.contains_key(&group) {
        return Err(AuthError::GroupRemoved(group));
    }
    Ok(Caller {
        token: token.clone(),
        user: user.clone(),
        group,
        pinned_channel: pinned,
    })
}

/// The token's model limits.
pub fn check_model(caller: &Caller, model: &str) -> Result<(), AuthError> {
    match &caller.token.model_limits {
        Some(allowed) if !allowed.contains(model) => {
            Err(AuthError::ModelForbidden(model.to_owned()))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn key_sources_in_order() {
        let mut h = HeaderMap::new();
        assert_eq!(extract_key(&h, Some("a=1&key=q")), Some("q"));
        h.insert("x-goog-api-key", "g".parse().unwrap());
        assert_eq!(extract_key(&h, Some("key=q")), Some("g"));
        h.insert("x-api-key", "x".parse().unwrap());
        assert_eq!(extract_key(&h, None), Some("x"));
        h.insert("authorization", "Bearer sk-abc".parse().unwrap());
        assert_eq!(extract_key(&h, None), Some("sk-abc"));
    }

    fn snap() -> Snapshot {
        let raw: pb::Snapshot = serde_json::from_value(serde_json::json!({
            "users": [{"id": 1, "status": 1, "group": "default", "quota": 10},
                      {"id": 2, "status": 2, "group": "default", "quota": 10}],
            "tokens": [
                {"id": 1, "user_id": 1, "key_hash": key_hash("good"), "status": 1, "remain_quota": 5,
                 "allow_ips": ["10.0.0.0/8", "127.0.0.1"]},
                {"id": 2, "user_id": 2, "key_hash": key_hash("banned"), "status": 1, "unlimited_quota": true},
                {"id": 3, "user_id": 1, "key_hash": key_hash("vip"), "status": 1, "unlimited_quota": true, "group": "vip"}
            ],
            "pricing": {"group_ratio": {"default": 1, "vip": 2}}
        }))
        .unwrap();
        Snapshot::build(&raw).unwrap()
    }

    #[test]
    fn checks_tokens_users_and_groups() {
        let s = snap();
        let lo: Option<IpAddr> = Some("127.0.0.1".parse().unwrap());
        assert!(authenticate(&s, Some("sk-good"), lo, 0).is_ok());
        assert!(
            authenticate(
                &s,
                Some("sk-good"),
                Some("::ffff:10.1.2.3".parse().unwrap()),
                0
            )
            .is_ok()
        );
        assert!(matches!(
            authenticate(&s, Some("sk-good"), Some("192.168.0.1".parse().unwrap()), 0),
            Err(AuthError::IpNotAllowed(_))
        ));
        assert!(matches!(
            authenticate(&s, Some("sk-nope"), lo, 0),
            Err(AuthError::InvalidToken)
        ));
        assert!(matches!(
            authenticate(&s, Some("sk-banned"), lo, 0),
            Err(AuthError::UserBanned)
        ));
        assert!(matches!(
            authenticate(&s, Some("sk-good-3"), lo, 0),
            Err(AuthError::PinNotAdmin)
        ));
        assert!(matches!(
            authenticate(&s, Some("sk-vip"), lo, 0),
            Err(AuthError::GroupForbidden(_))
        ));
        assert!(matches!(
            authenticate(&s, None, lo, 0),
            Err(AuthError::NoToken)
        ));
    }
}
