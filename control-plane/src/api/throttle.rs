//! Slowing down credential guessing: every counted endpoint hits two counters in the database
//! (its client address and its account or target) before doing any work, and answers 429 with
//! `Retry-After` past either limit. The counters live in the database, so every replica shares
//! them; a hit is one atomic upsert, so concurrent attempts cannot slip past a limit.

use crate::domain::limits::{self, Action, Scope};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::store::{self, now};

use super::extract::ClientIp;

/// An attempt that was let through. For endpoints limited on failures, call
/// [`Attempt::succeeded`] once it succeeded so it does not count.
#[must_use = "call succeeded() when the attempt succeeded"]
pub struct Attempt {
    state: AppState,
    /// Counters to take back on success: key and the window it was counted in.
    refundable: Vec<(String, i64)>,
}

/// Counts an attempt at `action` from `client` on `account` (a user, username or email; an
/// empty one is not counted), or refuses it with 429 when a limit is passed.
pub async fn attempt(
    state: &AppState,
    action: Action,
    client: ClientIp,
    account: &str,
) -> ApiResult<Attempt> {
    let limits = state.settings().auth.limits();
    let now = now();
    let account = Some(account.trim()).filter(|a| !a.is_empty());
    let ip = client.0.map(limits::ip_bucket);
    let mut counted = Vec::with_capacity(2);
    let mut wait: Option<u64> = None;
    for (scope, value) in [(Scope::Account, account), (Scope::Ip, ip.as_deref())] {
        let (Some(limit), Some(value)) = (limits.of(scope), value) else {
            continue;
        };
        let key = limits::counter_key(action, scope, value);
        let count = store::auth_attempts::hit(state.db(), &key, now, limits.window_secs).await?;
        if let Some(secs) = limits::retry_after(
            count.hits,
            count.window_start,
            now,
            limit,
            limits.window_secs,
        ) {
            wait = Some(wait.map_or(secs, |w| w.max(secs)));
        }
        counted.push((key, count.window_start));
    }
    if let Some(retry_after) = wait {
        state
            .metrics()
            .auth_throttled
            .with_label_values(&[action.as_str()])
            .inc();
        tracing::info!(
            action = action.as_str(),
            retry_after,
            "attempt refused: limit passed"
        );
        return Err(ApiError::TooManyAttempts { retry_after });
    }
    Ok(Attempt {
        state: state.clone(),
        refundable: if action.counts_failures_only() {
            counted
        } else {
            Vec::new()
        },
    })
}

impl Attempt {
    /// The attempt succeeded: where only failures count, its hits are taken back.
    pub async fn succeeded(self) -> ApiResult<()> {
        for (key, window_start) in &self.refundable {
            store::auth_attempts::refund(self.state.db(), key, *window_start).await?;
        }
        Ok(())
    }
}
