//! The `config_changes` outbox (filled by triggers on users, tokens, channels and options) and
//! the reads that build what gateways see: users, tokens and channels, all or by id.

use super::Db;
use super::channels::ChannelRecord;
use super::dynamic::{DynQuery, push_ids};

/// One recorded change: which entity changed, at which config version.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Change {
    pub version: i64,
    /// `user`, `token`, `channel` or `option`.
    pub entity: String,
    /// The entity's id (the option's key for options). On PostgreSQL, an update statement's
    /// changed users or tokens are one change: up to 1 000 ids, ascending, joined by commas.
    pub entity_id: String,
}

impl Change {
    /// The ids of the users, tokens or channels this change names (none for an option, and
    /// none for a part that is not a number).
    pub fn ids(&self) -> impl Iterator<Item = i64> + '_ {
        self.entity_id
            .split(',')
            .filter(|_| self.entity != "option")
            .filter_map(|id| id.trim().parse::<i64>().ok())
    }
}

/// The newest config version (0 when nothing was ever recorded).
pub async fn max_version(db: &Db) -> Result<i64, sqlx::Error> {
    let (v,): (Option<i64>,) =
        sqlx::query_as("SELECT CAST(MAX(version) AS BIGINT) FROM config_changes")
            .fetch_one(&db.pool)
            .await?;
    Ok(v.unwrap_or(0))
}

/// The oldest version still recorded (0 when the table is empty).
pub async fn min_version(db: &Db) -> Result<i64, sqlx::Error> {
    let (v,): (Option<i64>,) =
        sqlx::query_as("SELECT CAST(MIN(version) AS BIGINT) FROM config_changes")
            .fetch_one(&db.pool)
            .await?;
    Ok(v.unwrap_or(0))
}

/// Changes with a version above `after` and at most `upto`, oldest first, at most `limit`.
pub async fn between(
    db: &Db,
    after: i64,
    upto: i64,
    limit: i64,
) -> Result<Vec<Change>, sqlx::Error> {
    sqlx::query_as::<_, Change>(
        "SELECT version, entity, entity_id FROM config_changes WHERE version > $1 \
         AND version <= $2 ORDER BY version LIMIT $3",
    )
    .bind(after)
    .bind(upto)
    .bind(limit)
    .fetch_all(&db.pool)
    .await
}

/// PostgreSQL: the transactions that recorded a config change and have not ended yet. The
/// trigger takes a shared transaction-level advisory lock (keys 52717, 1) before it draws a
/// version, so a version drawn by a writer still open is always covered by this list.
pub async fn open_writers(db: &Db) -> Result<Vec<String>, sqlx::Error> {
    let rows: Vec<(String,)> = sqlx::query_as(
        "SELECT virtualtransaction::text FROM pg_locks WHERE locktype = 'advisory' \
         AND classid = 52717 AND objid = 1 AND objsubid = 2 \
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(|(v,)| v).collect())
}

/// Deletes changes recorded before `before` (epoch seconds), always keeping the newest one so
/// the current version stays known. Returns how many rows went.
pub async fn prune(db: &Db, before: i64) -> Result<u64, sqlx::Error> {
    Ok(sqlx::query(
        "DELETE FROM config_changes WHERE created_at < $1 \
         AND version < (SELECT MAX(version) FROM config_changes)",
    )
    .bind(before)
    .execute(&db.pool)
    .await?
    .rows_affected())
}

/// A user's fields that gateways need.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GatewayUser {
    pub id: i64,
    pub username: String,
    pub status: i64,
    pub group: String,
    pub quota: i64,
    pub role: i64,
    pub used_quota: i64,
    /// The user's settings JSON (the gateway needs `accept_unset_model_ratio_model`).
    pub setting: String,
}

/// A token's fields that gateways need (no key: gateways look tokens up by key hash).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GatewayToken {
    pub id: i64,
    pub user_id: i64,
    pub name: String,
    pub key_hash: String,
    pub status: i64,
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

/// Live (not deleted) users: all of them, or those among `ids`.
pub async fn users(db: &Db, ids: Option<&[i64]>) -> Result<Vec<GatewayUser>, sqlx::Error> {
    let mut q = DynQuery::new(
        "SELECT id, username, status, \"group\", quota, role, used_quota, setting FROM users \
         WHERE deleted_at IS NULL",
    );
    if let Some(ids) = ids {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        q.push(" AND ");
        push_ids(&mut q, db.kind, "id", ids);
    }
    q.build_as::<GatewayUser>().fetch_all(&db.pool).await
}

/// Live (not deleted) tokens: all of them, or those among `ids`.
pub async fn tokens(db: &Db, ids: Option<&[i64]>) -> Result<Vec<GatewayToken>, sqlx::Error> {
    let mut q = DynQuery::new(
        "SELECT id, user_id, name, key_hash, status, expired_time, remain_quota, used_quota, \
         unlimited_quota, model_limits_enabled, model_limits, allow_ips, \"group\", rate_limit_enabled, rate_limit_period, \
         rate_limit_count, rate_limit_success FROM tokens \
         WHERE deleted_at IS NULL",
    );
    if let Some(ids) = ids {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        q.push(" AND ");
        push_ids(&mut q, db.kind, "id", ids);
    }
    q.build_as::<GatewayToken>().fetch_all(&db.pool).await
}

/// Channels: all of them, or those among `ids`.
pub async fn channels(db: &Db, ids: Option<&[i64]>) -> Result<Vec<ChannelRecord>, sqlx::Error> {
    let Some(ids) = ids else {
        return super::channels::all(db, true).await;
    };
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(c) = super::channels::find(db, *id).await? {
            out.push(c);
        }
    }
    Ok(out)
}

/// A gateway as recorded by the config feed.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct GatewayRow {
    pub gateway_id: String,
    pub applied_version: i64,
    /// Epoch seconds.
    pub last_contact: i64,
    /// Watch streams open now (over every replica).
    pub connected: i64,
}

/// Records that `gateway_id` opened a Watch stream from `version`.
pub async fn gateway_watching(db: &Db, gateway_id: &str, version: i64) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO gateways (gateway_id, applied_version, last_contact, connected) \
         VALUES ($1, $2, $3, 1) ON CONFLICT (gateway_id) DO UPDATE SET \
         applied_version = excluded.applied_version, last_contact = excluded.last_contact, \
         connected = gateways.connected + 1",
    )
    .bind(gateway_id)
    .bind(version)
    .bind(super::now())
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Records that `gateway_id` applied `version`.
pub async fn gateway_applied(db: &Db, gateway_id: &str, version: i64) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO gateways (gateway_id, applied_version, last_contact, connected) \
         VALUES ($1, $2, $3, 0) ON CONFLICT (gateway_id) DO UPDATE SET \
         applied_version = excluded.applied_version, last_contact = excluded.last_contact",
    )
    .bind(gateway_id)
    .bind(version)
    .bind(super::now())
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Records that one Watch stream of `gateway_id` ended.
pub async fn gateway_gone(db: &Db, gateway_id: &str) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE gateways SET last_contact = $1, \
         connected = CASE WHEN connected > 0 THEN connected - 1 ELSE 0 END WHERE gateway_id = $2",
    )
    .bind(super::now())
    .bind(gateway_id)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Every gateway recorded, by id.
pub async fn gateways(db: &Db) -> Result<Vec<GatewayRow>, sqlx::Error> {
    sqlx::query_as::<_, GatewayRow>(
        "SELECT gateway_id, applied_version, last_contact, connected FROM gateways ORDER BY gateway_id",
    )
    .fetch_all(&db.pool)
    .await
}
