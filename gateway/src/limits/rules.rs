//! Which limits apply to a request: the token's own, the user's model request limit (by the
//! token's group, else the user's), and the requests and tokens per minute of the group and
//! model (`GroupModelRateLimit`, per user).

use std::time::Duration;

use super::tokens::TokenRule;
use crate::config::{Options, TokenEntry, UserEntry};

/// Windows are at most a day long (longer settings are clamped).
pub const MAX_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// Whose requests a limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Token,
    User,
    /// A user's use of one model in one group.
    Model,
}

impl Scope {
    /// The metrics label.
    pub fn label(self) -> &'static str {
        match self {
            Scope::Token => "token",
            Scope::User => "user",
            Scope::Model => "model",
        }
    }
}

/// The limits of one request: request windows and tokens-per-minute windows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applicable {
    pub requests: Vec<Rule>,
    pub tokens: Vec<TokenRule>,
}

impl Applicable {
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty() && self.tokens.is_empty()
    }
}

/// One sliding window: at most `max_total` requests (0: no limit) and `max_success`
/// successful ones (0: no limit) in any `window`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub scope: Scope,
    /// The counted subject: `t:{token id}` or `u:{user id}`.
    pub key: String,
    pub window: Duration,
    pub max_total: u32,
    pub max_success: u32,
}

impl Rule {
    fn new(scope: Scope, key: String, window: Duration, total: i64, success: i64) -> Option<Rule> {
        let clamp = |n: i64| u32::try_from(n.max(0)).unwrap_or(u32::MAX);
        let rule = Rule {
            scope,
            key,
            window: window.min(MAX_WINDOW),
            max_total: clamp(total),
            max_success: clamp(success),
        };
        (!window.is_zero() && (rule.max_total > 0 || rule.max_success > 0)).then_some(rule)
    }
}

/// The rules of a request by `token` of `user` for `model`, `group` being the group it is
/// billed in.
pub fn rules_for(
    token: &TokenEntry,
    user: &UserEntry,
    group: &str,
    model: &str,
    o: &Options,
) -> Applicable {
    let mut rules = Vec::new();
    if let Some(limit) = &token.rate_limit {
        rules.extend(Rule::new(
            Scope::Token,
            format!("t:{}", token.id),
            Duration::from_secs(u64::try_from(limit.period_secs.max(1)).unwrap_or(1)),
            limit.count,
            limit.success,
        ));
    }
    if let Some(m) = &o.model_rate_limit {
        let (count, success) = m
            .by_group
            .get(group)
            .or_else(|| m.by_group.get(&user.group))
            .copied()
            .unwrap_or((m.count, m.success));
        let minutes = u64::try_from(m.minutes.max(1)).unwrap_or(1);
        rules.extend(Rule::new(
            Scope::User,
            format!("u:{}", user.id),
            Duration::from_secs(minutes.saturating_mul(60)),
            count,
            success,
        ));
    }
    let mut tokens = Vec::new();
    if let Some(by_model) = o.group_model_limits.get(group) {
        let limit = by_model.get(model).or_else(|| by_model.get("*"));
        if let Some(&(rpm, tpm)) = limit {
            let key = format!("m:{group}:{model}:u:{}", user.id);
            rules.extend(Rule::new(
                Scope::Model,
                key.clone(),
                Duration::from_secs(60),
                rpm,
                0,
            ));
            if tpm > 0 {
                tokens.push(TokenRule {
                    key: format!("tpm:{key}"),
                    max: u64::try_from(tpm).unwrap_or(0),
                });
            }
        }
    }
    Applicable {
        requests: rules,
        tokens,
    }
}
