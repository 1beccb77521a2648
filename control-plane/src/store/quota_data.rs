//! The `quota_data` table: hourly roll-ups of consumption per user and model (the dashboard).

use sqlx::FromRow;

use super::Db;
use super::dynamic::DynQuery;

/// One point of a dashboard series.
#[derive(Debug, Clone, FromRow)]
pub struct RollupRow {
    /// Model name, or username for the per-user series.
    pub name: String,
    /// Start of the hour (epoch seconds).
    pub created_at: i64,
    pub count: i64,
    pub quota: i64,
    pub token_used: i64,
}

/// What to group by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RollupBy {
    Model,
    User,
}

/// Sums over `[start, end]` grouped by hour and by model or user, optionally for one user.
pub async fn series(
    db: &Db,
    by: RollupBy,
    start: i64,
    end: i64,
    user_id: Option<i64>,
    username: Option<&str>,
) -> Result<Vec<RollupRow>, sqlx::Error> {
    let mut q = DynQuery::new(match by {
        RollupBy::Model => {
            "SELECT model_name AS name, created_at, CAST(SUM(count) AS BIGINT) AS count, CAST(SUM(quota) AS BIGINT) AS quota, CAST(SUM(token_used) AS BIGINT) AS token_used FROM quota_data WHERE created_at >= "
        }
        RollupBy::User => {
            "SELECT username AS name, created_at, CAST(SUM(count) AS BIGINT) AS count, CAST(SUM(quota) AS BIGINT) AS quota, CAST(SUM(token_used) AS BIGINT) AS token_used FROM quota_data WHERE created_at >= "
        }
    });
    q.bind_int(start).push(" AND created_at <= ").bind_int(end);
    if let Some(id) = user_id {
        q.push(" AND user_id = ").bind_int(id);
    }
    if let Some(name) = username.map(str::trim).filter(|n| !n.is_empty()) {
        q.push(" AND username = ").bind_text(name);
    }
    q.push(match by {
        RollupBy::Model => " GROUP BY model_name, created_at ORDER BY created_at, model_name",
        RollupBy::User => " GROUP BY username, created_at ORDER BY created_at, username",
    });
    q.build_as::<RollupRow>().fetch_all(&db.pool).await
}

/// Adds one request's consumption to its hour (used by usage ingestion).
pub async fn add<'e, E>(
    executor: E,
    user_id: i64,
    username: &str,
    model_name: &str,
    hour: i64,
    quota: i64,
    tokens: i64,
) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    sqlx::query(
        "INSERT INTO quota_data (user_id, username, model_name, created_at, token_used, count, quota) \
         VALUES ($1, $2, $3, $4, $5, 1, $6) ON CONFLICT (user_id, model_name, created_at) DO UPDATE SET \
         token_used = quota_data.token_used + excluded.token_used, count = quota_data.count + 1, \
         quota = quota_data.quota + excluded.quota",
    )
    .bind(user_id)
    .bind(username)
    .bind(model_name)
    .bind(hour)
    .bind(tokens)
    .bind(quota)
    .execute(executor)
    .await?;
    Ok(())
}
