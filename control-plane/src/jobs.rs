//! Periodic housekeeping that the binary schedules: log retention.

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
