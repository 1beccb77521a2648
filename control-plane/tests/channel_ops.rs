//! Channel checks against the project's mock provider: tests (success, upstream errors, slow
//! answers) with response times and the auto-disable / auto-enable options, test all, model
//! lists, and balances against a stand-in billing endpoint.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Session, TestApp};
use serde_json::{Value, json};

async fn channel_at(app: &TestApp, root: &Session, name: &str, base_url: &str) -> i64 {
    let body = json!({"type": 1, "name": name, "key": "mock-key", "models": "gpt-4o-mini", "base_url": base_url});
    let reply = app.post("/api/channel/", body).signed_in(root).send().await;
    assert!(reply.success(), "{}", reply.body);
    reply.data()[0].as_i64().unwrap()
}

async fn channel(app: &TestApp, root: &Session, id: i64) -> Value {
    app.get(&format!("/api/channel/{id}"))
        .signed_in(root)
        .send()
        .await
        .data()
        .clone()
}

async fn tests_record_time_and_apply_health_rules(app: &TestApp) {
    let root = app.root().await;
    let mock = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let good = channel_at(app, &root, "good", &mock.scenario_url("tag=good")).await;
    let broken = channel_at(
        app,
        &root,
        "broken",
        &mock.scenario_url("tag=broken,status=500"),
    )
    .await;
    let revoked = channel_at(
        app,
        &root,
        "revoked",
        &mock.scenario_url("tag=revoked,status=401"),
    )
    .await;
    let slow = channel_at(
        app,
        &root,
        "slow",
        &mock.scenario_url("tag=slow,ttfb_ms=400"),
    )
    .await;

    let ok = app
        .get(&format!("/api/channel/test/{good}?model=gpt-4o"))
        .signed_in(&root)
        .send()
        .await;
    assert!(ok.success(), "{}", ok.body);
    assert_eq!(ok.data()["model"], json!("gpt-4o"));
    assert!(ok.data()["time"].as_f64().unwrap() >= 0.0);
    assert_eq!(mock.calls("good"), 1, "a real request reached the upstream");
    let saved = channel(app, &root, good).await;
    assert!(saved["test_time"].as_i64().unwrap() > 0);

    // Without the monitoring options, failures change nothing.
    let failed = app
        .get(&format!("/api/channel/test/{broken}"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(failed.body["success"], json!(false));
    assert!(failed.message().contains("500"), "{}", failed.body);
    assert_eq!(channel(app, &root, broken).await["status"], json!(1));

    app.set_option("AutomaticDisableChannelEnabled", "true")
        .await;
    app.set_option("AutomaticEnableChannelEnabled", "true")
        .await;
    app.set_option("ChannelDisableThreshold", "0.2").await;
    app.get(&format!("/api/channel/test/{revoked}"))
        .signed_in(&root)
        .send()
        .await;
    let disabled = channel(app, &root, revoked).await;
    assert_eq!(
        disabled["status"],
        json!(3),
        "401 is an auto-disable status"
    );
    let info: Value = serde_json::from_str(disabled["other_info"].as_str().unwrap()).unwrap();
    assert!(info["status_reason"].as_str().unwrap().contains("401"));
    assert!(info["status_time"].as_i64().unwrap() > 0);
    app.get(&format!("/api/channel/test/{broken}"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(
        channel(app, &root, broken).await["status"],
        json!(1),
        "500 is not"
    );

    let slow_test = app
        .get(&format!("/api/channel/test/{slow}"))
        .signed_in(&root)
        .send()
        .await;
    assert!(slow_test.success());
    assert_eq!(
        channel(app, &root, slow).await["status"],
        json!(3),
        "slower than the threshold"
    );
    assert!(
        channel(app, &root, slow).await["response_time"]
            .as_i64()
            .unwrap()
            >= 400
    );

    // An auto-disabled channel that answers well again is switched back on.
    app.set_option("ChannelDisableThreshold", "5").await;
    app.get(&format!("/api/channel/test/{slow}"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(channel(app, &root, slow).await["status"], json!(1));
    mock.stop();
}

async fn test_all_skips_manually_disabled(app: &TestApp) {
    let root = app.root().await;
    let mock = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    channel_at(app, &root, "a", &mock.scenario_url("tag=a")).await;
    channel_at(app, &root, "b", &mock.scenario_url("tag=b,status=500")).await;
    let off = channel_at(app, &root, "off", &mock.scenario_url("tag=off")).await;
    app.put("/api/channel/", json!({"id": off, "status": 2}))
        .signed_in(&root)
        .send()
        .await;
    let summary = app.get("/api/channel/test").signed_in(&root).send().await;
    assert_eq!(
        summary.data(),
        &json!({"checked": 2, "succeeded": 1, "failed": 1, "disabled": 0, "enabled": 0})
    );
    assert_eq!(mock.calls("off"), 0);
    mock.stop();
}

async fn model_lists(app: &TestApp) {
    let root = app.root().await;
    let mock = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let id = channel_at(app, &root, "lister", &mock.url()).await;
    let saved = app
        .get(&format!("/api/channel/fetch_models/{id}"))
        .signed_in(&root)
        .send()
        .await;
    assert!(saved.success(), "{}", saved.body);
    assert!(!saved.data().as_array().unwrap().is_empty());
    let unsaved = app
        .post(
            "/api/channel/fetch_models",
            json!({"base_url": format!("{}/", mock.url()), "type": 1, "key": "k"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(unsaved.data(), saved.data());
    app.post(
        "/api/channel/fetch_models",
        json!({"base_url": mock.url(), "type": 1, "key": ""}),
    )
    .signed_in(&root)
    .send()
    .await
    .assert_rejected("a new channel needs a key before models can be fetched");
    let failing = app
        .post(
            "/api/channel/fetch_models",
            json!({"base_url": mock.scenario_url("status=503"), "type": 1, "key": "k"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(failing.body["success"], json!(false));
    assert!(
        failing
            .message()
            .starts_with("fetching the model list failed")
    );
    mock.stop();
}

/// A stand-in for the OpenAI billing endpoints: $20 limit, $5.50 used.
async fn fake_billing(limit: f64) -> String {
    use axum::routing::get;
    let app = axum::Router::new()
        .route(
            "/v1/dashboard/billing/subscription",
            get(move || async move { axum::Json(json!({"hard_limit_usd": limit})) }),
        )
        .route(
            "/v1/dashboard/billing/usage",
            get(|| async { axum::Json(json!({"total_usage": 550.0})) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

async fn balances(app: &TestApp) {
    let root = app.root().await;
    let funded = channel_at(app, &root, "funded", &fake_billing(20.0).await).await;
    let reply = app
        .get(&format!("/api/channel/update_balance/{funded}/"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(reply.data(), &json!(14.5));
    let saved = channel(app, &root, funded).await;
    assert_eq!(saved["balance"], json!(14.5));
    assert!(saved["balance_updated_time"].as_i64().unwrap() > 0);

    let claude = app
        .post(
            "/api/channel/",
            json!({"type": 14, "name": "claude", "key": "k", "models": "claude-sonnet-4"}),
        )
        .signed_in(&root)
        .send()
        .await
        .data()[0]
        .as_i64()
        .unwrap();
    app.get(&format!("/api/channel/update_balance/{claude}/"))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("balance queries are not supported for this channel type");

    app.set_option("AutomaticDisableChannelEnabled", "true")
        .await;
    let empty = channel_at(app, &root, "empty", &fake_billing(5.5).await).await;
    let summary = app
        .get("/api/channel/update_balance")
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(summary.data()["checked"], json!(3));
    assert_eq!(summary.data()["succeeded"], json!(2));
    assert_eq!(summary.data()["failed"], json!(1));
    assert_eq!(summary.data()["disabled"], json!(1));
    assert_eq!(channel(app, &root, empty).await["status"], json!(3));
    assert_eq!(channel(app, &root, funded).await["status"], json!(1));
}

async fn gemini_tests_use_the_configured_api_version(app: &TestApp) {
    let root = app.root().await;
    let mock = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let body = json!({"type": 24, "name": "gemini", "key": "gemini-key",
                      "models": "gemini-2.5-flash", "base_url": mock.url()});
    let reply = app
        .post("/api/channel/", body)
        .signed_in(&root)
        .send()
        .await;
    assert!(reply.success(), "{}", reply.body);
    let id = reply.data()[0].as_i64().unwrap();
    let last_path = || mock.with_stats(|s| s.requests.last().map(|r| r.path.clone()));
    for (versions, path) in [
        ("{}", "/v1beta/models/gemini-2.5-flash:generateContent"),
        (
            r#"{"default": "v1"}"#,
            "/v1/models/gemini-2.5-flash:generateContent",
        ),
        (
            r#"{"default": "v1", "gemini-2.5-flash": "v1alpha"}"#,
            "/v1alpha/models/gemini-2.5-flash:generateContent",
        ),
    ] {
        app.set_option("gemini.version_settings", versions).await;
        let tested = app
            .get(&format!("/api/channel/test/{id}"))
            .signed_in(&root)
            .send()
            .await;
        assert!(tested.success(), "{}", tested.body);
        assert_eq!(last_path().as_deref(), Some(path));
    }
}

on_both_backends!(
    gemini_tests_use_the_configured_api_version,
    tests_record_time_and_apply_health_rules,
    test_all_skips_manually_disabled,
    model_lists,
    balances,
);
