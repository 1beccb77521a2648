//! Channels that heal themselves: an upstream that starts answering 500 (a status the
//! `AutomaticDisableStatusCodes` option names) is taken out of routing on every gateway of the
//! fleet as soon as one gateway reports the failure, the channel shows the reason; once the
//! upstream recovers, the periodic channel test brings it back and traffic flows again. A key of
//! a multi-key channel that the provider refuses is disabled alone, and comes back the same way.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::system::{Gateway, System};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_channel_is_disabled_fleet_wide_and_comes_back() {
    let sys = System::start(false).await.unwrap();
    set_options(
        &sys,
        &[
            ("AutomaticDisableChannelEnabled", "true"),
            ("AutomaticEnableChannelEnabled", "true"),
            ("AutomaticDisableStatusCodes", "401,500-503"),
            ("monitor_setting.auto_test_channel_enabled", "true"),
            // 1.2 s: the test below waits for one periodic test after the upstream recovers.
            ("monitor_setting.auto_test_channel_minutes", "0.02"),
        ],
    )
    .await;
    let gws: Vec<Gateway> = vec![sys.gateway("gw-a").await, sys.gateway("gw-b").await];
    for gw in &gws {
        assert_eq!(gw.chat(&sys.key, "gpt-4o-mini").await.status, 200);
    }

    // The upstream goes down: one call through one gateway fails with its 500.
    sys.mock.force_status("default", Some(500));
    let r = gws[0].chat(&sys.key, "gpt-4o-mini").await;
    assert_eq!(r.status, 500, "{}", r.text());
    let failed_at = Instant::now();
    // Every gateway stops routing to it (no channel left for the model: 503).
    for gw in &gws {
        let start = Instant::now();
        loop {
            let r = gw.chat(&sys.key, "gpt-4o-mini").await;
            if r.status == 503 {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "still routed: {} {}",
                r.status,
                r.text()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    eprintln!(
        "channel out of routing on both gateways {} ms after the failure",
        failed_at.elapsed().as_millis()
    );
    let channel = sys
        .cp
        .ok(
            "GET",
            &format!("/api/channel/{}", sys.fast_channel),
            Value::Null,
        )
        .await;
    assert_eq!(channel["status"], json!(3), "auto-disabled: {channel}");
    let info = channel["other_info"].as_str().unwrap_or_default();
    assert!(info.contains("500"), "the reason is recorded: {info}");

    // The upstream recovers: the periodic test brings the channel back on every gateway.
    sys.mock.force_status("default", None);
    let recovered_at = Instant::now();
    for gw in &gws {
        let start = Instant::now();
        loop {
            let r = gw.chat(&sys.key, "gpt-4o-mini").await;
            if r.status == 200 {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "never re-enabled: {} {}",
                r.status,
                r.text()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    eprintln!(
        "channel back in routing on both gateways {} ms after the upstream recovered",
        recovered_at.elapsed().as_millis()
    );
    // The control plane's admin listener counted the periodic tests and the gateways' streams.
    let runs = sys
        .cp
        .metric(r#"control_plane_job_runs_total{outcome="ok",task="channel_test"}"#)
        .await;
    assert!(runs.is_some_and(|n| n >= 1.0), "{runs:?}");
    let connected = sys.cp.metric("control_plane_gateways_connected").await;
    assert!(connected.is_some_and(|n| n >= 2.0), "{connected:?}");
    let channel = sys
        .cp
        .ok(
            "GET",
            &format!("/api/channel/{}", sys.fast_channel),
            Value::Null,
        )
        .await;
    assert_eq!(channel["status"], json!(1), "re-enabled: {channel}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_of_a_multi_key_channel_is_disabled_alone_and_comes_back() {
    let sys = System::start(false).await.unwrap();
    set_options(
        &sys,
        &[
            ("AutomaticDisableChannelEnabled", "true"),
            ("AutomaticEnableChannelEnabled", "true"),
            ("AutomaticDisableStatusCodes", "401"),
        ],
    )
    .await;
    let ids = sys
        .cp
        .ok(
            "POST",
            "/api/channel/",
            json!({"mode": "multi_to_single", "multi_key_mode": "polling", "channel": {
                "type": 1, "name": "multi", "models": "multi-model", "group": "default",
                "key": "sk-multi-a\nsk-multi-b\nsk-multi-c",
                "base_url": sys.mock.scenario_url("tag=multi")}}),
        )
        .await;
    let id = ids[0].as_i64().unwrap();
    sys.cp
        .ok(
            "PUT",
            "/api/option/",
            json!({"key": "ModelPrice", "value": "{\"multi-model\": 0.001}"}),
        )
        .await;
    let gw = sys.gateway("gw-a").await;
    // The provider revokes key #1: the first call that uses it fails and reports it.
    sys.mock.revoke_key("sk-multi-b", true);
    let start = Instant::now();
    let mut failed = 0;
    loop {
        let r = gw.chat(&sys.key, "multi-model").await;
        if r.status != 200 {
            failed += 1;
        }
        let keys = sys
            .cp
            .ok(
                "POST",
                "/api/channel/multi_key/manage",
                json!({"channel_id": id, "action": "get_key_status"}),
            )
            .await;
        if keys["keys"][1]["status"] == json!(3) {
            assert_eq!(
                keys["channel_status"],
                json!(1),
                "the channel stays on: {keys}"
            );
            assert_eq!(keys["enabled"], json!(2));
            let reason = keys["keys"][1]["reason"].as_str().unwrap_or_default();
            assert!(reason.contains("401"), "the reason is recorded: {reason}");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "key never disabled: {keys}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(failed >= 1);
    // Once the gateways have the change, the refused key is not used any more.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = used(&sys, "sk-multi-b");
    for _ in 0..9 {
        let r = gw.chat(&sys.key, "multi-model").await;
        assert_eq!(r.status, 200, "{}", r.text());
    }
    assert_eq!(
        used(&sys, "sk-multi-b"),
        before,
        "the disabled key is left out"
    );
    assert!(used(&sys, "sk-multi-a") >= 3 && used(&sys, "sk-multi-c") >= 3);

    // The provider takes the key back: the periodic test enables it again.
    sys.mock.revoke_key("sk-multi-b", false);
    set_options(
        &sys,
        &[
            ("monitor_setting.auto_test_channel_enabled", "true"),
            ("monitor_setting.auto_test_channel_minutes", "0.02"),
        ],
    )
    .await;
    let start = Instant::now();
    loop {
        let keys = sys
            .cp
            .ok(
                "POST",
                "/api/channel/multi_key/manage",
                json!({"channel_id": id, "action": "get_key_status"}),
            )
            .await;
        if keys["enabled"] == json!(3) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "key never re-enabled: {keys}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let start = Instant::now();
    let before = used(&sys, "sk-multi-b");
    while used(&sys, "sk-multi-b") == before {
        assert_eq!(gw.chat(&sys.key, "multi-model").await.status, 200);
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the key never came back"
        );
    }
}

/// Saves options in the control plane, in order.
async fn set_options(sys: &System, options: &[(&str, &str)]) {
    for (key, value) in options {
        sys.cp
            .ok("PUT", "/api/option/", json!({"key": key, "value": value}))
            .await;
    }
}

/// How many calls the mock saw with `key`.
fn used(sys: &System, key: &str) -> usize {
    let bearer = format!("Bearer {key}");
    sys.mock.with_stats(|s| {
        s.requests
            .iter()
            .filter(|r| r.authorization.as_deref() == Some(bearer.as_str()))
            .count()
    })
}
