//! End-to-end over real sockets: weighted choice inside a priority tier, and failover
//! (500, 429, slow first byte, refused connection, broken first event) decided before any
//! byte reaches the client, never re-picking a channel already tried.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::{Value, json};

async fn mock() -> mock_provider::MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

fn use_channel(other: &str) -> Vec<i64> {
    let v: Value = serde_json::from_str(other).unwrap();
    v["admin_info"]["use_channel"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_i64().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weighted_choice_within_the_highest_tier() {
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![
        channel(1, &m.scenario_url("tag=a"), &["gpt-test"], 5, 3),
        channel(2, &m.scenario_url("tag=b"), &["gpt-test"], 5, 1),
        channel(3, &m.scenario_url("tag=c"), &["gpt-test"], 0, 100),
    ]))
    .await;
    let n = 400;
    for _ in 0..n {
        assert_eq!(
            gw.chat("alice", chat_body("gpt-test", false)).await.status,
            200
        );
    }
    let (a, b, c) = (m.calls("a"), m.calls("b"), m.calls("c"));
    assert_eq!(a + b, n);
    assert_eq!(c, 0, "a lower tier is not used while the top tier answers");
    // Expected 300 of 400 (σ ≈ 8.7): accept ±4σ.
    assert!((265..=335).contains(&a), "weight 3:1 gave {a}:{b}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fails_over_500_429_slow_and_refused_channels_to_a_healthy_one() {
    let m = mock().await;
    let refused = format!("http://127.0.0.1:{}", free_port());
    let mut snap = snapshot(vec![
        channel(
            1,
            &m.scenario_url("tag=f500,status=500"),
            &["gpt-test"],
            50,
            1,
        ),
        channel(
            2,
            &m.scenario_url("tag=f429,status=429"),
            &["gpt-test"],
            40,
            1,
        ),
        channel(
            3,
            &m.scenario_url("tag=slow,ttfb_ms=10000"),
            &["gpt-test"],
            30,
            1,
        ),
        channel(4, &refused, &["gpt-test"], 20, 1),
        channel(5, &m.scenario_url("tag=ok,chunks=3"), &["gpt-test"], 10, 1),
    ]);
    snap["options"] = json!({"retry_times": 4, "first_byte_timeout_ms": 1000});
    let gw = Gw::start(snap).await;
    for round in 1..=2u64 {
        for stream in [false, true] {
            let r = gw.chat("alice", chat_body("gpt-test", stream)).await;
            assert_eq!(r.status, 200, "{}", r.text());
            let content = if stream {
                sse_content(&r.text())
            } else {
                r.json()["choices"][0]["message"]["content"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            };
            assert_eq!(
                content, "word0 word1 word2 ",
                "only the healthy answer reaches the client"
            );
            assert!(!r.text().contains("mock error"));
            let rec = gw.record(&r.request_id()).await;
            assert_eq!(use_channel(&rec.other), vec![1, 2, 3, 4, 5]);
            assert_eq!((rec.channel, rec.kind, rec.status), (5, 2, 200));
        }
        for tag in ["f500", "f429", "slow", "ok"] {
            assert_eq!(m.calls(tag), 2 * round, "{tag}: once per request");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_first_event_fails_over_before_the_client_sees_it() {
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![
        channel(
            1,
            &m.scenario_url("tag=mal,malformed=1"),
            &["gpt-test"],
            9,
            1,
        ),
        channel(
            2,
            &m.scenario_url("tag=cut0,cut_after=0"),
            &["gpt-test"],
            8,
            1,
        ),
        channel(3, &m.scenario_url("tag=ok"), &["gpt-test"], 0, 1),
    ]))
    .await;
    let r = gw.chat("alice", chat_body("gpt-test", true)).await;
    assert_eq!(r.status, 200);
    assert_eq!(sse_content(&r.text()), "word0 word1 word2 word3 word4 ");
    assert!(!r.text().contains("broken"));
    assert_eq!((m.calls("mal"), m.calls("cut0"), m.calls("ok")), (1, 1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn never_repicks_a_tried_channel_and_maps_the_final_status() {
    let m = mock().await;
    let mut snap = snapshot(vec![
        channel(1, &m.scenario_url("tag=a,status=500"), &["gpt-test"], 1, 1),
        channel(2, &m.scenario_url("tag=b,status=502"), &["gpt-test"], 0, 1),
    ]);
    snap["channels"][1]["status_code_mapping"] = json!({"502": "503"});
    snap["options"]["retry_times"] = json!(10);
    let gw = Gw::start(snap).await;
    let r = gw.chat("alice", chat_body("gpt-test", false)).await;
    let err = r.assert_error(503, "mock_502");
    assert_eq!(
        err["type"], "upstream_error",
        "the upstream error object is kept"
    );
    assert_eq!((m.calls("a"), m.calls("b")), (1, 1));
    let rec = gw.record(&r.request_id()).await;
    assert_eq!(
        (rec.kind, rec.quota, rec.status),
        (gateway::usage::LOG_ERROR, 0, 503)
    );
    assert_eq!(use_channel(&rec.other), vec![1, 2]);
    assert_eq!(gw.user_quota(1), 1_000_000_000, "reservation refunded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_retryable_statuses_are_returned_without_failover() {
    let m = mock().await;
    let mut snap = snapshot(vec![
        channel(
            1,
            &m.scenario_url("tag=bad,status=400"),
            &["gpt-test"],
            1,
            1,
        ),
        channel(2, &m.scenario_url("tag=ok"), &["gpt-test"], 0, 1),
    ]);
    snap["options"]["retry_times"] = json!(3);
    let gw = Gw::start(snap).await;
    let r = gw.chat("alice", chat_body("gpt-test", false)).await;
    r.assert_error(400, "mock_400");
    assert_eq!((m.calls("bad"), m.calls("ok")), (1, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_mapping_and_custom_full_url_channels() {
    let m = mock().await;
    let mut mapped = channel(1, &m.scenario_url("tag=mapped"), &["alias"], 1, 1);
    mapped["model_mapping"] = json!({"alias": "middle", "middle": "real-model"});
    let mut custom = channel(
        2,
        &format!("{}/v1/chat/completions", m.scenario_url("tag=custom")),
        &["custom-model"],
        0,
        1,
    );
    custom["type"] = json!(8);
    let mut snap = snapshot(vec![mapped, custom]);
    snap["pricing"]["model_ratio"] = json!({"alias": 1, "custom-model": 1});
    let gw = Gw::start(snap).await;
    let r = gw.chat("alice", chat_body("alias", false)).await;
    assert_eq!(r.status, 200);
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(
        (seen.tag.as_str(), seen.model.as_deref()),
        ("mapped", Some("real-model"))
    );
    let rec = gw.record(&r.request_id()).await;
    assert_eq!(
        rec.model_name, "alias",
        "billing and logs use the requested model"
    );
    let o: Value = serde_json::from_str(&rec.other).unwrap();
    assert_eq!(
        (
            o["is_model_mapped"].as_bool(),
            o["upstream_model_name"].as_str()
        ),
        (Some(true), Some("real-model"))
    );
    let r = gw.chat("alice", chat_body("custom-model", true)).await;
    assert_eq!(r.status, 200);
    assert_eq!(sse_content(&r.text()), "word0 word1 word2 word3 word4 ");
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(
        (seen.tag.as_str(), seen.path.as_str()),
        ("custom", "/v1/chat/completions")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_whose_first_event_is_late_fails_over() {
    let m = mock().await;
    let mut snap = snapshot(vec![
        channel(
            1,
            &m.scenario_url("tag=late,first_event_ms=10000"),
            &["gpt-test"],
            1,
            1,
        ),
        channel(2, &m.scenario_url("tag=ok"), &["gpt-test"], 0, 1),
    ]);
    snap["options"]["first_byte_timeout_ms"] = json!(1000);
    let gw = Gw::start(snap).await;
    let r = gw.chat("alice", chat_body("gpt-test", true)).await;
    assert_eq!(r.status, 200);
    assert_eq!(sse_content(&r.text()), "word0 word1 word2 word3 word4 ");
    assert_eq!((m.calls("late"), m.calls("ok")), (1, 1));
    let rec = gw.record(&r.request_id()).await;
    assert_eq!(use_channel(&rec.other), vec![1, 2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_retryable_status_set_is_configurable() {
    let m = mock().await;
    let mut snap = snapshot(vec![
        channel(
            1,
            &m.scenario_url("tag=limited,status=429"),
            &["gpt-test"],
            2,
            1,
        ),
        channel(
            2,
            &m.scenario_url("tag=teapot,status=418"),
            &["gpt-test"],
            1,
            1,
        ),
        channel(3, &m.scenario_url("tag=ok"), &["gpt-test"], 0, 1),
    ]);
    // 418 retried, 429 not: the first channel's 429 goes straight to the client.
    snap["options"]["retryable_status_codes"] = json!("418,500-599");
    let gw = Gw::start(snap.clone()).await;
    gw.chat("alice", chat_body("gpt-test", false))
        .await
        .assert_error(429, "mock_429");
    assert_eq!(
        (m.calls("limited"), m.calls("teapot"), m.calls("ok")),
        (1, 0, 0)
    );
    snap["channels"][0]["status"] = json!(2);
    let gw = Gw::start(snap).await;
    assert_eq!(
        gw.chat("alice", chat_body("gpt-test", false)).await.status,
        200
    );
    assert_eq!(
        (m.calls("limited"), m.calls("teapot"), m.calls("ok")),
        (1, 1, 1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_key_channel_spreads_requests_over_its_keys() {
    let m = mock().await;
    let mut polling = channel(1, &m.scenario_url("tag=keys"), &["gpt-test"], 0, 1);
    polling["key"] = json!("sk-one");
    polling["keys"] = json!(["sk-one", "sk-two", "sk-three"]);
    polling["multi_key_mode"] = json!("polling");
    let gw = Gw::start(snapshot(vec![polling])).await;
    for _ in 0..6 {
        assert_eq!(
            gw.chat("alice", chat_body("gpt-test", false)).await.status,
            200
        );
    }
    let used: Vec<String> = m.with_stats(|s| {
        s.requests
            .iter()
            .filter(|r| r.tag == "keys")
            .filter_map(|r| r.authorization.clone())
            .collect()
    });
    let expected: Vec<String> = ["one", "two", "three", "one", "two", "three"]
        .iter()
        .map(|k| format!("Bearer sk-{k}"))
        .collect();
    assert_eq!(used, expected, "polling takes the keys in turn");
}

/// The value of a metric on the gateway's admin port (0 when absent).
async fn metric(gw: &Gw, name: &str) -> i64 {
    let text = send(
        "GET",
        &format!("http://{}/metrics", gw.admin),
        &[],
        bytes::Bytes::new(),
    )
    .await
    .text();
    text.lines()
        .find(|l| l.starts_with(name) && !l.starts_with('#'))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_circuit_breaker_keeps_a_failing_channel_out_then_tries_it_half_open() {
    let m = mock().await;
    let mut snap = snapshot(vec![
        channel(1, &m.scenario_url("tag=flaky"), &["gpt-test"], 10, 1),
        channel(2, &m.scenario_url("tag=steady"), &["gpt-test"], 0, 1),
    ]);
    snap["options"]["retry_times"] = json!(1);
    let gw = Gw::start(snap).await;
    let state = &gw.running.as_ref().unwrap().state;
    let cooldown = std::time::Duration::from_millis(400);
    state.breakers.set_policy(gateway::routing::BreakerPolicy {
        failures_to_open: 2,
        cooldown,
        max_cooldown: cooldown * 2,
    });
    let ok = |r: &Reply| assert_eq!(r.status, 200, "{}", r.text());

    m.force_status("flaky", Some(500));
    for _ in 0..2 {
        ok(&gw.chat("alice", chat_body("gpt-test", false)).await);
    }
    assert_eq!(m.calls("flaky"), 2);
    assert_eq!(metric(&gw, "gateway_channel_breakers_open").await, 1);
    // Open: the failing channel is not tried at all, the lower tier answers at once.
    for _ in 0..5 {
        let r = gw.chat("alice", chat_body("gpt-test", false)).await;
        ok(&r);
        let rec = gw.record(&r.request_id()).await;
        assert_eq!(use_channel(&rec.other), vec![2]);
    }
    assert_eq!(m.calls("flaky"), 2, "no call while open");

    // Half-open after the cool-down: one trial, which fails and opens it for twice as long.
    tokio::time::sleep(cooldown + std::time::Duration::from_millis(50)).await;
    ok(&gw.chat("alice", chat_body("gpt-test", false)).await);
    assert_eq!(m.calls("flaky"), 3, "exactly one trial");
    tokio::time::sleep(cooldown + std::time::Duration::from_millis(50)).await;
    ok(&gw.chat("alice", chat_body("gpt-test", false)).await);
    assert_eq!(m.calls("flaky"), 3, "the second cool-down is longer");

    // The upstream recovers: the next trial closes the breaker and traffic returns.
    m.force_status("flaky", None);
    tokio::time::sleep(cooldown + std::time::Duration::from_millis(100)).await;
    let r = gw.chat("alice", chat_body("gpt-test", false)).await;
    ok(&r);
    assert_eq!(m.calls("flaky"), 4, "the trial");
    for _ in 0..3 {
        ok(&gw.chat("alice", chat_body("gpt-test", false)).await);
    }
    assert_eq!(
        m.calls("flaky"),
        7,
        "closed: the top tier takes the traffic again"
    );
    assert_eq!(metric(&gw, "gateway_channel_breakers_open").await, 0);
    assert_eq!(
        metric(
            &gw,
            "gateway_channel_breaker_opened_total{channel_id=\"1\"}"
        )
        .await,
        2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_of_a_multi_key_channel_is_reported_and_avoided() {
    let m = mock().await;
    let mut multi = channel(1, &m.scenario_url("tag=multi"), &["gpt-test"], 0, 1);
    // Key #1 of the channel's list is disabled at the control plane: it is not sent.
    multi["keys"] = json!(["sk-key-0", "sk-key-2", "sk-key-3"]);
    multi["key_indexes"] = json!([0, 2, 3]);
    multi["multi_key_mode"] = json!("polling");
    let mut snap = snapshot(vec![multi]);
    snap["options"]["retry_times"] = json!(0);
    let gw = Gw::start(snap).await;
    let state = &gw.running.as_ref().unwrap().state;
    state.breakers.set_policy(gateway::routing::BreakerPolicy {
        failures_to_open: 1,
        cooldown: std::time::Duration::from_secs(60),
        max_cooldown: std::time::Duration::from_secs(60),
    });
    m.revoke_key("sk-key-2", true);
    let mut refused = None;
    for _ in 0..3 {
        let r = gw.chat("alice", chat_body("gpt-test", false)).await;
        if r.status != 200 {
            assert!(r.status >= 400, "{}", r.text());
            refused = Some(gw.record(&r.request_id()).await);
        }
    }
    let rec = refused.expect("the revoked key was used once");
    assert_eq!(rec.channel_failures.len(), 1);
    assert_eq!(
        (
            rec.channel_failures[0].key_index,
            rec.channel_failures[0].status
        ),
        (2, 401),
        "the failure names the key by its index in the whole list"
    );
    let other: Value = serde_json::from_str(&rec.other).unwrap();
    assert_eq!(other["admin_info"]["multi_key_index"], json!(2));
    // The key's breaker is open: the other keys take every call.
    for _ in 0..6 {
        let r = gw.chat("alice", chat_body("gpt-test", false)).await;
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let used: Vec<String> = m.with_stats(|s| {
        s.requests
            .iter()
            .filter_map(|r| r.authorization.clone())
            .collect()
    });
    assert_eq!(
        used.iter().filter(|a| a.ends_with("sk-key-2")).count(),
        1,
        "{used:?}"
    );
    assert!(used.iter().any(|a| a.ends_with("sk-key-0")));
    assert!(used.iter().any(|a| a.ends_with("sk-key-3")));
}
