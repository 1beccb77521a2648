//! The `sessions` table: server-side console sessions, so every control-plane replica sees the
//! same sign-ins. Only a hash of the cookie value is stored.

use sqlx::Row;

use super::Db;

/// A live session found by its cookie hash.
#[derive(Debug, Clone)]
pub struct SessionRecord {
    pub user_id: i64,
    pub expires_at: i64,
}

/// Stores a new session.
pub async fn insert(
    db: &Db,
    id_hash: &str,
    user_id: i64,
    now: i64,
    expires_at: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO sessions (id_hash, user_id, created_at, expires_at, last_seen_at) \
         VALUES ($1, $2, $3, $4, $3)",
    )
    .bind(id_hash)
    .bind(user_id)
    .bind(now)
    .bind(expires_at)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// The session with this hash, if it exists (expired or not).
pub async fn find(db: &Db, id_hash: &str) -> Result<Option<SessionRecord>, sqlx::Error> {
    let row = sqlx::query("SELECT user_id, expires_at FROM sessions WHERE id_hash = $1")
        .bind(id_hash)
        .fetch_optional(&db.pool)
        .await?;
    row.map(|row| {
        Ok(SessionRecord {
            user_id: row.try_get("user_id")?,
            expires_at: row.try_get("expires_at")?,
        })
    })
    .transpose()
}

/// Ends one session.
pub async fn delete(db: &Db, id_hash: &str) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM sessions WHERE id_hash = $1")
        .bind(id_hash)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Ends every session of a user (after a ban, a deletion or a password change).
pub async fn delete_for_user<'e, E>(executor: E, user_id: i64) -> Result<u64, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let done = sqlx::query("DELETE FROM sessions WHERE user_id = $1")
        .bind(user_id)
        .execute(executor)
        .await?;
    Ok(done.rows_affected())
}

/// Ends every session of a user but `keep` (the cookie hash of the session making a change).
pub async fn delete_for_user_except<'e, E>(
    executor: E,
    user_id: i64,
    keep: Option<&str>,
) -> Result<u64, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let Some(keep) = keep else {
        return delete_for_user(executor, user_id).await;
    };
    let done = sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND id_hash <> $2")
        .bind(user_id)
        .bind(keep)
        .execute(executor)
        .await?;
    Ok(done.rows_affected())
}

/// Removes sessions that expired before `now`.
pub async fn purge_expired(db: &Db, now: i64) -> Result<u64, sqlx::Error> {
    let done = sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
        .bind(now)
        .execute(&db.pool)
        .await?;
    Ok(done.rows_affected())
}
