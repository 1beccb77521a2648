//! The `tokens` table: users' API tokens (key encrypted, found by key hash), soft-deleted.

use sqlx::{FromRow, Row};

use super::Db;
use super::dynamic::DynQuery;

/// A token row as stored.
#[derive(Debug, Clone, FromRow)]
pub struct TokenRecord {
    pub id: i64,
    pub user_id: i64,
    pub name: String,
    pub key_enc: String,
    pub status: i64,
    pub created_time: i64,
    pub accessed_time: i64,
    pub expired_time: i64,
    pub remain_quota: i64,
    pub used_quota: i64,
    pub unlimited_quota: i64,
    pub model_limits_enabled: i64,
    pub model_limits: String,
    pub allow_ips: String,
    pub group: String,
    pub rate_limit_enabled: i64,
    pub rate_limit_period: i64,
    pub rate_limit_count: i64,
    pub rate_limit_success: i64,
}

macro_rules! select_tokens {
    ($tail:literal) => {
        concat!(
            "SELECT id, user_id, name, key_enc, status, created_time, accessed_time, expired_time, ",
            "remain_quota, used_quota, unlimited_quota, model_limits_enabled, model_limits, ",
            "allow_ips, \"group\", rate_limit_enabled, rate_limit_period, rate_limit_count, ",
            "rate_limit_success FROM tokens ",
            $tail
        )
    };
}

/// The settings of a token that its owner chooses.
#[derive(Debug, Clone)]
pub struct TokenFields {
    pub name: String,
    pub expired_time: i64,
    pub remain_quota: i64,
    pub unlimited_quota: bool,
    pub model_limits_enabled: bool,
    pub model_limits: String,
    pub allow_ips: String,
    pub group: String,
    pub rate_limit_enabled: bool,
    pub rate_limit_period: i64,
    pub rate_limit_count: i64,
    pub rate_limit_success: i64,
}

/// Binds the 12 owner-chosen fields as the next 12 parameters, in [`TokenFields`] order.
fn bind_fields<'q>(
    query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    f: &TokenFields,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    query
        .bind(f.name.clone())
        .bind(f.expired_time)
        .bind(f.remain_quota)
        .bind(i64::from(f.unlimited_quota))
        .bind(i64::from(f.model_limits_enabled))
        .bind(f.model_limits.clone())
        .bind(f.allow_ips.clone())
        .bind(f.group.clone())
        .bind(i64::from(f.rate_limit_enabled))
        .bind(f.rate_limit_period)
        .bind(f.rate_limit_count)
        .bind(f.rate_limit_success)
}

/// Inserts a token and returns its id.
pub async fn insert<'e, E>(
    executor: E,
    user_id: i64,
    key_hash: &str,
    key_enc: &str,
    fields: &TokenFields,
    now: i64,
) -> Result<i64, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let sql = "INSERT INTO tokens (name, expired_time, remain_quota, unlimited_quota, \
         model_limits_enabled, model_limits, allow_ips, \"group\", rate_limit_enabled, rate_limit_period, \
         rate_limit_count, rate_limit_success, user_id, key_hash, key_enc, status, created_time) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 1, $16) RETURNING id";
    let row = bind_fields(sqlx::query(sql), fields)
        .bind(user_id)
        .bind(key_hash.to_string())
        .bind(key_enc.to_string())
        .bind(now)
        .fetch_one(executor)
        .await?;
    row.try_get("id")
}

/// A live token of `user_id`.
pub async fn find_own(db: &Db, user_id: i64, id: i64) -> Result<Option<TokenRecord>, sqlx::Error> {
    sqlx::query_as::<_, TokenRecord>(select_tokens!(
        "WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL"
    ))
    .bind(id)
    .bind(user_id)
    .fetch_optional(&db.pool)
    .await
}

/// Filters of the token list.
#[derive(Debug, Default, Clone)]
pub struct TokenFilter {
    /// Part of the name.
    pub keyword: Option<String>,
    /// Exact key hash.
    pub key_hash: Option<String>,
}

/// One page of a user's live tokens, newest first, and the total matching.
pub async fn list_own(
    db: &Db,
    user_id: i64,
    filter: &TokenFilter,
    offset: i64,
    limit: i64,
) -> Result<(Vec<TokenRecord>, i64), sqlx::Error> {
    let push_filter = |query: &mut DynQuery| {
        query.bind_int(user_id).push(" AND deleted_at IS NULL");
        if let Some(keyword) = filter
            .keyword
            .as_deref()
            .map(str::trim)
            .filter(|k| !k.is_empty())
        {
            query
                .push(" AND LOWER(name) LIKE ")
                .bind_text(format!(
                    "%{}%",
                    super::users::escape_like(&keyword.to_lowercase())
                ))
                .push(" ESCAPE '\\'");
        }
        if let Some(hash) = &filter.key_hash {
            query.push(" AND key_hash = ").bind_text(hash.clone());
        }
    };
    let mut count = DynQuery::new("SELECT COUNT(*) AS n FROM tokens WHERE user_id = ");
    push_filter(&mut count);
    let total: i64 = count.build().fetch_one(&db.pool).await?.try_get("n")?;
    let mut page = DynQuery::new(select_tokens!("WHERE user_id = "));
    push_filter(&mut page);
    page.push(" ORDER BY id DESC LIMIT ")
        .bind_int(limit)
        .push(" OFFSET ")
        .bind_int(offset);
    let items = page.build_as::<TokenRecord>().fetch_all(&db.pool).await?;
    Ok((items, total))
}

/// Replaces a token's settings and status.
pub async fn update(
    db: &Db,
    id: i64,
    fields: &TokenFields,
    status: i64,
) -> Result<(), sqlx::Error> {
    let sql = "UPDATE tokens SET name = $1, expired_time = $2, remain_quota = $3, unlimited_quota = $4, \
         model_limits_enabled = $5, model_limits = $6, allow_ips = $7, \"group\" = $8, \
         rate_limit_enabled = $9, rate_limit_period = $10, rate_limit_count = $11, \
         rate_limit_success = $12, status = $13 WHERE id = $14";
    bind_fields(sqlx::query(sql), fields)
        .bind(status)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Sets a token's status.
pub async fn set_status(db: &Db, id: i64, status: i64) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE tokens SET status = $1 WHERE id = $2")
        .bind(status)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Soft-deletes a user's token; true when one was deleted.
pub async fn soft_delete(db: &Db, user_id: i64, id: i64, now: i64) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE tokens SET deleted_at = $1 WHERE id = $2 AND user_id = $3 AND deleted_at IS NULL",
    )
    .bind(now)
    .bind(id)
    .bind(user_id)
    .execute(&db.pool)
    .await?;
    Ok(done.rows_affected() == 1)
}
