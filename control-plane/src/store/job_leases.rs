//! Claims of periodic jobs: a job runs on the one replica that claims it, at most once per
//! interval for the whole fleet (one conditional `UPDATE`, atomic in both databases).

use super::Db;

/// Claims job `name` for `holder` if its interval is over at `now_ms`, and holds it for
/// `interval_ms`; answers whether this caller should run it now.
pub async fn claim(
    db: &Db,
    name: &str,
    holder: &str,
    now_ms: i64,
    interval_ms: i64,
) -> Result<bool, sqlx::Error> {
    sqlx::query(
        "INSERT INTO job_leases (name, holder, next_run, claimed_at) VALUES ($1, '', 0, 0) \
         ON CONFLICT (name) DO NOTHING",
    )
    .bind(name)
    .execute(&db.pool)
    .await?;
    let claimed = sqlx::query(
        "UPDATE job_leases SET holder = $1, next_run = $2, claimed_at = $3 \
         WHERE name = $4 AND next_run <= $3",
    )
    .bind(holder)
    .bind(now_ms.saturating_add(interval_ms.max(0)))
    .bind(now_ms)
    .bind(name)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(claimed == 1)
}
