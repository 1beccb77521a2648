//! Limits on credential guessing: which endpoints are counted, per client address and per
//! account, in fixed windows, and when a count means "wait".

use std::net::IpAddr;

use super::secrets;

/// An endpoint whose attempts are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `POST /api/user/login`; only failures count.
    Login,
    /// `POST /api/user/register`; every attempt counts.
    Register,
    /// `GET /api/verification` (sends a code); every attempt counts.
    SendCode,
    /// `GET /api/oauth/email/bind` (checks a code); only failures count.
    CheckCode,
    /// `GET /api/reset_password` (sends a reset link); every attempt counts.
    ResetRequest,
    /// `POST /api/user/reset` (exchanges the link's token); only failures count.
    ResetConfirm,
    /// `POST /api/user/topup` (redeems a code); only failures count.
    Redeem,
    /// Third-party sign-in and binding (`/api/oauth/*`: each makes calls to the provider);
    /// only failures count.
    OAuth,
}

impl Action {
    /// Stable name (part of the counter key and the metric label).
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Login => "login",
            Action::Register => "register",
            Action::SendCode => "send_code",
            Action::CheckCode => "check_code",
            Action::ResetRequest => "reset_request",
            Action::ResetConfirm => "reset_confirm",
            Action::Redeem => "redeem",
            Action::OAuth => "oauth",
        }
    }

    /// Whether a successful attempt is taken back (the limit is on failures). Attempts that send
    /// email or create accounts count whatever their outcome.
    pub fn counts_failures_only(self) -> bool {
        matches!(
            self,
            Action::Login
                | Action::CheckCode
                | Action::ResetConfirm
                | Action::Redeem
                | Action::OAuth
        )
    }
}

/// What a counter is keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The client's address.
    Ip,
    /// The account or target: a user, a username, an email address.
    Account,
}

impl Scope {
    fn as_str(self) -> &'static str {
        match self {
            Scope::Ip => "ip",
            Scope::Account => "account",
        }
    }
}

/// The limits in force: at most `per_account` and `per_ip` counted attempts per `window_secs`
/// (0 means no limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub window_secs: i64,
    pub per_account: i64,
    pub per_ip: i64,
}

impl Limits {
    /// The limit of `scope`, if any.
    pub fn of(&self, scope: Scope) -> Option<i64> {
        let limit = match scope {
            Scope::Ip => self.per_ip,
            Scope::Account => self.per_account,
        };
        (limit > 0 && self.window_secs > 0).then_some(limit)
    }
}

/// The stored key of a counter: a hash, so no address or email is kept in clear and any input
/// length gives a key of the same size. `value` is compared case-insensitively.
pub fn counter_key(action: Action, scope: Scope, value: &str) -> String {
    secrets::sha256_hex(&format!(
        "{}:{}:{}",
        action.as_str(),
        scope.as_str(),
        value.trim().to_lowercase()
    ))
}

/// The address a per-IP counter is kept for: an IPv4 address as is, an IPv6 address by its /64
/// (one subscriber usually holds a whole /64).
pub fn ip_bucket(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// After a hit: `None` when within `limit`, else the seconds to wait until the window ends
/// (at least 1).
pub fn retry_after(
    hits: i64,
    window_start: i64,
    now: i64,
    limit: i64,
    window_secs: i64,
) -> Option<u64> {
    if hits <= limit {
        return None;
    }
    let left = window_start.saturating_add(window_secs).saturating_sub(now);
    Some(left.max(1) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_action_scope_and_value_but_not_case() {
        let a = counter_key(Action::Login, Scope::Account, "Alice");
        assert_eq!(a, counter_key(Action::Login, Scope::Account, " alice "));
        assert_ne!(a, counter_key(Action::Login, Scope::Ip, "alice"));
        assert_ne!(a, counter_key(Action::Redeem, Scope::Account, "alice"));
        assert_ne!(a, counter_key(Action::Login, Scope::Account, "bob"));
        assert_eq!(a.len(), 64);
    }

    #[test]
    fn waiting_starts_past_the_limit_and_lasts_until_the_window_ends() {
        assert_eq!(retry_after(3, 1000, 1010, 3, 900), None);
        assert_eq!(retry_after(4, 1000, 1010, 3, 900), Some(890));
        assert_eq!(retry_after(4, 1000, 1900, 3, 900), Some(1));
    }

    #[test]
    fn ipv6_addresses_share_their_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1"
            .parse()
            .unwrap_or(IpAddr::from([0; 4]));
        let b: IpAddr = "2001:db8:1:2:bbbb::2"
            .parse()
            .unwrap_or(IpAddr::from([0; 4]));
        assert_eq!(ip_bucket(a), "2001:db8:1:2::/64");
        assert_eq!(ip_bucket(a), ip_bucket(b));
        let mapped: IpAddr = "::ffff:203.0.113.7".parse().unwrap_or(IpAddr::from([0; 4]));
        assert_eq!(ip_bucket(mapped), "203.0.113.7");
        assert_eq!(ip_bucket(IpAddr::from([203, 0, 113, 7])), "203.0.113.7");
    }

    #[test]
    fn zero_means_no_limit() {
        let limits = Limits {
            window_secs: 900,
            per_account: 0,
            per_ip: 30,
        };
        assert_eq!(limits.of(Scope::Account), None);
        assert_eq!(limits.of(Scope::Ip), Some(30));
        let off = Limits {
            window_secs: 0,
            ..limits
        };
        assert_eq!(off.of(Scope::Ip), None);
    }

    #[test]
    fn failures_only_for_guessing_endpoints() {
        assert!(Action::Login.counts_failures_only());
        assert!(Action::Redeem.counts_failures_only());
        assert!(!Action::Register.counts_failures_only());
        assert!(!Action::SendCode.counts_failures_only());
    }
}
