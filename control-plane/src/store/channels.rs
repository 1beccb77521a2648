//! The `channels` table (keys encrypted) and the `abilities` rows derived from each channel:
//! one per group × model, carrying the channel's status, priority, weight and tag.

use sqlx::{FromRow, Row};

use super::Db;
use super::dynamic::DynQuery;

/// A channel as stored.
#[derive(Debug, Clone, FromRow)]
pub struct ChannelRecord {
    pub id: i64,
    #[sqlx(rename = "type")]
    pub channel_type: i64,
    pub name: String,
    pub key_enc: String,
    pub openai_organization: String,
    pub test_model: String,
    pub status: i64,
    pub weight: i64,
    pub priority: i64,
    pub created_time: i64,
    pub test_time: i64,
    pub response_time: i64,
    pub base_url: String,
    pub other: String,
    pub balance: f64,
    pub balance_updated_time: i64,
    pub models: String,
    pub group: String,
    pub used_quota: i64,
    pub model_mapping: String,
    pub status_code_mapping: String,
    pub auto_ban: i64,
    pub other_info: String,
    pub tag: String,
    pub setting: String,
    pub param_override: String,
    pub header_override: String,
    pub model_prefix: String,
    pub max_input_tokens: i64,
    pub remark: String,
    pub multi_key_mode: String,
    /// Disabled keys of a multi-key channel (JSON, see `domain::channel_keys`); written only
    /// by [`set_key_states`] and [`reset_key_states`], never by [`save`].
    pub key_status: String,
}

macro_rules! select_channels {
    ($tail:literal) => {
        concat!(
            "SELECT id, type, name, key_enc, openai_organization, test_model, status, weight, ",
            "priority, created_time, test_time, response_time, base_url, other, balance, ",
            "balance_updated_time, models, \"group\", used_quota, model_mapping, status_code_mapping, ",
            "auto_ban, other_info, tag, setting, param_override, header_override, model_prefix, ",
            "max_input_tokens, remark, multi_key_mode, key_status FROM channels ",
            $tail
        )
    };
}

/// The editable columns, in the order [`bind_editable`] binds them.
macro_rules! editable_columns {
    () => {
        "type, name, key_enc, openai_organization, test_model, status, weight, priority, base_url, \
         other, models, \"group\", model_mapping, status_code_mapping, auto_ban, tag, setting, \
         param_override, header_override, model_prefix, max_input_tokens, remark, multi_key_mode, \
         other_info"
    };
}

/// Binds the 24 editable fields of `c` as `$1`..`$24`.
fn bind_editable<'q>(
    query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    c: &ChannelRecord,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    query
        .bind(c.channel_type)
        .bind(c.name.clone())
        .bind(c.key_enc.clone())
        .bind(c.openai_organization.clone())
        .bind(c.test_model.clone())
        .bind(c.status)
        .bind(c.weight)
        .bind(c.priority)
        .bind(c.base_url.clone())
        .bind(c.other.clone())
        .bind(c.models.clone())
        .bind(c.group.clone())
        .bind(c.model_mapping.clone())
        .bind(c.status_code_mapping.clone())
        .bind(c.auto_ban)
        .bind(c.tag.clone())
        .bind(c.setting.clone())
        .bind(c.param_override.clone())
        .bind(c.header_override.clone())
        .bind(c.model_prefix.clone())
        .bind(c.max_input_tokens)
        .bind(c.remark.clone())
        .bind(c.multi_key_mode.clone())
        .bind(c.other_info.clone())
}

/// Inserts a channel (its abilities too) and returns its id.
pub async fn insert(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    c: &ChannelRecord,
) -> Result<i64, sqlx::Error> {
    let sql = concat!(
        "INSERT INTO channels (",
        editable_columns!(),
        ", created_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, \
         $16, $17, $18, $19, $20, $21, $22, $23, $24, $25) RETURNING id"
    );
    let row = bind_editable(sqlx::query(sql), c)
        .bind(c.created_time)
        .fetch_one(&mut **tx)
        .await?;
    let id: i64 = row.try_get("id")?;
    rebuild_abilities(tx, &ChannelRecord { id, ..c.clone() }).await?;
    Ok(id)
}

/// Saves every editable field of `c` (and its abilities).
pub async fn save(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    c: &ChannelRecord,
) -> Result<(), sqlx::Error> {
    let sql = "UPDATE channels SET type = $1, name = $2, key_enc = $3, openai_organization = $4, \
         test_model = $5, status = $6, weight = $7, priority = $8, base_url = $9, other = $10, \
         models = $11, \"group\" = $12, model_mapping = $13, status_code_mapping = $14, auto_ban = $15, \
         tag = $16, setting = $17, param_override = $18, header_override = $19, model_prefix = $20, \
         max_input_tokens = $21, remark = $22, multi_key_mode = $23, other_info = $24 WHERE id = $25";
    bind_editable(sqlx::query(sql), c)
        .bind(c.id)
        .execute(&mut **tx)
        .await?;
    rebuild_abilities(tx, c).await
}

/// Replaces the abilities of one channel: group × model, enabled when the channel is.
pub async fn rebuild_abilities(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    c: &ChannelRecord,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM abilities WHERE channel_id = $1")
        .bind(c.id)
        .execute(&mut **tx)
        .await?;
    let enabled = i64::from(c.status == crate::domain::channels::STATUS_ENABLED);
    let groups: Vec<&str> = c
        .group
        .split(',')
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .collect();
    let models: Vec<&str> = c
        .models
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .collect();
    for group in &groups {
        for model in &models {
            sqlx::query(
                "INSERT INTO abilities (\"group\", model, channel_id, enabled, priority, weight, tag) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (\"group\", model, channel_id) DO NOTHING",
            )
            .bind(*group)
            .bind(*model)
            .bind(c.id)
            .bind(enabled)
            .bind(c.priority)
            .bind(c.weight)
            .bind(&c.tag)
            .execute(&mut **tx)
            .await?;
        }
    }
    Ok(())
}

pub async fn find(db: &Db, id: i64) -> Result<Option<ChannelRecord>, sqlx::Error> {
    sqlx::query_as::<_, ChannelRecord>(select_channels!("WHERE id = $1"))
        .bind(id)
        .fetch_optional(&db.pool)
        .await
}

/// Every channel, highest priority first (or newest first with `by_id`).
pub async fn all(db: &Db, by_id: bool) -> Result<Vec<ChannelRecord>, sqlx::Error> {
    let sql = if by_id {
        select_channels!("ORDER BY id DESC")
    } else {
        select_channels!("ORDER BY priority DESC, id DESC")
    };
    sqlx::query_as::<_, ChannelRecord>(sql)
        .fetch_all(&db.pool)
        .await
}

/// One page of channels and the total.
pub async fn page(
    db: &Db,
    by_id: bool,
    offset: i64,
    limit: i64,
) -> Result<(Vec<ChannelRecord>, i64), sqlx::Error> {
    let total: i64 = sqlx::query("SELECT COUNT(*) AS n FROM channels")
        .fetch_one(&db.pool)
        .await?
        .try_get("n")?;
    let mut query = DynQuery::new(if by_id {
        select_channels!("ORDER BY id DESC LIMIT ")
    } else {
        select_channels!("ORDER BY priority DESC, id DESC LIMIT ")
    });
    query.bind_int(limit).push(" OFFSET ").bind_int(offset);
    let items = query
        .build_as::<ChannelRecord>()
        .fetch_all(&db.pool)
        .await?;
    Ok((items, total))
}

/// Deletes channels and their abilities; returns how many channels went.
pub async fn delete_many(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    ids: &[i64],
) -> Result<u64, sqlx::Error> {
    let mut removed = 0;
    for id in ids {
        sqlx::query("DELETE FROM abilities WHERE channel_id = $1")
            .bind(*id)
            .execute(&mut **tx)
            .await?;
        removed += sqlx::query("DELETE FROM channels WHERE id = $1")
            .bind(*id)
            .execute(&mut **tx)
            .await?
            .rows_affected();
    }
    Ok(removed)
}

/// Ids of disabled and auto-disabled channels.
pub async fn disabled_ids(db: &Db) -> Result<Vec<i64>, sqlx::Error> {
    let rows = sqlx::query("SELECT id FROM channels WHERE status IN (2, 3)")
        .fetch_all(&db.pool)
        .await?;
    rows.iter().map(|r| r.try_get("id")).collect()
}

/// Ids of the channels carrying `tag`.
pub async fn ids_with_tag(db: &Db, tag: &str) -> Result<Vec<i64>, sqlx::Error> {
    let rows = sqlx::query("SELECT id FROM channels WHERE tag = $1 ORDER BY id")
        .bind(tag)
        .fetch_all(&db.pool)
        .await?;
    rows.iter().map(|r| r.try_get("id")).collect()
}

/// Switches a channel from status `from` to `to` with `other_info` (the reason), only if it
/// still has status `from` (an administrator's change in between wins); its abilities follow.
/// Answers whether it switched.
pub async fn switch_status(
    db: &Db,
    id: i64,
    from: i64,
    to: i64,
    other_info: &str,
) -> Result<bool, sqlx::Error> {
    let mut tx = db.pool.begin().await?;
    let switched = sqlx::query(
        "UPDATE channels SET status = $1, other_info = $2 WHERE id = $3 AND status = $4",
    )
    .bind(to)
    .bind(other_info)
    .bind(id)
    .bind(from)
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    if switched {
        rebuild_abilities_of(&mut tx, id).await?;
    }
    tx.commit().await?;
    Ok(switched)
}

/// Writes a channel's key states, and its status and `other_info` when `status` is given,
/// only if its key states and status are still `before` (a writer in between makes the caller
/// read again); abilities follow a status change. Answers whether it wrote.
pub async fn set_key_states(
    db: &Db,
    id: i64,
    before: (&str, i64),
    key_status: &str,
    status: Option<(i64, &str)>,
) -> Result<bool, sqlx::Error> {
    let mut tx = db.pool.begin().await?;
    let (new_status, info) = status.unwrap_or((before.1, ""));
    let written = sqlx::query(
        "UPDATE channels SET key_status = $1, status = $2, \
         other_info = CASE WHEN $3 THEN $4 ELSE other_info END \
         WHERE id = $5 AND key_status = $6 AND status = $7",
    )
    .bind(key_status)
    .bind(new_status)
    .bind(status.is_some())
    .bind(info)
    .bind(id)
    .bind(before.0)
    .bind(before.1)
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    if written && new_status != before.1 {
        rebuild_abilities_of(&mut tx, id).await?;
    }
    tx.commit().await?;
    Ok(written)
}

/// Rebuilds the abilities of channel `id` as it stands in the transaction.
async fn rebuild_abilities_of(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: i64,
) -> Result<(), sqlx::Error> {
    let channel = sqlx::query_as::<_, ChannelRecord>(select_channels!("WHERE id = $1"))
        .bind(id)
        .fetch_one(&mut **tx)
        .await?;
    rebuild_abilities(tx, &channel).await
}

/// Marks every key of a channel enabled (its keys were replaced).
pub async fn reset_key_states(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE channels SET key_status = '{}' WHERE id = $1 AND key_status <> '{}'")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Records a test: response time (ms) and when.
pub async fn set_test_result(
    db: &Db,
    id: i64,
    response_time_ms: i64,
    now: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE channels SET response_time = $1, test_time = $2 WHERE id = $3")
        .bind(response_time_ms)
        .bind(now)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Records a balance.
pub async fn set_balance(db: &Db, id: i64, balance: f64, now: i64) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE channels SET balance = $1, balance_updated_time = $2 WHERE id = $3")
        .bind(balance)
        .bind(now)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Sets the balance and used quota of a channel (a copy that keeps its source's figures).
pub async fn set_usage_figures(
    db: &Db,
    id: i64,
    source: &ChannelRecord,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE channels SET balance = $1, balance_updated_time = $2, used_quota = $3 WHERE id = $4",
    )
    .bind(source.balance)
    .bind(source.balance_updated_time)
    .bind(source.used_quota)
    .bind(id)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Models of enabled channels.
pub async fn models_enabled(db: &Db) -> Result<Vec<String>, sqlx::Error> {
    let rows = sqlx::query("SELECT DISTINCT model FROM abilities WHERE enabled = 1 ORDER BY model")
        .fetch_all(&db.pool)
        .await?;
    rows.iter().map(|r| r.try_get("model")).collect()
}
