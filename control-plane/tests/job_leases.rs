//! Periodic jobs run once per fleet: of several replicas claiming a job at the same moment
//! exactly one wins, and nobody can claim it again before its interval (the one asked now) is
//! over.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::TestApp;
use control_plane::store::Db;
use control_plane::store::job_leases::claim;

/// Whether `replica` claims `job` at `at` (ms) under an interval of `every` ms.
async fn claimed(db: &Db, job: &str, replica: &str, at: i64, every: i64) -> bool {
    claim(db, job, replica, at, every).await.unwrap()
}

async fn one_replica_per_interval(app: &TestApp) {
    let db = app.db();
    let now = 1_000_000;
    let claims = futures::future::join_all((0..8).map(|i| async move {
        claim(db, "channel_test", &format!("replica-{i}"), now, 60_000).await
    }))
    .await;
    let won = claims
        .into_iter()
        .map(Result::unwrap)
        .filter(|c| *c)
        .count();
    assert_eq!(won, 1, "exactly one replica runs the job");
    assert!(!claimed(db, "channel_test", "replica-0", now + 59_999, 60_000).await);
    assert!(claimed(db, "channel_test", "replica-3", now + 60_000, 60_000).await);
    // Jobs are claimed independently.
    assert!(claimed(db, "balance_refresh", "replica-0", now, 60_000).await);
}

/// A job claimed under a long interval (the default, read just before an operator's change
/// lands) runs again as soon as the shorter interval asked now is over; a longer one asked now
/// waits longer.
async fn the_interval_asked_now_decides(app: &TestApp) {
    let db = app.db();
    let now = 5_000_000;
    assert!(claimed(db, "channel_test", "a", now, 600_000).await);
    assert!(!claimed(db, "channel_test", "a", now + 1_199, 1_200).await);
    assert!(claimed(db, "channel_test", "a", now + 1_200, 1_200).await);
    let last = now + 1_200;
    assert!(!claimed(db, "channel_test", "b", last + 59_999, 60_000).await);
    assert!(claimed(db, "channel_test", "b", last + 60_000, 60_000).await);
}

on_both_backends!(one_replica_per_interval);
on_both_backends!(the_interval_asked_now_decides);
