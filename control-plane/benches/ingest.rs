//! Usage ingest throughput: batches of gateway usage records written into a fresh database
//! (a new one on the PostgreSQL server at `DATABASE_URL`, else a SQLite file), reported as
//! records per second of wall time, per second of this process's own CPU (the control plane's
//! share) and, on PostgreSQL, per second of the CPU of this machine's `postgres` processes
//! (the database server's share, when it runs here and does nothing else meanwhile). Checks
//! on the way that every record was stored and charged exactly once.
//!
//! `DATABASE_URL=postgres://root@127.0.0.1:5432/test cargo bench -p control-plane --bench ingest`
//! (`-- --batches 400 --batch 500` to change the load, `--users 1 --tokens 1` for the gateway
//! bench's single token, `--vary` for batches of varying sizes).

mod common;

/// The control-plane binary's allocator, so that the bench measures what the binary does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;

use common::arg;
use control_plane::store::Db;
use control_plane::store::usage::{UsageRow, ingest};

/// Users and tokens the records are spread over (`--users`, `--tokens`): every batch charges
/// `min(batch, tokens)` tokens. The gateway bench's one user and one token is `--users 1 --tokens 1`.
struct Spread {
    users: i64,
    tokens: i64,
}

impl Spread {
    fn from_args() -> Self {
        let count = |name, default| i64::try_from(arg(name, default).max(1)).unwrap_or(1);
        Spread {
            users: count("--users", 1_000),
            tokens: count("--tokens", 10_000),
        }
    }
}
const QUOTA: i64 = 100;

/// User and system CPU seconds of this process so far (Linux).
fn cpu_seconds() -> f64 {
    stat_cpu_seconds("/proc/self/stat", false)
}

/// User and system CPU seconds so far of the PostgreSQL server's processes on this machine
/// (every process named `postgres`, with the children they have reaped): the database's
/// share when the server runs here.
fn server_cpu_seconds() -> f64 {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    procs
        .flatten()
        .filter(|p| {
            std::fs::read_to_string(p.path().join("comm")).is_ok_and(|c| c.trim() == "postgres")
        })
        .map(|p| stat_cpu_seconds(&p.path().join("stat").display().to_string(), true))
        .sum()
}

/// utime + stime (and with `children`, cutime + cstime) of a `/proc/PID/stat` file.
fn stat_cpu_seconds(path: &str, children: bool) -> f64 {
    let stat = std::fs::read_to_string(path).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start after its closing ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the ')'; cutime and
    // cstime follow them.
    let own = ticks(11) + ticks(12);
    let reaped = if children { ticks(13) + ticks(14) } else { 0.0 };
    (own + reaped) / 100.0
}

async fn fill(db: &Db, spread: &Spread) -> Result<(), sqlx::Error> {
    let (users, tokens) = (spread.users, spread.tokens);
    for first in (1..=users).step_by(500) {
        let values: Vec<String> = (first..(first + 500).min(users + 1))
            .map(|id| format!("({id}, 'bench{id}', 'x', 1000000000)"))
            .collect();
        let sql = format!(
            "INSERT INTO users (id, username, password, quota) VALUES {}",
            values.join(", ")
        );
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&db.pool)
            .await?;
    }
    for first in (1..=tokens).step_by(500) {
        let values: Vec<String> = (first..(first + 500).min(tokens + 1))
            .map(|id| format!("({id}, {}, '{id:064x}', 'x', 1000000000)", id % users + 1))
            .collect();
        let sql = format!(
            "INSERT INTO tokens (id, user_id, key_hash, key_enc, remain_quota) VALUES {}",
            values.join(", ")
        );
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&db.pool)
            .await?;
    }
    Ok(())
}

/// Record `n`, dated from `base` on (a redelivered record is the same record, time included).
fn record(spread: &Spread, base: i64, n: usize) -> UsageRow {
    let token = i64::try_from(n).unwrap_or(0) % spread.tokens + 1;
    let user = token % spread.users + 1;
    UsageRow {
        request_id: format!("bench-{n:012}"),
        created_at: base + i64::try_from(n / 1000).unwrap_or(0),
        kind: 2,
        user_id: user,
        username: format!("bench{user}"),
        token_id: token,
        token_name: "bench".to_owned(),
        group: "default".to_owned(),
        model_name: ["gpt-4o-mini", "gpt-4o", "claude-sonnet-4"][n % 3].to_owned(),
        channel_id: 1 + i64::try_from(n % 4).unwrap_or(0),
        use_time: 1,
        is_stream: n.is_multiple_of(2),
        prompt_tokens: 12,
        completion_tokens: 20,
        quota: QUOTA,
        content: String::new(),
        other: r#"{"model_ratio":0.075,"group_ratio":1,"completion_ratio":4}"#.to_owned(),
        ip: "203.0.113.7".to_owned(),
        task: None,
    }
}

async fn count(db: &Db, sql: &'static str) -> i64 {
    sqlx::query_scalar::<_, i64>(sql)
        .fetch_one(&db.pool)
        .await
        .unwrap_or(-1)
}

/// The share of the balance and roll-up tables' updates that were HOT (the new row version on
/// the same page, no index entry written), as `users 100.0 %, …`.
async fn hot_updates(db: &Db) -> String {
    let rows: Vec<(String, i64, i64)> = sqlx::query_as(
        "SELECT CAST(relname AS TEXT), n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables \
         WHERE relname IN ('users', 'tokens', 'quota_data') ORDER BY relname",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap_or_default();
    let shares: Vec<String> = rows
        .iter()
        .map(|(table, updates, hot)| {
            format!(
                "{table} {:.1} % of {updates}",
                100.0 * *hot as f64 / (*updates).max(1) as f64
            )
        })
        .collect();
    shares.join(", ")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let batches = arg("--batches", 200);
    let batch = arg("--batch", 500);
    let spread = Spread::from_args();
    let vary = common::flag("--vary");
    let dir = tempfile::tempdir()?;
    let admin_url = std::env::var("DATABASE_URL").ok().filter(|u| !u.is_empty());
    let name = format!("bench_ingest_{}", std::process::id());
    let url = match &admin_url {
        Some(admin) => {
            let admin_db = Db::connect(Some(admin), dir.path(), 1).await?;
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .execute(&admin_db.pool)
                .await?;
            admin_db.close().await;
            let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
            Some(format!("{base}/{name}"))
        }
        None => None,
    };
    let db = Db::connect(url.as_deref(), dir.path(), 4).await?;
    db.migrate().await?;
    fill(&db, &spread).await?;

    let base = control_plane::store::now() - 86_400;
    let start = Instant::now();
    let cpu = cpu_seconds();
    let server_cpu = server_cpu_seconds();
    let mut n = 0;
    for b in 0..batches {
        // With `--vary`, sizes spread over (batch / 2, batch] as a gateway's partial batches do.
        let size = if vary {
            batch - (b * 7919) % batch.div_ceil(2)
        } else {
            batch
        };
        let rows: Vec<UsageRow> = (n..n + size).map(|i| record(&spread, base, i)).collect();
        n += size;
        let outcome = ingest(&db, "bench-gateway", &rows).await?;
        anyhow::ensure!(
            outcome.inserted as usize == size,
            "a batch was not stored whole"
        );
    }
    let (wall, cpu) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    let server_cpu = server_cpu_seconds() - server_cpu;
    // The same batch again: nothing stored, nothing charged.
    let again: Vec<UsageRow> = (0..batch).map(|i| record(&spread, base, i)).collect();
    let repeat = ingest(&db, "bench-gateway", &again).await?;
    let total = i64::try_from(n)?;
    let logs = count(&db, "SELECT COUNT(*) FROM logs").await;
    let used = count(&db, "SELECT CAST(SUM(used_quota) AS BIGINT) FROM users").await;
    let token_used = count(&db, "SELECT CAST(SUM(used_quota) AS BIGINT) FROM tokens").await;
    println!(
        "ingest into {}: {n} records in {batches} batches of {}{batch}",
        if url.is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        },
        if vary { "up to " } else { "" }
    );
    println!(
        "  {:.0} records/s (wall {wall:.2} s); {:.0} records per CPU-second of the control plane ({cpu:.2} s)",
        n as f64 / wall,
        n as f64 / cpu.max(0.01),
    );
    if url.is_some() && server_cpu > 0.0 {
        println!(
            "  {:.0} records per CPU-second of the PostgreSQL server on this machine ({server_cpu:.2} s)",
            n as f64 / server_cpu
        );
    }
    println!(
        "  exactly once: {logs} log rows, users charged {used}, tokens charged {token_used} (want {total}, {}, {}); repeated batch stored {}",
        total * QUOTA,
        total * QUOTA,
        repeat.inserted
    );
    db.close().await;
    if url.is_some() {
        // The connections that wrote have ended, so their statistics are in.
        let db = Db::connect(url.as_deref(), dir.path(), 1).await?;
        println!(
            "  HOT updates (no index touched): {}",
            hot_updates(&db).await
        );
        db.close().await;
    }
    if let Some(admin) = &admin_url {
        let admin_db = Db::connect(Some(admin), dir.path(), 1).await?;
        sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE {name}")))
            .execute(&admin_db.pool)
            .await?;
    }
    anyhow::ensure!(
        logs == total
            && used == total * QUOTA
            && token_used == total * QUOTA
            && repeat.inserted == 0,
        "ingest was not exactly once"
    );
    Ok(())
}
