//! The OpenAI-era billing endpoints, answered from the snapshot (reference §1.3):
//! `GET /dashboard/billing/subscription` and `/usage` (also under `/v1`), for the token of the
//! request (new-api's default `DisplayTokenStatEnabled`), amounts in USD; and
//! `GET /api/usage/token`, which the gateway answers before `/api` is forwarded to the
//! control plane, and which works for expired and exhausted tokens (only disabled ones, and
//! unknown keys, are refused).

use std::num::NonZeroI64;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use pingora::proxy::Session;
use serde_json::{Value, json};

use super::{Failure, Relay, Trace, respond};
use crate::config::Snapshot;
use crate::edge;
use crate::error::{AuthError, GatewayError};

/// What the client asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Info {
    /// `GET [/v1]/dashboard/billing/subscription`.
    Subscription,
    /// `GET [/v1]/dashboard/billing/usage`.
    Usage,
    /// `GET /api/usage/token`.
    TokenUsage,
}

/// `hard_limit_usd` of an unlimited token, as new-api answers it.
pub const UNLIMITED_USD: f64 = 100_000_000.0;

/// Whether the gateway answers `path` itself (before forwarding to the control plane).
pub fn serves(path: &str) -> bool {
    recognise(&http::Method::GET, path).is_some()
}

/// The endpoint of a request.
pub fn recognise(method: &http::Method, path: &str) -> Option<Info> {
    if method != http::Method::GET {
        return None;
    }
    let path = path.trim_end_matches('/');
    match path.strip_prefix("/v1").unwrap_or(path) {
        "/dashboard/billing/subscription" => Some(Info::Subscription),
        "/dashboard/billing/usage" => Some(Info::Usage),
        _ if path == "/api/usage/token" => Some(Info::TokenUsage),
        _ => None,
    }
}

/// `quota` in USD.
fn usd(quota: i64, qpu: i64) -> f64 {
    if qpu <= 0 {
        return quota as f64;
    }
    quota as f64 / qpu as f64
}

/// The subscription answer: `hard_limit_usd = (remain + used) / QuotaPerUnit` of the token
/// (an unlimited token: [`UNLIMITED_USD`]), `access_until` its expiry (0: never).
pub fn subscription(
    remain: i64,
    used: i64,
    unlimited: bool,
    expires_at: Option<i64>,
    qpu: i64,
) -> Value {
    let amount = if unlimited {
        UNLIMITED_USD
    } else {
        usd(remain.saturating_add(used), qpu)
    };
    json!({
        "object": "billing_subscription",
        "has_payment_method": true,
        "soft_limit_usd": amount,
        "hard_limit_usd": amount,
        "system_hard_limit_usd": amount,
        "access_until": expires_at.unwrap_or(0).max(0),
    })
}

/// The usage answer: `total_usage` in cents, `used / QuotaPerUnit × 100`.
pub fn usage(used: i64, qpu: i64) -> Value {
    json!({"object": "list", "total_usage": usd(used, qpu) * 100.0})
}

/// Answers one of the billing endpoints.
pub async fn answer(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    trace: &mut Trace,
    info: Info,
) -> Result<(), Failure> {
    trace.body_read = true;
    let qpu = snap.options.quota_per_unit;
    let body = match info {
        Info::Subscription | Info::Usage => {
            let caller = r.authenticate(session, snap, trace)?;
            let t = &caller.token;
            let (remain, used) = (
                t.remain.load(Ordering::Acquire),
                t.used.load(Ordering::Acquire),
            );
            match info {
                Info::Subscription => subscription(
                    remain,
                    used,
                    t.unlimited,
                    t.expires_at.map(NonZeroI64::get),
                    qpu,
                ),
                _ => usage(used, qpu),
            }
        }
        Info::TokenUsage => token_usage(session, snap, trace)?,
    };
    respond::send_full(
        session,
        200,
        "application/json",
        trace,
        Bytes::from(body.to_string()),
    )
    .await
    .map_err(Failure::Client)
}

/// `GET /api/usage/token`: the token of the key, whatever its balance or expiry.
fn token_usage(session: &Session, snap: &Snapshot, trace: &mut Trace) -> Result<Value, Failure> {
    let req = session.req_header();
    let raw = edge::extract_key(&req.headers, req.uri.query()).ok_or(AuthError::NoToken)?;
    let key = raw.strip_prefix("sk-").unwrap_or(raw);
    let key = key.split('-').next().unwrap_or("");
    let token = snap
        .tokens
        .get(&crate::config::KeyHash::of_key(key))
        .ok_or(AuthError::InvalidToken)?;
    // 1 enabled, 3 expired, 4 exhausted are answered; disabled (2) and anything else not.
    if !matches!(token.status, 1 | 3 | 4) {
        return Err(GatewayError::from(AuthError::Disabled).into());
    }
    let user = snap
        .users
        .get(&token.user_id)
        .ok_or(AuthError::InvalidToken)?;
    trace.caller = Some(edge::Caller {
        token: token.clone(),
        user: user.clone(),
        group: user.group.clone(),
        pinned_channel: None,
    });
    let remain = token.remain.load(Ordering::Acquire);
    let used = token.used.load(Ordering::Acquire);
    let limits: serde_json::Map<String, Value> = token
        .model_limits
        .iter()
        .flat_map(|limits| limits.iter())
        .map(|m| (m.clone(), Value::Bool(true)))
        .collect();
    Ok(json!({
        "code": true,
        "message": "ok",
        "data": {
            "object": "token_usage",
            "name": token.name,
            "total_granted": remain.saturating_add(used),
            "total_used": used,
            "total_available": remain,
            "unlimited_quota": token.unlimited,
            "model_limits": limits,
            "model_limits_enabled": token.model_limits.is_some(),
            "expires_at": token.expires_at.map_or(0, NonZeroI64::get),
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_figures() {
        let get = http::Method::GET;
        assert_eq!(
            recognise(&get, "/dashboard/billing/subscription"),
            Some(Info::Subscription)
        );
        assert_eq!(
            recognise(&get, "/v1/dashboard/billing/usage"),
            Some(Info::Usage)
        );
        assert_eq!(recognise(&get, "/api/usage/token/"), Some(Info::TokenUsage));
        assert_eq!(recognise(&get, "/v1/api/usage/token"), None);
        assert_eq!(
            recognise(&http::Method::POST, "/dashboard/billing/usage"),
            None
        );
        assert!(!serves("/api/user/self"));
        let s = subscription(750_000, 250_000, false, Some(1_900_000_000), 500_000);
        assert_eq!(s["hard_limit_usd"], 2.0);
        assert_eq!(s["access_until"], 1_900_000_000);
        assert_eq!(
            subscription(1, 1, true, None, 500_000)["hard_limit_usd"],
            UNLIMITED_USD
        );
        assert_eq!(usage(250_000, 500_000)["total_usage"], 50.0);
    }
}
