//! The usage ingest's SQLite threads at idle priority while they keep up. Each gateway's usage
//! batch is a burst of SQLite work (most of the control plane's CPU per relayed request) that,
//! at ordinary priority, holds its core for a whole slice against whatever else runs there: a
//! gateway on the same host, or the upstream it is waiting for. The batches are acknowledged
//! when written, and gateways spool until then, so a few milliseconds later costs nothing. As
//! `SCHED_IDLE` the threads run in the cores' idle time; a batch written for longer than
//! [`LATE`] promotes them to their fair share (see `background-sched`).
//!
//! Only the native SQLite pool's connections (named [`INGEST_SQLITE_THREADS`]), which nothing
//! but usage batches uses, are concerned: the API's queries keep their priority. On PostgreSQL
//! the batch's work is the server's, whose scheduling is the operator's.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use background_sched::{Backlog, LATE, Mode, governor, millis_since};

use crate::store::{Db, INGEST_SQLITE_THREADS};

/// Lets the ingest's SQLite threads run at idle priority, watched by the process's scheduling
/// governor. Nothing happens without the native SQLite pool.
pub fn engage(db: &Db) {
    if db.sqlite.is_none() {
        return;
    }
    let governor = governor();
    governor.adopt_named(INGEST_SQLITE_THREADS);
    governor.watch(Box::new(progress()));
    governor.engage();
}

/// Marks a usage batch being written until the guard drops.
pub fn writing() -> Writing {
    let p = progress();
    if p.in_flight.fetch_add(1, Ordering::AcqRel) == 0 {
        p.progressed();
    }
    Writing
}

/// A usage batch being written (see [`writing`]).
pub struct Writing;

impl Drop for Writing {
    fn drop(&mut self) {
        let p = progress();
        p.progressed();
        p.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Whether usage batches are being written and how long since the last one started on an idle
/// ingest or finished.
pub struct Progress {
    epoch: Instant,
    in_flight: AtomicU64,
    /// Milliseconds since `epoch` of the last progress.
    progressed_ms: AtomicU64,
}

impl Progress {
    fn new() -> Self {
        Progress {
            epoch: Instant::now(),
            in_flight: AtomicU64::new(0),
            progressed_ms: AtomicU64::new(0),
        }
    }

    fn progressed(&self) {
        self.progressed_ms
            .store(millis_since(self.epoch, Instant::now()), Ordering::Release);
    }

    /// Behind at `now`: a batch is being written and nothing has progressed for [`LATE`].
    fn behind_at(&self, now: Instant) -> bool {
        if self.in_flight.load(Ordering::Acquire) == 0 {
            return false;
        }
        let since = millis_since(self.epoch, now)
            .saturating_sub(self.progressed_ms.load(Ordering::Acquire));
        u128::from(since) > LATE.as_millis()
    }
}

impl Backlog for &'static Progress {
    fn behind(&self, now: Instant, _mode: Mode) -> bool {
        self.behind_at(now)
    }
}

/// The process's ingest progress.
fn progress() -> &'static Progress {
    static PROGRESS: OnceLock<Progress> = OnceLock::new();
    PROGRESS.get_or_init(Progress::new)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn the_batch_pools_threads_run_idle_and_the_apis_keep_their_priority() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(None, dir.path(), 2).await.unwrap();
        db.migrate().await.unwrap();
        let native = db.sqlite.clone().unwrap();
        let _held = native.acquire().await.unwrap();
        let _api = db.pool.acquire().await.unwrap();
        engage(&db);
        let ingest = background_sched::threads_named(&[INGEST_SQLITE_THREADS]);
        assert!(
            !ingest.is_empty(),
            "the batch pool's connection has a named thread"
        );
        let want = if background_sched::idle_can_be_left() {
            Mode::Idle
        } else {
            Mode::Batch
        };
        for tid in ingest {
            assert_eq!(background_sched::current_policy(tid), Some(want));
        }
        for tid in background_sched::threads_named(&["sqlx-sqlite"]) {
            assert_eq!(
                background_sched::current_policy(tid),
                None,
                "an API connection"
            );
        }
    }

    #[test]
    fn a_batch_is_behind_once_nothing_progressed_for_late() {
        let p: &'static Progress = Box::leak(Box::new(Progress::new()));
        let t0 = Instant::now();
        assert!(!p.behind_at(t0 + LATE * 10), "nothing in flight");
        p.in_flight.fetch_add(1, Ordering::AcqRel);
        p.progressed();
        let started = Instant::now();
        assert!(!p.behind_at(started + LATE / 2));
        assert!(p.behind_at(started + LATE + Duration::from_millis(2)));
        // Another batch finishing is progress: the clock starts again.
        std::thread::sleep(Duration::from_millis(2));
        p.progressed();
        assert!(!p.behind_at(started + LATE));
        p.in_flight.fetch_sub(1, Ordering::AcqRel);
        assert!(!p.behind_at(started + LATE * 10));
    }
}
