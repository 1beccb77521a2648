//! The lifecycle of tasks relayed by gateways (Midjourney drawings in `midjourneys`, Suno songs
//! in `tasks`): stored once from their usage record, read for their owner, picked up by the
//! poller when due, updated from the provider, and refunded exactly once when they fail.

use sqlx::Row;

use super::Db;
use super::dynamic::DynQuery;
use super::logs::{EventLog, LogType};

/// The platform of drawing tasks (table `midjourneys`); every other platform is in `tasks`.
pub const MJ: &str = "mj";
/// Statuses after which a task is no longer polled.
pub const SUCCESS: &str = "SUCCESS";
pub const FAILURE: &str = "FAILURE";

/// A task a gateway reported with the usage record of the request that submitted it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubmittedTask {
    pub platform: String,
    pub task_id: String,
    pub action: String,
    pub prompt: String,
    pub code: i64,
    pub description: String,
    pub properties: String,
}

/// Who paid for a task and what.
#[derive(Debug, Clone, Copy)]
pub struct Payer<'a> {
    pub request_id: &'a str,
    pub user_id: i64,
    pub token_id: i64,
    pub channel_id: i64,
    pub quota: i64,
    /// Unix seconds.
    pub created_at: i64,
}

/// The statement that stores a submitted task in the ingest's transaction (once: by its
/// request id).
pub fn insert(t: &SubmittedTask, p: Payer<'_>) -> DynQuery {
    if t.platform == MJ {
        let mut q = DynQuery::new(
            "INSERT INTO midjourneys (code, user_id, action, mj_id, prompt, description, \
             submit_time, status, progress, channel_id, quota, token_id, request_id, properties, \
             next_poll) VALUES ($1, $2, $3, $4, $5, $6, $7, 'SUBMITTED', '0%', $8, $9, $10, $11, \
             $12, $13) ON CONFLICT (request_id) WHERE request_id IS NOT NULL DO NOTHING",
        );
        q.value_int(t.code)
            .value_int(p.user_id)
            .value_text(t.action.as_str())
            .value_text(t.task_id.as_str())
            .value_text(t.prompt.as_str())
            .value_text(t.description.as_str())
            .value_int(p.created_at.saturating_mul(1000))
            .value_int(p.channel_id)
            .value_int(p.quota)
            .value_int(p.token_id)
            .value_text(p.request_id)
            .value_text(t.properties.as_str())
            .value_int(p.created_at);
        q
    } else {
        let mut q = DynQuery::new(
            "INSERT INTO tasks (created_at, updated_at, task_id, platform, user_id, channel_id, \
             quota, action, status, submit_time, progress, token_id, request_id, prompt, \
             next_poll) VALUES ($1, $1, $2, $3, $4, $5, $6, $7, 'SUBMITTED', $1, '0%', $8, $9, \
             $10, $1) ON CONFLICT (request_id) WHERE request_id IS NOT NULL DO NOTHING",
        );
        q.value_int(p.created_at)
            .value_text(t.task_id.as_str())
            .value_text(t.platform.as_str())
            .value_int(p.user_id)
            .value_int(p.channel_id)
            .value_int(p.quota)
            .value_text(t.action.as_str())
            .value_int(p.token_id)
            .value_text(p.request_id)
            .value_text(t.prompt.as_str());
        q
    }
}

/// A task as last seen at its provider (what gateways answer fetches with).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskView {
    pub task_id: String,
    pub action: String,
    pub prompt: String,
    pub prompt_en: String,
    pub description: String,
    pub status: String,
    pub progress: String,
    pub fail_reason: String,
    pub submit_time: i64,
    pub start_time: i64,
    pub finish_time: i64,
    pub image_url: String,
    pub buttons: String,
    pub properties: String,
    pub data: String,
    pub channel_id: i64,
}

/// Most tasks one lookup answers.
pub const MAX_LOOKUP: usize = 100;

/// `user_id`'s tasks among `task_ids` (the provider's ids) on `platform`; others' are never
/// returned, whatever ids are asked for.
pub async fn for_user(
    db: &Db,
    user_id: i64,
    platform: &str,
    task_ids: &[String],
) -> Result<Vec<TaskView>, sqlx::Error> {
    let mut out = Vec::new();
    for id in task_ids.iter().take(MAX_LOOKUP) {
        let row = if platform == MJ {
            sqlx::query(
                "SELECT mj_id AS task_id, action, prompt, prompt_en, description, status, \
                 progress, fail_reason, submit_time, start_time, finish_time, image_url, \
                 buttons, properties, '' AS data, channel_id FROM midjourneys \
                 WHERE user_id = $1 AND mj_id = $2 ORDER BY id DESC LIMIT 1",
            )
            .bind(user_id)
            .bind(id)
            .fetch_optional(&db.pool)
            .await?
        } else {
            sqlx::query(
                "SELECT task_id, action, prompt, '' AS prompt_en, '' AS description, status, \
                 progress, fail_reason, submit_time, start_time, finish_time, '' AS image_url, \
                 '' AS buttons, '' AS properties, data, channel_id FROM tasks \
                 WHERE user_id = $1 AND platform = $2 AND task_id = $3 ORDER BY id DESC LIMIT 1",
            )
            .bind(user_id)
            .bind(platform)
            .bind(id)
            .fetch_optional(&db.pool)
            .await?
        };
        if let Some(row) = row {
            out.push(TaskView {
                task_id: row.try_get("task_id")?,
                action: row.try_get("action")?,
                prompt: row.try_get("prompt")?,
                prompt_en: row.try_get("prompt_en")?,
                description: row.try_get("description")?,
                status: row.try_get("status")?,
                progress: row.try_get("progress")?,
                fail_reason: row.try_get("fail_reason")?,
                submit_time: row.try_get("submit_time")?,
                start_time: row.try_get("start_time")?,
                finish_time: row.try_get("finish_time")?,
                image_url: row.try_get("image_url")?,
                buttons: row.try_get("buttons")?,
                properties: row.try_get("properties")?,
                data: row.try_get("data")?,
                channel_id: row.try_get("channel_id")?,
            });
        }
    }
    Ok(out)
}

/// The image of a finished drawing, whoever owns it (the image proxy's lookup).
pub async fn image_of(db: &Db, task_id: &str) -> Result<Option<String>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT image_url FROM midjourneys WHERE mj_id = $1 AND image_url <> '' \
         ORDER BY id DESC LIMIT 1",
    )
    .bind(task_id)
    .fetch_optional(&db.pool)
    .await?;
    row.map(|r| r.try_get("image_url")).transpose()
}

/// A task the poller should look at.
#[derive(Debug, Clone, PartialEq)]
pub struct DueTask {
    pub platform: String,
    /// Row id.
    pub id: i64,
    pub task_id: String,
    pub channel_id: i64,
    /// Unix seconds of its submission.
    pub submitted_at: i64,
    pub polls: i64,
}

/// Unfinished, unrefunded tasks whose next look is due at `now` (Unix seconds), oldest due
/// first, at most `limit` of each table.
pub async fn due(db: &Db, now: i64, limit: i64) -> Result<Vec<DueTask>, sqlx::Error> {
    let drawings = sqlx::query(
        "SELECT id, mj_id, channel_id, submit_time, polls FROM midjourneys \
         WHERE finish_time = 0 AND refunded = 0 AND status <> 'SUCCESS' \
         AND status <> 'FAILURE' AND next_poll <= $1 AND request_id IS NOT NULL \
         ORDER BY next_poll LIMIT $2",
    )
    .bind(now)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?;
    let tasks = sqlx::query(
        "SELECT id, platform, task_id, channel_id, submit_time, polls FROM tasks \
         WHERE finish_time = 0 AND refunded = 0 AND status <> 'SUCCESS' \
         AND status <> 'FAILURE' AND next_poll <= $1 AND request_id IS NOT NULL \
         ORDER BY next_poll LIMIT $2",
    )
    .bind(now)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?;
    let mut out = Vec::with_capacity(drawings.len() + tasks.len());
    for row in drawings {
        out.push(DueTask {
            platform: MJ.to_owned(),
            id: row.try_get("id")?,
            task_id: row.try_get("mj_id")?,
            channel_id: row.try_get("channel_id")?,
            submitted_at: row.try_get::<i64, _>("submit_time")? / 1000,
            polls: row.try_get("polls")?,
        });
    }
    for row in tasks {
        out.push(DueTask {
            platform: row.try_get("platform")?,
            id: row.try_get("id")?,
            task_id: row.try_get("task_id")?,
            channel_id: row.try_get("channel_id")?,
            submitted_at: row.try_get("submit_time")?,
            polls: row.try_get("polls")?,
        });
    }
    Ok(out)
}

/// Records what the provider showed of an unfinished task, and when to look again.
pub async fn update(
    db: &Db,
    task: &DueTask,
    seen: &TaskView,
    next_poll: i64,
    now: i64,
) -> Result<(), sqlx::Error> {
    if task.platform == MJ {
        sqlx::query(
            "UPDATE midjourneys SET status = $1, progress = $2, image_url = $3, \
             fail_reason = $4, start_time = $5, finish_time = $6, buttons = $7, \
             properties = $8, prompt_en = $9, description = $10, polls = polls + 1, \
             next_poll = $11 WHERE id = $12 AND refunded = 0",
        )
        .bind(&seen.status)
        .bind(&seen.progress)
        .bind(&seen.image_url)
        .bind(&seen.fail_reason)
        .bind(seen.start_time)
        .bind(seen.finish_time)
        .bind(&seen.buttons)
        .bind(&seen.properties)
        .bind(&seen.prompt_en)
        .bind(&seen.description)
        .bind(next_poll)
        .bind(task.id)
        .execute(&db.pool)
        .await?;
    } else {
        sqlx::query(
            "UPDATE tasks SET status = $1, progress = $2, fail_reason = $3, start_time = $4, \
             finish_time = $5, data = $6, updated_at = $7, polls = polls + 1, next_poll = $8 \
             WHERE id = $9 AND refunded = 0",
        )
        .bind(&seen.status)
        .bind(&seen.progress)
        .bind(&seen.fail_reason)
        .bind(seen.start_time)
        .bind(seen.finish_time)
        .bind(&seen.data)
        .bind(now)
        .bind(next_poll)
        .bind(task.id)
        .execute(&db.pool)
        .await?;
    }
    Ok(())
}

/// Looks again later without news (the provider did not list the task).
pub async fn postpone(db: &Db, task: &DueTask, next_poll: i64) -> Result<(), sqlx::Error> {
    let sql = if task.platform == MJ {
        "UPDATE midjourneys SET polls = polls + 1, next_poll = $1 WHERE id = $2"
    } else {
        "UPDATE tasks SET polls = polls + 1, next_poll = $1 WHERE id = $2"
    };
    sqlx::query(sql)
        .bind(next_poll)
        .bind(task.id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Marks a task failed and gives its charge back to the user and the token, with a log row,
/// in one transaction; `false` when it was already refunded (or had succeeded), so a task is
/// refunded at most once however many replicas or polls see it fail.
pub async fn fail_and_refund(
    db: &Db,
    task: &DueTask,
    seen: &TaskView,
    now: i64,
) -> Result<bool, sqlx::Error> {
    let mut tx = db.pool.begin().await?;
    let claimed = if task.platform == MJ {
        sqlx::query(
            "UPDATE midjourneys SET status = 'FAILURE', refunded = 1, fail_reason = $1, \
             progress = $2, start_time = $3, finish_time = $4, polls = polls + 1 \
             WHERE id = $5 AND refunded = 0 AND status <> 'SUCCESS' \
             RETURNING user_id, token_id, quota",
        )
        .bind(&seen.fail_reason)
        .bind(&seen.progress)
        .bind(seen.start_time)
        .bind(seen.finish_time.max(1))
        .bind(task.id)
        .fetch_optional(&mut *tx)
        .await?
    } else {
        sqlx::query(
            "UPDATE tasks SET status = 'FAILURE', refunded = 1, fail_reason = $1, progress = $2, \
             start_time = $3, finish_time = $4, updated_at = $5, polls = polls + 1 \
             WHERE id = $6 AND refunded = 0 AND status <> 'SUCCESS' \
             RETURNING user_id, token_id, quota",
        )
        .bind(&seen.fail_reason)
        .bind(&seen.progress)
        .bind(seen.start_time)
        .bind(seen.finish_time.max(1))
        .bind(now)
        .bind(task.id)
        .fetch_optional(&mut *tx)
        .await?
    };
    let Some(row) = claimed else {
        return Ok(false);
    };
    let (user_id, token_id, quota): (i64, i64, i64) = (
        row.try_get("user_id")?,
        row.try_get("token_id")?,
        row.try_get("quota")?,
    );
    if quota > 0 {
        sqlx::query(
            "UPDATE users SET quota = quota + $1, used_quota = used_quota - $1 WHERE id = $2",
        )
        .bind(quota)
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
        if token_id > 0 {
            sqlx::query(
                "UPDATE tokens SET remain_quota = remain_quota + $1, \
                 used_quota = used_quota - $1 WHERE id = $2",
            )
            .bind(quota)
            .bind(token_id)
            .execute(&mut *tx)
            .await?;
        }
        let username: String = sqlx::query("SELECT username FROM users WHERE id = $1")
            .bind(user_id)
            .fetch_optional(&mut *tx)
            .await?
            .map(|r| r.try_get("username"))
            .transpose()?
            .unwrap_or_default();
        super::logs::insert_event(
            &mut *tx,
            EventLog {
                user_id,
                username: &username,
                kind: LogType::System,
                content: format!(
                    "task {} failed ({}): {quota} quota refunded",
                    task.task_id, seen.fail_reason
                ),
                quota,
            },
        )
        .await?;
    }
    tx.commit().await?;
    Ok(true)
}
