//! Rate limits that hold for a fleet: counted in a real Redis (a private `redis-server` on a
//! free port) by several limiters or gateway processes, falling back to local counting when
//! Redis dies and going back when it returns; 429 answers with `Retry-After`, uncharged.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::system::{Gateway, PrivateRedis, System};
use gateway::limits::{Applicable, LimitMetrics, Limits, Rule, Scope, TokenRule};
use prometheus::{IntCounter, IntGauge};
use serde_json::{Value, json};

/// A limiter counting in `redis`, once it is connected.
async fn limiter(redis: &PrivateRedis) -> (Arc<Limits>, LimitMetrics) {
    let metrics = LimitMetrics {
        redis_up: IntGauge::new("up", "up").unwrap(),
        fallbacks: IntCounter::new("fallbacks", "fallbacks").unwrap(),
    };
    let limits = Arc::new(Limits::new(Some(metrics.clone())));
    limits.set_redis_budget(Duration::from_secs(1));
    limits.use_redis(&redis.url()).unwrap();
    let start = Instant::now();
    while metrics.redis_up.get() != 1 {
        assert!(start.elapsed() < Duration::from_secs(10), "never connected");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    (limits, metrics)
}

fn rule(key: &str, total: u32, success: u32) -> Applicable {
    Applicable {
        requests: vec![Rule {
            scope: Scope::Token,
            key: key.to_owned(),
            window: Duration::from_secs(60),
            max_total: total,
            max_success: success,
        }],
        tokens: Vec::new(),
    }
}

fn tokens_per_minute(key: &str, max: u64) -> Applicable {
    Applicable {
        requests: Vec::new(),
        tokens: vec![TokenRule {
            key: key.to_owned(),
            max,
        }],
    }
}

/// Tokens per minute are summed in Redis across limiters: a request is admitted while the
/// minute's tokens are under the limit, and its tokens count once it ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_per_minute_are_shared_in_redis() {
    let Some(redis) = PrivateRedis::start().await else {
        eprintln!("SKIPPED: redis-server is not installed");
        return;
    };
    let (a, am) = limiter(&redis).await;
    let (b, _) = limiter(&redis).await;
    let tpm = tokens_per_minute("tpm:m:default:gpt-4o:u:1", 100);
    a.admit(&tpm, "r1").await.unwrap().succeeded_with_tokens(60);
    assert_eq!(am.redis_up.get(), 1, "counted in Redis");
    let second = b.admit(&tpm, "r2").await.unwrap();
    second.succeeded_with_tokens(45);
    // The tokens are added off the request path: wait until the sum is seen.
    let start = Instant::now();
    let denied = loop {
        match a.admit(&tpm, "r3").await {
            Err(denied) => break denied,
            Ok(admission) => drop(admission),
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "tokens never counted"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(denied.tokens);
    assert_eq!(denied.max, 100);
    assert!(denied.retry_after >= Duration::from_secs(1));
    assert!(denied.retry_after <= Duration::from_secs(60));
    let headers = denied.headers();
    assert!(headers.contains(&("x-ratelimit-limit-tokens", "100".to_owned())));
    assert!(b.admit(&tpm, "r4").await.is_err(), "both limiters see it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limiters_share_counts_in_redis_and_fall_back_when_it_dies() {
    let Some(mut redis) = PrivateRedis::start().await else {
        eprintln!("SKIPPED: redis-server is not installed");
        return;
    };
    let (a, am) = limiter(&redis).await;
    let (b, _) = limiter(&redis).await;
    // The first call connects; wait until Redis answers (the limiter counts locally before).
    let limit = rule("t:shared", 6, 0);
    let mut passed = 0;
    for i in 0..12 {
        let side = if i % 2 == 0 { &a } else { &b };
        if let Ok(admission) = side.admit(&limit, &format!("req-{i}")).await {
            admission.succeeded();
            passed += 1;
        }
    }
    assert_eq!(am.redis_up.get(), 1, "counted in Redis");
    assert_eq!(passed, 6, "6 of 12 requests over two limiters");
    let denied = a.admit(&limit, "req-x").await.unwrap_err();
    assert_eq!((denied.max, denied.success_only), (6, false));
    assert!(denied.retry_after >= Duration::from_secs(1));

    // Successes count from admission, across limiters; a failure gives its slot back.
    let success = rule("t:success", 0, 2);
    a.admit(&success, "s-0").await.unwrap().succeeded();
    let failed = b.admit(&success, "s-1").await.unwrap();
    assert!(a.admit(&success, "s-2").await.is_err(), "both slots taken");
    drop(failed);
    let start = Instant::now();
    loop {
        match a.admit(&success, "s-3").await {
            Ok(admission) => break admission.succeeded(),
            Err(_) => assert!(
                start.elapsed() < Duration::from_secs(5),
                "slot never given back"
            ),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(b.admit(&success, "s-4").await.is_err());

    // Redis dies: counting goes local at once, nothing fails.
    redis.kill();
    let local = rule("t:local", 3, 0);
    let mut passed = 0;
    for i in 0..5 {
        if let Ok(admission) = a.admit(&local, &format!("l-{i}")).await {
            admission.succeeded();
            passed += 1;
        }
    }
    assert_eq!(passed, 3, "the local window holds the limit");
    assert!(am.fallbacks.get() >= 1);
    assert_eq!(am.redis_up.get(), 0);

    // Redis is back: counting returns to it within a few seconds.
    redis.launch().await;
    let start = Instant::now();
    let mut n = 0;
    while am.redis_up.get() != 1 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "never went back to Redis"
        );
        let _ = a.admit(&rule("t:back", 1000, 0), &format!("b-{n}")).await;
        n += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn token_with_limit(sys: &System, name: &str, count: i64, success: i64) -> String {
    let reply = sys
        .cp
        .call_as(
            &sys.user_session,
            "POST",
            "/api/token/",
            json!({"name": name, "remain_quota": 0, "unlimited_quota": true, "expired_time": -1,
                   "rate_limit_enabled": true, "rate_limit_period": 60,
                   "rate_limit_count": count, "rate_limit_success": success}),
        )
        .await;
    assert_eq!(reply["success"], json!(true), "{reply}");
    reply["data"][0]["key"].as_str().unwrap().to_string()
}

/// Two gateways sharing one Redis: a token limit of 6 per minute passes exactly 6 of 12 calls
/// spread over both, the others get a 429 with `Retry-After` and cost nothing; the per-user
/// model request limit (10 successful requests a minute) holds the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_hold_across_gateways() {
    let Some(redis) = PrivateRedis::start().await else {
        eprintln!("SKIPPED: redis-server is not installed");
        return;
    };
    let sys = System::start(false).await.unwrap();
    let limited = token_with_limit(&sys, "limited", 6, 0).await;
    for (key, value) in [
        ("ModelRequestRateLimitCount", "0"),
        ("ModelRequestRateLimitSuccessCount", "10"),
        ("ModelRequestRateLimitDurationMinutes", "1"),
        ("ModelRequestRateLimitEnabled", "true"),
    ] {
        sys.cp
            .ok("PUT", "/api/option/", json!({"key": key, "value": value}))
            .await;
    }
    let args = || {
        vec![
            "--sync-token-file".to_string(),
            sys.cp.token_file().display().to_string(),
            "--redis-url".to_string(),
            redis.url(),
            // Debug builds under a loaded CI: Redis answers slower than in production.
            "--redis-timeout-ms".to_string(),
            "1000".to_string(),
        ]
    };
    let spawn = |name: &str| {
        Gateway::spawn(
            sys.cp.port,
            &sys.cp.url(),
            &sys.dir.path().join(name),
            name,
            &args(),
        )
    };
    let gws = [spawn("gw-a"), spawn("gw-b")];
    for gw in &gws {
        common::wait_listening(gw.addr).await;
        gw.wait_metric("gateway_rate_limit_redis_up", 1, Duration::from_secs(10))
            .await;
    }
    let mut ok = 0;
    let mut limited_answers = Vec::new();
    for i in 0..12 {
        let r = gws[i % 2].chat(&limited, "gpt-4o-mini").await;
        match r.status {
            200 => ok += 1,
            429 => limited_answers.push(r),
            other => panic!("unexpected status {other}: {}", r.text()),
        }
    }
    assert_eq!(ok, 6, "exactly 6 of 12 calls over two gateways");
    let r = &limited_answers[0];
    let retry: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "Retry-After {retry}");
    assert_eq!(r.headers["x-ratelimit-remaining-requests"], "0");
    assert_eq!(r.headers["x-ratelimit-limit-requests"], "6");
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(body["error"]["code"], "rate_limit_exceeded", "{body}");
    // Only the 6 answered calls were charged (each logged once).
    let (consumed, _) = sys.wait_logs(6, Duration::from_secs(15)).await;
    assert_eq!(consumed, 6);
    let mut refused = 0;
    let mut in_redis = 0;
    for gw in &gws {
        refused += gw
            .metric(r#"gateway_rate_limited_requests_total{scope="token"}"#)
            .await
            .unwrap_or(0);
        in_redis += gw.metric("gateway_rate_limit_redis_up").await.unwrap_or(0);
    }
    assert_eq!(refused, 6, "the refusals are counted");
    assert_eq!(in_redis, 2, "both gateways counted in Redis");

    // The per-user model request limit (10 successful requests a minute, whatever the
    // token): the 6 above count, so 4 of the next 8 calls pass.
    let mut ok = 0;
    for i in 0..8 {
        let r = gws[i % 2].chat(&sys.key, "gpt-4o-mini").await;
        match r.status {
            200 => ok += 1,
            429 => {
                let body: Value = serde_json::from_slice(&r.body).unwrap();
                let message = body["error"]["message"].as_str().unwrap_or_default();
                assert!(message.contains("successful"), "{message}");
            }
            other => panic!("unexpected status {other}: {}", r.text()),
        }
    }
    assert_eq!(ok, 4, "exactly 10 successful calls a minute for the user");
}

/// Requests per minute of a group and model (`GroupModelRateLimit`), per user, across two
/// gateways: 3 of 6 calls pass; another model of the group is not limited by it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_model_rpm_holds_across_gateways() {
    let Some(redis) = PrivateRedis::start().await else {
        eprintln!("SKIPPED: redis-server is not installed");
        return;
    };
    let sys = System::start(false).await.unwrap();
    sys.cp
        .ok(
            "PUT",
            "/api/option/",
            json!({"key": "GroupModelRateLimit", "value": r#"{"default": {"gpt-4o-mini": [3, 0]}}"#}),
        )
        .await;
    let args = || {
        vec![
            "--sync-token-file".to_string(),
            sys.cp.token_file().display().to_string(),
            "--redis-url".to_string(),
            redis.url(),
            // Debug builds under a loaded CI: Redis answers slower than in production.
            "--redis-timeout-ms".to_string(),
            "1000".to_string(),
        ]
    };
    let gws: Vec<Gateway> = ["gw-a", "gw-b"]
        .iter()
        .map(|name| {
            Gateway::spawn(
                sys.cp.port,
                &sys.cp.url(),
                &sys.dir.path().join(name),
                name,
                &args(),
            )
        })
        .collect();
    for gw in &gws {
        common::wait_listening(gw.addr).await;
        gw.wait_metric("gateway_rate_limit_redis_up", 1, Duration::from_secs(10))
            .await;
    }
    let mut ok = 0;
    for i in 0..6 {
        let r = gws[i % 2].chat(&sys.key, "gpt-4o-mini").await;
        match r.status {
            200 => ok += 1,
            429 => {
                assert_eq!(r.headers["x-ratelimit-limit-requests"], "3");
                let body: Value = serde_json::from_slice(&r.body).unwrap();
                let message = body["error"]["message"].as_str().unwrap_or_default();
                assert!(message.contains("this model"), "{message}");
            }
            other => panic!("unexpected status {other}: {}", r.text()),
        }
    }
    assert_eq!(ok, 3, "3 requests a minute for the group and model");
    let mut refused = 0;
    for gw in &gws {
        refused += gw
            .metric(r#"gateway_rate_limited_requests_total{scope="model"}"#)
            .await
            .unwrap_or(0);
    }
    assert_eq!(refused, 3);
}

/// A channel's `max_concurrency` (its setting JSON) holds across gateways: with one slot,
/// a second call through another gateway while the first is in flight gets a 429 (no other
/// channel serves the model), and passes once the first has finished.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn channel_concurrency_holds_across_gateways() {
    let Some(redis) = PrivateRedis::start().await else {
        eprintln!("SKIPPED: redis-server is not installed");
        return;
    };
    let sys = System::start(false).await.unwrap();
    sys.cp
        .ok(
            "POST",
            "/api/channel/",
            json!({"type": 1, "name": "one-at-a-time", "key": "sk-up-3", "models": "solo-model",
                   "group": "default", "base_url": sys.mock.scenario_url("tag=solo,ttfb_ms=1500"),
                   "setting": r#"{"max_concurrency": 1}"#}),
        )
        .await;
    sys.cp
        .ok(
            "PUT",
            "/api/option/",
            json!({"key": "ModelPrice", "value": r#"{"solo-model": 0.001}"#}),
        )
        .await;
    let args = vec![
        "--sync-token-file".to_string(),
        sys.cp.token_file().display().to_string(),
        "--redis-url".to_string(),
        redis.url(),
        // Debug builds under a loaded CI: Redis answers slower than in production.
        "--redis-timeout-ms".to_string(),
        "1000".to_string(),
    ];
    let gws: Vec<Gateway> = ["gw-a", "gw-b"]
        .iter()
        .map(|name| {
            Gateway::spawn(
                sys.cp.port,
                &sys.cp.url(),
                &sys.dir.path().join(name),
                name,
                &args,
            )
        })
        .collect();
    for gw in &gws {
        common::wait_listening(gw.addr).await;
        gw.wait_metric("gateway_rate_limit_redis_up", 1, Duration::from_secs(10))
            .await;
        gw.wait_metric("gateway_fleet_budget_redis_up", 1, Duration::from_secs(10))
            .await;
    }
    // A fresh Redis starts a new epoch of the fleet budget, whose grants wait out a grace
    // (1 s): the calls below must not both be held there and then race for the one slot.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let first = gws[0].chat(&sys.key, "solo-model");
    let second = async {
        tokio::time::sleep(Duration::from_millis(400)).await;
        gws[1].chat(&sys.key, "solo-model").await
    };
    let (first, second) = tokio::join!(first, second);
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(second.status, 429, "{}", second.text());
    assert_eq!(second.headers["retry-after"], "1");
    let body: Value = serde_json::from_slice(&second.body).unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("concurrency limit"),
        "{body}"
    );
    assert_eq!(
        sys.mock.calls("solo"),
        1,
        "the busy call never reached the upstream"
    );
    // The slot is freed in Redis just after the answer (off the response path).
    let start = Instant::now();
    loop {
        let third = gws[1].chat(&sys.key, "solo-model").await;
        if third.status == 200 {
            break;
        }
        assert_eq!(third.status, 429, "{}", third.text());
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the slot was never freed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!("slot free again after {} ms", start.elapsed().as_millis());
}
