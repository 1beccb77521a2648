//! The `top_ups` table: online payment orders, pending until the provider confirms them.

use sqlx::{FromRow, Row};

use super::Db;
use super::dynamic::DynQuery;

/// An order.
#[derive(Debug, Clone, FromRow)]
pub struct TopUpRecord {
    pub id: i64,
    pub user_id: i64,
    /// Dollars of quota bought.
    pub amount: i64,
    /// Money paid.
    pub money: f64,
    pub trade_no: String,
    pub payment_method: String,
    pub create_time: i64,
    pub complete_time: i64,
    /// `pending` or `success`.
    pub status: String,
}

pub async fn insert(
    db: &Db,
    user_id: i64,
    amount: i64,
    money: f64,
    trade_no: &str,
    method: &str,
    now: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO top_ups (user_id, amount, money, trade_no, payment_method, create_time, status) \
         VALUES ($1, $2, $3, $4, $5, $6, 'pending')",
    )
    .bind(user_id)
    .bind(amount)
    .bind(money)
    .bind(trade_no)
    .bind(method)
    .bind(now)
    .execute(&db.pool)
    .await?;
    Ok(())
}

pub async fn find(db: &Db, trade_no: &str) -> Result<Option<TopUpRecord>, sqlx::Error> {
    sqlx::query_as::<_, TopUpRecord>(
        "SELECT id, user_id, amount, money, trade_no, payment_method, create_time, complete_time, status \
         FROM top_ups WHERE trade_no = $1",
    )
    .bind(trade_no)
    .fetch_optional(&db.pool)
    .await
}

/// Marks a pending order paid; true only for the call that changed it (so a replayed
/// notification credits nothing).
pub async fn complete<'e, E>(executor: E, trade_no: &str, now: i64) -> Result<bool, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let done = sqlx::query(
        "UPDATE top_ups SET status = 'success', complete_time = $1 WHERE trade_no = $2 AND status = 'pending'",
    )
    .bind(now)
    .bind(trade_no)
    .execute(executor)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// One page of orders, newest first (one user's, or everyone's).
pub async fn list(
    db: &Db,
    user_id: Option<i64>,
    offset: i64,
    limit: i64,
) -> Result<(Vec<TopUpRecord>, i64), sqlx::Error> {
    let mut count = DynQuery::new("SELECT COUNT(*) AS n FROM top_ups WHERE 1 = 1");
    let mut page = DynQuery::new(
        "SELECT id, user_id, amount, money, trade_no, payment_method, create_time, complete_time, status \
         FROM top_ups WHERE 1 = 1",
    );
    if let Some(id) = user_id {
        count.push(" AND user_id = ").bind_int(id);
        page.push(" AND user_id = ").bind_int(id);
    }
    let total: i64 = count.build().fetch_one(&db.pool).await?.try_get("n")?;
    page.push(" ORDER BY id DESC LIMIT ")
        .bind_int(limit)
        .push(" OFFSET ")
        .bind_int(offset);
    let items = page.build_as::<TopUpRecord>().fetch_all(&db.pool).await?;
    Ok((items, total))
}
