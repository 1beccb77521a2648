//! Quota reminders sent: one per crossing of a user's warning threshold, for the whole fleet
//! of control-plane replicas (an insert that only one caller wins).

use super::Db;

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

/// The balance of `user_id` stands above its threshold again: the next crossing is notified.
pub async fn rearm(db: &Db, user_id: i64) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM quota_notices WHERE user_id = $1")
        .bind(user_id)
        .execute(&db.pool)
        .await?;
    Ok(())
}
