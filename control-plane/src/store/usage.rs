//! Usage ingest: one transaction per batch of gateway usage records writes the log rows
//! (idempotent by request id), user/token/channel balances and the hourly roll-up.

use std::collections::BTreeMap;

use super::Db;
use super::logs::LogType;

/// One request's usage as a gateway reported it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageRow {
    pub request_id: String,
    pub created_at: i64,
    /// Log type (2 consume, 6 error, …); only consume rows are charged.
    pub kind: i64,
    pub user_id: i64,
    pub username: String,
    pub token_id: i64,
    pub token_name: String,
    pub group: String,
    pub model_name: String,
    pub channel_id: i64,
    pub use_time: i64,
    pub is_stream: bool,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub quota: i64,
    pub content: String,
    pub other: String,
    pub ip: String,
}

/// What one batch did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IngestOutcome {
    /// Rows inserted (and charged, when they are consume rows).
    pub inserted: u32,
    /// Rows whose request id was already stored: neither inserted nor charged.
    pub duplicates: u32,
}

/// Sums charged to one user, token or channel within a batch.
#[derive(Default)]
struct Charge {
    quota: i64,
    count: i64,
}

/// One hour of one user's use of one model within a batch.
#[derive(Default)]
struct HourSum {
    username: String,
    quota: i64,
    tokens: i64,
    count: i64,
}

/// Writes `rows` in one transaction. Rows whose request id is already stored are skipped, so
/// delivering the same batch twice charges once. Balances and hourly roll-ups are updated once
/// per user, token, channel and (user, model, hour), in key order, so concurrent batches lock
/// rows in the same order and cannot deadlock each other.
pub async fn ingest(db: &Db, rows: &[UsageRow]) -> Result<IngestOutcome, sqlx::Error> {
    let mut tx = db.pool.begin().await?;
    let mut outcome = IngestOutcome::default();
    let mut users: BTreeMap<i64, Charge> = BTreeMap::new();
    let mut tokens: BTreeMap<i64, Charge> = BTreeMap::new();
    let mut channels: BTreeMap<i64, Charge> = BTreeMap::new();
    let mut hours: BTreeMap<(i64, &str, i64), HourSum> = BTreeMap::new();
    for row in rows {
        let request_id = Some(row.request_id.as_str()).filter(|r| !r.is_empty());
        let inserted = sqlx::query(
            "INSERT INTO logs (user_id, created_at, type, content, username, token_name, model_name, \
             quota, prompt_tokens, completion_tokens, use_time, is_stream, channel_id, token_id, \
             \"group\", ip, request_id, other) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) \
             ON CONFLICT (request_id) WHERE request_id IS NOT NULL DO NOTHING",
        )
        .bind(row.user_id)
        .bind(row.created_at)
        .bind(row.kind)
        .bind(row.content.as_str())
        .bind(row.username.as_str())
        .bind(row.token_name.as_str())
        .bind(row.model_name.as_str())
        .bind(row.quota)
        .bind(row.prompt_tokens)
        .bind(row.completion_tokens)
        .bind(row.use_time)
        .bind(i64::from(row.is_stream))
        .bind(row.channel_id)
        .bind(row.token_id)
        .bind(row.group.as_str())
        .bind(row.ip.as_str())
        .bind(request_id)
        .bind(row.other.as_str())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if inserted == 0 {
            outcome.duplicates += 1;
            continue;
        }
        outcome.inserted += 1;
        if row.kind != LogType::Consume as i64 {
            continue;
        }
        for (map, id) in [
            (&mut users, row.user_id),
            (&mut tokens, row.token_id),
            (&mut channels, row.channel_id),
        ] {
            if id > 0 {
                let charge = map.entry(id).or_default();
                charge.quota += row.quota;
                charge.count += 1;
            }
        }
        let hour = row.created_at - row.created_at.rem_euclid(3600);
        let sum = hours
            .entry((row.user_id, row.model_name.as_str(), hour))
            .or_default();
        sum.username.clone_from(&row.username);
        sum.quota += row.quota;
        sum.tokens += row.prompt_tokens + row.completion_tokens;
        sum.count += 1;
    }
    for (id, charge) in &users {
        sqlx::query(
            "UPDATE users SET quota = quota - $1, used_quota = used_quota + $1, \
             request_count = request_count + $2 WHERE id = $3",
        )
        .bind(charge.quota)
        .bind(charge.count)
        .bind(*id)
        .execute(&mut *tx)
        .await?;
    }
    for (id, charge) in &tokens {
        sqlx::query(
            "UPDATE tokens SET remain_quota = remain_quota - CASE WHEN unlimited_quota = 0 THEN $1 ELSE 0 END, \
             used_quota = used_quota + $1, accessed_time = $2 WHERE id = $3",
        )
        .bind(charge.quota)
        .bind(super::now())
        .bind(*id)
        .execute(&mut *tx)
        .await?;
    }
    for (id, charge) in &channels {
        sqlx::query("UPDATE channels SET used_quota = used_quota + $1 WHERE id = $2")
            .bind(charge.quota)
            .bind(*id)
            .execute(&mut *tx)
            .await?;
    }
    for ((user_id, model_name, hour), sum) in &hours {
        sqlx::query(
            "INSERT INTO quota_data (user_id, username, model_name, created_at, token_used, count, quota) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (user_id, model_name, created_at) DO UPDATE SET \
             token_used = quota_data.token_used + excluded.token_used, \
             count = quota_data.count + excluded.count, quota = quota_data.quota + excluded.quota",
        )
        .bind(*user_id)
        .bind(sum.username.as_str())
        .bind(*model_name)
        .bind(*hour)
        .bind(sum.tokens)
        .bind(sum.count)
        .bind(sum.quota)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(outcome)
}
