//! End-to-end over real sockets: SSE relaying (identical content, usage chunk on/off,
//! local counting, client disconnect, mid-stream cut) and billing (ratio-based with cache
//! and group ratios, fixed price, pre-consume limits, no overdraw under concurrency).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::*;
use serde_json::{Value, json};

async fn mock() -> mock_provider::MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

fn other(rec: &gateway::usage::UsageRecord) -> Value {
    serde_json::from_str(&rec.other).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_events_are_identical_to_the_upstream_and_usage_is_hidden_unless_asked() {
    let m = mock().await;
    let spec = "tag=s,chunks=20";
    let gw = Gw::start(snapshot(vec![channel(
        1,
        &m.scenario_url(spec),
        &["gpt-test"],
        0,
        1,
    )]))
    .await;
    // What the upstream itself sends to a client that did not ask for usage.
    let direct = send(
        "POST",
        &format!("{}/v1/chat/completions", m.scenario_url(spec)),
        &[("content-type", "application/json")],
        Bytes::from(chat_body("gpt-test", true).to_string()),
    )
    .await;
    let r = gw.chat("alice", chat_body("gpt-test", true)).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "text/event-stream");
    assert_eq!(
        sse_data(&r.text()),
        sse_data(&direct.text()),
        "same events, in order"
    );
    assert!(!r.text().contains("usage"));
    let seen = m.with_stats(|s| s.requests.last().unwrap().clone());
    assert_eq!(
        seen.include_usage,
        Some(true),
        "usage requested upstream for billing"
    );
    let rec = gw.record(&r.request_id()).await;
    assert_eq!(
        (rec.prompt_tokens, rec.completion_tokens, rec.is_stream),
        (12, 20, true)
    );
    assert_eq!(rec.quota, 12 + 20 * 2);
    assert!(other(&rec).get("local_count_tokens").is_none());
    assert!(other(&rec)["frt"].is_u64());

    // A client that asks for usage gets the upstream's usage chunk before [DONE].
    let mut body = chat_body("gpt-test", true);
    body["stream_options"] = json!({"include_usage": true});
    let r = gw.chat("alice", body).await;
    let data = sse_data(&r.text());
    assert_eq!(data.last().unwrap(), "[DONE]");
    let usage: Value = serde_json::from_str(&data[data.len() - 2]).unwrap();
    assert_eq!(usage["usage"]["completion_tokens"], 20);
    assert_eq!(sse_content(&r.text()), sse_content(&direct.text()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_without_upstream_usage_are_counted_locally() {
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![channel(
        1,
        &m.scenario_url("usage=off,chunks=8"),
        &["gpt-test"],
        0,
        1,
    )]))
    .await;
    let mut body = chat_body("gpt-test", true);
    body["stream_options"] = json!({"include_usage": true});
    let r = gw.chat("alice", body).await;
    let data = sse_data(&r.text());
    let usage: Value = serde_json::from_str(&data[data.len() - 2]).unwrap();
    let completion = usage["usage"]["completion_tokens"].as_i64().unwrap();
    assert!(
        completion >= 8,
        "synthesized usage counts the streamed text: {usage}"
    );
    let rec = gw.record(&r.request_id()).await;
    assert_eq!(rec.completion_tokens, completion);
    assert_eq!(other(&rec)["local_count_tokens"], true);
    assert!(rec.quota > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_are_relayed_as_they_come_and_a_leaving_client_stops_the_upstream() {
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![channel(
        1,
        &m.scenario_url("chunks=40,chunk_delay_ms=100"),
        &["gpt-test"],
        0,
        1,
    )]))
    .await;
    let got = read_some_events(gw.addr, "alice", &chat_body("gpt-test", true), 3).await;
    // Three events arrived while the upstream still had more than three seconds to go.
    assert_eq!(m.with_stats(|s| s.completed_streams), 0);
    let request_id = got
        .lines()
        .find_map(|l| {
            l.strip_prefix("X-Oneapi-Request-Id: ")
                .or_else(|| l.strip_prefix("x-oneapi-request-id: "))
        })
        .unwrap()
        .trim()
        .to_owned();
    // The socket is dropped: the gateway notices on its next write and drops the upstream.
    let mut aborted = 0;
    for _ in 0..100 {
        aborted = m.with_stats(|s| s.aborted_streams);
        if aborted > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(aborted, 1, "upstream stream cancelled");
    assert_eq!(m.with_stats(|s| s.completed_streams), 0);
    let rec = gw.record(&request_id).await;
    assert_eq!(other(&rec)["client_disconnected"], true);
    assert!(
        rec.completion_tokens > 0 && rec.completion_tokens < 40 * 2,
        "billed for what was produced: {rec:?}"
    );
    assert!(rec.quota > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_mid_way_ends_with_an_error_event_and_bills_what_was_sent() {
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![
        channel(
            1,
            &m.scenario_url("tag=cut,cut_after=3,chunk_delay_ms=300"),
            &["gpt-test"],
            1,
            1,
        ),
        channel(2, &m.scenario_url("tag=spare"), &["gpt-test"], 0, 1),
    ]))
    .await;
    let r = gw.chat("alice", chat_body("gpt-test", true)).await;
    assert_eq!(r.status, 200);
    assert_eq!(sse_content(&r.text()), "word0 word1 word2 ");
    let data = sse_data(&r.text());
    let last: Value = serde_json::from_str(data.last().unwrap()).unwrap();
    assert_eq!(last["error"]["type"], "new_api_error");
    assert!(
        last["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&r.request_id())
    );
    assert!(!data.contains(&"[DONE]".to_owned()));
    assert_eq!(m.calls("spare"), 0, "no failover once bytes were sent");
    let rec = gw.record(&r.request_id()).await;
    assert_eq!(rec.kind, 2);
    assert!(rec.quota > 0 && !rec.content.is_empty());
}

fn billing_snapshot(m: &mock_provider::MockHandle, spec: &str) -> Value {
    let mut ch = channel(1, &m.scenario_url(spec), &["gpt-test", "fixed-test"], 0, 1);
    ch["groups"] = json!(["default", "vip"]);
    let mut snap = snapshot(vec![ch]);
    snap["users"]
        .as_array_mut()
        .unwrap()
        .push(user(2, "vip", 1_000_000));
    let mut t = token(2, 2, "bob");
    t["unlimited_quota"] = json!(false);
    t["remain_quota"] = json!(100_000);
    let mut poor = token(3, 2, "poortoken");
    poor["unlimited_quota"] = json!(false);
    poor["remain_quota"] = json!(100);
    snap["tokens"].as_array_mut().unwrap().extend([t, poor]);
    snap["pricing"]["cache_ratio"] = json!({"gpt-test": 0.5});
    snap
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ratio_billing_applies_completion_cache_and_group_ratios() {
    let m = mock().await;
    let gw = Gw::start(billing_snapshot(
        &m,
        "prompt_tokens=100,cached_tokens=40,chunks=5",
    ))
    .await;
    // (100 − 40 + 40×0.5 + 5×2) × ratio 1 × group vip 1.5 = 135.
    let mut expected_user = 1_000_000;
    let mut expected_token = 100_000;
    for stream in [false, true] {
        let r = gw.chat("bob", chat_body("gpt-test", stream)).await;
        assert_eq!(r.status, 200, "{}", r.text());
        let rec = gw.record(&r.request_id()).await;
        assert_eq!(
            (rec.prompt_tokens, rec.completion_tokens, rec.quota),
            (100, 5, 135)
        );
        assert_eq!(
            (
                rec.group.as_str(),
                rec.username.as_str(),
                rec.token_name.as_str()
            ),
            ("vip", "user2", "token2")
        );
        let o = other(&rec);
        assert_eq!(
            (
                o["group_ratio"].as_f64(),
                o["cache_ratio"].as_f64(),
                o["cache_tokens"].as_i64()
            ),
            (Some(1.5), Some(0.5), Some(40))
        );
        expected_user -= 135;
        expected_token -= 135;
        assert_eq!(gw.user_quota(2), expected_user);
        assert_eq!(gw.token_remain("bob"), expected_token);
    }
    // Pre-consume without max_tokens: (max(estimate, 500 tokens) + the completion allowance
    // of 4096) × 1 × 1.5 = 6894 > the token's 100.
    let r = gw.chat("poortoken", chat_body("gpt-test", false)).await;
    let err = r.assert_error(403, "pre_consume_token_quota_failed");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("need quota: 6894"),
        "{err}"
    );
    assert_eq!(
        gw.user_quota(2),
        expected_user,
        "user refunded when the token is short"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixed_price_billing_charges_per_request() {
    let m = mock().await;
    let gw = Gw::start(billing_snapshot(&m, "chunks=2")).await;
    let r = gw.chat("bob", chat_body("fixed-test", false)).await;
    assert_eq!(r.status, 200);
    let rec = gw.record(&r.request_id()).await;
    // $0.002 × 500000 × group 1.5 = 1500.
    assert_eq!(rec.quota, 1500);
    assert_eq!(other(&rec)["model_price"].as_f64(), Some(0.002));
    assert_eq!(gw.user_quota(2), 1_000_000 - 1500);
    assert_eq!(gw.token_remain("bob"), 100_000 - 1500);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_cannot_overdraw_a_balance() {
    let m = mock().await;
    let mut snap = snapshot(vec![channel(
        1,
        &m.scenario_url("ttfb_ms=300"),
        &["fixed-test"],
        0,
        1,
    )]);
    // $0.002 × 500000 = 1000 a request; 10000 covers ten.
    snap["users"] = json!([user(1, "default", 10_000)]);
    let gw = std::sync::Arc::new(Gw::start(snap).await);
    let tasks: Vec<_> = (0..100)
        .map(|_| {
            let gw = gw.clone();
            tokio::spawn(async move { gw.chat("alice", chat_body("fixed-test", false)).await })
        })
        .collect();
    let mut ok = 0;
    for t in tasks {
        let r = t.await.unwrap();
        match r.status {
            200 => ok += 1,
            _ => {
                r.assert_error(403, "insufficient_user_quota");
            }
        }
    }
    assert_eq!(ok, 10);
    assert_eq!(gw.user_quota(1), 0);
    assert_eq!(m.calls("default"), 10);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let billed: i64 = gw.records().iter().map(|r| r.quota).sum();
    assert_eq!(billed, 10_000);
    assert_eq!(gw.records().len(), 100, "one record per request");
    let mut ids: Vec<String> = gw.records().into_iter().map(|r| r.request_id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 100, "request ids are unique");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_leaving_before_the_first_byte_cancels_the_upstream_and_is_refunded() {
    use tokio::io::AsyncWriteExt;
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![channel(
        1,
        &m.scenario_url("ttfb_ms=20000"),
        &["gpt-test"],
        0,
        1,
    )]))
    .await;
    for stream in [false, true] {
        let body = chat_body("gpt-test", stream).to_string();
        let mut s = tokio::net::TcpStream::connect(gw.addr).await.unwrap();
        let head = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer sk-alice\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).await.unwrap();
        s.write_all(body.as_bytes()).await.unwrap();
        // Wait until the upstream has the request, then leave.
        let expected_calls = if stream { 2 } else { 1 };
        for _ in 0..200 {
            if m.calls("default") == expected_calls {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        drop(s);
        let mut cancelled = 0;
        for _ in 0..200 {
            cancelled = m.with_stats(|s| s.cancelled_requests);
            if cancelled == expected_calls {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert_eq!(
            cancelled, expected_calls,
            "upstream request dropped long before its 20 s first byte"
        );
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let records = gw.records();
    assert_eq!(records.len(), 2);
    for rec in records {
        assert_eq!(
            (rec.kind, rec.quota, rec.status),
            (gateway::usage::LOG_ERROR, 0, 499)
        );
        assert!(rec.content.contains("client"), "{rec:?}");
    }
    assert_eq!(
        gw.user_quota(1),
        1_000_000_000,
        "nothing produced, nothing billed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_config_swap_never_hands_back_quota_spent_but_not_yet_reflected() {
    let m = mock().await;
    let mut snap = snapshot(vec![channel(
        1,
        &m.scenario_url("ttfb_ms=200"),
        &["fixed-test"],
        0,
        1,
    )]);
    // $0.002 × 500000 = 1000 a request; 3000 covers three.
    snap["users"] = json!([user(1, "default", 3_000)]);
    let gw = std::sync::Arc::new(Gw::start_carried(snap.clone()).await);
    for _ in 0..2 {
        assert_eq!(
            gw.chat("alice", chat_body("fixed-test", false))
                .await
                .status,
            200
        );
    }
    // A third request is in flight while the control plane, which has ingested none of this
    // usage yet, sends a new config with the old balance.
    let in_flight = {
        let gw = gw.clone();
        tokio::spawn(async move { gw.chat("alice", chat_body("fixed-test", false)).await })
    };
    tokio::time::sleep(Duration::from_millis(80)).await;
    snap["version"] = json!(4);
    gw.install(snap.clone());
    assert_eq!(gw.user_quota(1), 0, "two charged and one held are carried");
    assert_eq!(in_flight.await.unwrap().status, 200);
    gw.chat("alice", chat_body("fixed-test", false))
        .await
        .assert_error(403, "insufficient_user_quota");

    // The control plane reflects the first two records from version 6 on.
    let carry = gw.running.as_ref().unwrap().state.carry.clone().unwrap();
    let records = gw.records();
    let ids: Vec<&str> = records
        .iter()
        .filter(|r| r.quota > 0)
        .map(|r| r.request_id.as_str())
        .collect();
    assert_eq!(ids.len(), 3);
    carry.acknowledged(6, ids[..2].iter().copied());
    snap["version"] = json!(5);
    gw.install(snap.clone());
    assert_eq!(gw.user_quota(1), 0, "version 5 reflects nothing yet");
    snap["version"] = json!(6);
    snap["users"] = json!([user(1, "default", 1_000)]);
    gw.install(snap.clone());
    assert_eq!(
        gw.user_quota(1),
        0,
        "version 6 reflects two; the third is still carried"
    );
    assert_eq!(carry.unreflected(), 1);
    carry.acknowledged(7, [ids[2]]);
    snap["version"] = json!(7);
    snap["users"] = json!([user(1, "default", 500)]);
    gw.install(snap);
    assert_eq!(
        (gw.user_quota(1), carry.unreflected()),
        (500, 0),
        "a top-up shows in full"
    );
}
