//! Usage ingest over gRPC (`usage.v1.UsageService.Report` on the control plane's HTTP port):
//! one transaction per batch, acked after commit, idempotent by request id.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;

use common::TestApp;
use proto::usage::v1::usage_service_client::UsageServiceClient;
use proto::usage::v1::{ReportAck, ReportBatch, UsageRecord};
use serde_json::json;
use tokio_stream::StreamExt;

/// Serves the app (REST and gRPC) on a loopback port and returns its address.
async fn serve(app: &TestApp) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = control_plane::app_with_grpc(app.state.clone());
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .unwrap();
    });
    addr
}

/// Sends `batches` on one Report stream and collects the acks.
async fn report(addr: SocketAddr, batches: Vec<ReportBatch>) -> Vec<ReportAck> {
    let mut client = UsageServiceClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    let n = batches.len();
    let mut acks = client
        .report(tokio_stream::iter(batches))
        .await
        .unwrap()
        .into_inner();
    let mut out = Vec::new();
    while out.len() < n {
        out.push(acks.next().await.unwrap().unwrap());
    }
    out
}

fn record(id: &str, user_id: i64, token_id: i64, quota: i64, kind: i32) -> UsageRecord {
    UsageRecord {
        request_id: id.into(),
        created_at: 1_700_000_000 + 7200,
        r#type: kind,
        user_id,
        username: "payer".into(),
        token_id,
        token_name: "t".into(),
        group: "default".into(),
        model_name: "gpt-4o".into(),
        channel_id: 7,
        use_time: 2,
        is_stream: true,
        prompt_tokens: 10,
        completion_tokens: 5,
        quota,
        other: "{}".into(),
        ..Default::default()
    }
}

async fn balances(app: &TestApp, user_id: i64, token_id: i64) -> (i64, i64, i64, i64, i64, i64) {
    let (quota, used, count): (i64, i64, i64) =
        sqlx::query_as("SELECT quota, used_quota, request_count FROM users WHERE id = $1")
            .bind(user_id)
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
    let (remain, token_used): (i64, i64) =
        sqlx::query_as("SELECT remain_quota, used_quota FROM tokens WHERE id = $1")
            .bind(token_id)
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
    let (channel_used,): (i64,) = sqlx::query_as("SELECT used_quota FROM channels WHERE id = 7")
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    (quota, used, count, remain, token_used, channel_used)
}

async fn same_batch_twice_charges_once(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "payer").await;
    sqlx::query("UPDATE users SET quota = 100000 WHERE id = $1")
        .bind(user.user_id)
        .execute(&app.db().pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO channels (id, name, key_enc, models) VALUES (7, 'primary', '', 'gpt-4o')",
    )
    .execute(&app.db().pool)
    .await
    .unwrap();
    let created = app
        .post(
            "/api/token/",
            json!({"name": "t", "remain_quota": 50000, "expired_time": -1, "unlimited_quota": false}),
        )
        .signed_in(&user)
        .send()
        .await;
    assert!(created.success(), "{}", created.body);
    let token_id = created.data()[0]["id"].as_i64().unwrap();
    let addr = serve(app).await;

    let batch = ReportBatch {
        batch_id: 1,
        gateway_id: "gw-test".into(),
        records: vec![
            record("req-a", user.user_id, token_id, 300, 2),
            record("req-b", user.user_id, token_id, 700, 2),
            record("req-c", user.user_id, token_id, 0, 5),
        ],
    };
    let mut again = batch.clone();
    again.batch_id = 2;
    let acks = report(addr, vec![batch, again.clone()]).await;
    assert_eq!(
        (acks[0].batch_id, acks[0].inserted, acks[0].duplicates),
        (1, 3, 0)
    );
    assert_eq!(
        (acks[1].batch_id, acks[1].inserted, acks[1].duplicates),
        (2, 0, 3)
    );
    // A new connection (as after a gateway restart replaying its spool) is also idempotent,
    // and a batch mixing old and new ids charges only the new ones.
    again.batch_id = 3;
    again
        .records
        .push(record("req-d", user.user_id, token_id, 1000, 2));
    let acks = report(addr, vec![again]).await;
    assert_eq!((acks[0].inserted, acks[0].duplicates), (1, 3));

    let (logs,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM logs WHERE request_id IS NOT NULL")
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    assert_eq!(logs, 4);
    let (quota, used, count, remain, token_used, channel_used) =
        balances(app, user.user_id, token_id).await;
    assert_eq!((quota, used, count), (100000 - 2000, 2000, 3));
    assert_eq!((remain, token_used), (50000 - 2000, 2000));
    assert_eq!(channel_used, 2000);
    let (hour_count, hour_quota, hour_tokens): (i64, i64, i64) = sqlx::query_as(
        "SELECT CAST(SUM(count) AS BIGINT), CAST(SUM(quota) AS BIGINT), CAST(SUM(token_used) AS BIGINT) \
         FROM quota_data WHERE user_id = $1",
    )
    .bind(user.user_id)
    .fetch_one(&app.db().pool)
    .await
    .unwrap();
    assert_eq!((hour_count, hour_quota, hour_tokens), (3, 2000, 45));

    // The stored row is what the gateway sent, and shows in the user's own log list.
    let mine = app.get("/api/log/self/").signed_in(&user).send().await;
    assert!(mine.success(), "{}", mine.body);
    let items = mine.data()["items"].as_array().unwrap();
    let a = items
        .iter()
        .find(|l| l["request_id"] == json!("req-a"))
        .unwrap_or_else(|| panic!("req-a in {}", mine.body));
    assert_eq!(a["quota"], json!(300));
    assert_eq!(a["model_name"], json!("gpt-4o"));
}

async fn unlimited_token_keeps_its_remaining_quota(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "payer").await;
    let created = app
        .post(
            "/api/token/",
            json!({"name": "t", "remain_quota": 0, "expired_time": -1, "unlimited_quota": true}),
        )
        .signed_in(&user)
        .send()
        .await;
    assert!(created.success(), "{}", created.body);
    let token_id = created.data()[0]["id"].as_i64().unwrap();
    let rows = vec![control_plane::sync::usage::to_row(record(
        "req-u",
        user.user_id,
        token_id,
        400,
        2,
    ))];
    let outcome = control_plane::store::usage::ingest(app.db(), &rows)
        .await
        .unwrap();
    assert_eq!((outcome.inserted, outcome.duplicates), (1, 0));
    let (remain, used): (i64, i64) =
        sqlx::query_as("SELECT remain_quota, used_quota FROM tokens WHERE id = $1")
            .bind(token_id)
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
    assert_eq!((remain, used), (0, 400));
    let (quota,): (i64,) = sqlx::query_as("SELECT quota FROM users WHERE id = $1")
        .bind(user.user_id)
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    assert_eq!(quota, -400, "the user's balance pays for it");
}

/// Batches from two gateways touching the same users and roll-ups in opposite orders commit
/// side by side (rows are locked in key order, so they cannot deadlock).
async fn concurrent_batches_all_commit(app: &TestApp) {
    let root = app.root().await;
    let a = app.user(&root, "alpha").await;
    let b = app.user(&root, "beta").await;
    let row = |id: String, user: i64, model: &str| {
        let mut r = control_plane::sync::usage::to_row(record(&id, user, 0, 10, 2));
        r.model_name = model.into();
        r
    };
    for round in 0..10 {
        let forward: Vec<_> = (0..6)
            .map(|i| {
                let user = if i % 2 == 0 { a.user_id } else { b.user_id };
                row(
                    format!("f{round}-{i}"),
                    user,
                    if i < 3 { "m1" } else { "m2" },
                )
            })
            .collect();
        let backward: Vec<_> = forward
            .iter()
            .rev()
            .map(|r| {
                let mut r = r.clone();
                r.request_id = r.request_id.replacen('f', "b", 1);
                r
            })
            .collect();
        let (x, y) = tokio::join!(
            control_plane::store::usage::ingest(app.db(), &forward),
            control_plane::store::usage::ingest(app.db(), &backward)
        );
        assert_eq!(x.unwrap().inserted, 6);
        assert_eq!(y.unwrap().inserted, 6);
    }
    let (used,): (i64,) =
        sqlx::query_as("SELECT CAST(SUM(used_quota) AS BIGINT) FROM users WHERE id IN ($1, $2)")
            .bind(a.user_id)
            .bind(b.user_id)
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
    assert_eq!(used, 10 * 12 * 10);
}

on_both_backends!(
    same_batch_twice_charges_once,
    unlimited_token_keeps_its_remaining_quota,
    concurrent_batches_all_commit
);
