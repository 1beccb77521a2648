//! Balances that hold for a fleet: three gateway processes, one control plane and a private
//! `redis-server`. A balance covering exactly ten fixed-price calls admits exactly ten of sixty
//! concurrent calls spread over the pods and ends at zero; with Redis killed mid-load no call
//! gets a 5xx, and when it returns the gateways go back to leases; Redis flushed before or
//! during a burst mints nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::system::{Gateway, PrivateRedis, System};
use serde_json::{Value, json};

/// $0.002 × 500 000 quota per unit × group ratio 1.
const CALL_PRICE: i64 = 1000;

async fn set_user_quota(sys: &System, quota: i64) {
    let before = sys
        .cp
        .ok("GET", &format!("/api/user/{}", sys.user_id), Value::Null)
        .await["quota"]
        .clone();
    sys.cp
        .ok(
            "PUT",
            "/api/user/",
            json!({"id": sys.user_id, "quota": quota, "quota_before": before}),
        )
        .await;
}

async fn fleet(sys: &System, redis: &PrivateRedis, n: usize) -> Vec<Gateway> {
    let gws: Vec<Gateway> = (0..n)
        .map(|i| {
            let name = format!("gw-{i}");
            Gateway::spawn(
                sys.cp.port,
                &sys.cp.url(),
                &sys.dir.path().join(&name),
                &name,
                &[
                    "--sync-token-file".to_string(),
                    sys.cp.token_file().display().to_string(),
                    "--redis-url".to_string(),
                    redis.url(),
                    // Debug builds under a loaded CI: Redis answers slower than in production.
                    "--redis-timeout-ms".to_string(),
                    "1000".to_string(),
                ],
            )
        })
        .collect();
    for gw in &gws {
        common::wait_listening(gw.addr).await;
        gw.wait_metric("gateway_fleet_budget_redis_up", 1, Duration::from_secs(10))
            .await;
    }
    gws
}

/// Waits until every gateway serves the control plane's newest config (a change made before
/// this call has reached them all).
async fn serve_newest_config(sys: &System, gws: &[Gateway]) {
    let newest = sys.cp.ok("GET", "/api/gateway/", Value::Null).await["version"]
        .as_i64()
        .unwrap();
    for gw in gws {
        gw.wait_metric_until(
            "gateway_snapshot_version",
            |v| v >= newest,
            Duration::from_secs(10),
        )
        .await;
    }
}

/// Sends `n` calls at once, spread over `gws`; answers their statuses.
async fn burst(gws: &[Gateway], key: &str, n: usize) -> Vec<u16> {
    let calls = (0..n).map(|i| {
        let gw = &gws[i % gws.len()];
        async move { gw.chat(key, "gpt-4o-mini").await.status }
    });
    futures_util::future::join_all(calls).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_balance_holds_across_gateways() {
    let Some(mut redis) = PrivateRedis::start().await else {
        eprintln!("SKIPPED: redis-server is not installed");
        return;
    };
    let sys = System::start(false).await.unwrap();
    sys.cp
        .ok(
            "PUT",
            "/api/option/",
            json!({"key": "ModelPrice", "value": r#"{"gpt-4o-mini": 0.002}"#}),
        )
        .await;
    set_user_quota(&sys, 10 * CALL_PRICE).await;
    let gws = fleet(&sys, &redis, 3).await;
    let statuses = burst(&gws, &sys.key, 60).await;
    let ok = statuses.iter().filter(|s| **s == 200).count();
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 403),
        "{statuses:?}"
    );
    assert_eq!(ok, 10, "exactly 10 of 60 calls over three gateways");
    let (logs, spent) = sys.wait_logs(10, Duration::from_secs(15)).await;
    assert_eq!((logs, spent), (10, 10 * CALL_PRICE));
    let start = std::time::Instant::now();
    while sys.balances().await.0 != 0 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "balance never reached zero"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Nothing more passes once it is spent, on any gateway.
    let statuses = burst(&gws, &sys.key, 6).await;
    assert!(statuses.iter().all(|s| *s == 403), "{statuses:?}");

    // A top-up reaches the fleet through the config feed; then Redis dies mid-load: no call
    // fails with a 5xx and the gateways spend on their own figures.
    set_user_quota(&sys, 1000 * CALL_PRICE).await;
    serve_newest_config(&sys, &gws).await;
    let load = burst(&gws, &sys.key, 30);
    let kill = async {
        tokio::time::sleep(Duration::from_millis(30)).await;
        redis.kill();
    };
    let (statuses, ()) = tokio::join!(load, kill);
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    let statuses = burst(&gws, &sys.key, 9).await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    for gw in &gws {
        gw.wait_metric("gateway_fleet_budget_redis_up", 0, Duration::from_secs(5))
            .await;
    }
    // Redis is back: every gateway claims its leases again and spends within them.
    redis.launch().await;
    for gw in &gws {
        gw.wait_metric("gateway_fleet_budget_redis_up", 1, Duration::from_secs(10))
            .await;
    }
    let statuses = burst(&gws, &sys.key, 9).await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");

    // With an ample balance, leases are taken in blocks: most calls make no Redis call.
    let grants = || async {
        let mut sum = 0;
        for gw in &gws {
            sum += gw
                .metric("gateway_fleet_budget_grants_total")
                .await
                .unwrap_or(0);
        }
        sum
    };
    let before = grants().await;
    for _ in 0..10 {
        let statuses = burst(&gws, &sys.key, 3).await;
        assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    }
    let made = grants().await - before;
    assert!(
        made <= 6,
        "{made} Redis grants for 30 calls with an ample balance"
    );
    let (logs, _) = sys
        .wait_logs(10 + 30 + 18 + 30, Duration::from_secs(15))
        .await;
    assert_eq!(
        logs,
        10 + 30 + 18 + 30,
        "every answered call is logged once"
    );

    // Redis loses everything (a flush, a failover to an empty replica): the balances come
    // back from the control plane's figures, so the fleet still cannot overdraw.
    set_user_quota(&sys, 10 * CALL_PRICE).await;
    serve_newest_config(&sys, &gws).await;
    let client = redis::Client::open(redis.url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let () = redis::cmd("FLUSHALL").query_async(&mut conn).await.unwrap();
    let statuses = burst(&gws, &sys.key, 60).await;
    let ok = statuses.iter().filter(|s| **s == 200).count();
    assert_eq!(ok, 10, "exactly 10 of 60 after the flush: {statuses:?}");

    // Redis loses everything while calls are in flight: every gateway claims again what it
    // holds (grants wait meanwhile), so the fleet still admits exactly what the balance covers.
    let answered = 10 + 30 + 18 + 30 + 10;
    assert_eq!(
        sys.wait_logs(answered, Duration::from_secs(15)).await.0,
        answered
    );
    set_user_quota(&sys, 10 * CALL_PRICE).await;
    serve_newest_config(&sys, &gws).await;
    let load = burst(&gws, &sys.key, 60);
    let flush = async {
        tokio::time::sleep(Duration::from_millis(5)).await;
        let () = redis::cmd("FLUSHALL").query_async(&mut conn).await.unwrap();
    };
    let (statuses, ()) = tokio::join!(load, flush);
    let ok = statuses.iter().filter(|s| **s == 200).count();
    assert_eq!(ok, 10, "exactly 10 of 60 across a flush: {statuses:?}");
    assert_eq!(
        sys.wait_logs(answered + 10, Duration::from_secs(15))
            .await
            .0,
        answered + 10
    );
}
