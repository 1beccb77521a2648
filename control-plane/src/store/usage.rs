//! Usage ingest: one transaction per batch of gateway usage records writes the log rows
//! (idempotent by request id), user/token/channel balances and the hourly roll-up. Records
//! that break the rules of [`crate::domain::usage`], or name a user or token that does not
//! match, are kept aside with their reason; the rest of the batch commits.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::batch_tx::BatchTx;
use super::dynamic::{DynQuery, SharedText, bigint_array, push_ids};
use super::logs::LogType;
use super::{Db, DbKind};
use crate::domain::usage::{self as rules, RecordView, Rejection};

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
    /// The asynchronous task the request submitted, if any.
    pub task: Option<super::task_progress::SubmittedTask>,
}

impl UsageRow {
    /// The record's rules, and its task's.
    fn check(&self, now: i64) -> Result<(), Rejection> {
        rules::check(&self.view(), now)?;
        if let Some(t) = &self.task {
            rules::check_task(
                self.kind,
                self.channel_id,
                &t.platform,
                &t.task_id,
                [
                    ("action", &t.action, rules::MAX_NAME),
                    ("prompt", &t.prompt, rules::MAX_TEXT),
                    ("description", &t.description, rules::MAX_TEXT),
                    ("properties", &t.properties, rules::MAX_TEXT),
                ],
            )?;
        }
        Ok(())
    }

    fn view(&self) -> RecordView<'_> {
        RecordView {
            request_id: &self.request_id,
            kind: self.kind,
            created_at: self.created_at,
            user_id: self.user_id,
            token_id: self.token_id,
            channel_id: self.channel_id,
            quota: self.quota,
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.completion_tokens,
            use_time: self.use_time,
            texts: [
                ("username", &self.username, rules::MAX_NAME),
                ("token_name", &self.token_name, rules::MAX_NAME),
                ("group", &self.group, rules::MAX_NAME),
                ("model_name", &self.model_name, rules::MAX_NAME),
                ("ip", &self.ip, rules::MAX_NAME),
                ("content", &self.content, rules::MAX_TEXT),
                ("other", &self.other, rules::MAX_TEXT),
                ("request_id", &self.request_id, rules::MAX_REQUEST_ID),
            ],
        }
    }

    /// The record as text for the rejection table (storable, at most 4 KiB).
    fn describe(&self) -> String {
        rules::storable(&format!("{self:?}"), 4096)
    }
}

/// A record refused by ingest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedRow {
    pub request_id: String,
    /// Stable code (metric label).
    pub code: &'static str,
    pub message: String,
}

/// What one batch did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IngestOutcome {
    /// Rows inserted (and charged, when they are consume rows).
    pub inserted: u32,
    /// Rows whose request id was already stored: neither inserted nor charged.
    pub duplicates: u32,
    /// Rows refused: kept in `usage_rejections`, neither logged nor charged.
    pub rejected: Vec<RejectedRow>,
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

/// How long a usage receipt is kept (far longer than a gateway's spool holds a record).
const RECEIPT_DAYS: i64 = 30;

/// What ingestion writes besides charges: consumption log rows (`LogConsumeEnabled`) and the
/// dashboard's hourly roll-ups (`DataExportEnabled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recording {
    pub consume_logs: bool,
    pub rollups: bool,
}

impl Default for Recording {
    fn default() -> Self {
        Recording {
            consume_logs: true,
            rollups: true,
        }
    }
}

/// Writes `rows` in one transaction, with a log row for each (see [`ingest_with`]).
pub async fn ingest(
    db: &Db,
    gateway_id: &str,
    rows: &[UsageRow],
) -> Result<IngestOutcome, sqlx::Error> {
    ingest_with(db, gateway_id, rows, Recording::default()).await
}

/// Writes `rows` in one transaction. Rows whose request id is already stored (as a log row or
/// a receipt) are skipped, so delivering the same batch twice charges once. Without
/// `consume_logs`, consumption rows are charged without a log row: a receipt of their request
/// id takes its place; without `rollups`, the dashboard's hourly roll-ups are not written.
/// Balances and hourly roll-ups are updated once per user,
/// token, channel and (user, model, hour), in key order, so concurrent batches lock rows in the
/// same order and cannot deadlock each other.
pub async fn ingest_with(
    db: &Db,
    gateway_id: &str,
    rows: &[UsageRow],
    recording: Recording,
) -> Result<IngestOutcome, sqlx::Error> {
    // Read before the transaction: on SQLite a transaction that reads first and writes later
    // cannot wait for another writer. (A token's owner never changes.)
    let verdicts = judge(db, rows).await?;
    if let Some(outcome) = write(db, gateway_id, rows, &verdicts, recording, Census::Count).await? {
        return Ok(outcome);
    }
    // Some log row was not inserted (a resent batch): written again, learning which.
    write(
        db,
        gateway_id,
        rows,
        &verdicts,
        recording,
        Census::Returning,
    )
    .await?
    .ok_or_else(|| sqlx::Error::Protocol("log rows stored without their request ids".into()))
}

/// How the log insert learns which rows it stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Census {
    /// Counts the rows inserted: when that is every row (a batch seen for the first time, the
    /// usual case) it says which, without reading anything back; otherwise the transaction
    /// rolls back and the batch is written again with [`Census::Returning`].
    Count,
    /// Reads back the request id of every row inserted.
    Returning,
}

/// The transaction of [`ingest_with`]; `None` (rolled back) when `census` could not tell which
/// log rows were stored.
async fn write(
    db: &Db,
    gateway_id: &str,
    rows: &[UsageRow],
    verdicts: &[Result<(), Rejection>],
    recording: Recording,
    census: Census,
) -> Result<Option<IngestOutcome>, sqlx::Error> {
    let mut tx = BatchTx::begin(db).await?;
    let mut outcome = IngestOutcome::default();
    let mut accepted = Vec::with_capacity(rows.len());
    for (row, verdict) in rows.iter().zip(verdicts) {
        match verdict {
            Ok(()) => accepted.push(row),
            Err(rejection) => {
                let mut q = DynQuery::new(
                    "INSERT INTO usage_rejections (created_at, gateway_id, request_id, user_id, \
                     token_id, quota, reason, record) VALUES (",
                );
                q.bind_int(super::now())
                    .push(", ")
                    .bind_text(rules::storable(gateway_id, rules::MAX_NAME))
                    .push(", ")
                    .bind_text(rules::storable(&row.request_id, rules::MAX_REQUEST_ID))
                    .push(", ")
                    .bind_int(row.user_id)
                    .push(", ")
                    .bind_int(row.token_id)
                    .push(", ")
                    .bind_int(row.quota)
                    .push(", ")
                    .bind_text(rules::storable(&rejection.message, 1024))
                    .push(", ")
                    .bind_text(row.describe())
                    .push(")");
                tx.execute(q).await?;
                outcome.rejected.push(RejectedRow {
                    request_id: rules::storable(&row.request_id, rules::MAX_REQUEST_ID),
                    code: rejection.code,
                    message: rejection.message.clone(),
                });
            }
        }
    }
    let mut users: BTreeMap<i64, Charge> = BTreeMap::new();
    let mut tokens: BTreeMap<i64, Charge> = BTreeMap::new();
    let mut channels: BTreeMap<i64, Charge> = BTreeMap::new();
    let mut hours: BTreeMap<(i64, &str, i64), HourSum> = BTreeMap::new();
    // Consumption without a log row leaves a receipt of its request id instead.
    let logged = |row: &UsageRow| {
        recording.consume_logs || row.kind != LogType::Consume as i64 || request_id(row).is_none()
    };
    let receipts = accepted.iter().any(|row| !logged(row));
    let mut stored = Vec::with_capacity(accepted.len());
    for row in &accepted {
        stored.push(match request_id(row).filter(|_| !logged(row)) {
            Some(id) => insert_receipt(&mut tx, id, row.created_at).await?,
            None => false,
        });
    }
    let to_log: Vec<&UsageRow> = accepted.iter().copied().filter(|r| logged(r)).collect();
    let kind = db.kind;
    let Some(logged_rows) = insert_logs(&mut tx, kind, &to_log, census).await? else {
        return Ok(None);
    };
    let mut logged_rows = logged_rows.into_iter();
    for (row, stored) in accepted.iter().zip(stored.iter_mut()) {
        if logged(row) {
            *stored = logged_rows.next().unwrap_or(false);
        }
    }
    for (row, inserted) in accepted.into_iter().zip(stored) {
        if !inserted {
            outcome.duplicates += 1;
            continue;
        }
        outcome.inserted += 1;
        if row.kind != LogType::Consume as i64 {
            continue;
        }
        if let (Some(task), Some(request_id)) = (&row.task, request_id(row)) {
            tx.execute(super::task_progress::insert(
                task,
                super::task_progress::Payer {
                    request_id,
                    user_id: row.user_id,
                    token_id: row.token_id,
                    channel_id: row.channel_id,
                    quota: row.quota,
                    created_at: row.created_at,
                },
            ))
            .await?;
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
        if !recording.rollups {
            continue;
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
    charge_balances(&mut tx, kind, Balance::Users, &users).await?;
    charge_balances(&mut tx, kind, Balance::Tokens, &tokens).await?;
    charge_balances(&mut tx, kind, Balance::Channels, &channels).await?;
    add_rollups(&mut tx, kind, &hours).await?;
    if receipts && rand::random::<u16>().is_multiple_of(256) {
        let mut q = DynQuery::new("DELETE FROM usage_receipts WHERE created_at < ");
        q.bind_int(super::now() - RECEIPT_DAYS * 86_400);
        tx.execute(q).await?;
    }
    tx.commit().await?;
    Ok(Some(outcome))
}

/// Most rows per multi-row statement on SQLite (PostgreSQL binds a batch as one array per
/// column): 18 values each stays well under SQLite's limit of 32 766 bound parameters.
const ROWS_PER_STATEMENT: usize = 512;

/// `items` cut into statements of [`ROWS_PER_STATEMENT`] rows, then of the powers of two that
/// make up the rest (1 000 rows: 512, 256, 128, 64, 32, 8). A statement's text depends only on
/// its row count, so these few texts are prepared once per connection and then served by the
/// driver's statement cache; with chunks of the rest's own length, the last statement of nearly
/// every batch was new text, parsed and planned again (a 500-row insert: thousands of tokens).
fn statement_chunks<T>(items: &[T]) -> impl Iterator<Item = &[T]> {
    let mut rest = items;
    std::iter::from_fn(move || {
        let len = match rest.len() {
            0 => return None,
            n if n >= ROWS_PER_STATEMENT => ROWS_PER_STATEMENT,
            n => 1 << n.ilog2(),
        };
        let (chunk, tail) = rest.split_at(len);
        rest = tail;
        Some(chunk)
    })
}

/// Stores a receipt for a consumption row that gets no log row; false when its request id is
/// already stored (as a receipt, or as a log row of the record, which has the same time).
async fn insert_receipt(
    tx: &mut BatchTx,
    request_id: &str,
    created_at: i64,
) -> Result<bool, sqlx::Error> {
    let mut q = DynQuery::new(
        "INSERT INTO usage_receipts (request_id, created_at) SELECT $1, $2 \
         WHERE NOT EXISTS (SELECT 1 FROM logs WHERE request_id = $1 AND created_at = $3) \
         ON CONFLICT (request_id) DO NOTHING",
    );
    q.value_text(request_id)
        .value_int(super::now())
        .value_int(created_at);
    let inserted = tx.execute(q).await?;
    Ok(inserted > 0)
}

/// Writes the log rows (PostgreSQL: one statement for the batch; SQLite: one per
/// [`statement_chunks`]); answers for each row whether it was stored (false: its request id
/// was already stored, as a log row, a receipt or an earlier row of the same batch), or `None`
/// when [`Census::Count`] found a row not stored.
async fn insert_logs(
    tx: &mut BatchTx,
    kind: DbKind,
    rows: &[&UsageRow],
    census: Census,
) -> Result<Option<Vec<bool>>, sqlx::Error> {
    if census == Census::Count {
        match copy_logs(tx, rows).await? {
            Some(true) => return Ok(Some(vec![true; rows.len()])),
            Some(false) => return Ok(None),
            None => {}
        }
    }
    let mut stored = Vec::with_capacity(rows.len());
    let chunks: Vec<&[&UsageRow]> = match kind {
        DbKind::Postgres => vec![rows],
        DbKind::Sqlite => statement_chunks(rows).collect(),
    };
    for chunk in chunks {
        let mut q = match kind {
            DbKind::Postgres => log_rows_as_arrays(chunk),
            DbKind::Sqlite => log_rows_as_values(chunk),
        };
        if census == Census::Count {
            // A row without a request id is always inserted, one with an id when it is new: the
            // count is the chunk's length exactly when every row was stored.
            let inserted = tx.execute(q).await?;
            if inserted != chunk.len() as u64 {
                return Ok(None);
            }
            stored.extend(std::iter::repeat_n(true, chunk.len()));
            continue;
        }
        q.push(" RETURNING request_id");
        let mut new_ids: std::collections::HashSet<String> =
            tx.fetch_texts(q).await?.into_iter().flatten().collect();
        stored.extend(
            chunk
                .iter()
                .map(|row| row.request_id.is_empty() || new_ids.remove(row.request_id.as_str())),
        );
    }
    Ok(Some(stored))
}

/// The insert's head: the columns a usage record fills in `logs`, in the order both
/// backends' inserts (and [`log_rows_as_copy`]) give them.
macro_rules! insert_log_columns {
    ($insert:literal) => {
        concat!(
            $insert,
            " logs (user_id, created_at, type, content, username, token_name, \
         model_name, quota, prompt_tokens, completion_tokens, use_time, is_stream, channel_id, \
         token_id, \"group\", ip, request_id, other) "
        )
    };
}

/// Copies the log rows of a batch seen for the first time, on PostgreSQL's own driver: `COPY`
/// costs the server about a third less per row than the insert from arrays (no literal to
/// parse, no speculative insertion per row for `ON CONFLICT`). `Some(true)` when every row was
/// stored; `Some(false)` when some may not be new (a receipt holds one of their request ids,
/// or the server refused the copy: a request id already stored, as when a gateway delivers a
/// batch again), and the transaction is left to be rolled back, so that the insert, which skips
/// what is stored, writes the batch instead; `None` on a connection that cannot copy.
async fn copy_logs(tx: &mut BatchTx, rows: &[&UsageRow]) -> Result<Option<bool>, sqlx::Error> {
    if !tx.can_copy() {
        return Ok(None);
    }
    if rows.is_empty() {
        return Ok(Some(true));
    }
    // A consumption record charged while its log rows were off left a receipt instead: `COPY`
    // cannot skip it, the insert does.
    let mut receipts =
        DynQuery::new("SELECT request_id FROM usage_receipts WHERE request_id IN (SELECT unnest(");
    receipts
        .bind_text(text_array(
            rows.iter().filter_map(|r| request_id(r)).map(Some),
        ))
        .push("::TEXT[])) LIMIT 1");
    if !tx.fetch_texts(receipts).await?.is_empty() {
        return Ok(Some(false));
    }
    let Some(data) = log_rows_as_copy(rows) else {
        return Ok(None);
    };
    match tx
        .copy_in(
            concat!(insert_log_columns!("COPY"), "FROM STDIN (FORMAT binary)"),
            data,
        )
        .await
    {
        Ok(Some(copied)) => Ok(Some(copied == rows.len() as u64)),
        Ok(None) => Ok(None),
        Err(sqlx::Error::Database(e)) => {
            tracing::debug!(error = %e, "log rows not copied; inserting them instead");
            Ok(Some(false))
        }
        Err(e) => Err(e),
    }
}

/// `rows` in `COPY`'s binary format, in the columns of [`insert_log_columns`]: PostgreSQL
/// takes every value as it is stored, with nothing to parse or escape. `None` for a text over
/// the format's 2 GiB (never a usage record's).
fn log_rows_as_copy(rows: &[&UsageRow]) -> Option<Vec<u8>> {
    const COLUMNS: i16 = 18;
    let mut out = Vec::with_capacity(21 + rows.len() * 320);
    // Signature, flags (no OIDs), header extension length.
    out.extend_from_slice(b"PGCOPY\n\xff\r\n\0");
    out.extend_from_slice(&0i32.to_be_bytes());
    out.extend_from_slice(&0i32.to_be_bytes());
    let int = |out: &mut Vec<u8>, v: i64| {
        out.extend_from_slice(&8i32.to_be_bytes());
        out.extend_from_slice(&v.to_be_bytes());
    };
    let text = |out: &mut Vec<u8>, v: Option<&str>| -> Option<()> {
        match v {
            Some(t) => {
                out.extend_from_slice(&i32::try_from(t.len()).ok()?.to_be_bytes());
                out.extend_from_slice(t.as_bytes());
            }
            None => out.extend_from_slice(&(-1i32).to_be_bytes()),
        }
        Some(())
    };
    for r in rows {
        out.extend_from_slice(&COLUMNS.to_be_bytes());
        int(&mut out, r.user_id);
        int(&mut out, r.created_at);
        int(&mut out, r.kind);
        text(&mut out, Some(&r.content))?;
        text(&mut out, Some(&r.username))?;
        text(&mut out, Some(&r.token_name))?;
        text(&mut out, Some(&r.model_name))?;
        int(&mut out, r.quota);
        int(&mut out, r.prompt_tokens);
        int(&mut out, r.completion_tokens);
        int(&mut out, r.use_time);
        int(&mut out, i64::from(r.is_stream));
        int(&mut out, r.channel_id);
        int(&mut out, r.token_id);
        text(&mut out, Some(&r.group))?;
        text(&mut out, Some(&r.ip))?;
        text(&mut out, request_id(r))?;
        text(&mut out, Some(&r.other))?;
    }
    out.extend_from_slice(&(-1i16).to_be_bytes());
    Some(out)
}

/// PostgreSQL's insert of `rows`: the whole batch as one array per column, bound as text and
/// expanded by `unnest`, so the statement's text and plan are the same for every batch and no
/// value is bound on its own. (The logs are partitioned by time, so their unique key holds the
/// record's time as well.)
fn log_rows_as_arrays(rows: &[&UsageRow]) -> DynQuery {
    let ints = |f: fn(&UsageRow) -> i64| bigint_array(rows.iter().map(|r| f(r)));
    let texts = |f: fn(&UsageRow) -> &str| text_array(rows.iter().map(|r| Some(f(r))));
    let mut q = DynQuery::new(concat!(
        insert_log_columns!("INSERT INTO"),
        "SELECT v.user_id, v.created_at, v.type, v.content, v.username, v.token_name, \
         v.model_name, v.quota, v.prompt_tokens, v.completion_tokens, v.use_time, v.is_stream, \
         v.channel_id, v.token_id, v.\"group\", v.ip, v.request_id, v.other FROM unnest(",
    ));
    q.bind_text(ints(|r| r.user_id))
        .push("::BIGINT[], ")
        .bind_text(ints(|r| r.created_at))
        .push("::BIGINT[], ")
        .bind_text(ints(|r| r.kind))
        .push("::BIGINT[], ")
        .bind_text(texts(|r| &r.content))
        .push("::TEXT[], ")
        .bind_text(texts(|r| &r.username))
        .push("::TEXT[], ")
        .bind_text(texts(|r| &r.token_name))
        .push("::TEXT[], ")
        .bind_text(texts(|r| &r.model_name))
        .push("::TEXT[], ")
        .bind_text(ints(|r| r.quota))
        .push("::BIGINT[], ")
        .bind_text(ints(|r| r.prompt_tokens))
        .push("::BIGINT[], ")
        .bind_text(ints(|r| r.completion_tokens))
        .push("::BIGINT[], ")
        .bind_text(ints(|r| r.use_time))
        .push("::BIGINT[], ")
        .bind_text(ints(|r| i64::from(r.is_stream)))
        .push("::BIGINT[], ")
        .bind_text(ints(|r| r.channel_id))
        .push("::BIGINT[], ")
        .bind_text(ints(|r| r.token_id))
        .push("::BIGINT[], ")
        .bind_text(texts(|r| &r.group))
        .push("::TEXT[], ")
        .bind_text(texts(|r| &r.ip))
        .push("::TEXT[], ")
        .bind_text(text_array(rows.iter().map(|r| request_id(r))))
        .push("::TEXT[], ")
        .bind_text(texts(|r| &r.other))
        .push(
            "::TEXT[]) AS v(user_id, created_at, type, content, username, token_name, \
             model_name, quota, prompt_tokens, completion_tokens, use_time, is_stream, \
             channel_id, token_id, \"group\", ip, request_id, other) \
             WHERE NOT EXISTS (SELECT 1 FROM usage_receipts r WHERE r.request_id = v.request_id) \
             ON CONFLICT (request_id, created_at) DO NOTHING",
        );
    q
}

/// SQLite's insert of `rows`: a multi-row VALUES list with anonymous placeholders (SQLite's
/// JSON functions cost it several times more per row than bound values). `OR IGNORE` skips a
/// row whose request id is stored, as `ON CONFLICT DO NOTHING` would; unlike the upsert, it
/// cannot abort the statement halfway (every value bound is non-null but the request id, and
/// `logs` has no check, foreign key or trigger), so SQLite keeps no statement journal: a copy
/// of every page the statement changes, made only to undo it.
fn log_rows_as_values(rows: &[&UsageRow]) -> DynQuery {
    let mut q = DynQuery::batch(
        DbKind::Sqlite,
        concat!(
            insert_log_columns!("INSERT OR IGNORE INTO"),
            "SELECT column1, column2, column3, column4, column5, column6, column7, column8, \
         column9, column10, column11, column12, column13, column14, column15, column16, \
         column17, column18 FROM (VALUES ",
        ),
    );
    // Each row: 18 placeholders with their separators and parentheses, under 64 bytes.
    q.reserve(rows.len() * 64 + 128, rows.len() * 18);
    // One shared copy per column while the value repeats from row to row.
    let [
        mut content,
        mut username,
        mut token_name,
        mut model_name,
        mut group,
        mut ip,
        mut other,
    ] = std::array::from_fn(|_| SharedText::default());
    for (i, row) in rows.iter().enumerate() {
        q.push(if i == 0 { "(" } else { ", (" });
        q.bind_int(row.user_id)
            .push(", ")
            .bind_int(row.created_at)
            .push(", ")
            .bind_int(row.kind)
            .push(", ")
            .bind_shared(content.get(&row.content))
            .push(", ")
            .bind_shared(username.get(&row.username))
            .push(", ")
            .bind_shared(token_name.get(&row.token_name))
            .push(", ")
            .bind_shared(model_name.get(&row.model_name))
            .push(", ")
            .bind_int(row.quota)
            .push(", ")
            .bind_int(row.prompt_tokens)
            .push(", ")
            .bind_int(row.completion_tokens)
            .push(", ")
            .bind_int(row.use_time)
            .push(", ")
            .bind_int(i64::from(row.is_stream))
            .push(", ")
            .bind_int(row.channel_id)
            .push(", ")
            .bind_int(row.token_id)
            .push(", ")
            .bind_shared(group.get(&row.group))
            .push(", ")
            .bind_shared(ip.get(&row.ip))
            .push(", ")
            .bind_opt_text(request_id(row).map(str::to_owned))
            .push(", ")
            .bind_shared(other.get(&row.other))
            .push(")");
    }
    q.push(
        ") AS v WHERE NOT EXISTS (SELECT 1 FROM usage_receipts r WHERE r.request_id = v.column17)",
    );
    q
}

/// A row's request id, when it has one.
fn request_id(row: &UsageRow) -> Option<&str> {
    Some(row.request_id.as_str()).filter(|r| !r.is_empty())
}

/// A balance ingest charges.
#[derive(Clone, Copy)]
enum Balance {
    Users,
    Tokens,
    Channels,
}

impl Balance {
    fn lock(self) -> &'static str {
        match self {
            Balance::Users => "SELECT id FROM users WHERE id IN (",
            Balance::Tokens => "SELECT id FROM tokens WHERE id IN (",
            Balance::Channels => "SELECT id FROM channels WHERE id IN (",
        }
    }

    /// The update, from `v` with the columns `(id, quota, count, now)` named `column1` to
    /// `column4` (a VALUES list's names, which PostgreSQL's `unnest` columns are given too).
    fn update(self) -> &'static str {
        match self {
            Balance::Users => {
                "UPDATE users SET quota = users.quota - v.column2, \
                 used_quota = users.used_quota + v.column2, \
                 request_count = users.request_count + v.column3 FROM "
            }
            Balance::Tokens => {
                "UPDATE tokens SET remain_quota = tokens.remain_quota - \
                 CASE WHEN tokens.unlimited_quota = 0 THEN v.column2 ELSE 0 END, \
                 used_quota = tokens.used_quota + v.column2, accessed_time = v.column4 FROM "
            }
            Balance::Channels => {
                "UPDATE channels SET used_quota = channels.used_quota + v.column2 FROM "
            }
        }
    }

    fn join(self) -> &'static str {
        match self {
            Balance::Users => " WHERE users.id = v.column1",
            Balance::Tokens => " WHERE tokens.id = v.column1",
            Balance::Channels => " WHERE channels.id = v.column1",
        }
    }
}

/// A PostgreSQL array literal of `values`, bound as text and cast to `TEXT[]`: every element in
/// double quotes, with `\` and `"` escaped by a backslash, so any text reads back as it was;
/// `None` is `NULL`.
fn text_array<'a>(values: impl Iterator<Item = Option<&'a str>>) -> String {
    let mut out = String::from("{");
    for (i, v) in values.enumerate() {
        if i > 0 {
            out.push(',');
        }
        let Some(text) = v else {
            out.push_str("NULL");
            continue;
        };
        out.reserve(text.len() + 2);
        out.push('"');
        for c in text.chars() {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('"');
    }
    out.push('}');
    out
}

/// Charges the batch's sums, one statement per table (SQLite: and per chunk). On PostgreSQL the
/// rows are locked in key order first, so concurrent batches cannot deadlock each other; SQLite
/// has one writer at a time.
async fn charge_balances(
    tx: &mut BatchTx,
    kind: DbKind,
    balance: Balance,
    sums: &BTreeMap<i64, Charge>,
) -> Result<(), sqlx::Error> {
    if sums.is_empty() {
        return Ok(());
    }
    let now = super::now();
    if kind == DbKind::Postgres {
        let ids = bigint_array(sums.keys().copied());
        let mut lock = DynQuery::new(balance.lock());
        lock.push("SELECT unnest(")
            .bind_text(ids.clone())
            .push("::BIGINT[])) ORDER BY id FOR UPDATE");
        tx.execute(lock).await?;
        let mut update = DynQuery::new(balance.update());
        update
            .push("unnest(")
            .bind_text(ids)
            .push("::BIGINT[], ")
            .bind_text(bigint_array(sums.values().map(|c| c.quota)))
            .push("::BIGINT[], ")
            .bind_text(bigint_array(sums.values().map(|c| c.count)))
            .push("::BIGINT[], ")
            .bind_text(bigint_array(sums.values().map(|_| now)))
            .push("::BIGINT[]) AS v(column1, column2, column3, column4)")
            .push(balance.join());
        tx.execute(update).await?;
        return Ok(());
    }
    let sums: Vec<(&i64, &Charge)> = sums.iter().collect();
    for chunk in statement_chunks(&sums) {
        let mut q = DynQuery::batch(kind, balance.update());
        q.push("(VALUES ");
        for (i, (id, charge)) in chunk.iter().enumerate() {
            q.push(if i == 0 { "(" } else { ", (" });
            q.bind_int(**id)
                .push(", ")
                .bind_int(charge.quota)
                .push(", ")
                .bind_int(charge.count)
                .push(", ")
                .bind_int(now)
                .push(")");
        }
        q.push(") AS v").push(balance.join());
        tx.execute(q).await?;
    }
    Ok(())
}

/// Adds the batch's hourly sums to the roll-ups (keys in order): one statement on PostgreSQL,
/// one per chunk on SQLite.
async fn add_rollups(
    tx: &mut BatchTx,
    kind: DbKind,
    hours: &BTreeMap<(i64, &str, i64), HourSum>,
) -> Result<(), sqlx::Error> {
    if hours.is_empty() {
        return Ok(());
    }
    if kind == DbKind::Postgres {
        let ints = |f: fn(&(i64, &str, i64), &HourSum) -> i64| {
            bigint_array(hours.iter().map(|(key, sum)| f(key, sum)))
        };
        let mut q = DynQuery::new(
            "INSERT INTO quota_data (user_id, username, model_name, created_at, token_used, \
             count, quota) SELECT v.user_id, v.username, v.model_name, v.created_at, \
             v.token_used, v.count, v.quota FROM unnest(",
        );
        q.bind_text(ints(|(user_id, _, _), _| *user_id))
            .push("::BIGINT[], ")
            .bind_text(text_array(
                hours.values().map(|sum| Some(sum.username.as_str())),
            ))
            .push("::TEXT[], ")
            .bind_text(text_array(hours.keys().map(|(_, model, _)| Some(*model))))
            .push("::TEXT[], ")
            .bind_text(ints(|(_, _, hour), _| *hour))
            .push("::BIGINT[], ")
            .bind_text(ints(|_, sum| sum.tokens))
            .push("::BIGINT[], ")
            .bind_text(ints(|_, sum| sum.count))
            .push("::BIGINT[], ")
            .bind_text(ints(|_, sum| sum.quota))
            .push(
                "::BIGINT[]) AS v(user_id, username, model_name, created_at, token_used, count, \
                 quota)",
            )
            .push(ROLLUP_CONFLICT);
        tx.execute(q).await?;
        return Ok(());
    }
    let hours: Vec<_> = hours.iter().collect();
    for chunk in statement_chunks(&hours) {
        let mut q = DynQuery::batch(
            kind,
            "INSERT INTO quota_data (user_id, username, model_name, created_at, token_used, \
             count, quota) VALUES ",
        );
        for (i, ((user_id, model_name, hour), sum)) in chunk.iter().enumerate() {
            q.push(if i == 0 { "(" } else { ", (" });
            q.bind_int(*user_id)
                .push(", ")
                .bind_text(sum.username.as_str())
                .push(", ")
                .bind_text(*model_name)
                .push(", ")
                .bind_int(*hour)
                .push(", ")
                .bind_int(sum.tokens)
                .push(", ")
                .bind_int(sum.count)
                .push(", ")
                .bind_int(sum.quota)
                .push(")");
        }
        q.push(ROLLUP_CONFLICT);
        tx.execute(q).await?;
    }
    Ok(())
}

/// A roll-up row already there for the hour gets the batch's sums added.
const ROLLUP_CONFLICT: &str = " ON CONFLICT (user_id, model_name, created_at) DO UPDATE SET \
     token_used = quota_data.token_used + excluded.token_used, \
     count = quota_data.count + excluded.count, quota = quota_data.quota + excluded.quota";

/// The verdict on each row: its shape, then whether its user exists and its token belongs to
/// that user (deleted ones count: a request made before the deletion is still charged).
async fn judge(db: &Db, rows: &[UsageRow]) -> Result<Vec<Result<(), Rejection>>, sqlx::Error> {
    let now = super::now();
    let mut verdicts: Vec<Result<(), Rejection>> = rows.iter().map(|r| r.check(now)).collect();
    let named = |pick: fn(&UsageRow) -> i64| -> Vec<i64> {
        rows.iter()
            .zip(&verdicts)
            .filter(|(_, v)| v.is_ok())
            .map(|(r, _)| pick(r))
            .filter(|id| *id > 0)
            .collect::<BTreeSet<i64>>()
            .into_iter()
            .collect()
    };
    let (user_ids, token_ids) = (named(|r| r.user_id), named(|r| r.token_id));
    let users: BTreeSet<i64> = ids_in(db, "SELECT id, id FROM users", &user_ids)
        .await?
        .into_keys()
        .collect();
    let owners = ids_in(db, "SELECT id, user_id FROM tokens", &token_ids).await?;
    for (row, verdict) in rows.iter().zip(verdicts.iter_mut()) {
        if verdict.is_err() || row.user_id == 0 {
            continue;
        }
        if !users.contains(&row.user_id) {
            *verdict = Err(Rejection::new(
                "unknown_user",
                format!("user {} does not exist", row.user_id),
            ));
        } else if row.token_id != 0 && owners.get(&row.token_id) != Some(&row.user_id) {
            // Token 0 (a console playground call, checked by the rules) has no owner to match.
            *verdict = Err(Rejection::new(
                "foreign_token",
                format!(
                    "token {} does not belong to user {}",
                    row.token_id, row.user_id
                ),
            ));
        }
    }
    Ok(verdicts)
}

/// `select` (two integer columns, the first one `id`) for the rows among `ids`, as a map: one
/// statement, the ids bound as one value ([`push_ids`]).
async fn ids_in(
    db: &Db,
    select: &'static str,
    ids: &[i64],
) -> Result<HashMap<i64, i64>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let mut q = DynQuery::new(select);
    q.push(" WHERE ");
    push_ids(&mut q, db.kind, "id", ids);
    let rows: Vec<(i64, i64)> = q.build_as().fetch_all(&db.pool).await?;
    Ok(rows.into_iter().collect())
}

/// A usage record ingest refused.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RejectionRecord {
    pub id: i64,
    pub created_at: i64,
    pub gateway_id: String,
    pub request_id: String,
    pub user_id: i64,
    pub token_id: i64,
    pub quota: i64,
    pub reason: String,
    pub record: String,
}

/// Refused records, newest first, and how many there are.
pub async fn rejections(
    db: &Db,
    limit: i64,
    offset: i64,
) -> Result<(Vec<RejectionRecord>, i64), sqlx::Error> {
    let items = sqlx::query_as::<_, RejectionRecord>(
        "SELECT id, created_at, gateway_id, request_id, user_id, token_id, quota, reason, record \
         FROM usage_rejections ORDER BY id DESC LIMIT $1 OFFSET $2",
    )
    .bind(limit)
    .bind(offset)
    .fetch_all(&db.pool)
    .await?;
    let (total,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM usage_rejections")
        .fetch_one(&db.pool)
        .await?;
    Ok((items, total))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn statement_chunks_cover_every_row_in_order_with_few_distinct_lengths() {
        let mut lengths_seen = BTreeSet::new();
        for n in 0..=2_100usize {
            let items: Vec<usize> = (0..n).collect();
            let chunks: Vec<&[usize]> = statement_chunks(&items).collect();
            assert_eq!(chunks.concat(), items, "{n} rows");
            for chunk in &chunks {
                assert!(chunk.len().is_power_of_two() && chunk.len() <= ROWS_PER_STATEMENT);
                lengths_seen.insert(chunk.len());
            }
            // A full statement at a time, then one statement per set bit of the rest.
            let rest = n % ROWS_PER_STATEMENT;
            assert_eq!(
                chunks.len(),
                n / ROWS_PER_STATEMENT + rest.count_ones() as usize
            );
        }
        assert_eq!(lengths_seen.len(), 10, "1, 2, 4, ... 512");
    }

    #[test]
    fn the_binary_copy_has_its_header_a_tuple_per_row_and_its_trailer() {
        let row = UsageRow {
            request_id: String::new(),
            created_at: 1_700_000_000,
            kind: 2,
            user_id: 9,
            username: "ü".into(),
            ..Default::default()
        };
        let data = log_rows_as_copy(&[&row]).unwrap();
        assert!(data.starts_with(b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0"));
        assert!(data.ends_with(&[0xff, 0xff]));
        let tuple = &data[19..data.len() - 2];
        // 18 fields: user_id, created_at and type as 8-byte integers first.
        assert_eq!(&tuple[..2], &[0, 18]);
        assert_eq!(&tuple[2..6], &[0, 0, 0, 8]);
        assert_eq!(&tuple[6..14], &9i64.to_be_bytes());
        assert_eq!(&tuple[14..18], &[0, 0, 0, 8]);
        assert_eq!(&tuple[18..26], &1_700_000_000i64.to_be_bytes());
        // content (empty), then the username in UTF-8 with its byte length.
        assert_eq!(&tuple[38..42], &[0, 0, 0, 0]);
        assert_eq!(&tuple[42..48], &[0, 0, 0, 2, 0xc3, 0xbc]);
        // No request id is NULL (length -1), just before the last field (other, empty).
        assert_eq!(
            &tuple[tuple.len() - 8..],
            &[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]
        );
    }

    /// `url` with its database name replaced by `name`.
    fn on_database(url: &str, name: &str) -> String {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let root = base.rsplit_once('/').map_or(base, |(root, _)| root);
        let query = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        format!("{root}/{name}{query}")
    }

    #[tokio::test]
    async fn first_deliveries_are_copied_and_anything_not_new_is_left_to_the_insert() {
        let Some(admin_url) = std::env::var("DATABASE_URL").ok().filter(|u| !u.is_empty()) else {
            eprintln!("DATABASE_URL not set: PostgreSQL test skipped");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let admin = Db::connect(Some(&admin_url), dir.path(), 1).await.unwrap();
        let name = format!("usage_copy_{}", std::process::id());
        for sql in [
            format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            format!("CREATE DATABASE {name}"),
        ] {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .execute(&admin.pool)
                .await
                .unwrap();
        }
        let db = Db::connect(Some(&on_database(&admin_url, &name)), dir.path(), 4)
            .await
            .unwrap();
        db.migrate().await.unwrap();

        let rows = [
            UsageRow {
                request_id: "copy-1".into(),
                created_at: 1_700_000_000,
                kind: 2,
                user_id: 1,
                username: "tab\there \"quoted\" \\ back".into(),
                token_name: "line\nbreak\r".into(),
                model_name: "中文-model".into(),
                content: "\\N".into(),
                other: "{\"a\":1}".into(),
                ip: "203.0.113.7".into(),
                group: "default".into(),
                quota: 7,
                prompt_tokens: 1,
                completion_tokens: 2,
                use_time: 3,
                is_stream: true,
                channel_id: 4,
                token_id: 5,
                task: None,
            },
            UsageRow {
                created_at: 1_700_000_001,
                kind: 6,
                ..Default::default()
            },
        ];
        let refs: Vec<&UsageRow> = rows.iter().collect();
        let mut tx = BatchTx::begin(&db).await.unwrap();
        assert_eq!(copy_logs(&mut tx, &refs).await.unwrap(), Some(true));
        tx.commit().await.unwrap();
        type Texts = (
            Option<String>,
            String,
            String,
            String,
            String,
            String,
            String,
            String,
        );
        let texts: Vec<Texts> = sqlx::query_as(
            "SELECT request_id, username, token_name, model_name, content, other, ip, \"group\" \
             FROM logs ORDER BY created_at",
        )
        .fetch_all(&db.pool)
        .await
        .unwrap();
        let want = |r: &UsageRow| {
            (
                request_id(r).map(str::to_owned),
                r.username.clone(),
                r.token_name.clone(),
                r.model_name.clone(),
                r.content.clone(),
                r.other.clone(),
                r.ip.clone(),
                r.group.clone(),
            )
        };
        assert_eq!(texts, rows.iter().map(want).collect::<Vec<_>>());
        type Ints = (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64);
        let ints: Vec<Ints> = sqlx::query_as(
            "SELECT user_id, created_at, type, quota, prompt_tokens, completion_tokens, \
             use_time, is_stream, channel_id, token_id FROM logs ORDER BY created_at",
        )
        .fetch_all(&db.pool)
        .await
        .unwrap();
        assert_eq!(
            ints,
            vec![
                (1, 1_700_000_000, 2, 7, 1, 2, 3, 1, 4, 5),
                (0, 1_700_000_001, 6, 0, 0, 0, 0, 0, 0, 0)
            ]
        );

        // The same rows again: the server refuses the copy and the insert decides.
        let mut tx = BatchTx::begin(&db).await.unwrap();
        assert_eq!(copy_logs(&mut tx, &refs).await.unwrap(), Some(false));
        drop(tx);
        // A receipt holds a request id: nothing is copied.
        sqlx::query("INSERT INTO usage_receipts (request_id, created_at) VALUES ('copy-3', 0)")
            .execute(&db.pool)
            .await
            .unwrap();
        let receipted = UsageRow {
            request_id: "copy-3".into(),
            created_at: 1_700_000_002,
            kind: 2,
            ..Default::default()
        };
        let mut tx = BatchTx::begin(&db).await.unwrap();
        assert_eq!(
            copy_logs(&mut tx, &[&receipted]).await.unwrap(),
            Some(false)
        );
        drop(tx);
        let logs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM logs")
            .fetch_one(&db.pool)
            .await
            .unwrap();
        assert_eq!(logs, 2);

        // A SQLite file has no COPY: its insert writes the rows.
        let sqlite = Db::connect(None, dir.path(), 2).await.unwrap();
        let mut tx = BatchTx::begin(&sqlite).await.unwrap();
        assert_eq!(copy_logs(&mut tx, &refs).await.unwrap(), None);
        drop(tx);
        sqlite.close().await;

        db.close().await;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE {name} WITH (FORCE)"
        )))
        .execute(&admin.pool)
        .await
        .unwrap();
        admin.close().await;
    }

    #[test]
    fn text_arrays_quote_every_element_and_escape_quotes_and_backslashes() {
        assert_eq!(text_array(std::iter::empty()), "{}");
        assert_eq!(
            text_array([Some(""), None, Some("NULL"), Some(" a,{b} ")].into_iter()),
            r#"{"",NULL,"NULL"," a,{b} "}"#
        );
        assert_eq!(
            text_array([Some(r#"say "hi" \ 中文"#)].into_iter()),
            r#"{"say \"hi\" \\ 中文"}"#
        );
    }
}
