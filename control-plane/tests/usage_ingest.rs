//! Usage ingest over gRPC (`usage.v1.UsageService.Report` on the control plane's HTTP port):
//! one transaction per batch, acked after commit, idempotent by request id.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;

use common::TestApp;
use control_plane::store::usage::Recording;
use proto::usage::v1::usage_service_client::UsageServiceClient;
use proto::usage::v1::{ReportAck, ReportBatch, UsageRecord};
use serde_json::json;
use tokio_stream::StreamExt;

/// Sends `batches` on one Report stream and collects the acks.
async fn report(addr: SocketAddr, batches: Vec<ReportBatch>) -> Vec<ReportAck> {
    let mut client = UsageServiceClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    let n = batches.len();
    let mut acks = client
        .report(common::authed(tokio_stream::iter(batches)))
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

/// User "payer" with `quota`, a limited token of theirs with `remain` (its id), and channel 7.
async fn payer(app: &TestApp, quota: i64, remain: i64) -> (common::Session, i64) {
    let root = app.root().await;
    let user = app.user(&root, "payer").await;
    sqlx::query("UPDATE users SET quota = $1 WHERE id = $2")
        .bind(quota)
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
            json!({"name": "t", "remain_quota": remain, "expired_time": -1, "unlimited_quota": false}),
        )
        .signed_in(&user)
        .send()
        .await;
    assert!(created.success(), "{}", created.body);
    let token_id = created.data()[0]["id"].as_i64().unwrap();
    (user, token_id)
}

async fn same_batch_twice_charges_once(app: &TestApp) {
    let (user, token_id) = payer(app, 100_000, 50_000).await;
    let addr = common::serve_with_grpc(app).await;

    let batch = ReportBatch {
        batch_id: 1,
        gateway_id: "gw-test".into(),
        records: vec![
            record("req-a", user.user_id, token_id, 300, 2),
            record("req-b", user.user_id, token_id, 700, 2),
            record("req-c", user.user_id, token_id, 0, 6),
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

/// A new unlimited token of `user`; its id.
async fn unlimited_token(app: &TestApp, user: &common::Session) -> i64 {
    let created = app
        .post(
            "/api/token/",
            json!({"name": "t", "remain_quota": 0, "expired_time": -1, "unlimited_quota": true}),
        )
        .signed_in(user)
        .send()
        .await;
    assert!(created.success(), "{}", created.body);
    created.data()[0]["id"].as_i64().unwrap()
}

async fn unlimited_token_keeps_its_remaining_quota(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "payer").await;
    let token_id = unlimited_token(app, &user).await;
    let rows = vec![control_plane::sync::usage::to_row(record(
        "req-u",
        user.user_id,
        token_id,
        400,
        2,
    ))];
    let outcome = control_plane::store::usage::ingest(app.db(), "gw-test", &rows)
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
    let (ta, tb) = (app.token_of(&a, "ta").await, app.token_of(&b, "tb").await);
    let row = |id: String, user: i64, model: &str| {
        let token = if user == a.user_id { ta } else { tb };
        let mut r = control_plane::sync::usage::to_row(record(&id, user, token, 10, 2));
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
            control_plane::store::usage::ingest(app.db(), "gw-test", &forward),
            control_plane::store::usage::ingest(app.db(), "gw-test", &backward)
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

/// The attack of the trust-boundary issue and its neighbours: a negative quota (which would
/// credit), another user's token, a NUL in a text field (PostgreSQL refuses it in `text`), an
/// empty request id and an unknown type, in one batch with valid records. The valid ones are
/// charged, the others are acknowledged as rejected, kept with their reason for admins, and
/// counted; the next batch on the same stream goes through.
async fn bad_records_are_set_aside_and_the_rest_commits(app: &TestApp) {
    let root = app.root().await;
    let payer = app.user(&root, "payer").await;
    let victim = app.user(&root, "victim").await;
    let token = app.token_of(&payer, "mine").await;
    let foreign = app.token_of(&victim, "theirs").await;
    let addr = common::serve_with_grpc(app).await;
    let mut nul = record("bad-nul", payer.user_id, token, 10, 2);
    nul.model_name = "gpt\u{0}4o".into();
    let batch = ReportBatch {
        batch_id: 1,
        gateway_id: "gw-evil".into(),
        records: vec![
            record("ok-1", payer.user_id, token, 300, 2),
            record("bad-negative", payer.user_id, token, -500_000_000, 2),
            record("bad-foreign", payer.user_id, foreign, 100, 2),
            nul,
            record("", payer.user_id, token, 100, 2),
            record("bad-type", payer.user_id, token, 100, 1),
            record("bad-user", 999_999, token, 100, 2),
            record("ok-2", payer.user_id, token, 200, 2),
        ],
    };
    let next = ReportBatch {
        batch_id: 2,
        gateway_id: "gw-evil".into(),
        records: vec![record("ok-3", payer.user_id, token, 50, 2)],
    };
    let acks = report(addr, vec![batch, next]).await;
    assert_eq!((acks[0].inserted, acks[0].duplicates), (2, 0));
    let mut codes: Vec<(String, String)> = acks[0]
        .rejected
        .iter()
        .map(|r| (r.request_id.clone(), r.code.clone()))
        .collect();
    codes.sort();
    let want = [
        ("", "bad_request_id"),
        ("bad-foreign", "foreign_token"),
        ("bad-negative", "bad_amount"),
        ("bad-nul", "bad_string"),
        ("bad-type", "bad_type"),
        ("bad-user", "unknown_user"),
    ];
    assert_eq!(
        codes,
        want.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect::<Vec<_>>()
    );
    assert_eq!(acks[1].inserted, 1, "the stream goes on");

    let quota_of = |id: i64| async move {
        let (q, used): (i64, i64) =
            sqlx::query_as("SELECT quota, used_quota FROM users WHERE id = $1")
                .bind(id)
                .fetch_one(&app.db().pool)
                .await
                .unwrap();
        (q, used)
    };
    assert_eq!(
        quota_of(payer.user_id).await,
        (-550, 550),
        "only valid records are charged"
    );
    assert_eq!(quota_of(victim.user_id).await, (0, 0));
    let (logs,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM logs WHERE request_id LIKE 'bad%'")
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    assert_eq!(logs, 0);

    // Admins list them with the reasons; users may not.
    let listed = app
        .get("/api/usage/rejected?p=1&page_size=20")
        .signed_in(&root)
        .send()
        .await;
    assert!(listed.success(), "{}", listed.body);
    assert_eq!(listed.data()["total"], json!(6));
    let negative = listed.data()["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["request_id"] == json!("bad-negative"))
        .unwrap()
        .clone();
    assert_eq!(negative["quota"], json!(-500_000_000));
    assert_eq!(negative["gateway_id"], json!("gw-evil"));
    assert!(
        negative["reason"]
            .as_str()
            .unwrap()
            .contains("quota -500000000")
    );
    let nul_row = listed.data()["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["request_id"] == json!("bad-nul"))
        .unwrap()
        .clone();
    assert!(!nul_row["record"].as_str().unwrap().contains('\u{0}'));
    let denied = app
        .get("/api/usage/rejected")
        .signed_in(&payer)
        .send()
        .await;
    assert!(!denied.success());
    let metrics = app.state.metrics().render();
    assert!(
        metrics.contains("control_plane_usage_rejected_total{reason=\"bad_amount\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("control_plane_usage_records_total{outcome=\"rejected\"} 6"));
    assert!(metrics.contains("control_plane_usage_batches_total{outcome=\"committed\"}"));
    assert!(metrics.contains("control_plane_usage_ingest_lag_seconds_count"));
}

/// With consumption logs off, rows are charged without a log row, still exactly once, whichever
/// way the option was set when a batch was first delivered.
async fn consumption_without_log_rows_still_charges_once(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "payer").await;
    let token_id = unlimited_token(app, &user).await;
    // Error rows charge nothing.
    let row = |id: &str, kind: i32| {
        let quota = if kind == 2 { 100 } else { 0 };
        control_plane::sync::usage::to_row(record(id, user.user_id, token_id, quota, kind))
    };
    let ingest_recording = |rows: Vec<_>, recording| async move {
        control_plane::store::usage::ingest_with(app.db(), "gw-test", &rows, recording)
            .await
            .unwrap()
    };
    let ingest = |rows: Vec<_>, log: bool| {
        ingest_recording(
            rows,
            Recording {
                consume_logs: log,
                rollups: true,
            },
        )
    };
    let logs = || async {
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM logs WHERE user_id = $1")
            .bind(user.user_id)
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
        n
    };
    let quota = || async {
        let (q,): (i64,) = sqlx::query_as("SELECT quota FROM users WHERE id = $1")
            .bind(user.user_id)
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
        q
    };
    let start = quota().await;
    let logs_before = logs().await;
    // Off: two consumption rows and an error row; only the error row is logged.
    let first = ingest(vec![row("r-1", 2), row("r-2", 2), row("r-e", 6)], false).await;
    assert_eq!((first.inserted, first.duplicates), (3, 0));
    assert_eq!(quota().await, start - 200);
    assert_eq!(logs().await, logs_before + 1);
    // Redelivered, with the option off or on: nothing more is charged or logged.
    for log in [false, true] {
        let again = ingest(vec![row("r-1", 2), row("r-2", 2)], log).await;
        assert_eq!((again.inserted, again.duplicates), (0, 2));
    }
    assert_eq!(quota().await, start - 200);
    assert_eq!(logs().await, logs_before + 1);
    // Logged while on, redelivered while off: still once.
    ingest(vec![row("r-3", 2)], true).await;
    let again = ingest(vec![row("r-3", 2)], false).await;
    assert_eq!(again.duplicates, 1);
    assert_eq!(quota().await, start - 300);
    assert_eq!(logs().await, logs_before + 2);

    // With the dashboard off (DataExportEnabled), rows are charged and logged, not rolled up.
    let rolled_up = || async {
        let (q,): (Option<i64>,) =
            sqlx::query_as("SELECT CAST(SUM(quota) AS BIGINT) FROM quota_data WHERE user_id = $1")
                .bind(user.user_id)
                .fetch_one(&app.db().pool)
                .await
                .unwrap();
        q.unwrap_or(0)
    };
    assert_eq!(rolled_up().await, 300);
    let off = Recording {
        consume_logs: true,
        rollups: false,
    };
    let dark = ingest_recording(vec![row("r-4", 2)], off).await;
    assert_eq!(dark.inserted, 1);
    assert_eq!(quota().await, start - 400);
    assert_eq!(logs().await, logs_before + 3);
    assert_eq!(rolled_up().await, 300);
}

/// Batches larger than one statement's worth of rows (512 on SQLite), with records repeated inside one
/// statement, across statements and from an earlier batch: each record is stored and charged
/// once, whichever statement it falls in.
async fn large_batches_with_repeats_charge_each_record_once(app: &TestApp) {
    let (user, token_id) = payer(app, 5_000_000, 5_000_000).await;
    let row = |n: usize| {
        control_plane::sync::usage::to_row(record(
            &format!("big-{n}"),
            user.user_id,
            token_id,
            10,
            2,
        ))
    };
    let ingest = |rows: Vec<_>| async move {
        control_plane::store::usage::ingest(app.db(), "gw-test", &rows)
            .await
            .unwrap()
    };
    let earlier = ingest(vec![row(1100)]).await;
    assert_eq!(earlier.inserted, 1);
    // 1 200 distinct records, plus: 20 again right after itself (same statement), 10 again in
    // the second statement, 1 100 stored by the batch before.
    let mut rows: Vec<_> = (0..1200).map(row).collect();
    rows.insert(21, row(20));
    rows.insert(700, row(10));
    let outcome = ingest(rows).await;
    assert_eq!((outcome.inserted, outcome.duplicates), (1199, 3));
    let (quota, used, count, remain, token_used, channel_used) =
        balances(app, user.user_id, token_id).await;
    assert_eq!((quota, used, count), (5_000_000 - 12_000, 12_000, 1200));
    assert_eq!((remain, token_used), (5_000_000 - 12_000, 12_000));
    assert_eq!(channel_used, 12_000);
    let (logs,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM logs WHERE request_id LIKE 'big-%'")
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    assert_eq!(logs, 1200);
}

/// A resent record makes ingest write its batch a second time, learning which rows are new:
/// the first attempt leaves nothing behind (no second rejection, no second charge).
async fn a_resent_record_beside_a_refused_one_is_written_once(app: &TestApp) {
    let (user, token_id) = payer(app, 100_000, 50_000).await;
    let row = |id: &str, quota: i64| {
        control_plane::sync::usage::to_row(record(id, user.user_id, token_id, quota, 2))
    };
    let ingest = |rows: Vec<_>| async move {
        control_plane::store::usage::ingest(app.db(), "gw-test", &rows)
            .await
            .unwrap()
    };
    assert_eq!(ingest(vec![row("resent-1", 100)]).await.inserted, 1);
    let outcome = ingest(vec![
        row("fresh-1", 200),
        row("refused-1", -5),
        row("resent-1", 100),
        row("fresh-2", 300),
    ])
    .await;
    assert_eq!((outcome.inserted, outcome.duplicates), (2, 1));
    assert_eq!(outcome.rejected.len(), 1);
    let (rejections,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM usage_rejections WHERE request_id = 'refused-1'")
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
    assert_eq!(rejections, 1);
    let (quota, used, count, remain, token_used, _) = balances(app, user.user_id, token_id).await;
    assert_eq!((quota, used, count), (100_000 - 600, 600, 3));
    assert_eq!((remain, token_used), (50_000 - 600, 600));
}

/// Texts reach the log row byte for byte whatever they hold (PostgreSQL receives a batch as one
/// array literal per column, SQLite as bound values): quotes, backslashes, braces, commas, the
/// word NULL, empty and padded texts. The roll-ups sum per user, model and hour.
async fn every_text_is_stored_as_sent(app: &TestApp) {
    let (user, token_id) = payer(app, 100_000, 50_000).await;
    let awkward = "quote \" backslash \\ slash / newline \n tab \t bell \u{7} del \u{7f} \
                   accents é ß 中文 emoji 🦀 \u{2028} \u{fffd} {\"k\": [1, \"v\"]}";
    let mut first = record("texts-1", user.user_id, token_id, 40, 2);
    first.content = awkward.into();
    first.other = format!("{{\"note\": {}}}", serde_json::to_string(awkward).unwrap());
    first.ip = "2001:db8::1".into();
    first.group = "vip \"g\"".into();
    let mut second = record("texts-2", user.user_id, token_id, 60, 2);
    second.model_name = "model/with\\odd \"name\"".into();
    second.token_name = "NULL".into();
    second.content = " {a,b}, \"}\" \\\" NULL ".into();
    second.ip = String::new();
    second.username = "user \"with\" {braces}, \\ and NULL".into();
    second.created_at += 3600;
    second.is_stream = false;
    let rows: Vec<_> = [first.clone(), second.clone()]
        .into_iter()
        .map(control_plane::sync::usage::to_row)
        .collect();
    let outcome = control_plane::store::usage::ingest(app.db(), "gw-test", &rows)
        .await
        .unwrap();
    assert_eq!((outcome.inserted, outcome.duplicates), (2, 0));
    for sent in [&first, &second] {
        let stored: (
            String,
            String,
            String,
            String,
            String,
            String,
            String,
            i64,
            i64,
            i64,
            i64,
        ) = sqlx::query_as(
            "SELECT content, other, ip, \"group\", model_name, token_name, username, created_at, \
                 is_stream, quota, channel_id FROM logs WHERE request_id = $1",
        )
        .bind(&sent.request_id)
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
        assert_eq!(
            stored,
            (
                sent.content.clone(),
                sent.other.clone(),
                sent.ip.clone(),
                sent.group.clone(),
                sent.model_name.clone(),
                sent.token_name.clone(),
                sent.username.clone(),
                sent.created_at,
                i64::from(sent.is_stream),
                sent.quota,
                sent.channel_id,
            )
        );
    }
    let hours: Vec<(String, String, i64, i64, i64)> = sqlx::query_as(
        "SELECT username, model_name, created_at, quota, count FROM quota_data \
         WHERE user_id = $1 ORDER BY created_at",
    )
    .bind(user.user_id)
    .fetch_all(&app.db().pool)
    .await
    .unwrap();
    assert_eq!(
        hours,
        vec![
            (
                first.username.clone(),
                "gpt-4o".to_owned(),
                1_700_006_400,
                40,
                1
            ),
            (
                second.username.clone(),
                second.model_name.clone(),
                1_700_010_000,
                60,
                1
            ),
        ]
    );
    let (quota, used, count, remain, token_used, channel_used) =
        balances(app, user.user_id, token_id).await;
    assert_eq!((quota, used, count), (100_000 - 100, 100, 2));
    assert_eq!((remain, token_used, channel_used), (50_000 - 100, 100, 100));
}

on_both_backends!(
    every_text_is_stored_as_sent,
    a_resent_record_beside_a_refused_one_is_written_once,
    consumption_without_log_rows_still_charges_once,
    bad_records_are_set_aside_and_the_rest_commits,
    same_batch_twice_charges_once,
    unlimited_token_keeps_its_remaining_quota,
    concurrent_batches_all_commit,
    large_batches_with_repeats_charge_each_record_once
);
