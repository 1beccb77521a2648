//! End-to-end over real sockets: authentication failure modes, request validation, model
//! endpoints, body sizes, admin port and the `gateway` binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bytes::Bytes;
use common::*;
use serde_json::{Value, json};

async fn mock() -> mock_provider::MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_auth_failure_mode_answers_in_openai_shape() {
    let m = mock().await;
    let mut snap = snapshot(vec![
        channel(1, &m.scenario_url("tag=one"), &["gpt-test"], 0, 1),
        channel(2, &m.scenario_url("tag=two"), &["gpt-test"], 0, 1),
    ]);
    let tok = |id: i64, user: i64, key: &str, extra: Value| {
        let mut t = token(id, user, key);
        t.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        t
    };
    snap["users"] = json!([user(1, "default", 1_000_000), {"id": 2, "status": 2, "group": "default", "quota": 100},
                           {"id": 3, "status": 1, "group": "default", "quota": 1_000_000, "role": 10},
                           user(4, "default", 0)]);
    snap["tokens"] = json!([
        token(1, 1, "alice"),
        tok(2, 1, "disabled", json!({"status": 2})),
        tok(3, 1, "expired", json!({"expired_time": 1000})),
        tok(
            4,
            1,
            "exhausted",
            json!({"unlimited_quota": false, "remain_quota": 0})
        ),
        tok(5, 1, "netonly", json!({"allow_ips": ["10.0.0.0/8"]})),
        token(6, 2, "banned"),
        tok(7, 1, "vip", json!({"group": "vip"})),
        tok(
            8,
            1,
            "limited",
            json!({"model_limits_enabled": true, "model_limits": ["other-model"]})
        ),
        token(9, 3, "admin"),
        token(10, 4, "broke"),
        tok(11, 1, "loopback", json!({"allow_ips": ["127.0.0.0/8"]})),
    ]);
    let gw = Gw::start(snap).await;
    let body = chat_body("gpt-test", false);
    let bytes = Bytes::from(body.to_string());
    let ct = ("content-type", "application/json");

    send(
        "POST",
        &gw.url("/v1/chat/completions"),
        &[ct],
        bytes.clone(),
    )
    .await
    .assert_error(401, "");
    // (key, status, the body's code as new-api sends it, the finer reason in the record)
    for (key, status, code, reason, message) in [
        ("nosuchkey", 401, "", "invalid_token", "Invalid token"),
        ("disabled", 401, "", "invalid_token", "Token is disabled"),
        ("expired", 401, "", "invalid_token", "Token has expired"),
        (
            "exhausted",
            401,
            "",
            "invalid_token",
            "Token quota is exhausted",
        ),
        (
            "netonly",
            403,
            "access_denied",
            "access_denied",
            "allow list",
        ),
        ("banned", 403, "", "user_banned", "User has been banned"),
        ("vip", 403, "", "group_forbidden", "No access to group vip"),
        (
            "limited",
            403,
            "",
            "model_forbidden",
            "This token has no access to model gpt-test",
        ),
        (
            "alice-2",
            403,
            "",
            "access_denied",
            "Only administrators may pin a channel",
        ),
        (
            "broke",
            403,
            "insufficient_user_quota",
            "insufficient_user_quota",
            "insufficient user quota",
        ),
        (
            "admin-99",
            403,
            "get_channel_failed",
            "get_channel_failed",
            "Pinned channel 99",
        ),
    ] {
        let r = gw.chat(key, body.clone()).await;
        let err = r.assert_error(status, code);
        assert_eq!(err["type"], "new_api_error", "{key}");
        assert!(
            err["message"].as_str().unwrap().contains(message),
            "{key}: {err}"
        );
        // A caller that never authenticated leaves no row (anyone could grow the table);
        // failures of an authenticated caller are logged.
        if !matches!(key, "limited" | "broke" | "admin-99") {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let id = r.request_id();
            assert!(
                !gw.records().iter().any(|rec| rec.request_id == id),
                "{key} left a row"
            );
            continue;
        }
        let rec = gw.record(&r.request_id()).await;
        assert_eq!(
            (rec.kind, rec.status, rec.quota),
            (gateway::usage::LOG_ERROR, status, 0),
            "{key}"
        );
        assert_eq!(rec.ip, "127.0.0.1", "{key}");
        let other: Value = serde_json::from_str(&rec.other).unwrap();
        assert_eq!(other["error_code"], reason, "{key}");
    }
    // Accepted key sources, in order: Authorization, x-api-key, x-goog-api-key, ?key=.
    for (headers, query) in [
        (vec![("x-api-key", "sk-alice")], ""),
        (vec![("x-goog-api-key", "alice")], ""),
        (vec![], "?key=sk-alice"),
        (vec![("authorization", "Bearer sk-loopback")], ""),
    ] {
        let mut h = headers.clone();
        h.push(ct);
        let r = send(
            "POST",
            &gw.url(&format!("/v1/chat/completions{query}")),
            &h,
            bytes.clone(),
        )
        .await;
        assert_eq!(r.status, 200, "{headers:?} {query}: {}", r.text());
    }
    // An admin may pin a channel: every call lands on channel 2.
    let before = m.calls("two");
    for _ in 0..4 {
        let r = gw.chat("admin-2", body.clone()).await;
        assert_eq!(r.status, 200);
        let rec = gw.record(&r.request_id()).await;
        assert_eq!((rec.user_id, rec.channel), (3, 2));
    }
    assert_eq!(m.calls("two"), before + 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_400_and_routing_gaps_are_reported() {
    let m = mock().await;
    let mut snap = snapshot(vec![channel(1, &m.url(), &["gpt-test", "unpriced"], 0, 1)]);
    snap["channels"][0]["model_mapping"] = json!({"loop-a": "loop-b", "loop-b": "loop-a"});
    snap["channels"][0]["models"] = json!(["gpt-test", "unpriced", "loop-a"]);
    snap["pricing"]["model_ratio"]["loop-a"] = json!(1);
    let gw = Gw::start(snap).await;
    let url = gw.url("/v1/chat/completions");
    let auth = ("authorization", "Bearer sk-alice");
    let ct = ("content-type", "application/json");
    let r = send(
        "POST",
        &url,
        &[auth, ct],
        Bytes::from_static(b"{\"model\": \"gpt-test\", "),
    )
    .await;
    assert_eq!(
        r.assert_error(400, "bad_request_body")["type"],
        "new_api_error"
    );
    let r = send(
        "POST",
        &url,
        &[auth, ("content-type", "text/plain")],
        Bytes::from(chat_body("gpt-test", false).to_string()),
    )
    .await;
    r.assert_error(400, "invalid_request");
    let r = send(
        "POST",
        &url,
        &[auth],
        Bytes::from(chat_body("gpt-test", false).to_string()),
    )
    .await;
    r.assert_error(400, "invalid_request");
    let r = send("POST", &url, &[auth, ct], Bytes::from_static(b"[1,2]")).await;
    r.assert_error(400, "bad_request_body");
    gw.chat("alice", json!({"messages": []}))
        .await
        .assert_error(400, "invalid_request");
    gw.chat("alice", chat_body("unpriced", false))
        .await
        .assert_error(400, "model_price_error");
    let err = gw
        .chat("alice", chat_body("no-such-model", false))
        .await
        .assert_error(503, "model_not_found");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("No available channel for model no-such-model under group default")
    );
    gw.chat("alice", chat_body("loop-a", false))
        .await
        .assert_error(500, "channel:model_mapped_error");
    let r = send("GET", &gw.url("/v1/nothing"), &[auth], Bytes::new()).await;
    assert_eq!(r.assert_error(404, "")["type"], "invalid_request_error");
    // Nothing reached the upstream, and the balance is untouched.
    assert_eq!(m.calls("default"), 0);
    assert_eq!(gw.user_quota(1), 1_000_000_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_are_listed_per_group_and_token_limits() {
    let m = mock().await;
    let mut snap = snapshot(vec![channel(
        1,
        &m.url(),
        &["gpt-test", "embed-test"],
        0,
        1,
    )]);
    let mut limited = token(2, 1, "limited");
    limited["model_limits_enabled"] = json!(true);
    limited["model_limits"] = json!(["embed-test"]);
    snap["tokens"].as_array_mut().unwrap().push(limited);
    let gw = Gw::start(snap).await;
    let auth = |k: &str| format!("Bearer sk-{k}");
    let a = auth("alice");
    let r = send(
        "GET",
        &gw.url("/v1/models"),
        &[("authorization", &a)],
        Bytes::new(),
    )
    .await;
    let ids: Vec<Value> = r.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(ids, vec![json!("embed-test"), json!("gpt-test")]);
    let l = auth("limited");
    let r = send(
        "GET",
        &gw.url("/v1/models"),
        &[("authorization", &l)],
        Bytes::new(),
    )
    .await;
    assert_eq!(r.json()["data"].as_array().unwrap().len(), 1);
    let r = send(
        "GET",
        &gw.url("/v1/models/gpt-test"),
        &[("authorization", &a)],
        Bytes::new(),
    )
    .await;
    assert_eq!(r.json()["id"], "gpt-test");
    let r = send(
        "GET",
        &gw.url("/v1/models/gpt-test"),
        &[("authorization", &l)],
        Bytes::new(),
    )
    .await;
    r.assert_error(404, "model_not_found");
    let r = send("GET", &gw.url("/v1/models"), &[], Bytes::new()).await;
    r.assert_error(401, "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_and_embeddings_relay_and_bill() {
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![channel(
        1,
        &m.url(),
        &["gpt-test", "embed-test"],
        0,
        1,
    )]))
    .await;
    let r = gw
        .post(
            "/v1/completions",
            "alice",
            json!({"model": "gpt-test", "prompt": "say hi"}),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["choices"][0]["text"],
        "word0 word1 word2 word3 word4 "
    );
    let r = gw
        .post(
            "/v1/embeddings",
            "alice",
            json!({"model": "embed-test", "input": ["a", "b"]}),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["data"].as_array().unwrap().len(), 2);
    let rec = gw.record(&r.request_id()).await;
    // 12 prompt tokens × ratio 0.5.
    assert_eq!(
        (rec.prompt_tokens, rec.quota, rec.model_name.as_str()),
        (12, 6, "embed-test")
    );
    let seen = m.with_stats(|s| s.requests.clone());
    assert_eq!(
        seen.iter().map(|s| s.path.as_str()).collect::<Vec<_>>(),
        vec!["/v1/completions", "/v1/embeddings"]
    );
    assert!(
        seen.iter()
            .all(|s| s.authorization.as_deref() == Some("Bearer sk-upstream-1"))
    );
}

/// A long prompt's reservation is first bounded by its length, which counts nothing. A caller
/// who cannot afford that bound has the prompt counted: admitted when the counted cost fits
/// (user balance or token quota), refused with the counted need when it does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_prompt_is_counted_for_its_reservation_only_when_the_balance_is_tight() {
    let m = mock().await;
    let text = "hello ".repeat(3000);
    let body = json!({"model": "gpt-test", "max_tokens": 10,
                      "messages": [{"role": "user", "content": text}]});
    let counted = adapters::tokens::estimate("gpt-test", &text);
    let bound = i64::try_from(text.len()).unwrap();
    assert!(counted * 2 < bound, "{counted} against {bound}");
    // Ratio 1: the reservation is the prompt, its framing and max_tokens; `tight` affords the
    // counted prompt, not its length.
    let tight = (counted + bound) / 2;
    let mut snap = snapshot(vec![channel(1, &m.url(), &["gpt-test"], 0, 1)]);
    snap["users"] = json!([
        user(1, "default", 1_000_000_000),
        user(2, "default", tight),
        user(3, "default", counted / 2)
    ]);
    let mut limited = token(4, 1, "limited");
    limited["unlimited_quota"] = json!(false);
    limited["remain_quota"] = json!(tight);
    snap["tokens"] = json!([
        token(1, 1, "alice"),
        token(2, 2, "tight"),
        token(3, 3, "short"),
        limited
    ]);
    let gw = Gw::start(snap).await;
    for key in ["alice", "tight", "limited"] {
        let r = gw.chat(key, body.clone()).await;
        assert_eq!(r.status, 200, "{key}: {}", r.text());
        let rec = gw.record(&r.request_id()).await;
        assert!(rec.quota > 0, "{key}");
        match key {
            "tight" => assert_eq!(gw.user_quota(2), tight - rec.quota),
            "limited" => assert_eq!(gw.token_remain("limited"), tight - rec.quota),
            _ => {}
        }
    }
    let r = gw.chat("short", body.clone()).await;
    let err = r.assert_error(403, "insufficient_user_quota");
    let message = err["message"].as_str().unwrap();
    let need: i64 = message
        .split("need: ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no need in {message}"));
    assert!(
        need > counted + 10 && need < counted + 100,
        "the counted need, not the bound: {message}"
    );
    assert_eq!(gw.user_quota(3), counted / 2, "a refusal takes nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_bodies_are_relayed_up_to_the_cap() {
    let m = mock().await;
    let mut snap = snapshot(vec![channel(1, &m.url(), &["gpt-test"], 0, 1)]);
    snap["options"]["max_request_body_bytes"] = json!(12 << 20);
    let gw = Gw::start(snap).await;
    for size in [1usize << 20, 10 << 20] {
        let body = json!({"model": "gpt-test", "messages": [{"role": "user", "content": "a".repeat(size)}]});
        let sent = body.to_string().len();
        let r = gw.chat("alice", body).await;
        assert_eq!(r.status, 200, "{size}: {}", r.text());
        let last = m.with_stats(|s| s.requests.last().unwrap().body_len);
        assert_eq!(last, sent, "upstream got the whole body");
    }
    // Over the cap: answered 413 from the declared length, before the body is sent (a
    // client still writing 13 MB could otherwise see a broken pipe instead of the answer).
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(gw.addr).await.unwrap();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer sk-alice\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        13 << 20
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(5),
        s.read_to_string(&mut answer),
    )
    .await
    .unwrap()
    .unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    let body: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["error"]["code"], "read_request_body_failed");
    // Without a declared length (chunked), the cap applies while reading.
    let big = Bytes::from(vec![b' '; 13 << 20]);
    let stream = http_body_util::StreamBody::new(futures_util::stream::iter(
        big.chunks(1 << 20)
            .map(|c| {
                Ok::<_, std::convert::Infallible>(hyper::body::Frame::data(Bytes::copy_from_slice(
                    c,
                )))
            })
            .collect::<Vec<_>>(),
    ));
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http();
    let req = http::Request::post(gw.url("/v1/chat/completions"))
        .header("authorization", "Bearer sk-alice")
        .header("content-type", "application/json")
        .body(stream)
        .unwrap();
    if let Ok(resp) = client.request(req).await {
        // The answer may also be lost to a broken pipe while the client is still sending.
        assert_eq!(resp.status(), 413);
    }
    assert_eq!(m.calls("default"), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_port_serves_health_and_metrics() {
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![
        channel(1, &m.scenario_url("status=500"), &["gpt-test"], 10, 1),
        channel(2, &m.url(), &["gpt-test"], 0, 1),
    ]))
    .await;
    let r = gw.chat("alice", chat_body("gpt-test", false)).await;
    assert_eq!(r.status, 200);
    // Metrics are counted with the usage record, right after the answer.
    gw.record(&r.request_id()).await;
    let admin = |p: &str| format!("http://{}{p}", gw.admin);
    let r = send("GET", &admin("/healthz"), &[], Bytes::new()).await;
    assert_eq!((r.status, r.json()["status"].clone()), (200, json!("ok")));
    let r = send("GET", &admin("/readyz"), &[], Bytes::new()).await;
    assert_eq!(r.json()["config_version"], 3);
    let text = send("GET", &admin("/metrics"), &[], Bytes::new())
        .await
        .text();
    let line = |prefix: &str| {
        text.lines()
            .find(|l| l.starts_with(prefix))
            .map(str::to_owned)
    };
    let errors =
        line("gateway_upstream_errors_total{channel_id=\"1\",code=\"bad_response_status_code\"}")
            .expect(&text);
    assert!(errors.ends_with(" 1"), "{errors}");
    let ok = line(
        "gateway_requests_total{code=\"ok\",endpoint=\"chat_completions\",status_class=\"2xx\"}",
    )
    .expect(&text);
    assert!(ok.ends_with(" 1"), "{ok}");
    assert!(line("gateway_time_to_first_token_seconds_count").is_some());
    assert_eq!(
        line("gateway_in_flight_requests ").as_deref(),
        Some("gateway_in_flight_requests 0"),
        "nothing in flight once answered"
    );
    // By model, group and channel (the channel that answered).
    for (sample, value) in [
        (
            "gateway_model_requests_total{group=\"default\",model=\"gpt-test\",status_class=\"2xx\"}",
            " 1",
        ),
        (
            "gateway_channel_requests_total{channel_id=\"2\",status_class=\"2xx\"}",
            " 1",
        ),
        (
            "gateway_model_tokens_total{kind=\"completion\",model=\"gpt-test\"}",
            "",
        ),
        ("gateway_model_quota_total{model=\"gpt-test\"}", ""),
        (
            "gateway_model_time_to_first_token_seconds_count{model=\"gpt-test\"}",
            " 1",
        ),
    ] {
        let got = line(sample).unwrap_or_else(|| panic!("{sample} missing: {text}"));
        assert!(got.ends_with(value), "{got}");
    }
    assert!(line("gateway_snapshot_version 3").is_some());
    // The config's age: applied at start, a moment ago.
    let applied: i64 = line("gateway_snapshot_applied_timestamp_seconds ")
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
        .unwrap_or(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    assert!((now - 600..=now).contains(&applied), "{applied} vs {now}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gateway_binary_serves_a_config_file_and_writes_usage_lines() {
    let m = mock().await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("snapshot.json");
    let usage = dir.path().join("usage.jsonl");
    std::fs::write(
        &config,
        snapshot(vec![channel(1, &m.url(), &["gpt-test"], 0, 1)]).to_string(),
    )
    .unwrap();
    let exe = env!("CARGO_BIN_EXE_gateway");
    let help = std::process::Command::new(exe)
        .arg("--help")
        .output()
        .unwrap();
    assert!(
        help.status.success() && String::from_utf8_lossy(&help.stdout).contains("--config-file")
    );
    let port = free_port();
    let mut child = std::process::Command::new(exe)
        .args([
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--admin-listen",
            &format!("127.0.0.1:{}", free_port()),
        ])
        .arg("--config-file")
        .arg(&config)
        .arg("--usage-file")
        .arg(&usage)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/v1/chat/completions");
    let mut reply = None;
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            let body = Bytes::from(chat_body("gpt-test", false).to_string());
            reply = Some(
                send(
                    "POST",
                    &url,
                    &[
                        ("authorization", "Bearer sk-alice"),
                        ("content-type", "application/json"),
                    ],
                    body,
                )
                .await,
            );
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // The record is written right after the answer: give it a moment.
    let mut lines = String::new();
    for _ in 0..100 {
        lines = std::fs::read_to_string(&usage).unwrap_or_default();
        if !lines.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let reply = reply.expect("gateway binary started");
    assert_eq!(reply.status, 200);
    let rec: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(rec["request_id"], reply.request_id());
    assert_eq!(rec["quota"], 12 + 5 * 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expect_continue_is_answered_before_the_body() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![channel(1, &m.url(), &["gpt-test"], 0, 1)])).await;
    let body = chat_body("gpt-test", false).to_string();
    let mut s = tokio::net::TcpStream::connect(gw.addr).await.unwrap();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer sk-alice\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 256];
    let n = tokio::time::timeout(std::time::Duration::from_secs(5), s.read(&mut buf))
        .await
        .unwrap()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 100 Continue"),
        "{:?}",
        String::from_utf8_lossy(&buf[..n])
    );
    s.write_all(body.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    while !String::from_utf8_lossy(&answer).contains("word4") {
        let n = tokio::time::timeout(std::time::Duration::from_secs(5), s.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0);
        answer.extend_from_slice(&buf[..n]);
    }
    assert!(String::from_utf8_lossy(&answer).contains("200 OK"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_inputs_get_client_errors_and_never_break_the_gateway() {
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![channel(1, &m.url(), &["gpt-test"], 0, 1)])).await;
    let url = gw.url("/v1/chat/completions");
    let auth = ("authorization", "Bearer sk-alice");
    let ct = ("content-type", "application/json");
    let bodies: Vec<Bytes> = vec![
        Bytes::from_static(b""),
        Bytes::from_static(b"\xff\xfe\x00garbage"),
        Bytes::from_static(b"null"),
        Bytes::from_static(b"{\"model\": 42}"),
        Bytes::from_static(b"{\"model\": \"\"}"),
        Bytes::from(format!("{}{}", "[".repeat(10_000), "]".repeat(10_000))),
        Bytes::from_static(
            b"{\"model\": \"gpt-test\", \"stream\": \"yes\", \"max_tokens\": 1e308}",
        ),
        Bytes::from_static(
            b"{\"model\": \"gpt-test\", \"messages\": \"not a list\", \"stream_options\": 5}",
        ),
    ];
    for body in bodies {
        let r = send("POST", &url, &[auth, ct], body.clone()).await;
        assert!(
            r.status == 200 || r.status == 400,
            "{body:?} → {} {}",
            r.status,
            r.text()
        );
        if r.status == 400 {
            assert_eq!(r.json()["error"]["type"], "new_api_error");
        }
    }
    for header in [
        "Bearer ",
        "Bearer sk-",
        "Bearer sk--",
        "Bearer sk-alice-notanumber",
        "Basic Zm9vOmJhcg==",
    ] {
        let r = send(
            "POST",
            &url,
            &[("authorization", header), ct],
            Bytes::from(chat_body("gpt-test", false).to_string()),
        )
        .await;
        assert!(r.status == 401 || r.status == 403, "{header}: {}", r.status);
    }
    assert_eq!(
        gw.chat("alice", chat_body("gpt-test", false)).await.status,
        200,
        "still serving"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plaintext_http2_clients_are_served_streams_included() {
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![channel(1, &m.url(), &["gpt-test"], 0, 1)])).await;
    let headers = [
        ("authorization", "Bearer sk-alice"),
        ("content-type", "application/json"),
    ];
    let url = gw.url("/v1/chat/completions");
    let r = send_h2(
        &url,
        &headers,
        Bytes::from(chat_body("gpt-test", false).to_string()),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["choices"][0]["message"]["content"],
        "word0 word1 word2 word3 word4 "
    );
    let r = send_h2(
        &url,
        &headers,
        Bytes::from(chat_body("gpt-test", true).to_string()),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(sse_content(&r.text()), "word0 word1 word2 word3 word4 ");
    let r = send_h2(&url, &headers[..1], Bytes::from_static(b"{}")).await;
    r.assert_error(400, "invalid_request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_keep_alive_client_gets_every_answer_right() {
    use http_body_util::{BodyExt, Full};
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![channel(1, &m.url(), &["gpt-test"], 0, 1)])).await;
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<Bytes>>();
    let url = gw.url("/v1/chat/completions");
    for round in 0..10 {
        for (key, body, want) in [
            ("alice", chat_body("gpt-test", false).to_string(), 200),
            ("wrong", chat_body("gpt-test", false).to_string(), 401),
            ("alice", chat_body("gpt-test", true).to_string(), 200),
            ("alice", "{oops".to_owned(), 400),
            ("alice", chat_body("nothing", false).to_string(), 503),
        ] {
            let req = http::Request::post(&url)
                .header("authorization", format!("Bearer sk-{key}"))
                .header("content-type", "application/json")
                .body(Full::new(Bytes::from(body)))
                .unwrap();
            let resp = client.request(req).await.unwrap();
            let status = resp.status().as_u16();
            let text = resp.into_body().collect().await.unwrap().to_bytes();
            assert_eq!(status, want, "round {round} {key}: {text:?}");
            if status == 200 {
                assert!(String::from_utf8_lossy(&text).contains("word4"));
            }
        }
    }
    assert_eq!(m.calls("default"), 20);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streams_head_and_first_event_arrive_together() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let m = mock().await;
    // Events 300 ms apart: the first one is alone in the gateway's hands when it is written.
    let gw = Gw::start(snapshot(vec![channel(
        1,
        &m.scenario_url("chunks=3,chunk_delay_ms=300"),
        &["gpt-test"],
        0,
        1,
    )]))
    .await;
    let body = chat_body("gpt-test", true).to_string();
    for _ in 0..3 {
        let mut s = tokio::net::TcpStream::connect(gw.addr).await.unwrap();
        s.set_nodelay(true).unwrap();
        let request = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer sk-alice\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        s.write_all(request.as_bytes()).await.unwrap();
        // The first bytes the client can read carry the whole head and the first event.
        let mut buf = vec![0u8; 64 * 1024];
        let n = tokio::time::timeout(std::time::Duration::from_secs(5), s.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        let first = String::from_utf8_lossy(&buf[..n]).into_owned();
        assert!(first.starts_with("HTTP/1.1 200"), "{first}");
        assert!(first.contains("text/event-stream"), "{first}");
        assert!(first.contains("\r\n\r\n"), "the whole head: {first}");
        assert!(
            first.contains("data: {"),
            "the first event with the head: {first}"
        );
        assert!(
            !first.contains("word1"),
            "only the first event is due yet: {first}"
        );
        // And the rest still follows, to the end.
        let mut all = first;
        while !all.contains("[DONE]") {
            let n = tokio::time::timeout(std::time::Duration::from_secs(5), s.read(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert!(n > 0, "closed before [DONE]: {all}");
            all.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
        assert!(all.contains("word2"), "{all}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_stream_gets_pings_and_still_completes() {
    let m = mock().await;
    let mut snap = snapshot(vec![channel(
        1,
        &m.scenario_url("chunks=3,chunk_delay_ms=1300"),
        &["gpt-test"],
        0,
        1,
    )]);
    snap["options"]["stream_ping_seconds"] = json!(1);
    let gw = Gw::start(snap).await;
    let r = gw.chat("alice", chat_body("gpt-test", true)).await;
    assert_eq!(r.status, 200);
    let text = r.text();
    assert!(text.contains(": PING\n\n"), "{text}");
    assert_eq!(sse_content(&text), "word0 word1 word2 ");
    assert!(text.ends_with("data: [DONE]\n\n"), "{text}");

    // Off by default: no comment in the stream.
    let gw = Gw::start(snapshot(vec![channel(
        1,
        &m.scenario_url("chunks=2,chunk_delay_ms=1300"),
        &["gpt-test"],
        0,
        1,
    )]))
    .await;
    let text = gw.chat("alice", chat_body("gpt-test", true)).await.text();
    assert!(!text.contains("PING"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_silent_past_the_idle_timeout_ends_with_an_error_event() {
    let m = mock().await;
    let slow = m.scenario_url("chunks=3,chunk_delay_ms=1300");
    let mut snap = snapshot(vec![channel(1, &slow, &["gpt-test"], 0, 1)]);
    snap["options"]["stream_idle_timeout_ms"] = json!(600);
    let gw = Gw::start(snap).await;
    let r = gw.chat("alice", chat_body("gpt-test", true)).await;
    assert_eq!(r.status, 200);
    let text = r.text();
    assert_eq!(sse_content(&text), "word0 ", "{text}");
    assert!(text.contains("did not answer within 600 ms"), "{text}");
    assert!(!text.contains("[DONE]"), "{text}");

    // Pings do not count as upstream activity: the stream still times out, after its pings.
    let slower = m.scenario_url("chunks=3,chunk_delay_ms=2500");
    let mut snap = snapshot(vec![channel(1, &slower, &["gpt-test"], 0, 1)]);
    snap["options"]["stream_idle_timeout_ms"] = json!(1500);
    snap["options"]["stream_ping_seconds"] = json!(1);
    let gw = Gw::start(snap).await;
    let text = gw.chat("alice", chat_body("gpt-test", true)).await.text();
    assert_eq!(sse_content(&text), "word0 ", "{text}");
    assert_eq!(text.matches(": PING\n\n").count(), 1, "{text}");
    assert!(text.contains("did not answer within 1500 ms"), "{text}");

    // Events closer together than the timeout keep the stream alive to its end.
    let mut snap = snapshot(vec![channel(
        1,
        &m.scenario_url("chunks=3,chunk_delay_ms=400"),
        &["gpt-test"],
        0,
        1,
    )]);
    snap["options"]["stream_idle_timeout_ms"] = json!(600);
    let gw = Gw::start(snap).await;
    let text = gw.chat("alice", chat_body("gpt-test", true)).await.text();
    assert_eq!(sse_content(&text), "word0 word1 word2 ", "{text}");
    assert!(text.ends_with("data: [DONE]\n\n"), "{text}");
}
