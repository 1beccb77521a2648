//! `GET/PUT /api/option/`: defaults, secrets never returned, and each validation rule of spec 1 §5
//! with its message in both languages.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Session, TestApp};
use serde_json::{Value, json};

async fn options_map(app: &TestApp, root: &Session) -> serde_json::Map<String, Value> {
    let reply = app.get("/api/option/").signed_in(root).send().await;
    assert!(reply.success());
    reply
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["key"].as_str().unwrap().to_string(), e["value"].clone()))
        .collect()
}

async fn defaults_and_secrets(app: &TestApp) {
    let root = app.root().await;
    let before = options_map(app, &root).await;
    for (key, value) in [
        ("QuotaPerUnit", "500000"),
        ("RetryTimes", "0"),
        ("PreConsumedQuota", "500"),
        ("Price", "7.3"),
        ("MinTopUp", "1"),
        ("DataExportDefaultTime", "hour"),
        ("LogConsumeEnabled", "true"),
        ("SelfUseModeEnabled", "false"),
    ] {
        assert_eq!(before[key], json!(value), "{key}");
    }
    for secret in [
        "SMTPToken",
        "EpayKey",
        "GitHubClientSecret",
        "oidc.client_secret",
        "TurnstileSecretKey",
        "WorkerValidKey",
        "TelegramBotToken",
        "WeChatServerToken",
        "LinuxDOClientSecret",
    ] {
        assert!(!before.contains_key(secret), "{secret} must not be listed");
    }
    let saved = app
        .put(
            "/api/option/",
            json!({"key": "SMTPToken", "value": "hunter2-secret"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(saved.success());
    let after = app.get("/api/option/").signed_in(&root).send().await;
    assert!(!after.body.to_string().contains("hunter2-secret"));

    // Booleans and numbers are accepted as JSON values and stored as strings.
    assert!(
        app.put(
            "/api/option/",
            json!({"key": "RegisterEnabled", "value": false})
        )
        .signed_in(&root)
        .send()
        .await
        .success()
    );
    assert!(
        app.put("/api/option/", json!({"key": "RetryTimes", "value": 3}))
            .signed_in(&root)
            .send()
            .await
            .success()
    );
    let now = options_map(app, &root).await;
    assert_eq!(now["RegisterEnabled"], json!("false"));
    assert_eq!(now["RetryTimes"], json!("3"));
    let status = app.get("/api/status").send().await;
    assert_eq!(status.data()["register_enabled"], json!(false));
}

async fn validation_rules(app: &TestApp) {
    let root = app.root().await;
    let put = |key: &str, value: &str| {
        app.put("/api/option/", json!({"key": key, "value": value}))
            .signed_in(&root)
    };

    put("TopupGroupRatio", "{not json")
        .send()
        .await
        .assert_rejected("the top-up group ratio is not a valid JSON string");
    put("TopupGroupRatio", "{not json")
        .zh()
        .send()
        .await
        .assert_rejected("充值分组倍率不是合法的 JSON 字符串");
    assert!(
        put("TopupGroupRatio", r#"{"vip":0.9}"#)
            .send()
            .await
            .success()
    );
    put("GroupRatio", "[]")
        .send()
        .await
        .assert_rejected("GroupRatio is not a valid JSON string");

    put("EmailDomainWhitelist", "gmail.com,bad domain")
        .zh()
        .send()
        .await
        .assert_rejected("邮箱域名格式不正确：bad domain");
    put("EmailDomainWhitelist", "gmail.com,GMAIL.com")
        .zh()
        .send()
        .await
        .assert_rejected("该域名已存在于白名单中：gmail.com");
    assert!(
        put("EmailDomainWhitelist", "gmail.com, example.org")
            .send()
            .await
            .success()
    );

    put("RebatePercentage", "101")
        .zh()
        .send()
        .await
        .assert_rejected("返佣百分比必须在0到100之间");
    put("RebatePercentage", "-0.1")
        .send()
        .await
        .assert_rejected("the rebate percentage must be between 0 and 100");
    assert!(put("RebatePercentage", "12.5").send().await.success());

    put("PayAddress", "https://pay.example.com")
        .zh()
        .send()
        .await
        .assert_rejected("请先填写服务器地址");
    assert!(
        put("ServerAddress", "https://gw.example.com///")
            .send()
            .await
            .success()
    );
    assert!(
        put("WorkerUrl", "https://worker.example.com/")
            .send()
            .await
            .success()
    );
    assert!(
        put("PayAddress", "https://pay.example.com/")
            .send()
            .await
            .success()
    );
    assert!(
        put("WeChatServerAddress", "https://wx.example.com/")
            .send()
            .await
            .success()
    );
    put("oidc.well_known", "id.example.com/.well-known")
        .send()
        .await
        .assert_rejected("oidc.well_known must begin with http:// or https://");

    put("MinTopUp", "0")
        .send()
        .await
        .assert_rejected("MinTopUp must be at least 1");
    // Roll-ups are written with each batch's charges: an update interval would mean nothing.
    put("DataExportInterval", "5")
        .send()
        .await
        .assert_rejected("unknown option: DataExportInterval");
    put("CheckInQuota", "-1")
        .send()
        .await
        .assert_rejected("CheckInQuota must be at least 0");
    put("CheckInMaxQuota", "-1")
        .send()
        .await
        .assert_rejected("CheckInMaxQuota must be at least 0");
    put("ChannelDisableThreshold", "-1")
        .send()
        .await
        .assert_rejected("ChannelDisableThreshold must be at least 0");
    put("QuotaRemindThreshold", "-1")
        .send()
        .await
        .assert_rejected("QuotaRemindThreshold must be at least 0");
    put("SensitiveWords", "ok\nregex:[unclosed")
        .send()
        .await
        .assert_rejected("invalid regular expression in sensitive words: regex:[unclosed");
    put("RegisterEnabled", "maybe")
        .send()
        .await
        .assert_rejected("RegisterEnabled must be true or false");
    put("NoSuchOption", "1")
        .send()
        .await
        .assert_rejected("unknown option: NoSuchOption");
    put("Chats", "{}")
        .send()
        .await
        .assert_rejected("Chats is not a valid JSON string");

    let stored = options_map(app, &root).await;
    assert_eq!(stored["ServerAddress"], json!("https://gw.example.com"));
    assert_eq!(stored["WorkerUrl"], json!("https://worker.example.com"));
    assert_eq!(stored["PayAddress"], json!("https://pay.example.com"));
    assert_eq!(
        stored["WeChatServerAddress"],
        json!("https://wx.example.com")
    );
    assert_eq!(
        stored["EmailDomainWhitelist"],
        json!("gmail.com,example.org")
    );
    assert_eq!(stored["RebatePercentage"], json!("12.5"));
    assert_eq!(
        stored["CheckInQuota"],
        json!("10000"),
        "a refused value changes nothing"
    );
}

on_both_backends!(defaults_and_secrets, validation_rules);
