//! The `setups` marker row: present once the system has been initialised.

use sqlx::Row;

use super::Db;

/// Whether the setup row exists.
pub async fn is_initialized(db: &Db) -> Result<bool, sqlx::Error> {
    let row = sqlx::query("SELECT COUNT(*) AS n FROM setups")
        .fetch_one(&db.pool)
        .await?;
    Ok(row.try_get::<i64, _>("n")? > 0)
}

/// Records the initialisation inside `tx`; fails with a unique violation if another request
/// initialised the system first.
pub async fn mark_initialized(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    version: &str,
    now: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO setups (id, version, initialized_at) VALUES (1, $1, $2)")
        .bind(version)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
