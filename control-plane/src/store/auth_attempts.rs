//! The `auth_attempts` table: fixed-window counters of credential attempts, shared by every
//! control-plane replica. Each hit is one atomic upsert, so concurrent requests (on one replica
//! or several) can never count past a limit unnoticed.

use sqlx::Row;

use super::Db;

/// A counter after a hit: how many hits its current window holds, and when that window began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub hits: i64,
    pub window_start: i64,
}

/// Counts one hit on `key` at `now`; a window older than `window_secs` starts over at 1.
pub async fn hit(db: &Db, key: &str, now: i64, window_secs: i64) -> Result<Count, sqlx::Error> {
    let row = sqlx::query(
        "INSERT INTO auth_attempts (key, window_start, hits) VALUES ($1, $2, 1) \
         ON CONFLICT (key) DO UPDATE SET \
         hits = CASE WHEN auth_attempts.window_start <= $3 THEN 1 ELSE auth_attempts.hits + 1 END, \
         window_start = CASE WHEN auth_attempts.window_start <= $3 THEN $2 \
                        ELSE auth_attempts.window_start END \
         RETURNING hits, window_start",
    )
    .bind(key)
    .bind(now)
    .bind(now.saturating_sub(window_secs))
    .fetch_one(&db.pool)
    .await?;
    Ok(Count {
        hits: row.try_get("hits")?,
        window_start: row.try_get("window_start")?,
    })
}

/// Takes back one hit of the window that began at `window_start` (an attempt that succeeded).
pub async fn refund(db: &Db, key: &str, window_start: i64) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE auth_attempts SET hits = hits - 1 \
         WHERE key = $1 AND window_start = $2 AND hits > 0",
    )
    .bind(key)
    .bind(window_start)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Removes counters whose window began before `before`; returns how many.
pub async fn purge_before(db: &Db, before: i64) -> Result<u64, sqlx::Error> {
    let done = sqlx::query("DELETE FROM auth_attempts WHERE window_start < $1")
        .bind(before)
        .execute(&db.pool)
        .await?;
    Ok(done.rows_affected())
}
