//! Claims of periodic jobs: a job runs on the one replica that claims it, at most once per
//! interval for the whole fleet (one conditional `UPDATE`, atomic in both databases).

use super::Db;

/// Claims job `name` for `holder` if `interval_ms` has passed at `now_ms` since the job was last
/// claimed, and answers whether this caller should run it now. The interval is the one asked
/// now, not the one of the last claim: an operator who shortens a job's interval (say from an
/// hour to a minute) sees it run within the new interval, not after the old one. `next_run`
/// records when the job is due under the interval of this claim.
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
         WHERE name = $4 AND claimed_at <= $5",
    )
    .bind(holder)
    .bind(now_ms.saturating_add(interval_ms.max(0)))
    .bind(now_ms)
    .bind(name)
    .bind(now_ms.saturating_sub(interval_ms.max(0)))
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(claimed == 1)
}
