//! Pricing: the public table, models per type, unpriced models, and resetting the ratios.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::TestApp;
use serde_json::json;

async fn pricing_table_and_reset(app: &TestApp) {
    let root = app.root().await;
    let created = app
        .post("/api/channel/", json!({"type": 1, "name": "c", "key": "k", "models": "gpt-4o,dall-e-3,mystery-model", "group": "default,vip"}))
        .signed_in(&root)
        .send()
        .await;
    assert!(created.success());

    let anonymous = app.get("/api/pricing").send().await;
    assert_eq!(anonymous.body["success"], json!(true));
    let models = anonymous.body["data"].as_array().unwrap();
    let find = |name: &str| {
        models
            .iter()
            .find(|m| m["model_name"] == json!(name))
            .cloned()
            .unwrap()
    };
    let gpt = find("gpt-4o");
    assert_eq!(gpt["quota_type"], json!(0));
    assert_eq!(gpt["model_ratio"], json!(1.25));
    assert_eq!(gpt["completion_ratio"], json!(4.0));
    assert_eq!(gpt["cache_ratio"], json!(0.5));
    assert_eq!(gpt["enable_groups"], json!(["default", "vip"]));
    let image = find("dall-e-3");
    assert_eq!(image["quota_type"], json!(1));
    assert_eq!(image["model_price"], json!(0.04));
    assert_eq!(find("mystery-model")["model_ratio"], json!(0.0));
    assert_eq!(anonymous.body["group_ratio"]["default"], json!(1.0));
    assert!(anonymous.body["usable_group"].get("default").is_some());

    assert_eq!(anonymous.body["group_group_ratio"], json!({}));
    // A signed-in viewer sees the special ratios of their own group.
    app.set_option(
        "GroupGroupRatio",
        r#"{"default": {"vip": 0.5}, "vip": {"default": 2}}"#,
    )
    .await;
    let signed_in = app.get("/api/pricing").signed_in(&root).send().await;
    assert_eq!(signed_in.body["group_group_ratio"], json!({"vip": 0.5}));

    let unset = app.get("/api/models/unset").signed_in(&root).send().await;
    assert_eq!(unset.data(), &json!(["mystery-model"]));
    let by_type = app.get("/api/models").signed_in(&root).send().await;
    assert_eq!(
        by_type.data(),
        &json!({"1": ["dall-e-3", "gpt-4o", "mystery-model"]})
    );

    let changed = app
        .put(
            "/api/option/",
            json!({"key": "ModelRatio", "value": "{\"gpt-4o\": 2, \"mystery-model\": 1}"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(changed.success());
    let after = app.get("/api/pricing").signed_in(&root).send().await;
    let gpt = after.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model_name"] == json!("gpt-4o"))
        .cloned()
        .unwrap();
    assert_eq!(gpt["model_ratio"], json!(2.0));
    assert_eq!(
        app.get("/api/models/unset")
            .signed_in(&root)
            .send()
            .await
            .data(),
        &json!([])
    );

    assert!(
        app.post("/api/option/rest_model_ratio", json!({}))
            .signed_in(&root)
            .send()
            .await
            .success()
    );
    let reset = app.get("/api/pricing").send().await;
    let gpt = reset.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model_name"] == json!("gpt-4o"))
        .cloned()
        .unwrap();
    assert_eq!(gpt["model_ratio"], json!(1.25));
    let admin = app.admin(&root, "pricer").await;
    let refused = app
        .post("/api/option/rest_model_ratio", json!({}))
        .signed_in(&admin)
        .send()
        .await;
    assert_eq!(refused.status, axum::http::StatusCode::FORBIDDEN);
}

on_both_backends!(pricing_table_and_reset);
