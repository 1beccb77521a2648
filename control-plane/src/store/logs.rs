//! The `logs` table: records of consumption, top-ups, management and system events.

use super::now;

/// Log record types (spec 3 §3; the selector's reading).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogType {
    Topup = 1,
    Consume = 2,
    Manage = 3,
    System = 4,
    CheckIn = 5,
}

/// A log row to insert that is not tied to a relay request.
pub struct EventLog<'a> {
    pub user_id: i64,
    pub username: &'a str,
    pub kind: LogType,
    pub content: String,
    pub quota: i64,
}

/// Appends one event record.
pub async fn insert_event<'e, E>(executor: E, log: EventLog<'_>) -> Result<(), sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    sqlx::query(
        "INSERT INTO logs (user_id, created_at, type, content, username, quota) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(log.user_id)
    .bind(now())
    .bind(log.kind as i64)
    .bind(log.content)
    .bind(log.username)
    .bind(log.quota)
    .execute(executor)
    .await?;
    Ok(())
}
