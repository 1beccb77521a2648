//! The `redemptions` and `redemption_uses` tables: codes and who used gift codes.

use sqlx::{FromRow, Row};

use super::Db;
use super::dynamic::DynQuery;

/// A code as stored.
#[derive(Debug, Clone, FromRow)]
pub struct RedemptionRecord {
    pub id: i64,
    pub user_id: i64,
    pub key: String,
    pub name: String,
    pub status: i64,
    pub quota: i64,
    pub created_time: i64,
    pub redeemed_time: i64,
    pub used_user_id: i64,
    pub is_gift: i64,
    pub max_uses: i64,
    pub used_count: i64,
    pub valid_from: i64,
    pub valid_until: i64,
}

macro_rules! select_codes {
    ($tail:literal) => {
        concat!(
            "SELECT id, user_id, key, name, status, quota, created_time, redeemed_time, ",
            "used_user_id, is_gift, max_uses, used_count, valid_from, valid_until FROM redemptions ",
            $tail
        )
    };
}

/// Settings of a code an administrator chooses.
#[derive(Debug, Clone)]
pub struct CodeFields {
    pub name: String,
    pub quota: i64,
    pub is_gift: bool,
    pub max_uses: i64,
    pub valid_from: i64,
    pub valid_until: i64,
}

/// Inserts a code created by `user_id`.
pub async fn insert<'e, E>(
    executor: E,
    user_id: i64,
    key: &str,
    fields: &CodeFields,
    now: i64,
) -> Result<i64, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let row = sqlx::query(
        "INSERT INTO redemptions (user_id, key, name, status, quota, created_time, is_gift, max_uses, \
         valid_from, valid_until) VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $8, $9) RETURNING id",
    )
    .bind(user_id)
    .bind(key)
    .bind(&fields.name)
    .bind(fields.quota)
    .bind(now)
    .bind(i64::from(fields.is_gift))
    .bind(fields.max_uses)
    .bind(fields.valid_from)
    .bind(fields.valid_until)
    .fetch_one(executor)
    .await?;
    row.try_get("id")
}

pub async fn find(db: &Db, id: i64) -> Result<Option<RedemptionRecord>, sqlx::Error> {
    sqlx::query_as::<_, RedemptionRecord>(select_codes!("WHERE id = $1 AND deleted_at IS NULL"))
        .bind(id)
        .fetch_optional(&db.pool)
        .await
}

pub async fn find_by_key(db: &Db, key: &str) -> Result<Option<RedemptionRecord>, sqlx::Error> {
    sqlx::query_as::<_, RedemptionRecord>(select_codes!("WHERE key = $1 AND deleted_at IS NULL"))
        .bind(key)
        .fetch_optional(&db.pool)
        .await
}

/// One page of live codes, newest first; `keyword` matches the id, the name or the whole key.
pub async fn list(
    db: &Db,
    keyword: Option<&str>,
    offset: i64,
    limit: i64,
) -> Result<(Vec<RedemptionRecord>, i64), sqlx::Error> {
    let push_filter = |query: &mut DynQuery| {
        if let Some(keyword) = keyword.map(str::trim).filter(|k| !k.is_empty()) {
            query.push(" AND (LOWER(name) LIKE ");
            query
                .bind_text(format!(
                    "%{}%",
                    super::users::escape_like(&keyword.to_lowercase())
                ))
                .push(" ESCAPE '\\' OR key = ")
                .bind_text(keyword);
            if let Ok(id) = keyword.parse::<i64>() {
                query.push(" OR id = ").bind_int(id);
            }
            query.push(")");
        }
    };
    let mut count = DynQuery::new("SELECT COUNT(*) AS n FROM redemptions WHERE deleted_at IS NULL");
    push_filter(&mut count);
    let total: i64 = count.build().fetch_one(&db.pool).await?.try_get("n")?;
    let mut page = DynQuery::new(select_codes!("WHERE deleted_at IS NULL"));
    push_filter(&mut page);
    page.push(" ORDER BY id DESC LIMIT ")
        .bind_int(limit)
        .push(" OFFSET ")
        .bind_int(offset);
    let items = page
        .build_as::<RedemptionRecord>()
        .fetch_all(&db.pool)
        .await?;
    Ok((items, total))
}

/// Replaces the settings of an unused code; false when it is no longer unused.
pub async fn update_unused(db: &Db, id: i64, fields: &CodeFields) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE redemptions SET name = $1, quota = $2, is_gift = $3, max_uses = $4, valid_from = $5, \
         valid_until = $6 WHERE id = $7 AND status = 1 AND deleted_at IS NULL",
    )
    .bind(&fields.name)
    .bind(fields.quota)
    .bind(i64::from(fields.is_gift))
    .bind(fields.max_uses)
    .bind(fields.valid_from)
    .bind(fields.valid_until)
    .bind(id)
    .execute(&db.pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Switches a code between unused (1) and disabled (2); used codes (3) never change.
pub async fn set_status(db: &Db, id: i64, status: i64) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE redemptions SET status = $1 WHERE id = $2 AND status <> 3 AND deleted_at IS NULL",
    )
    .bind(status)
    .bind(id)
    .execute(&db.pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Disables the unused codes among `ids`; returns how many.
pub async fn disable_many(db: &Db, ids: &[i64]) -> Result<u64, sqlx::Error> {
    if ids.is_empty() {
        return Ok(0);
    }
    let mut query = DynQuery::new(
        "UPDATE redemptions SET status = 2 WHERE status = 1 AND deleted_at IS NULL AND id IN (",
    );
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            query.push(", ");
        }
        query.bind_int(*id);
    }
    query.push(")");
    Ok(query.build().execute(&db.pool).await?.rows_affected())
}

/// Soft-deletes one code.
pub async fn soft_delete(db: &Db, id: i64, now: i64) -> Result<bool, sqlx::Error> {
    let done =
        sqlx::query("UPDATE redemptions SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL")
            .bind(now)
            .bind(id)
            .execute(&db.pool)
            .await?;
    Ok(done.rows_affected() == 1)
}

/// Soft-deletes every disabled, used or expired code; returns how many.
pub async fn delete_invalid(db: &Db, now: i64) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE redemptions SET deleted_at = $1 WHERE deleted_at IS NULL AND \
         (status IN (2, 3) OR (valid_until > 0 AND valid_until <= $1))",
    )
    .bind(now)
    .execute(&db.pool)
    .await?;
    Ok(done.rows_affected())
}

/// How many live codes carry `name`.
pub async fn count_by_name(db: &Db, name: &str) -> Result<i64, sqlx::Error> {
    let row =
        sqlx::query("SELECT COUNT(*) AS n FROM redemptions WHERE name = $1 AND deleted_at IS NULL")
            .bind(name)
            .fetch_one(&db.pool)
            .await?;
    row.try_get("n")
}

/// Soft-deletes every live code named `name`; returns how many.
pub async fn delete_by_name(db: &Db, name: &str, now: i64) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE redemptions SET deleted_at = $1 WHERE name = $2 AND deleted_at IS NULL",
    )
    .bind(now)
    .bind(name)
    .execute(&db.pool)
    .await?;
    Ok(done.rows_affected())
}

/// Marks a single-use code used by `user_id`, only if it is still unused and inside its window;
/// true when this call took it.
pub async fn take_single_use<'e, E>(
    executor: E,
    id: i64,
    user_id: i64,
    now: i64,
) -> Result<bool, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let done = sqlx::query(
        "UPDATE redemptions SET status = 3, used_user_id = $1, redeemed_time = $2, used_count = 1 \
         WHERE id = $3 AND status = 1 AND deleted_at IS NULL \
         AND (valid_from = 0 OR valid_from <= $2) AND (valid_until = 0 OR valid_until > $2)",
    )
    .bind(user_id)
    .bind(now)
    .bind(id)
    .execute(executor)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Counts one use of a gift code if uses remain; true when this call took a use.
pub async fn take_gift_use<'e, E>(executor: E, id: i64, now: i64) -> Result<bool, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let done = sqlx::query(
        "UPDATE redemptions SET used_count = used_count + 1, redeemed_time = $1 \
         WHERE id = $2 AND status = 1 AND deleted_at IS NULL AND (max_uses = -1 OR used_count < max_uses) \
         AND (valid_from = 0 OR valid_from <= $1) AND (valid_until = 0 OR valid_until > $1)",
    )
    .bind(now)
    .bind(id)
    .execute(executor)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Records that `user_id` used gift code `id`; false when they already had.
pub async fn record_gift_use<'e, E>(
    executor: E,
    id: i64,
    user_id: i64,
    now: i64,
) -> Result<bool, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let done = sqlx::query(
        "INSERT INTO redemption_uses (redemption_id, user_id, used_at) VALUES ($1, $2, $3) \
         ON CONFLICT (redemption_id, user_id) DO NOTHING",
    )
    .bind(id)
    .bind(user_id)
    .bind(now)
    .execute(executor)
    .await?;
    Ok(done.rows_affected() == 1)
}
