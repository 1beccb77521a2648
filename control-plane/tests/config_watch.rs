//! The config feed (`config.v1.ConfigService.Watch`): a full snapshot, then deltas for writes
//! made through the REST API (recorded by database triggers), and the versions gateways ack.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::TestApp;
use proto::config::v1::config_service_client::ConfigServiceClient;
use proto::config::v1::{AckRequest, Delta, Snapshot, WatchRequest, WatchResponse};
use serde_json::json;
use tokio_stream::StreamExt;
use tonic::Streaming;

async fn watch(addr: SocketAddr, have: u64) -> Streaming<WatchResponse> {
    let mut client = ConfigServiceClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    client
        .watch(common::authed(WatchRequest {
            have_version: have,
            gateway_id: "gw-1".into(),
        }))
        .await
        .unwrap()
        .into_inner()
}

async fn next(stream: &mut Streaming<WatchResponse>) -> WatchResponse {
    tokio::time::timeout(Duration::from_secs(3), stream.next())
        .await
        .expect("a message within 3 s")
        .unwrap()
        .unwrap()
}

/// Reads deltas until one satisfies `found` (within 3 s each).
async fn delta_until(
    stream: &mut Streaming<WatchResponse>,
    found: impl Fn(&Delta) -> bool,
) -> Delta {
    loop {
        let msg = next(stream).await;
        assert!(msg.snapshot.is_none(), "only deltas after the snapshot");
        let delta = msg.delta.unwrap();
        assert!(delta.version >= delta.from_version);
        if found(&delta) {
            return delta;
        }
    }
}

async fn snapshot_then_deltas(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "watcher").await;
    let channel_reply = app
        .post(
            "/api/channel/",
            json!({"type": 1, "name": "up", "key": "sk-upstream-1\nsk-upstream-2", "models": "gpt-4o,gpt-4o-mini", "group": "default,vip", "model_mapping": "{\"gpt-4o\":\"gpt-4o-2024\"}"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(channel_reply.success(), "{}", channel_reply.body);
    let channel_id = channel_reply.data()[0].as_i64().unwrap();
    let addr = common::serve_with_grpc(app).await;

    let mut stream = watch(addr, 0).await;
    let first = next(&mut stream).await;
    let snap: Snapshot = first.snapshot.expect("a full snapshot first");
    assert!(snap.version > 0);
    let c = snap.channels.iter().find(|c| c.id == channel_id).unwrap();
    assert_eq!(c.key, "sk-upstream-1", "the channel key is decrypted");
    assert_eq!(
        c.keys,
        vec!["sk-upstream-1", "sk-upstream-2"],
        "every key of a multi-key channel"
    );
    assert_eq!(c.multi_key_mode, "random");
    assert_eq!(c.models, vec!["gpt-4o", "gpt-4o-mini"]);
    assert_eq!(c.groups, vec!["default", "vip"]);
    assert_eq!(c.model_mapping["gpt-4o"], "gpt-4o-2024");
    assert!(
        snap.users
            .iter()
            .any(|u| u.id == user.user_id && u.username == "watcher")
    );
    let pricing = snap.pricing.unwrap();
    assert_eq!(pricing.group_ratio["default"], 1.0);
    assert_eq!(snap.options.unwrap().quota_per_unit, 500_000);

    // A token created through the REST API arrives as a delta, by key hash.
    let created = app
        .post(
            "/api/token/",
            json!({"name": "live", "remain_quota": 1234, "expired_time": -1, "unlimited_quota": false, "allow_ips": "10.0.0.1\n10.0.0.0/8"}),
        )
        .signed_in(&user)
        .send()
        .await;
    assert!(created.success(), "{}", created.body);
    let key = created.data()[0]["key"].as_str().unwrap().to_string();
    let token_id = created.data()[0]["id"].as_i64().unwrap();
    let hash = control_plane::domain::tokens::key_hash(&key);
    let started = std::time::Instant::now();
    let delta = delta_until(&mut stream, |d| {
        d.upsert_tokens.iter().any(|t| t.key_hash == hash)
    })
    .await;
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "took {:?}",
        started.elapsed()
    );
    // The metrics saw the stream, the snapshot and the delta pushed, and the version.
    let metrics = app.state.metrics().render();
    let sample = |name: &str| -> f64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or(-1.0)
    };
    assert!(
        sample("control_plane_gateways_connected") >= 1.0,
        "{metrics}"
    );
    assert!(sample("control_plane_config_version") >= delta.version as f64);
    assert!(sample("control_plane_config_push_seconds_count{kind=\"snapshot\"}") >= 1.0);
    assert!(sample("control_plane_config_push_seconds_count{kind=\"delta\"}") >= 1.0);
    let t = delta
        .upsert_tokens
        .iter()
        .find(|t| t.key_hash == hash)
        .unwrap();
    assert_eq!((t.user_id, t.remain_quota), (user.user_id, 1234));
    assert!(delta.version > snap.version);
    let token_version = delta.version;

    // Disabling the channel arrives as an upsert with the new status.
    let disabled = app
        .put("/api/channel/", json!({"id": channel_id, "status": 2}))
        .signed_in(&root)
        .send()
        .await;
    assert!(disabled.success(), "{}", disabled.body);
    let delta = delta_until(&mut stream, |d| {
        d.upsert_channels.iter().any(|c| c.id == channel_id)
    })
    .await;
    assert_eq!(
        delta
            .upsert_channels
            .iter()
            .find(|c| c.id == channel_id)
            .unwrap()
            .status,
        2
    );

    // An option change carries the pricing.
    let saved = app
        .put(
            "/api/option/",
            json!({"key": "GroupRatio", "value": "{\"default\":2}"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(saved.success(), "{}", saved.body);
    let delta = delta_until(&mut stream, |d| d.pricing.is_some()).await;
    assert_eq!(delta.pricing.unwrap().group_ratio["default"], 2.0);

    // Deleting the token arrives as a delete.
    let deleted = app
        .delete(&format!("/api/token/{token_id}/"))
        .signed_in(&user)
        .send()
        .await;
    assert!(deleted.success(), "{}", deleted.body);
    delta_until(&mut stream, |d| d.delete_tokens.contains(&token_id)).await;

    // A gateway that reconnects with a recent version gets deltas only, from that version.
    let mut again = watch(addr, token_version).await;
    let msg = next(&mut again).await;
    let delta = msg.delta.expect("no snapshot for a recent version");
    assert_eq!(delta.from_version, token_version);
    assert!(delta.upsert_channels.iter().any(|c| c.id == channel_id));

    // The versions a gateway applied are recorded.
    let mut client = ConfigServiceClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    client
        .ack(common::authed(AckRequest {
            gateway_id: "gw-1".into(),
            applied_version: delta.version,
        }))
        .await
        .unwrap();
    let rows = control_plane::store::config_changes::gateways(app.db())
        .await
        .unwrap();
    let gw = rows.iter().find(|g| g.gateway_id == "gw-1").unwrap();
    assert_eq!(gw.applied_version, delta.version as i64);
    assert_eq!(gw.connected, 2, "two streams open");

    // Admins see the gateways with version and lag; users do not.
    let listed = app.get("/api/gateway/").signed_in(&root).send().await;
    assert!(listed.success(), "{}", listed.body);
    let newest = listed.data()["version"].as_i64().unwrap();
    assert!(newest >= delta.version as i64);
    let item = listed.data()["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gateway_id"] == json!("gw-1"))
        .unwrap()
        .clone();
    assert_eq!(item["version"], json!(delta.version));
    assert_eq!(item["lag"], json!(newest - delta.version as i64));
    assert_eq!(item["connected"], json!(true));
    assert!(item["last_contact"].as_i64().unwrap() > 0);
    let denied = app.get("/api/gateway/").signed_in(&user).send().await;
    assert!(!denied.success());

    // Closed streams are counted out.
    drop(stream);
    drop(again);
    let start = std::time::Instant::now();
    loop {
        let rows = control_plane::store::config_changes::gateways(app.db())
            .await
            .unwrap();
        if rows
            .iter()
            .any(|g| g.gateway_id == "gw-1" && g.connected == 0)
        {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(5), "{rows:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn usage_ingest_moves_balances_in_the_feed(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "spender").await;
    let token_id = app.token_of(&user, "spend").await;
    let addr = common::serve_with_grpc(app).await;
    let mut stream = watch(addr, 0).await;
    assert!(next(&mut stream).await.snapshot.is_some());
    let row = control_plane::store::usage::UsageRow {
        request_id: "r1".into(),
        created_at: 1_700_000_000,
        kind: 2,
        user_id: user.user_id,
        username: "spender".into(),
        token_id,
        quota: 77,
        ..Default::default()
    };
    let mut second = row.clone();
    second.request_id = "r2".into();
    control_plane::store::usage::ingest(app.db(), "gw-test", &[row, second])
        .await
        .unwrap();
    let delta = delta_until(&mut stream, |d| {
        d.upsert_users.iter().any(|u| u.id == user.user_id)
    })
    .await;
    let updates: Vec<_> = delta
        .upsert_users
        .iter()
        .filter(|u| u.id == user.user_id)
        .collect();
    assert_eq!(updates.len(), 1, "one balance message per user per batch");
    assert_eq!(updates[0].quota, -154);
}

/// An update of users or tokens names every row whose gateway-visible columns changed value
/// (a change per row on SQLite, per statement and 1 000 rows on PostgreSQL), and no row left as
/// it was: a usage record that costs nothing, or a save that changes nothing, sends gateways no
/// delta.
async fn updates_record_only_changed_rows(app: &TestApp) {
    use control_plane::store::config_changes::{between, max_version};
    let root = app.root().await;
    let user = app.user(&root, "changer").await;
    let first = app.token_of(&user, "first").await;
    let second = app.token_of(&user, "second").await;
    let third = app.token_of(&user, "third").await;
    let db = app.db();
    let changes_after = |before: i64| async move {
        let upto = max_version(db).await.unwrap();
        let mut changes: Vec<(String, String)> = between(db, before, upto, 1000)
            .await
            .unwrap()
            .iter()
            .flat_map(|c| c.ids().map(|id| (c.entity.clone(), id.to_string())))
            .collect();
        changes.sort();
        (upto, changes)
    };
    let start = max_version(db).await.unwrap();
    sqlx::query("UPDATE tokens SET remain_quota = remain_quota - 5 WHERE id = $1 OR id = $2")
        .bind(first)
        .bind(second)
        .execute(&db.pool)
        .await
        .unwrap();
    let (after_two, changes) = changes_after(start).await;
    let mut want = vec![
        ("token".to_owned(), first.to_string()),
        ("token".to_owned(), second.to_string()),
    ];
    want.sort();
    assert_eq!(changes, want, "every updated token named once");

    sqlx::query(
        "UPDATE tokens SET remain_quota = remain_quota, status = status WHERE user_id = $1",
    )
    .bind(user.user_id)
    .execute(&db.pool)
    .await
    .unwrap();
    sqlx::query("UPDATE users SET quota = quota WHERE id = $1")
        .bind(user.user_id)
        .execute(&db.pool)
        .await
        .unwrap();
    let free = control_plane::store::usage::UsageRow {
        request_id: "free-1".into(),
        created_at: 1_700_000_000,
        kind: 2,
        user_id: user.user_id,
        username: "changer".into(),
        token_id: third,
        quota: 0,
        ..Default::default()
    };
    let outcome = control_plane::store::usage::ingest(db, "gw-test", &[free])
        .await
        .unwrap();
    assert_eq!(outcome.inserted, 1, "the free record is stored");
    let (after_none, changes) = changes_after(after_two).await;
    assert!(
        changes.is_empty(),
        "updates that change nothing gateways see record nothing: {changes:?}"
    );

    sqlx::query("UPDATE users SET quota = quota + 1 WHERE id = $1")
        .bind(user.user_id)
        .execute(&db.pool)
        .await
        .unwrap();
    let (_, changes) = changes_after(after_none).await;
    assert_eq!(changes, vec![("user".to_owned(), user.user_id.to_string())]);
}

/// Only the sync token opens the gRPC services: a loopback peer without it is refused like any
/// other, a wrong token is refused, and the right one works from anywhere.
async fn only_the_sync_token_opens_the_grpc_services(app: &TestApp) {
    use tower::ServiceExt;
    let call = |peer: &str, authorization: Option<&str>| {
        let mut req = axum::http::Request::post("/config.v1.ConfigService/Ack")
            .header("content-type", "application/grpc");
        if let Some(a) = authorization {
            req = req.header("authorization", a);
        }
        let mut req = req.body(axum::body::Body::empty()).unwrap();
        req.extensions_mut().insert(axum::extract::ConnectInfo(
            peer.parse::<SocketAddr>().unwrap(),
        ));
        control_plane::app_with_grpc(app.state.clone()).oneshot(req)
    };
    let status = |r: &axum::http::Response<axum::body::Body>| {
        r.headers()
            .get("grpc-status")
            .map(|v| v.to_str().unwrap().to_string())
    };
    let unauthenticated = Some("16".to_string());
    for (peer, auth) in [
        (common::LOOPBACK, None),
        (common::LOOPBACK, Some("Bearer wrong-token")),
        (common::LOOPBACK, Some(common::SYNC_TOKEN)),
        (common::REMOTE, None),
    ] {
        let reply = call(peer, auth).await.unwrap();
        assert_eq!(status(&reply), unauthenticated, "{peer} {auth:?}");
    }
    let good = format!("Bearer {}", common::SYNC_TOKEN);
    let reply = call(common::REMOTE, Some(&good)).await.unwrap();
    assert_ne!(status(&reply), unauthenticated);
    let metrics = app.state.metrics().render();
    assert!(
        metrics.contains("control_plane_gateway_refused_total{reason=\"missing_token\"} 3"),
        "{metrics}"
    );
}

/// Gateways get the keys of the channels they may use only: a disabled channel is sent
/// without its key, and gets it back when enabled again.
async fn disabled_channels_carry_no_key(app: &TestApp) {
    let root = app.root().await;
    let addr = common::serve_with_grpc(app).await;
    let created = app
        .post(
            "/api/channel/",
            json!({"type": 1, "name": "off", "key": "sk-secret-off", "models": "gpt-4o", "group": "default"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(created.success(), "{}", created.body);
    let listed = app
        .get("/api/channel/?p=1&page_size=10")
        .signed_in(&root)
        .send()
        .await;
    let id = listed.data()["items"][0]["id"].as_i64().unwrap();
    let set_status = |status: i64| {
        app.put("/api/channel/", json!({"id": id, "status": status}))
            .signed_in(&root)
            .send()
    };
    assert!(set_status(2).await.success());
    let mut stream = watch(addr, 0).await;
    let snap = next(&mut stream).await.snapshot.unwrap();
    let ch = snap.channels.iter().find(|c| c.id == id).unwrap();
    assert_eq!(ch.status, 2);
    assert!(ch.key.is_empty() && ch.keys.is_empty(), "{ch:?}");
    assert!(set_status(1).await.success());
    let delta = delta_until(&mut stream, |d| {
        d.upsert_channels
            .iter()
            .any(|c| c.id == id && c.status == 1)
    })
    .await;
    let ch = delta.upsert_channels.iter().find(|c| c.id == id).unwrap();
    assert_eq!(ch.keys, vec!["sk-secret-off".to_string()]);
    // Disabled automatically (by a failing test or request).
    sqlx::query("UPDATE channels SET status = 3 WHERE id = $1")
        .bind(id)
        .execute(&app.db().pool)
        .await
        .unwrap();
    let delta = delta_until(&mut stream, |d| {
        d.upsert_channels
            .iter()
            .any(|c| c.id == id && c.status == 3)
    })
    .await;
    let ch = delta.upsert_channels.iter().find(|c| c.id == id).unwrap();
    assert!(ch.key.is_empty() && ch.keys.is_empty(), "{ch:?}");
}

/// A gateway's view of the users' balances, kept by following the feed like a gateway does
/// (reconnecting from the version it has after any error).
async fn follow_balances(
    addr: SocketAddr,
    view: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<i64, i64>>>,
) {
    let mut have = 0;
    loop {
        let Ok(mut client) = ConfigServiceClient::connect(format!("http://{addr}")).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let Ok(reply) = client
            .watch(common::authed(WatchRequest {
                have_version: have,
                gateway_id: "follower".into(),
            }))
            .await
        else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let mut stream = reply.into_inner();
        while let Some(Ok(msg)) = stream.next().await {
            let mut v = view.lock().unwrap();
            if let Some(snap) = msg.snapshot {
                v.clear();
                v.extend(snap.users.iter().map(|u| (u.id, u.quota)));
                have = snap.version;
            }
            if let Some(d) = msg.delta {
                assert!(
                    d.from_version <= have,
                    "a delta from {} after {have}",
                    d.from_version
                );
                v.extend(d.upsert_users.iter().map(|u| (u.id, u.quota)));
                have = d.version;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Writers whose versions commit out of order (a transaction that drew a version sleeps while
/// later ones commit), rolled-back versions and, on PostgreSQL, every connection of the
/// database killed mid-way (the LISTEN connection included, as in a database restart): every
/// follower ends with the database's final balances.
async fn concurrent_writers_and_lost_connections_converge(app: &TestApp) {
    let root = app.root().await;
    let mut users = Vec::new();
    for i in 0..6 {
        users.push(app.user(&root, &format!("conv{i}")).await.user_id);
    }
    let addr = common::serve_with_grpc(app).await;
    let views: Vec<_> = (0..3)
        .map(|_| std::sync::Arc::new(std::sync::Mutex::new(std::collections::HashMap::new())))
        .collect();
    let followers: Vec<_> = views
        .iter()
        .map(|v| tokio::spawn(follow_balances(addr, v.clone())))
        .collect();
    let writers: Vec<_> = (0..4u64)
        .map(|w| {
            let (db, users) = (app.db().clone(), users.clone());
            tokio::spawn(async move {
                for i in 0..25u64 {
                    let user = users[((w * 7 + i * 3) % users.len() as u64) as usize];
                    let attempt = async {
                        let mut tx = db.pool.begin().await?;
                        sqlx::query("UPDATE users SET quota = quota + $1 WHERE id = $2")
                            .bind(i64::try_from(w * 1000 + i + 1).unwrap())
                            .bind(user)
                            .execute(&mut *tx)
                            .await?;
                        // Hold the drawn version open while other writers commit later ones.
                        tokio::time::sleep(Duration::from_millis((w * 13 + i * 29) % 120)).await;
                        if i % 9 == 4 {
                            tx.rollback().await
                        } else {
                            tx.commit().await
                        }
                    };
                    // Connections killed mid-way fail some writes; that is what they do.
                    let _ = attempt.await;
                }
            })
        })
        .collect();
    if app.backend == common::Backend::Postgres {
        tokio::time::sleep(Duration::from_millis(600)).await;
        let killed: Vec<(bool,)> = sqlx::query_as(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .fetch_all(&app.db().pool)
        .await
        .unwrap();
        assert!(
            killed.len() >= 2,
            "the LISTEN connection and the pool's were killed"
        );
    }
    for w in writers {
        w.await.unwrap();
    }
    let truth = || async {
        let rows: Vec<(i64, i64)> = sqlx::query_as("SELECT id, quota FROM users")
            .fetch_all(&app.db().pool)
            .await
            .unwrap();
        rows.into_iter()
            .collect::<std::collections::HashMap<_, _>>()
    };
    let start = std::time::Instant::now();
    loop {
        let want = truth().await;
        let converged = views.iter().all(|v| *v.lock().unwrap() == want);
        if converged {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "followers did not converge: want {want:?}, have {:?}",
            views
                .iter()
                .map(|v| v.lock().unwrap().clone())
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for f in followers {
        f.abort();
    }
}

/// One statement that changes 2 500 tokens (an operator's bulk edit) reaches a gateway whole,
/// in deltas of at most 2 000 tokens each, every token with its new value. On PostgreSQL the
/// statement is recorded as three changes of at most 1 000 ids, ascending.
async fn a_bulk_update_reaches_gateways_in_bounded_deltas(app: &TestApp) {
    use control_plane::store::config_changes::{between, max_version};
    let root = app.root().await;
    let user = app.user(&root, "bulk").await;
    let db = app.db();
    for first in (0..2500).step_by(500) {
        let mut q = control_plane::store::dynamic::DynQuery::new(
            "INSERT INTO tokens (user_id, name, key_hash, key_enc, remain_quota) SELECT ",
        );
        q.bind_int(user.user_id).push(
            ", 'bulk', 'bulk-' || CAST(n AS TEXT), 'x', 5 FROM (WITH RECURSIVE s(n) AS \
             (SELECT ",
        );
        q.bind_int(first)
            .push(" UNION ALL SELECT n + 1 FROM s WHERE n + 1 < ")
            .bind_int(first + 500)
            .push(") SELECT n FROM s) AS s");
        q.build().execute(&db.pool).await.unwrap();
    }
    let addr = common::serve_with_grpc(app).await;
    let mut stream = watch(addr, 0).await;
    let snap = next(&mut stream).await.snapshot.unwrap();
    assert_eq!(
        snap.tokens.iter().filter(|t| t.name == "bulk").count(),
        2500
    );
    let before = max_version(db).await.unwrap();
    sqlx::query("UPDATE tokens SET remain_quota = 9 WHERE name = 'bulk'")
        .execute(&db.pool)
        .await
        .unwrap();
    let changes = between(db, before, max_version(db).await.unwrap(), 10_000)
        .await
        .unwrap();
    let ids: Vec<i64> = changes.iter().flat_map(|c| c.ids()).collect();
    assert_eq!(ids.len(), 2500, "every token recorded once");
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "in id order");
    if db.kind == control_plane::store::DbKind::Postgres {
        assert_eq!(changes.len(), 3, "a change per 1 000 ids");
    }
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < 2500 {
        let delta = delta_until(&mut stream, |_| true).await;
        assert!(
            delta.upsert_tokens.len() <= 2000,
            "{} tokens in one delta",
            delta.upsert_tokens.len()
        );
        for t in &delta.upsert_tokens {
            assert_eq!(t.remain_quota, 9, "token {} sent with its new value", t.id);
            seen.insert(t.id);
        }
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), ids);
}

/// The reads that a delta and the quota reminders make of the entities a batch named take any
/// number of ids, one bound value for all of them: 40 000 ids (past SQLite's limit of 32 766
/// parameters a statement), most of them unknown, find exactly the live users among them.
async fn entities_are_read_by_any_number_of_ids(app: &TestApp) {
    use control_plane::store::{config_changes, notices};
    let root = app.root().await;
    let alice = app.user(&root, "many-ids-alice").await;
    let bob = app.user(&root, "many-ids-bob").await;
    let db = app.db();
    let mut ids: Vec<i64> = (1_000_000..1_040_000).collect();
    ids.extend([bob.user_id, root.user_id, alice.user_id]);
    let mut found: Vec<i64> = config_changes::users(db, Some(&ids))
        .await
        .unwrap()
        .iter()
        .map(|u| u.id)
        .collect();
    found.sort_unstable();
    let mut want = vec![root.user_id, alice.user_id, bob.user_id];
    want.sort_unstable();
    assert_eq!(found, want);
    assert!(
        config_changes::users(db, Some(&[]))
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        config_changes::tokens(db, Some(&ids[..40_000]))
            .await
            .unwrap()
            .is_empty()
    );

    assert!(notices::claim(db, alice.user_id, 1).await.unwrap());
    let sent = notices::sent_among(db, &ids).await.unwrap();
    assert_eq!(sent, [alice.user_id].into_iter().collect());
    notices::rearm(db, &ids).await.unwrap();
    assert!(notices::sent_among(db, &ids).await.unwrap().is_empty());
    assert!(
        notices::claim(db, alice.user_id, 2).await.unwrap(),
        "re-armed"
    );
}

on_both_backends!(
    entities_are_read_by_any_number_of_ids,
    a_bulk_update_reaches_gateways_in_bounded_deltas,
    concurrent_writers_and_lost_connections_converge,
    snapshot_then_deltas,
    usage_ingest_moves_balances_in_the_feed,
    updates_record_only_changed_rows,
    only_the_sync_token_opens_the_grpc_services,
    disabled_channels_carry_no_key
);
