//! Quota reminders sent: one per crossing of a user's warning threshold, for the whole fleet
//! of control-plane replicas (an insert that only one caller wins).

use std::collections::HashSet;

use super::Db;
use super::dynamic::{DynQuery, push_ids};

/// Claims the reminder of `user_id` under its threshold: `true` for the one caller that
/// should send it, `false` when it was sent already since the balance last stood above.
pub async fn claim(db: &Db, user_id: i64, now: i64) -> Result<bool, sqlx::Error> {
    let inserted = sqlx::query(
        "INSERT INTO quota_notices (user_id, notified_at) VALUES ($1, $2) \
         ON CONFLICT (user_id) DO NOTHING",
    )
    .bind(user_id)
    .bind(now)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

/// The users among `ids` whose reminder was sent since their balance last stood above their
/// threshold: one read, so that a usage batch writes nothing for users with nothing to change.
pub async fn sent_among(db: &Db, ids: &[i64]) -> Result<HashSet<i64>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(HashSet::new());
    }
    let mut q = DynQuery::new("SELECT user_id FROM quota_notices WHERE ");
    push_ids(&mut q, db.kind, "user_id", ids);
    let rows: Vec<(i64,)> = q.build_as().fetch_all(&db.pool).await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// The balances of `user_ids` stand above their thresholds again: their next crossings are
/// notified. One statement for all of them.
pub async fn rearm(db: &Db, user_ids: &[i64]) -> Result<(), sqlx::Error> {
    if user_ids.is_empty() {
        return Ok(());
    }
    let mut q = DynQuery::new("DELETE FROM quota_notices WHERE ");
    push_ids(&mut q, db.kind, "user_id", user_ids);
    q.build().execute(&db.pool).await?;
    Ok(())
}
