//! Persistence: the connection pool (PostgreSQL or embedded SQLite), migrations, and one module
//! of typed queries per table. Queries use `$N` parameters, which both databases accept.

pub mod abilities;
pub mod auth_attempts;
pub mod batch_tx;
pub mod channels;
pub mod checkins;
pub mod config_changes;
pub mod dynamic;
pub mod job_leases;
pub mod log_rollup;
pub mod logs;
pub mod notices;
pub mod options;
pub mod quota_data;
pub mod redemptions;
pub mod sessions;
pub mod setup;
pub mod sqlite_alloc;
pub mod task_progress;
pub mod tasks;
pub mod tokens;
pub mod top_ups;
pub mod usage;
pub mod users;
pub mod verification;

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyPool, Executor};

/// Which database engine backs the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DbKind {
    Postgres,
    Sqlite,
}

impl DbKind {
    /// The name the setup page shows (`database_type`).
    pub fn name(self) -> &'static str {
        match self {
            DbKind::Postgres => "postgres",
            DbKind::Sqlite => "sqlite",
        }
    }
}

/// The database handle shared by every request.
#[derive(Debug, Clone)]
pub struct Db {
    pub pool: AnyPool,
    pub kind: DbKind,
    /// On a SQLite file, the same file through SQLite's own driver, for the usage ingest's
    /// batch statements (see [`batch_tx`]); connects when first used.
    pub sqlite: Option<sqlx::SqlitePool>,
    /// On PostgreSQL, the same server through PostgreSQL's own driver, for the usage ingest's
    /// batch transactions, whose log rows go in by `COPY` (see [`batch_tx`]); connects when
    /// first used.
    pub postgres: Option<sqlx::PgPool>,
}

/// Why the database could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("unsupported database URL (expected postgres:// or sqlite:): {0}")]
    UnsupportedUrl(String),
    #[error("cannot create the data folder {path}: {source}")]
    DataDir {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Sqlx(#[from] sqlx::Error),
    #[error(transparent)]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

impl Db {
    /// Opens `database_url`, or a SQLite file in `data_dir` when no URL is given.
    pub async fn connect(
        database_url: Option<&str>,
        data_dir: &Path,
        max_connections: u32,
    ) -> Result<Db, DbError> {
        install_default_drivers();
        let (url, kind) = match database_url.map(str::trim).filter(|u| !u.is_empty()) {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                (url.to_string(), DbKind::Postgres)
            }
            Some(url) if url.starts_with("sqlite:") => (url.to_string(), DbKind::Sqlite),
            Some(url) => return Err(DbError::UnsupportedUrl(redact_url(url))),
            None => {
                std::fs::create_dir_all(data_dir).map_err(|source| DbError::DataDir {
                    path: data_dir.display().to_string(),
                    source,
                })?;
                let file = data_dir.join("gateway.db");
                (
                    format!("sqlite://{}?mode=rwc", file.display()),
                    DbKind::Sqlite,
                )
            }
        };
        if kind == DbKind::Sqlite {
            let allocator = sqlite_alloc::install();
            tracing::debug!(?allocator, "SQLite's allocator");
        }
        // On PostgreSQL a quarter of the connections (at least one) go to the ingest's own pool.
        let ingest_connections = (max_connections / 4).max(1);
        let main_connections = match kind {
            DbKind::Postgres => max_connections.saturating_sub(ingest_connections).max(1),
            DbKind::Sqlite => max_connections,
        };
        let mut options = AnyPoolOptions::new().max_connections(main_connections);
        if kind == DbKind::Sqlite {
            options = options.after_connect(|conn, _meta| {
                Box::pin(async move {
                    // Takes effect only on a database still empty: one created here.
                    conn.execute(NEW_DATABASE_PAGE_SIZE).await?;
                    conn.execute("PRAGMA busy_timeout = 10000").await?;
                    conn.execute("PRAGMA foreign_keys = ON").await?;
                    Ok(())
                })
            });
        }
        let pool = options.connect(&url).await?;
        let (mut sqlite, mut postgres) = (None, None);
        match kind {
            DbKind::Sqlite => {
                pool.execute("PRAGMA journal_mode = WAL").await?;
                sqlite = native_sqlite(&url)?;
            }
            DbKind::Postgres => postgres = Some(native_postgres(&url, ingest_connections)?),
        }
        Ok(Db {
            pool,
            kind,
            sqlite,
            postgres,
        })
    }

    /// Closes every pool of this handle (waiting for their connections to be returned).
    pub async fn close(&self) {
        self.pool.close().await;
        if let Some(pool) = &self.sqlite {
            pool.close().await;
        }
        if let Some(pool) = &self.postgres {
            pool.close().await;
        }
    }

    /// Applies the migrations of this database's engine.
    pub async fn migrate(&self) -> Result<(), DbError> {
        match self.kind {
            DbKind::Postgres => {
                sqlx::migrate!("../migrations/postgres")
                    .run(&self.pool)
                    .await?
            }
            DbKind::Sqlite => {
                sqlx::migrate!("../migrations/sqlite")
                    .run(&self.pool)
                    .await?
            }
        }
        Ok(())
    }
}

/// The page size of a SQLite database this process creates (SQLite's default: 4 KiB). A usage
/// batch of 4 000 records writes about 2.5 MB of new log rows and index entries; in 16 KiB
/// pages that is a quarter of the WAL frames (each two `pwrite`s), page-cache lookups and page
/// headers, and the ingest bench stores about 6 % more records per CPU-second
/// (`benches/results/2026-12-01-sqlite-ingest.md`). An existing database keeps its page size.
const NEW_DATABASE_PAGE_SIZE: &str = "PRAGMA page_size = 16384";

/// The page cache of a native SQLite connection, in KiB (`cache_size` takes KiB when
/// negative): 32 MiB, against SQLite's default of 2 MiB, which a usage batch outgrows, so its
/// index pages were read back from the file while the batch was being written.
const NATIVE_SQLITE_CACHE: &str = "-32768";

/// Name prefix of the native SQLite pool's connection threads (at most 15 bytes with the
/// number), which the usage ingest runs at idle priority (`sync::ingest_sched`).
pub const INGEST_SQLITE_THREADS: &str = "usage-sqlite-";

/// Most connections of the native SQLite pool: SQLite has one writer at a time.
const NATIVE_SQLITE_CONNECTIONS: u32 = 2;

/// A lazily connected native pool on the SQLite file of `url`, with the settings of the `Any`
/// pool's connections (the driver's defaults, foreign keys on, a 10 s busy timeout); none for
/// an in-memory database, which a second pool would not share.
fn native_sqlite(url: &str) -> Result<Option<sqlx::SqlitePool>, DbError> {
    if url.contains(":memory:") || url.contains("mode=memory") {
        return Ok(None);
    }
    let options = url
        .parse::<sqlx::sqlite::SqliteConnectOptions>()?
        .busy_timeout(std::time::Duration::from_secs(10))
        .foreign_keys(true)
        .pragma("cache_size", NATIVE_SQLITE_CACHE)
        .thread_name(|id| format!("{INGEST_SQLITE_THREADS}{id}"));
    Ok(Some(
        sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(NATIVE_SQLITE_CONNECTIONS)
            .connect_lazy_with(options),
    ))
}

/// PostgreSQL's own driver for the usage ingest's batches (the `Any` driver cannot `COPY`), with
/// at most `connections` (one per gateway ingesting at once), connected when first used.
fn native_postgres(url: &str, connections: u32) -> Result<sqlx::PgPool, DbError> {
    let options = url.parse::<sqlx::postgres::PgConnectOptions>()?;
    Ok(sqlx::postgres::PgPoolOptions::new()
        .max_connections(connections)
        .connect_lazy_with(options))
}

/// Hides the password of a database URL for messages.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            format!("{}://***{}", &url[..scheme_end], &url[at..])
        }
        _ => url.to_string(),
    }
}

/// Current time in epoch seconds.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

/// True when `err` is a unique-constraint violation.
pub fn is_unique_violation(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db) if db.is_unique_violation())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    async fn pragma(pool: &sqlx::SqlitePool, name: &str) -> String {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("PRAGMA {name}")))
            .fetch_one(pool)
            .await
            .unwrap();
        let value: sqlx::sqlite::SqliteValueRef<'_> = sqlx::Row::try_get_raw(&row, 0).unwrap();
        let value = sqlx::ValueRef::to_owned(&value);
        sqlx::Value::try_decode::<String>(&value)
            .or_else(|_| sqlx::Value::try_decode::<i64>(&value).map(|n| n.to_string()))
            .unwrap()
    }

    #[tokio::test]
    async fn a_new_sqlite_database_gets_large_pages_and_the_batch_pool_a_large_cache() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(None, dir.path(), 2).await.unwrap();
        db.migrate().await.unwrap();
        let native = db.sqlite.clone().unwrap();
        assert_eq!(pragma(&native, "page_size").await, "16384");
        assert_eq!(pragma(&native, "cache_size").await, "-32768");
        assert_eq!(pragma(&native, "journal_mode").await, "wal");
    }

    #[tokio::test]
    async fn an_existing_sqlite_database_keeps_its_page_size() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("gateway.db");
        let url = format!("sqlite://{}?mode=rwc", file.display());
        // SQLite's allocator is chosen before any connection opens, this one's included.
        sqlite_alloc::install();
        let old = sqlx::SqlitePool::connect(&url).await.unwrap();
        sqlx::query("PRAGMA journal_mode = WAL")
            .execute(&old)
            .await
            .unwrap();
        sqlx::query("CREATE TABLE earlier (id INTEGER PRIMARY KEY)")
            .execute(&old)
            .await
            .unwrap();
        assert_eq!(pragma(&old, "page_size").await, "4096");
        old.close().await;
        let db = Db::connect(Some(&url), dir.path(), 2).await.unwrap();
        db.migrate().await.unwrap();
        let native = db.sqlite.clone().unwrap();
        assert_eq!(pragma(&native, "page_size").await, "4096");
        assert_eq!(pragma(&native, "cache_size").await, "-32768");
    }
}
