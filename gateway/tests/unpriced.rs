//! A model without a price is refused (`model_price_error`) unless the user accepts unpriced
//! models in their settings or the site runs in self-use mode; then it is served at zero cost.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::system::System;
use serde_json::{Value, json};

async fn wait_status(gw: &common::system::Gateway, key: &str, status: u16) -> common::Reply {
    let start = Instant::now();
    loop {
        let r = gw.chat(key, "unpriced-model").await;
        if r.status == status {
            return r;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{}: {}",
            r.status,
            r.text()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unpriced_models_are_free_only_when_accepted() {
    let sys = System::start(false).await.unwrap();
    sys.cp
        .ok(
            "POST",
            "/api/channel/",
            json!({"type": 1, "name": "unpriced", "key": "sk-up-9", "models": "unpriced-model",
                   "group": "default", "base_url": sys.mock.url()}),
        )
        .await;
    let gw = sys.gateway("gw-a").await;
    let refused = wait_status(&gw, &sys.key, 400).await;
    assert_eq!(refused.json()["error"]["code"], json!("model_price_error"));

    // The user accepts unpriced models: served, free.
    let reply = sys
        .cp
        .call_as(
            &sys.user_session,
            "PUT",
            "/api/user/setting",
            json!({"accept_unset_model_ratio_model": true}),
        )
        .await;
    assert_eq!(reply["success"], json!(true), "{reply}");
    let served = wait_status(&gw, &sys.key, 200).await;
    let start = Instant::now();
    let row = loop {
        let logs = sys
            .cp
            .ok("GET", "/api/log/?p=1&page_size=50", Value::Null)
            .await;
        if let Some(row) = logs["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["request_id"] == json!(served.request_id()))
        {
            break row.clone();
        }
        assert!(start.elapsed() < Duration::from_secs(10), "no row: {logs}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(row["quota"], json!(0), "{row}");

    // Withdrawn: refused again; self-use mode serves it for everyone.
    sys.cp
        .call_as(
            &sys.user_session,
            "PUT",
            "/api/user/setting",
            json!({"accept_unset_model_ratio_model": false}),
        )
        .await;
    wait_status(&gw, &sys.key, 400).await;
    sys.cp
        .ok(
            "PUT",
            "/api/option/",
            json!({"key": "SelfUseModeEnabled", "value": "true"}),
        )
        .await;
    wait_status(&gw, &sys.key, 200).await;
}
