//! The `checkins` table: one row per user and day.

use sqlx::Row;

use super::Db;

/// Whether `user_id` checked in on `day`.
pub async fn exists(db: &Db, user_id: i64, day: i64) -> Result<bool, sqlx::Error> {
    let row = sqlx::query("SELECT COUNT(*) AS n FROM checkins WHERE user_id = $1 AND day = $2")
        .bind(user_id)
        .bind(day)
        .fetch_one(&db.pool)
        .await?;
    Ok(row.try_get::<i64, _>("n")? > 0)
}

/// Records a check-in; false when one exists for that day already.
pub async fn insert<'e, E>(
    executor: E,
    user_id: i64,
    day: i64,
    quota: i64,
    now: i64,
) -> Result<bool, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let done = sqlx::query(
        "INSERT INTO checkins (user_id, day, quota, created_at) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (user_id, day) DO NOTHING",
    )
    .bind(user_id)
    .bind(day)
    .bind(quota)
    .bind(now)
    .execute(executor)
    .await?;
    Ok(done.rows_affected() == 1)
}
