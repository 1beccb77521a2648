//! The `verification_codes` table: hashed one-time codes by purpose and email address.

use sqlx::Row;

use super::Db;

/// A stored code.
#[derive(Debug, Clone)]
pub struct CodeRecord {
    pub code_hash: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub attempts: i64,
}

/// The current code for `purpose` and `email`, if any.
pub async fn find(db: &Db, purpose: &str, email: &str) -> Result<Option<CodeRecord>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT code_hash, created_at, expires_at, attempts FROM verification_codes \
         WHERE purpose = $1 AND email = $2",
    )
    .bind(purpose)
    .bind(email)
    .fetch_optional(&db.pool)
    .await?;
    row.map(|row| {
        Ok(CodeRecord {
            code_hash: row.try_get("code_hash")?,
            created_at: row.try_get("created_at")?,
            expires_at: row.try_get("expires_at")?,
            attempts: row.try_get("attempts")?,
        })
    })
    .transpose()
}

/// Stores a new code, replacing any earlier one for the same purpose and address.
pub async fn replace(
    db: &Db,
    purpose: &str,
    email: &str,
    code_hash: &str,
    now: i64,
    expires_at: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO verification_codes (purpose, email, code_hash, created_at, expires_at, attempts) \
         VALUES ($1, $2, $3, $4, $5, 0) ON CONFLICT (purpose, email) DO UPDATE SET \
         code_hash = excluded.code_hash, created_at = excluded.created_at, \
         expires_at = excluded.expires_at, attempts = 0",
    )
    .bind(purpose)
    .bind(email)
    .bind(code_hash)
    .bind(now)
    .bind(expires_at)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Uses up one attempt of the live code for `purpose` and `email` and returns its hash, in one
/// statement: nothing when there is no live code or its `max_attempts` are used up, so
/// concurrent guesses can never compare more than `max_attempts` times.
pub async fn claim_attempt(
    db: &Db,
    purpose: &str,
    email: &str,
    now: i64,
    max_attempts: i64,
) -> Result<Option<String>, sqlx::Error> {
    let row = sqlx::query(
        "UPDATE verification_codes SET attempts = attempts + 1 \
         WHERE purpose = $1 AND email = $2 AND attempts < $3 AND expires_at > $4 \
         RETURNING code_hash",
    )
    .bind(purpose)
    .bind(email)
    .bind(max_attempts)
    .bind(now)
    .fetch_optional(&db.pool)
    .await?;
    row.map(|row| row.try_get("code_hash")).transpose()
}

/// Consumes the code if it still has `code_hash`; true when this call consumed it (so two
/// concurrent uses of one code cannot both succeed).
pub async fn consume<'e, E>(
    executor: E,
    purpose: &str,
    email: &str,
    code_hash: &str,
) -> Result<bool, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let done = sqlx::query(
        "DELETE FROM verification_codes WHERE purpose = $1 AND email = $2 AND code_hash = $3",
    )
    .bind(purpose)
    .bind(email)
    .bind(code_hash)
    .execute(executor)
    .await?;
    Ok(done.rows_affected() == 1)
}
