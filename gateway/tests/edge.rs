//! The public edge under abuse, over real sockets: anonymous and free calls leave no log row
//! (counted in metrics instead), and browsers get CORS answers on the relay paths.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bytes::Bytes;
use common::*;

async fn mock() -> mock_provider::MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

async fn metric(gw: &Gw, line_start: &str) -> u64 {
    let r = send(
        "GET",
        &format!("http://{}/metrics", gw.admin),
        &[],
        Bytes::new(),
    )
    .await;
    r.text()
        .lines()
        .find(|l| l.starts_with(line_start))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_keys_and_model_lists_write_no_rows() {
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![channel(1, &m.url(), &["gpt-test"], 0, 1)])).await;
    let body = Bytes::from(chat_body("gpt-test", false).to_string());
    for i in 0..1000 {
        let auth = format!("Bearer sk-guess{i}");
        let r = send(
            "POST",
            &gw.url("/v1/chat/completions"),
            &[
                ("authorization", &auth),
                ("content-type", "application/json"),
            ],
            body.clone(),
        )
        .await;
        assert_eq!(r.status, 401);
    }
    for _ in 0..20 {
        let r = send(
            "GET",
            &gw.url("/v1/models"),
            &[("authorization", "Bearer sk-alice")],
            Bytes::new(),
        )
        .await;
        assert_eq!(r.status, 200);
    }
    // A real call afterwards is logged, and is the only row.
    let r = gw.chat("alice", chat_body("gpt-test", false)).await;
    assert_eq!(r.status, 200);
    gw.record(&r.request_id()).await;
    assert_eq!(gw.records().len(), 1, "only the authenticated, billed call");
    assert_eq!(gw.records()[0].ip, "127.0.0.1");
    assert_eq!(
        metric(
            &gw,
            "gateway_unrecorded_requests_total{reason=\"invalid_token\"}"
        )
        .await,
        1000
    );
    assert_eq!(
        metric(&gw, "gateway_unrecorded_requests_total{reason=\"models\"}").await,
        20
    );
    assert_eq!(m.calls("default"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browsers_get_cors_on_the_relay() {
    let m = mock().await;
    let gw = Gw::start(snapshot(vec![channel(1, &m.url(), &["gpt-test"], 0, 1)])).await;
    let r = send(
        "OPTIONS",
        &gw.url("/v1/chat/completions"),
        &[
            ("origin", "https://app.example"),
            ("access-control-request-method", "POST"),
            (
                "access-control-request-headers",
                "authorization, content-type, x-stainless-os",
            ),
        ],
        Bytes::new(),
    )
    .await;
    assert_eq!(r.status, 204);
    assert_eq!(r.headers["access-control-allow-origin"], "*");
    assert_eq!(
        r.headers["access-control-allow-headers"],
        "authorization, content-type, x-stainless-os"
    );
    assert!(
        r.headers["access-control-allow-methods"]
            .to_str()
            .unwrap()
            .contains("POST")
    );
    // The preflight is no request of anyone's: no row, no upstream call.
    assert!(gw.records().is_empty());
    for path in ["/v1/messages", "/v1beta/models/x:generateContent"] {
        let r = send(
            "OPTIONS",
            &gw.url(path),
            &[("origin", "https://a.example")],
            Bytes::new(),
        )
        .await;
        assert_eq!(r.status, 204, "{path}");
    }
    // The call itself carries the origin, and exposes the request id to the page.
    let r = send(
        "POST",
        &gw.url("/v1/chat/completions"),
        &[
            ("origin", "https://app.example"),
            ("authorization", "Bearer sk-alice"),
            ("content-type", "application/json"),
        ],
        Bytes::from(chat_body("gpt-test", true).to_string()),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["access-control-allow-origin"], "*");
    let exposed = r.headers["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    for name in [
        "x-oneapi-request-id",
        "retry-after",
        "x-ratelimit-reset-requests",
    ] {
        assert!(exposed.contains(name), "{exposed}");
    }
    // Errors too, so the page can read them.
    let r = send(
        "POST",
        &gw.url("/v1/chat/completions"),
        &[
            ("origin", "https://app.example"),
            ("content-type", "application/json"),
        ],
        Bytes::from("{}"),
    )
    .await;
    assert_eq!(r.status, 401);
    assert_eq!(r.headers["access-control-allow-origin"], "*");
    // Without an Origin header nothing is added.
    let r = gw.chat("alice", chat_body("gpt-test", false)).await;
    assert!(r.headers.get("access-control-allow-origin").is_none());
}

/// 100 concurrent streams without max_tokens on a 1 USD balance: each reserves the
/// completion allowance, at most the concurrency limit run, and each running stream is
/// stopped with an error event when its running cost passes what its caller can pay. The
/// balance ends within the documented bound: at most, per stream in flight, the price of
/// the upstream bytes that arrived in the one read after the balance ran out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_streams_cannot_overdraw_a_small_balance() {
    let m = mock().await;
    let base = m.scenario_url("chunks=400,chunk_delay_ms=2");
    let mut snap = snapshot(vec![channel(1, &base, &["pricey"], 0, 1)]);
    snap["users"] = serde_json::json!([user(1, "default", 500_000)]);
    snap["pricing"]["model_ratio"]["pricey"] = serde_json::json!(50.0);
    snap["options"]["completion_allowance"] = serde_json::json!({"default": 100});
    snap["options"]["user_concurrency"] = serde_json::json!(20);
    let gw = Gw::start(snap).await;
    let body = Bytes::from(chat_body("pricey", true).to_string());
    let calls = (0..100).map(|_| {
        let url = gw.url("/v1/chat/completions");
        let body = body.clone();
        tokio::spawn(async move {
            send(
                "POST",
                &url,
                &[
                    ("authorization", "Bearer sk-alice"),
                    ("content-type", "application/json"),
                ],
                body,
            )
            .await
        })
    });
    let replies: Vec<Reply> = futures_util::future::join_all(calls)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let started = replies.iter().filter(|r| r.status == 200).count();
    let stopped = replies
        .iter()
        .filter(|r| r.status == 200 && r.text().contains("insufficient_user_quota"))
        .count();
    let refused: Vec<u16> = replies
        .iter()
        .map(|r| r.status)
        .filter(|s| *s != 200)
        .collect();
    assert!(
        started <= 20,
        "at most the concurrency limit ran: {started}"
    );
    assert!(stopped > 0, "streams were stopped when the balance ran out");
    assert!(
        refused.iter().all(|s| *s == 429 || *s == 403),
        "{refused:?}"
    );
    // Every stream, stopped or not, ends properly for the client.
    for r in replies.iter().filter(|r| r.status == 200) {
        let t = r.text();
        assert!(
            t.ends_with("data: [DONE]\n\n") || t.contains("insufficient_user_quota"),
            "{t}"
        );
    }
    // Wait for every record, then check the balance against the bound.
    for _ in 0..200 {
        if gw.records().len() >= started {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let charged: i64 = gw.records().iter().map(|r| r.quota).sum();
    let left = gw.user_quota(1);
    assert_eq!(
        left,
        500_000 - charged,
        "the balance is exactly what was charged"
    );
    // One read of a paced mock stream is one event: about 2 tokens × 50 per stream in flight.
    let bound = 20 * 2_000;
    assert!(
        left >= -bound,
        "overdraw {} beyond the bound {bound}",
        -left
    );
    eprintln!("streams started {started}, stopped {stopped}, charged {charged}, left {left}");
}

/// `X-Forwarded-For` names the client only when a trusted proxy sent it: the token's IP allow
/// list and the log row see the real client, and a forged header from anyone else is ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwarded_addresses_count_only_from_trusted_proxies() {
    let m = mock().await;
    let mut snap = snapshot(vec![channel(1, &m.url(), &["gpt-test"], 0, 1)]);
    let mut t = token(1, 1, "alice");
    t["allow_ips"] = serde_json::json!(["203.0.113.0/24"]);
    snap["tokens"] = serde_json::json!([t]);
    let body = Bytes::from(chat_body("gpt-test", false).to_string());
    let call = |gw: &Gw, xff: Option<&'static str>| {
        let url = gw.url("/v1/chat/completions");
        let body = body.clone();
        async move {
            let mut h = vec![
                ("authorization", "Bearer sk-alice"),
                ("content-type", "application/json"),
            ];
            if let Some(x) = xff {
                h.push(("x-forwarded-for", x));
            }
            send("POST", &url, &h, body).await
        }
    };
    // Behind a proxy on this machine (trusted): the client is the address it appended.
    let behind = Gw::start_trusting(snap.clone(), "127.0.0.1/32, ::1").await;
    assert_eq!(
        call(&behind, None).await.status,
        403,
        "the proxy itself is not allowed"
    );
    let r = call(&behind, Some("127.0.0.1, 203.0.113.9")).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(behind.record(&r.request_id()).await.ip, "203.0.113.9");
    // The forged entry left of the real one is never taken for the client.
    let r = call(&behind, Some("203.0.113.9, 198.51.100.4")).await;
    assert_eq!(r.status, 403);
    // Trusting no proxy (the default), the header is ignored.
    let direct = Gw::start(snap).await;
    assert_eq!(call(&direct, Some("203.0.113.9")).await.status, 403);
}
