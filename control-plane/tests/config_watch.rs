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

async fn watch(addr: SocketAddr, have: u64) -> Streaming<WatchResponse> {
    let mut client = ConfigServiceClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    client
        .watch(WatchRequest {
            have_version: have,
            gateway_id: "gw-1".into(),
        })
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
    let addr = serve(app).await;

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
        .ack(AckRequest {
            gateway_id: "gw-1".into(),
            applied_version: delta.version,
        })
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
    let addr = serve(app).await;
    let mut stream = watch(addr, 0).await;
    assert!(next(&mut stream).await.snapshot.is_some());
    let row = control_plane::store::usage::UsageRow {
        request_id: "r1".into(),
        created_at: 1_700_000_000,
        kind: 2,
        user_id: user.user_id,
        username: "spender".into(),
        quota: 77,
        ..Default::default()
    };
    let mut second = row.clone();
    second.request_id = "r2".into();
    control_plane::store::usage::ingest(app.db(), &[row, second])
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

/// Without a sync token, only loopback peers may call the gRPC services (they carry keys).
async fn remote_peers_are_refused(app: &TestApp) {
    use tower::ServiceExt;
    let call = |peer: &str| {
        let mut req = axum::http::Request::post("/config.v1.ConfigService/Ack")
            .header("content-type", "application/grpc")
            .body(axum::body::Body::empty())
            .unwrap();
        req.extensions_mut().insert(axum::extract::ConnectInfo(
            peer.parse::<SocketAddr>().unwrap(),
        ));
        control_plane::app_with_grpc(app.state.clone()).oneshot(req)
    };
    let remote = call(common::REMOTE).await.unwrap();
    assert_eq!(
        remote.headers().get("grpc-status").unwrap(),
        "16",
        "unauthenticated"
    );
    let local = call(common::LOOPBACK).await.unwrap();
    assert_ne!(
        local
            .headers()
            .get("grpc-status")
            .map(|v| v.as_bytes().to_vec()),
        Some(b"16".to_vec())
    );
}

on_both_backends!(
    snapshot_then_deltas,
    usage_ingest_moves_balances_in_the_feed,
    remote_peers_are_refused
);
