//! Counts and totals of the logs over a long time range of all users, read from the hourly
//! roll-up (`logs_hourly`, PostgreSQL, kept exact by triggers on `logs`): whole hours from the
//! roll-up, the partial hours at the range's ends from `logs` itself. A filter naming anything
//! but a time range and a type, a short range, or SQLite, reads `logs` as before.

use sqlx::Row;

use super::dynamic::DynQuery;
use super::logs::LogFilter;
use super::{Db, DbKind};

const HOUR: i64 = 3600;
/// Shorter ranges are read from `logs` alone: a few hours of rows cost less than two queries.
const MIN_HOURS: i64 = 3;

/// A count and the sums of the rows matching a filter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sums {
    pub requests: i64,
    pub quota: i64,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
}

/// The whole hours `[from, to)` of a filter's range `[start, end]`, when the roll-up can
/// answer for it: only a range (a start, an end or none meaning now) and a type.
fn whole_hours(db: &Db, f: &LogFilter, now: i64) -> Option<(i64, i64)> {
    let set = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.trim().is_empty());
    if db.kind != DbKind::Postgres
        || f.user_id.is_some()
        || f.channel_id.is_some_and(|c| c != 0)
        || [
            &f.username,
            &f.token_name,
            &f.model_name,
            &f.group,
            &f.request_id,
        ]
        .into_iter()
        .any(set)
    {
        return None;
    }
    let start = f.start.filter(|s| *s > 0)?;
    let end = f.end.filter(|e| *e > 0).map_or(now, |e| e.min(now));
    let from = start.checked_add(HOUR - 1)?.div_euclid(HOUR) * HOUR;
    let to = end.checked_add(1)?.div_euclid(HOUR) * HOUR;
    (to - from >= MIN_HOURS * HOUR).then_some((from, to))
}

/// The count and sums of the rows of type `kind` (any type when `None`) matching `f`, from the
/// roll-up; `None` when the roll-up cannot answer for `f` (see [`whole_hours`]).
pub async fn sums(
    db: &Db,
    f: &LogFilter,
    kind: Option<i64>,
    now: i64,
) -> Result<Option<Sums>, sqlx::Error> {
    let Some((from, to)) = whole_hours(db, f, now) else {
        return Ok(None);
    };
    let start = f.start.filter(|s| *s > 0).unwrap_or(from);
    let mut q = DynQuery::new(
        "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n, CAST(COALESCE(SUM(q), 0) AS BIGINT) AS q, \
         CAST(COALESCE(SUM(p), 0) AS BIGINT) AS p, CAST(COALESCE(SUM(c), 0) AS BIGINT) AS c FROM (\
         SELECT SUM(requests) AS n, SUM(quota) AS q, SUM(prompt_tokens) AS p, \
         SUM(completion_tokens) AS c FROM logs_hourly WHERE hour >= ",
    );
    q.bind_int(from).push(" AND hour < ").bind_int(to);
    if let Some(k) = kind {
        q.push(" AND type = ").bind_int(k);
    }
    // The partial hour before the first whole one.
    q.push(
        " UNION ALL SELECT COUNT(*), SUM(quota), SUM(prompt_tokens), SUM(completion_tokens) \
         FROM logs WHERE created_at >= ",
    )
    .bind_int(start)
    .push(" AND created_at < ")
    .bind_int(from);
    if let Some(k) = kind {
        q.push(" AND type = ").bind_int(k);
    }
    // After the last whole hour, up to the range's end (none: every later row).
    q.push(
        " UNION ALL SELECT COUNT(*), SUM(quota), SUM(prompt_tokens), SUM(completion_tokens) \
         FROM logs WHERE created_at >= ",
    )
    .bind_int(to);
    if let Some(end) = f.end.filter(|e| *e > 0) {
        q.push(" AND created_at <= ").bind_int(end);
    }
    if let Some(k) = kind {
        q.push(" AND type = ").bind_int(k);
    }
    q.push(") AS parts");
    let row = q.build().fetch_one(&db.pool).await?;
    Ok(Some(Sums {
        requests: row.try_get("n")?,
        quota: row.try_get("q")?,
        prompt_tokens: row.try_get("p")?,
        completion_tokens: row.try_get("c")?,
    }))
}
