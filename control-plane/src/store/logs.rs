//! The `logs` table: records of consumption, top-ups, management and system events; lists,
//! stats and deletion.

use super::now;

/// Log record types (spec 3 §3; the log page selector's reading, where 5 is the check-in). Failed
/// relay requests, which that selector does not list, are 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogType {
    Topup = 1,
    Consume = 2,
    Manage = 3,
    System = 4,
    CheckIn = 5,
    Error = 6,
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

/// A log row as stored, with the channel's name joined in.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LogRecord {
    pub id: i64,
    pub user_id: i64,
    pub created_at: i64,
    #[sqlx(rename = "type")]
    pub kind: i64,
    pub content: String,
    pub username: String,
    pub token_name: String,
    pub model_name: String,
    pub quota: i64,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub use_time: i64,
    pub is_stream: i64,
    pub channel_id: i64,
    pub channel_name: Option<String>,
    pub token_id: i64,
    pub group: String,
    pub ip: String,
    pub request_id: Option<String>,
    pub other: String,
}

/// Filters of the log list and stats; `user_id` scopes to one user.
#[derive(Debug, Default, Clone)]
pub struct LogFilter {
    pub user_id: Option<i64>,
    pub kind: Option<i64>,
    pub username: Option<String>,
    pub token_name: Option<String>,
    pub model_name: Option<String>,
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub channel_id: Option<i64>,
    pub group: Option<String>,
    pub request_id: Option<String>,
}

fn push_log_filter(q: &mut super::dynamic::DynQuery, f: &LogFilter) {
    if let Some(v) = f.user_id {
        q.push(" AND l.user_id = ").bind_int(v);
    }
    if let Some(v) = f.kind.filter(|k| *k != 0) {
        q.push(" AND l.type = ").bind_int(v);
    }
    let text = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    // The user who holds the name now (names are unique): their rows by the user id index,
    // rows written before a rename included. Logs have no index by name: over many users its
    // scattered inserts were the largest single cost of a usage batch on SQLite.
    if let Some(v) = text(&f.username) {
        q.push(" AND l.user_id = (SELECT id FROM users WHERE username = ")
            .bind_text(v)
            .push(")");
    }
    if let Some(v) = text(&f.token_name) {
        q.push(" AND l.token_name = ").bind_text(v);
    }
    if let Some(v) = text(&f.model_name) {
        q.push(" AND l.model_name LIKE ")
            .bind_text(format!("%{}%", super::users::escape_like(&v)))
            .push(" ESCAPE '\\'");
    }
    if let Some(v) = f.start.filter(|s| *s > 0) {
        q.push(" AND l.created_at >= ").bind_int(v);
    }
    if let Some(v) = f.end.filter(|e| *e > 0) {
        q.push(" AND l.created_at <= ").bind_int(v);
    }
    if let Some(v) = f.channel_id.filter(|c| *c != 0) {
        q.push(" AND l.channel_id = ").bind_int(v);
    }
    if let Some(v) = text(&f.group) {
        q.push(" AND l.\"group\" = ").bind_text(v);
    }
    if let Some(v) = text(&f.request_id) {
        q.push(" AND l.request_id = ").bind_text(v);
    }
}

/// One page of logs, newest first, and the total matching.
pub async fn list(
    db: &super::Db,
    f: &LogFilter,
    offset: i64,
    limit: i64,
) -> Result<(Vec<LogRecord>, i64), sqlx::Error> {
    use sqlx::Row;
    let kind = f.kind.filter(|k| *k != 0);
    let total = match super::log_rollup::sums(db, f, kind, now()).await? {
        Some(sums) => sums.requests,
        None => {
            let mut count =
                super::dynamic::DynQuery::new("SELECT COUNT(*) AS n FROM logs l WHERE 1 = 1");
            push_log_filter(&mut count, f);
            count.build().fetch_one(&db.pool).await?.try_get("n")?
        }
    };
    let mut page = super::dynamic::DynQuery::new(
        "SELECT l.id, l.user_id, l.created_at, l.type, l.content, l.username, l.token_name, \
         l.model_name, l.quota, l.prompt_tokens, l.completion_tokens, l.use_time, l.is_stream, \
         l.channel_id, c.name AS channel_name, l.token_id, l.\"group\", l.ip, l.request_id, l.other \
         FROM logs l LEFT JOIN channels c ON c.id = l.channel_id WHERE 1 = 1",
    );
    push_log_filter(&mut page, f);
    page.push(" ORDER BY l.id DESC LIMIT ")
        .bind_int(limit)
        .push(" OFFSET ")
        .bind_int(offset);
    let items = page.build_as::<LogRecord>().fetch_all(&db.pool).await?;
    Ok((items, total))
}

/// Totals of the consumption records matching a filter, and their rates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LogTotals {
    pub quota: i64,
    pub requests: i64,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    /// Requests and tokens per minute: averaged over the filtered range when it has a start
    /// (up to its end, or now), else those of the last minute.
    pub rpm: i64,
    pub tpm: i64,
}

/// Totals over the filter (consumption records only, whatever type it names).
pub async fn stats(db: &super::Db, f: &LogFilter, now: i64) -> Result<LogTotals, sqlx::Error> {
    use sqlx::Row;
    let sums = |q: &mut super::dynamic::DynQuery, f: &LogFilter| push_log_filter(q, f);
    let consume = LogFilter {
        kind: None,
        ..f.clone()
    };
    let consumed = LogType::Consume as i64;
    let s = match super::log_rollup::sums(db, &consume, Some(consumed), now).await? {
        Some(s) => s,
        None => {
            let mut all = super::dynamic::DynQuery::new(
                "SELECT CAST(COALESCE(SUM(l.quota), 0) AS BIGINT) AS q, COUNT(*) AS r, \
                 CAST(COALESCE(SUM(l.prompt_tokens), 0) AS BIGINT) AS p, \
                 CAST(COALESCE(SUM(l.completion_tokens), 0) AS BIGINT) AS c \
                 FROM logs l WHERE l.type = 2",
            );
            sums(&mut all, &consume);
            let row = all.build().fetch_one(&db.pool).await?;
            super::log_rollup::Sums {
                requests: row.try_get("r")?,
                quota: row.try_get("q")?,
                prompt_tokens: row.try_get("p")?,
                completion_tokens: row.try_get("c")?,
            }
        }
    };
    let mut totals = LogTotals {
        quota: s.quota,
        requests: s.requests,
        prompt_tokens: s.prompt_tokens,
        completion_tokens: s.completion_tokens,
        ..LogTotals::default()
    };
    match f.start.filter(|s| *s > 0) {
        Some(start) => {
            let end = f.end.filter(|e| *e > 0).map_or(now, |e| e.min(now));
            let minutes = ((end - start) / 60).max(1);
            totals.rpm = totals.requests / minutes;
            totals.tpm = (totals.prompt_tokens + totals.completion_tokens) / minutes;
        }
        None => {
            let recent = LogFilter {
                start: Some(now - 60),
                end: None,
                ..consume
            };
            let mut minute = super::dynamic::DynQuery::new(
                "SELECT COUNT(*) AS r, CAST(COALESCE(SUM(l.prompt_tokens + l.completion_tokens), 0) AS BIGINT) AS t \
                 FROM logs l WHERE l.type = 2",
            );
            sums(&mut minute, &recent);
            let row = minute.build().fetch_one(&db.pool).await?;
            totals.rpm = row.try_get("r")?;
            totals.tpm = row.try_get("t")?;
        }
    }
    Ok(totals)
}

/// Deletes records created before `before`; returns how many. On PostgreSQL the months wholly
/// before it are dropped as partitions and only the rest is deleted row by row.
pub async fn delete_before(db: &super::Db, before: i64) -> Result<u64, sqlx::Error> {
    if db.kind == super::DbKind::Postgres {
        let (n,): (i64,) = sqlx::query_as("SELECT logs_delete_before($1)")
            .bind(before)
            .fetch_one(&db.pool)
            .await?;
        return Ok(u64::try_from(n).unwrap_or(0));
    }
    let done = sqlx::query("DELETE FROM logs WHERE created_at < $1")
        .bind(before)
        .execute(&db.pool)
        .await?;
    Ok(done.rows_affected())
}

/// Months ahead of the current one whose partitions are kept ready.
const MONTHS_AHEAD: i64 = 2;

/// Makes sure the partitions of the month holding `now` and of the next [`MONTHS_AHEAD`]
/// exist (PostgreSQL; SQLite keeps one table). Records of a month without its partition land
/// in the default partition until it is made.
pub async fn prepare_months(db: &super::Db, now: i64) -> Result<(), sqlx::Error> {
    if db.kind != super::DbKind::Postgres {
        return Ok(());
    }
    sqlx::query(
        "SELECT logs_add_month(CAST(extract(epoch FROM to_timestamp($1) + make_interval(months => CAST(m AS INT))) AS BIGINT)) \
         FROM generate_series(0, $2) AS m",
    )
    .bind(now)
    .bind(MONTHS_AHEAD)
    .execute(&db.pool)
    .await?;
    Ok(())
}
