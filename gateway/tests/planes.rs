//! Both planes as real processes: the `control-plane` binary (SQLite, or a fresh PostgreSQL
//! database when `DATABASE_URL` is set) and `gateway --control-plane` binaries, with the
//! mock provider upstream. Covers config push latency, the usage outage path (nothing lost,
//! nothing charged twice) and SIGTERM mid-stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::system::{INITIAL_QUOTA, System, time_until};
use common::{chat_body, send};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn config_push_reaches_two_gateways_within_a_second(postgres: bool) {
    let Some(sys) = System::start(postgres).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let gws = [sys.gateway("gw-a").await, sys.gateway("gw-b").await];
    for gw in &gws {
        assert_eq!(gw.chat(&sys.key, "gpt-4o-mini").await.status, 200);
    }
    // One port: paths outside the relay reach the control plane through the gateway.
    let status = send(
        "GET",
        &format!("http://{}/api/status", gws[0].addr),
        &[],
        Bytes::new(),
    )
    .await;
    let status: Value = serde_json::from_slice(&status.body).unwrap();
    assert_eq!(status["success"], json!(true), "{status}");
    assert_eq!(status["data"]["setup"], json!(true));
    let listed = sys
        .cp
        .call_as(&sys.cp.admin, "GET", "/api/gateway/", Value::Null)
        .await;
    let names: Vec<&str> = listed["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["connected"] == json!(true))
        .filter_map(|g| g["gateway_id"].as_str())
        .collect();
    // A starting gateway opens the stream it follows before it closes the one its first
    // snapshot came on: it is listed as connected from the start, and acks that snapshot's
    // version.
    assert_eq!(names, vec!["gw-a", "gw-b"], "{listed}");
    // The stream that brought the snapshot (its decode buffer as large as the snapshot) is
    // closed: one stream per gateway is left open.
    time_until(Duration::from_secs(5), || async {
        sys.cp.metric("control_plane_gateways_connected").await == Some(2.0)
    })
    .await;
    time_until(Duration::from_secs(5), || async {
        let listed = sys
            .cp
            .call_as(&sys.cp.admin, "GET", "/api/gateway/", Value::Null)
            .await;
        listed["data"]["items"]
            .as_array()
            .is_some_and(|items| items.iter().all(|g| g["lag"] == json!(0)))
    })
    .await;

    let key = sys.new_token("fresh").await;
    let took = time_until(Duration::from_secs(5), || async {
        let mut all = true;
        for gw in &gws {
            all &= gw.chat(&key, "gpt-4o-mini").await.status == 200;
        }
        all
    })
    .await;
    assert!(
        took < Duration::from_secs(1),
        "new token accepted after {took:?}"
    );

    sys.cp
        .ok(
            "PUT",
            "/api/channel/",
            json!({"id": sys.fast_channel, "status": 2}),
        )
        .await;
    let took = time_until(Duration::from_secs(5), || async {
        let mut all = true;
        for gw in &gws {
            all &= gw.chat(&sys.key, "gpt-4o-mini").await.status != 200;
        }
        all
    })
    .await;
    assert!(
        took < Duration::from_secs(1),
        "disabled channel still used after {took:?}"
    );
    let calls = sys.mock.calls("default");
    for gw in &gws {
        assert_ne!(gw.chat(&sys.key, "gpt-4o-mini").await.status, 200);
    }
    assert_eq!(
        sys.mock.calls("default"),
        calls,
        "no traffic to the disabled channel"
    );
}

async fn control_plane_outage_loses_and_doubles_nothing(postgres: bool) {
    let Some(mut sys) = System::start(postgres).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let gw = sys.gateway("gw-outage").await;
    const N: i64 = 60;
    let mut served = 0;
    for i in 0..N {
        if i == 20 {
            sys.cp.kill();
        }
        if i == 40 {
            sys.cp.launch().await;
        }
        let r = gw.chat(&sys.key, "gpt-4o-mini").await;
        assert_eq!(
            r.status,
            200,
            "request {i}: {}",
            String::from_utf8_lossy(&r.body)
        );
        served += 1;
    }
    assert_eq!(served, N);
    let (rows, charged) = sys.wait_logs(N, Duration::from_secs(30)).await;
    assert_eq!(rows, N, "exactly one log row per request");
    assert!(charged > 0);
    // Nothing more arrives later (no duplicates from the spool replay).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(sys.consume_logs().await, (N, charged));
    let (quota, used, count) = sys.balances().await;
    assert_eq!(used, charged, "used quota is the sum of the charges");
    assert_eq!(quota, INITIAL_QUOTA - charged);
    assert_eq!(count, N);
}

async fn sigterm_mid_stream_loses_no_record(postgres: bool) {
    let Some(sys) = System::start(postgres).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let mut gw = sys.gateway("gw-term").await;
    let body = chat_body("gpt-4o", true).to_string();
    let mut s = tokio::net::TcpStream::connect(gw.addr).await.unwrap();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        sys.key,
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(body.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("data: {") {
        let n = s.read(&mut buf).await.unwrap();
        assert!(n > 0, "stream ended early");
        got.extend_from_slice(&buf[..n]);
    }
    gw.proc.signal("TERM");
    // Load balancers are told at once: not ready while draining.
    let readyz = format!("http://{}/readyz", gw.admin);
    let start = std::time::Instant::now();
    loop {
        let r = send("GET", &readyz, &[], Bytes::new()).await;
        if r.status == 503 {
            assert_eq!(r.json()["status"], json!("draining"));
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "still ready while draining"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let reader = tokio::spawn(async move {
        let mut buf = [0u8; 4096];
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        String::from_utf8_lossy(&got).to_string()
    });
    let text = tokio::time::timeout(Duration::from_secs(20), reader)
        .await
        .unwrap()
        .unwrap();
    assert!(text.contains("data: [DONE]"), "the stream finished: {text}");
    let status = tokio::task::spawn_blocking(move || {
        let s = gw.proc.wait_exit(Duration::from_secs(30));
        drop(gw);
        s
    })
    .await
    .unwrap();
    assert!(status.success(), "gateway exit {status:?}");
    let (rows, charged) = sys.wait_logs(1, Duration::from_secs(10)).await;
    assert_eq!(rows, 1, "the streamed request is logged");
    assert!(charged > 0);
    assert_eq!(sys.mock.calls("slow"), 1);
}

async fn gateway_restart_replays_its_spool(postgres: bool) {
    let Some(mut sys) = System::start(postgres).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let mut gw = sys.gateway("gw-spool").await;
    assert_eq!(gw.chat(&sys.key, "gpt-4o-mini").await.status, 200);
    sys.cp.kill();
    const M: i64 = 15;
    for i in 0..M {
        let r = gw.chat(&sys.key, "gpt-4o-mini").await;
        assert_eq!(r.status, 200, "request {i} served from the last snapshot");
    }
    // The admin port shows the outage: config stream down, records in the spool.
    gw.wait_metric("gateway_config_stream_up", 0, Duration::from_secs(5))
        .await;
    gw.wait_metric_until(
        "gateway_usage_spool_records",
        |n| n >= M,
        Duration::from_secs(10),
    )
    .await;
    // Stopped while the control plane is away: what was not delivered is on disk.
    gw.proc.signal("TERM");
    let status = tokio::task::spawn_blocking(move || {
        let s = gw.proc.wait_exit(Duration::from_secs(30));
        drop(gw);
        s
    })
    .await
    .unwrap();
    assert!(status.success(), "gateway exit {status:?}");
    // The spool file, and the part of it a failed replay had taken aside.
    let spooled: usize = ["usage-spool.jsonl", "usage-spool.replaying"]
        .iter()
        .map(|f| {
            std::fs::read_to_string(sys.dir.path().join("gw-spool").join(f))
                .unwrap_or_default()
                .lines()
                .count()
        })
        .sum();
    assert!(spooled >= M as usize, "spooled {spooled} records");

    sys.cp.launch().await;
    let gw = sys.gateway("gw-spool").await;
    let (rows, charged) = sys.wait_logs(M + 1, Duration::from_secs(30)).await;
    assert_eq!(rows, M + 1, "every request logged once");
    gw.wait_metric("gateway_usage_spool_records", 0, Duration::from_secs(5))
        .await;
    gw.wait_metric("gateway_config_stream_up", 1, Duration::from_secs(5))
        .await;
    let (quota, used, _) = sys.balances().await;
    assert_eq!(used, charged);
    assert_eq!(quota, INITIAL_QUOTA - charged);
}

on_both_databases!(
    config_push_reaches_two_gateways_within_a_second,
    control_plane_outage_loses_and_doubles_nothing,
    sigterm_mid_stream_loses_no_record,
    gateway_restart_replays_its_spool
);
