//! `/readyz` tells the truth: with `--ready-max-stale-seconds`, a gateway cut off from the
//! control plane for longer than the bound says so (503 `stale`, and the seconds in a metric)
//! while still answering requests on its last snapshot, and is ready again once the config
//! stream is back. Without the bound it stays ready (the default).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use common::send;
use common::system::{Gateway, System};
use serde_json::json;

async fn readyz(gw: &Gateway) -> (u16, serde_json::Value) {
    let r = send(
        "GET",
        &format!("http://{}/readyz", gw.admin),
        &[],
        Bytes::new(),
    )
    .await;
    (r.status, r.json())
}

async fn wait_status(gw: &Gateway, status: u16, limit: Duration) -> serde_json::Value {
    let start = Instant::now();
    loop {
        let (got, body) = readyz(gw).await;
        if got == status {
            return body;
        }
        assert!(start.elapsed() < limit, "readyz stayed {got}: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_cut_off_past_the_bound_is_not_ready_and_comes_back() {
    let mut sys = System::start(false).await.unwrap();
    let token = sys.cp.token_file();
    let bounded = Gateway::spawn(
        sys.cp.port,
        &sys.cp.url(),
        &sys.dir.path().join("gw-bounded"),
        "gw-bounded",
        &[
            "--sync-token-file".into(),
            token.display().to_string(),
            "--ready-max-stale-seconds".into(),
            "1".into(),
        ],
    );
    common::wait_listening(bounded.addr).await;
    let default = sys.gateway("gw-default").await;
    let body = wait_status(&bounded, 200, Duration::from_secs(5)).await;
    assert_eq!(body["status"], json!("ready"));

    sys.cp.kill();
    let body = wait_status(&bounded, 503, Duration::from_secs(15)).await;
    assert_eq!(body["status"], json!("stale"), "{body}");
    assert!(body["stale_seconds"].as_u64().unwrap() >= 1);
    assert!(
        bounded
            .metric("gateway_config_stale_seconds")
            .await
            .unwrap()
            >= 1
    );
    // Still answering on the last snapshot; the unbounded gateway stays ready.
    assert_eq!(bounded.chat(&sys.key, "gpt-4o-mini").await.status, 200);
    assert_eq!(readyz(&default).await.0, 200);

    sys.cp.launch().await;
    let body = wait_status(&bounded, 200, Duration::from_secs(30)).await;
    assert_eq!(body["status"], json!("ready"));
    assert_eq!(
        bounded.metric("gateway_config_stale_seconds").await,
        Some(0)
    );
}
