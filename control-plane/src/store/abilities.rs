//! The `abilities` table: which models enabled channels serve for which group.

use sqlx::Row;

use super::Db;
use super::dynamic::DynQuery;

/// Distinct models served by enabled channels to any of `groups`, sorted by name.
pub async fn models_for_groups(db: &Db, groups: &[String]) -> Result<Vec<String>, sqlx::Error> {
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    let mut query =
        DynQuery::new("SELECT DISTINCT model FROM abilities WHERE enabled = 1 AND \"group\" IN (");
    for (i, group) in groups.iter().enumerate() {
        if i > 0 {
            query.push(", ");
        }
        query.bind_text(group.clone());
    }
    query.push(") ORDER BY model");
    let rows = query.build().fetch_all(&db.pool).await?;
    rows.iter().map(|row| row.try_get("model")).collect()
}

/// Every (group, model) pair served by an enabled channel.
pub async fn enabled_pairs(db: &Db) -> Result<Vec<(String, String)>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT DISTINCT \"group\", model FROM abilities WHERE enabled = 1 ORDER BY model",
    )
    .fetch_all(&db.pool)
    .await?;
    rows.iter()
        .map(|row| Ok((row.try_get("group")?, row.try_get("model")?)))
        .collect()
}
