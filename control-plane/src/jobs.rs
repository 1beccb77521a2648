//! Periodic housekeeping that the binary schedules: log partitions and retention, expired
//! attempt counters.

use crate::state::AppState;
use crate::store;

/// Deletes logs older than the `LogRetentionDays` option (0 keeps everything); returns how many.
pub async fn apply_log_retention(state: &AppState) -> Result<u64, sqlx::Error> {
    let days = state.options().await?.i64("LogRetentionDays");
    if days <= 0 {
        return Ok(0);
    }
    store::logs::delete_before(state.db(), store::now() - days * 86_400).await
}

/// Keeps the log partitions of this month and the next ones ready (PostgreSQL).
pub async fn prepare_log_partitions(state: &AppState) -> Result<(), sqlx::Error> {
    store::logs::prepare_months(state.db(), store::now()).await
}

/// Deletes attempt counters whose window is over; returns how many.
pub async fn purge_auth_attempts(state: &AppState) -> Result<u64, sqlx::Error> {
    let window = state.settings().auth.limits().window_secs;
    store::auth_attempts::purge_before(state.db(), store::now().saturating_sub(window)).await
}
