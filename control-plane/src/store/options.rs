//! The `options` table: stored key/value settings (defaults live in `domain::options`).

use std::collections::HashMap;

use sqlx::Row;

use super::{Db, now};

/// Every stored option.
pub async fn load_all(db: &Db) -> Result<HashMap<String, String>, sqlx::Error> {
    let rows = sqlx::query("SELECT key, value FROM options")
        .fetch_all(&db.pool)
        .await?;
    rows.iter()
        .map(|row| Ok((row.try_get("key")?, row.try_get("value")?)))
        .collect()
}

/// The stored values among `keys`.
pub async fn load_keys(
    db: &Db,
    keys: &[&'static str],
) -> Result<HashMap<String, String>, sqlx::Error> {
    let mut q = super::dynamic::DynQuery::new("SELECT key, value FROM options WHERE key IN (");
    for (i, key) in keys.iter().enumerate() {
        if i > 0 {
            q.push(", ");
        }
        q.bind_text(*key);
    }
    q.push(")");
    let rows: Vec<(String, String)> = q.into_query_as()?.fetch_all(&db.pool).await?;
    Ok(rows.into_iter().collect())
}

/// Inserts or replaces one option.
pub async fn upsert<'e, E>(executor: E, key: &str, value: &str) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    sqlx::query(
        "INSERT INTO options (key, value, updated_at) VALUES ($1, $2, $3) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    )
    .bind(key)
    .bind(value)
    .bind(now())
    .execute(executor)
    .await?;
    Ok(())
}
