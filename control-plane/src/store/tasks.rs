//! Asynchronous job records: drawing jobs (`midjourneys`) and generic tasks (`tasks`), listed
//! newest first with the console's filters.

use super::Db;
use super::dynamic::DynQuery;

/// Filters of the drawing and task logs (`user_id` set for a user's own list).
#[derive(Debug, Clone, Default)]
pub struct TaskFilter {
    pub user_id: Option<i64>,
    pub channel_id: Option<i64>,
    /// The provider's job id (`mj_id` or `task_id`).
    pub job_id: Option<String>,
    /// Submit time bounds (epoch seconds).
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// The job's status as stored (`SUCCESS`, `IN_PROGRESS`…).
    pub status: Option<String>,
    /// The task's platform (`suno`…); drawings have none and ignore it.
    pub platform: Option<String>,
}

fn given(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// A drawing job as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DrawingRecord {
    pub id: i64,
    pub code: i64,
    pub user_id: i64,
    pub action: String,
    pub mj_id: String,
    pub prompt: String,
    pub prompt_en: String,
    pub description: String,
    pub state: String,
    pub submit_time: i64,
    pub start_time: i64,
    pub finish_time: i64,
    pub image_url: String,
    pub status: String,
    pub progress: String,
    pub fail_reason: String,
    pub channel_id: i64,
    pub quota: i64,
}

/// A generic task as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TaskRecord {
    pub id: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub task_id: String,
    pub platform: String,
    pub user_id: i64,
    pub channel_id: i64,
    pub quota: i64,
    pub action: String,
    pub status: String,
    pub fail_reason: String,
    pub submit_time: i64,
    pub start_time: i64,
    pub finish_time: i64,
    pub progress: String,
    pub data: String,
}

fn push_filter(q: &mut DynQuery, f: &TaskFilter, job_column: &'static str) {
    if let Some(v) = f.user_id {
        q.push(" AND user_id = ").bind_int(v);
    }
    if let Some(v) = f.channel_id.filter(|c| *c != 0) {
        q.push(" AND channel_id = ").bind_int(v);
    }
    if let Some(v) = given(&f.job_id) {
        q.push(job_column).bind_text(v);
    }
    if let Some(v) = given(&f.status) {
        q.push(" AND status = ").bind_text(v);
    }
    if let Some(v) = f.start.filter(|s| *s > 0) {
        q.push(" AND submit_time >= ").bind_int(v);
    }
    if let Some(v) = f.end.filter(|e| *e > 0) {
        q.push(" AND submit_time <= ").bind_int(v);
    }
}

fn push_platform(q: &mut DynQuery, f: &TaskFilter) {
    if let Some(v) = given(&f.platform) {
        q.push(" AND platform = ").bind_text(v);
    }
}

/// One page of drawing jobs, newest first, and the total matching.
pub async fn drawings(
    db: &Db,
    f: &TaskFilter,
    offset: i64,
    limit: i64,
) -> Result<(Vec<DrawingRecord>, i64), sqlx::Error> {
    use sqlx::Row;
    let mut count = DynQuery::new("SELECT COUNT(*) AS n FROM midjourneys WHERE 1 = 1");
    push_filter(&mut count, f, " AND mj_id = ");
    let total: i64 = count.build().fetch_one(&db.pool).await?.try_get("n")?;
    let mut page = DynQuery::new(
        "SELECT id, code, user_id, action, mj_id, prompt, prompt_en, description, state, \
         submit_time, start_time, finish_time, image_url, status, progress, fail_reason, \
         channel_id, quota FROM midjourneys WHERE 1 = 1",
    );
    push_filter(&mut page, f, " AND mj_id = ");
    page.push(" ORDER BY id DESC LIMIT ")
        .bind_int(limit)
        .push(" OFFSET ")
        .bind_int(offset);
    Ok((page.build_as().fetch_all(&db.pool).await?, total))
}

/// One page of generic tasks, newest first, and the total matching.
pub async fn tasks(
    db: &Db,
    f: &TaskFilter,
    offset: i64,
    limit: i64,
) -> Result<(Vec<TaskRecord>, i64), sqlx::Error> {
    use sqlx::Row;
    let mut count = DynQuery::new("SELECT COUNT(*) AS n FROM tasks WHERE 1 = 1");
    push_filter(&mut count, f, " AND task_id = ");
    push_platform(&mut count, f);
    let total: i64 = count.build().fetch_one(&db.pool).await?.try_get("n")?;
    let mut page = DynQuery::new(
        "SELECT id, created_at, updated_at, task_id, platform, user_id, channel_id, quota, \
         action, status, fail_reason, submit_time, start_time, finish_time, progress, data \
         FROM tasks WHERE 1 = 1",
    );
    push_filter(&mut page, f, " AND task_id = ");
    push_platform(&mut page, f);
    page.push(" ORDER BY id DESC LIMIT ")
        .bind_int(limit)
        .push(" OFFSET ")
        .bind_int(offset);
    Ok((page.build_as().fetch_all(&db.pool).await?, total))
}

/// Stores a drawing job (its `id` is assigned); answers the id.
pub async fn insert_drawing(db: &Db, r: &DrawingRecord) -> Result<i64, sqlx::Error> {
    use sqlx::Row;
    let row = sqlx::query(
        "INSERT INTO midjourneys (code, user_id, action, mj_id, prompt, prompt_en, description, \
         state, submit_time, start_time, finish_time, image_url, status, progress, fail_reason, \
         channel_id, quota) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, \
         $14, $15, $16, $17) RETURNING id",
    )
    .bind(r.code)
    .bind(r.user_id)
    .bind(&r.action)
    .bind(&r.mj_id)
    .bind(&r.prompt)
    .bind(&r.prompt_en)
    .bind(&r.description)
    .bind(&r.state)
    .bind(r.submit_time)
    .bind(r.start_time)
    .bind(r.finish_time)
    .bind(&r.image_url)
    .bind(&r.status)
    .bind(&r.progress)
    .bind(&r.fail_reason)
    .bind(r.channel_id)
    .bind(r.quota)
    .fetch_one(&db.pool)
    .await?;
    row.try_get("id")
}

/// Stores a generic task (its `id` is assigned); answers the id.
pub async fn insert_task(db: &Db, r: &TaskRecord) -> Result<i64, sqlx::Error> {
    use sqlx::Row;
    let row = sqlx::query(
        "INSERT INTO tasks (created_at, updated_at, task_id, platform, user_id, channel_id, \
         quota, action, status, fail_reason, submit_time, start_time, finish_time, progress, \
         data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) \
         RETURNING id",
    )
    .bind(r.created_at)
    .bind(r.updated_at)
    .bind(&r.task_id)
    .bind(&r.platform)
    .bind(r.user_id)
    .bind(r.channel_id)
    .bind(r.quota)
    .bind(&r.action)
    .bind(&r.status)
    .bind(&r.fail_reason)
    .bind(r.submit_time)
    .bind(r.start_time)
    .bind(r.finish_time)
    .bind(&r.progress)
    .bind(&r.data)
    .fetch_one(&db.pool)
    .await?;
    row.try_get("id")
}
