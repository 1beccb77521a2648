//! The transaction of a usage batch: on a SQLite file through SQLite's own driver, on
//! PostgreSQL through PostgreSQL's own (which can `COPY`), otherwise through the `Any` pool. A
//! batch binds thousands of text values; the `Any` driver copies each twice before SQLite
//! copies it, which was a fifth of the control plane's CPU per record.

use sqlx::{Any, Postgres, Sqlite, Transaction};

use super::Db;
use super::dynamic::DynQuery;

/// An open batch transaction; rolled back when dropped without [`BatchTx::commit`].
pub enum BatchTx {
    Any(Transaction<'static, Any>),
    Sqlite(Transaction<'static, Sqlite>),
    Postgres(Transaction<'static, Postgres>),
}

impl BatchTx {
    /// Begins a transaction on the native pool `db` has, if any.
    pub async fn begin(db: &Db) -> Result<BatchTx, sqlx::Error> {
        Ok(match (&db.sqlite, &db.postgres) {
            (Some(pool), _) => BatchTx::Sqlite(pool.begin().await?),
            (None, Some(pool)) => BatchTx::Postgres(pool.begin().await?),
            (None, None) => BatchTx::Any(db.pool.begin().await?),
        })
    }

    /// Whether [`BatchTx::copy_in`] can copy on this transaction's connection.
    pub fn can_copy(&self) -> bool {
        matches!(self, BatchTx::Postgres(_))
    }

    /// Runs `COPY … FROM STDIN (FORMAT binary)` with `data` (a whole binary copy: header,
    /// tuples and trailer); the number of rows copied, or `None` on a connection without
    /// `COPY` (not PostgreSQL's own driver). A row the server refuses (a unique key already
    /// stored, say) fails the statement and leaves the transaction to be rolled back.
    pub async fn copy_in(
        &mut self,
        statement: &str,
        data: Vec<u8>,
    ) -> Result<Option<u64>, sqlx::Error> {
        let BatchTx::Postgres(tx) = self else {
            return Ok(None);
        };
        let mut copy = tx.copy_in_raw(statement).await?;
        if let Err(e) = copy.send(data).await {
            // Ends the copy so that the connection reads the server's answer, then reports
            // what went wrong first.
            let _ = copy.abort("sending the rows failed").await;
            return Err(e);
        }
        copy.finish().await.map(Some)
    }

    /// Runs `q`; the number of rows it changed.
    pub async fn execute(&mut self, q: DynQuery) -> Result<u64, sqlx::Error> {
        Ok(match self {
            BatchTx::Any(tx) => q.into_query()?.execute(&mut **tx).await?.rows_affected(),
            BatchTx::Sqlite(tx) => q
                .into_sqlite_query()?
                .execute(&mut **tx)
                .await?
                .rows_affected(),
            BatchTx::Postgres(tx) => q
                .into_postgres_query()?
                .execute(&mut **tx)
                .await?
                .rows_affected(),
        })
    }

    /// Runs `q`, whose rows are one nullable text column.
    pub async fn fetch_texts(&mut self, q: DynQuery) -> Result<Vec<Option<String>>, sqlx::Error> {
        let rows: Vec<(Option<String>,)> = match self {
            BatchTx::Any(tx) => q.into_query_as()?.fetch_all(&mut **tx).await?,
            BatchTx::Sqlite(tx) => {
                let rows = q.into_sqlite_query()?.fetch_all(&mut **tx).await?;
                rows.iter()
                    .map(|row| sqlx::Row::try_get(row, 0).map(|text| (text,)))
                    .collect::<Result<_, _>>()?
            }
            BatchTx::Postgres(tx) => {
                let rows = q.into_postgres_query()?.fetch_all(&mut **tx).await?;
                rows.iter()
                    .map(|row| sqlx::Row::try_get(row, 0).map(|text| (text,)))
                    .collect::<Result<_, _>>()?
            }
        };
        Ok(rows.into_iter().map(|(text,)| text).collect())
    }

    pub async fn commit(self) -> Result<(), sqlx::Error> {
        match self {
            BatchTx::Any(tx) => tx.commit().await,
            BatchTx::Sqlite(tx) => tx.commit().await,
            BatchTx::Postgres(tx) => tx.commit().await,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    async fn texts(db: &Db) -> Vec<String> {
        sqlx::query_as::<_, (String,)>(
            "SELECT key FROM options WHERE key LIKE 'batch-tx-%' ORDER BY key",
        )
        .fetch_all(&db.pool)
        .await
        .unwrap()
        .into_iter()
        .map(|(k,)| k)
        .collect()
    }

    #[tokio::test]
    async fn a_sqlite_file_writes_batches_natively_and_the_other_pool_sees_only_commits() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(None, dir.path(), 2).await.unwrap();
        db.migrate().await.unwrap();
        let insert = |key: &'static str| {
            let mut q =
                DynQuery::new("INSERT INTO options (key, value) SELECT $1, $1 WHERE $2 = 1");
            q.value_text(key).value_int(1);
            q
        };

        let mut tx = BatchTx::begin(&db).await.unwrap();
        assert!(matches!(tx, BatchTx::Sqlite(_)));
        assert_eq!(tx.execute(insert("batch-tx-dropped")).await.unwrap(), 1);
        drop(tx);
        assert!(
            texts(&db).await.is_empty(),
            "a dropped batch is rolled back"
        );

        let mut tx = BatchTx::begin(&db).await.unwrap();
        assert_eq!(tx.execute(insert("batch-tx-a")).await.unwrap(), 1);
        let mut q = DynQuery::new("SELECT value FROM options WHERE key = ");
        q.bind_text("batch-tx-a");
        assert_eq!(
            tx.fetch_texts(q).await.unwrap(),
            vec![Some("batch-tx-a".to_string())]
        );
        tx.commit().await.unwrap();
        assert_eq!(texts(&db).await, vec!["batch-tx-a".to_string()]);
    }

    #[tokio::test]
    async fn an_in_memory_sqlite_database_keeps_batches_on_its_one_pool() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(Some("sqlite::memory:"), dir.path(), 1)
            .await
            .unwrap();
        assert!(db.sqlite.is_none());
        db.migrate().await.unwrap();
        let mut tx = BatchTx::begin(&db).await.unwrap();
        assert!(matches!(tx, BatchTx::Any(_)));
        let mut q = DynQuery::new("INSERT INTO options (key, value) VALUES ('batch-tx-m', ");
        q.bind_text("v").push(")");
        assert_eq!(tx.execute(q).await.unwrap(), 1);
        tx.commit().await.unwrap();
        assert_eq!(texts(&db).await, vec!["batch-tx-m".to_string()]);
    }
}
