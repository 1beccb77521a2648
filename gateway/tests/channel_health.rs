//! Channels that heal themselves: an upstream that starts answering 500 (a status the
//! `AutomaticDisableStatusCodes` option names) is taken out of routing on every gateway of the
//! fleet as soon as one gateway reports the failure, the channel shows the reason; once the
//! upstream recovers, the periodic channel test brings it back and traffic flows again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::system::{Gateway, System};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_channel_is_disabled_fleet_wide_and_comes_back() {
    let sys = System::start(false).await.unwrap();
    for (key, value) in [
        ("AutomaticDisableChannelEnabled", "true"),
        ("AutomaticEnableChannelEnabled", "true"),
        ("AutomaticDisableStatusCodes", "401,500-503"),
        ("monitor_setting.auto_test_channel_enabled", "true"),
        // 1.2 s: the test below waits for one periodic test after the upstream recovers.
        ("monitor_setting.auto_test_channel_minutes", "0.02"),
    ] {
        sys.cp
            .ok("PUT", "/api/option/", json!({"key": key, "value": value}))
            .await;
    }
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
