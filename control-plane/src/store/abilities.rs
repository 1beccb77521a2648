//! The `abilities` table: which models enabled channels serve for which group.

use sqlx::Row;

use super::Db;

/// Distinct models served by enabled channels to any of `groups`, sorted by name.
pub async fn models_for_groups(db: &Db, groups: &[String]) -> Result<Vec<String>, sqlx::Error> {
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    let mut query = sqlx::QueryBuilder::<sqlx::Any>::new(
        "SELECT DISTINCT model FROM abilities WHERE enabled = 1 AND \"group\" IN (",
    );
    let mut separated = query.separated(", ");
    for group in groups {
        separated.push_bind(group.clone());
    }
    query.push(") ORDER BY model");
    let rows = query.build().fetch_all(&db.pool).await?;
    rows.iter().map(|row| row.try_get("model")).collect()
}
