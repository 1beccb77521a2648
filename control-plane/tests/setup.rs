//! First-run setup: refusal before setup, loopback vs. setup token, validation, one-time only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use axum::http::StatusCode;
use common::{REMOTE, TestApp};
use serde_json::json;

async fn everything_but_setup_and_status_is_refused_before_setup(app: &TestApp) {
    let status = app.get("/api/status").send().await;
    assert!(status.success());
    assert_eq!(status.data()["setup"], json!(false));

    let setup = app.get("/api/setup").send().await;
    assert_eq!(setup.data()["status"], json!(false));
    assert_eq!(setup.data()["root_init"], json!(false));
    let expected_db = match app.backend {
        common::Backend::Sqlite => "sqlite",
        common::Backend::Postgres => "postgres",
    };
    assert_eq!(setup.data()["database_type"], json!(expected_db));

    for path in [
        "/api/user/self",
        "/api/user/",
        "/api/option/",
        "/api/group/",
    ] {
        let reply = app.get(path).send().await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{path}");
        assert_eq!(reply.body["success"], json!(false));
    }
    let login = app
        .post(
            "/api/user/login",
            json!({"username": "root", "password": "x"}),
        )
        .send()
        .await;
    assert_eq!(login.status, StatusCode::FORBIDDEN);

    let page = app.get("/login").send().await;
    assert_eq!(page.status, StatusCode::TEMPORARY_REDIRECT);
    assert_eq!(page.headers["location"], "/setup");
}

async fn strangers_need_the_setup_token(app: &TestApp) {
    let form =
        json!({"username": "boss", "password": "boss-pass-1", "confirmPassword": "boss-pass-1"});
    let remote = app
        .post("/api/setup", form.clone())
        .via_peer(REMOTE)
        .send()
        .await;
    assert_eq!(remote.status, StatusCode::FORBIDDEN);
    assert!(remote.message().contains("setup token"), "{}", remote.body);

    // A local proxy forwarding a remote client does not make the client local.
    let forwarded = app
        .post("/api/setup", form.clone())
        .header("x-forwarded-for", "127.0.0.1, 198.51.100.4")
        .send()
        .await;
    assert_eq!(forwarded.status, StatusCode::FORBIDDEN);
    // nginx → gateway → control plane, all on this machine: the remote client nginx appended
    // stays the client, whatever it put in front and however many local hops follow.
    let chained = app
        .post("/api/setup", form.clone())
        .header("x-forwarded-for", "127.0.0.1, 198.51.100.4, 127.0.0.1")
        .send()
        .await;
    assert_eq!(chained.status, StatusCode::FORBIDDEN);

    let wrong = app
        .post("/api/setup", form.clone())
        .via_peer(REMOTE)
        .header("x-setup-token", "guess")
        .send()
        .await;
    assert_eq!(wrong.status, StatusCode::FORBIDDEN);
    assert!(
        !app.get("/api/setup").send().await.data()["status"]
            .as_bool()
            .unwrap()
    );

    let with_token = app
        .post("/api/setup", form.clone())
        .via_peer(REMOTE)
        .header("x-setup-token", "test-setup-token")
        .send()
        .await;
    assert!(with_token.success(), "{}", with_token.body);

    let again = app.post("/api/setup", form).send().await;
    again.assert_rejected("the system is already initialized");
    let after = app.get("/api/setup").send().await;
    assert_eq!(after.data()["status"], json!(true));
    assert_eq!(after.data()["root_init"], json!(true));
    let me = app.login("boss", "boss-pass-1").await;
    let self_view = app.get("/api/user/self").signed_in(&me).send().await;
    assert_eq!(self_view.data()["role"], json!(100));
    assert_eq!(self_view.data()["quota"], json!(100_000_000));
}

async fn setup_token_in_the_body_is_accepted(app: &TestApp) {
    let reply = app
        .post(
            "/api/setup",
            json!({"username": "boss", "password": "boss-pass-1", "confirmPassword": "boss-pass-1",
                   "setup_token": "test-setup-token", "SelfUseModeEnabled": true}),
        )
        .via_peer(REMOTE)
        .send()
        .await;
    assert!(reply.success(), "{}", reply.body);
    let status = app.get("/api/status").send().await;
    assert_eq!(status.data()["setup"], json!(true));
    assert_eq!(status.data()["self_use_mode_enabled"], json!(true));
    assert_eq!(status.data()["demo_site_enabled"], json!(false));
}

async fn setup_form_is_validated(app: &TestApp) {
    let cases = [
        (
            json!({"username": " ", "password": "12345678", "confirmPassword": "12345678"}),
            "please enter the admin username",
            "请输入管理员用户名",
        ),
        (
            json!({"username": "root", "password": "1234567", "confirmPassword": "1234567"}),
            "password must be at least 8 characters",
            "密码长度至少为8个字符",
        ),
        (
            json!({"username": "root", "password": "12345678", "confirmPassword": "12345679"}),
            "the two passwords do not match",
            "两次输入的密码不一致",
        ),
        (
            json!({"username": "averyveryverylongname", "password": "12345678", "confirmPassword": "12345678"}),
            "the admin username must be at most 12 characters",
            "管理员用户名长度不能超过 12 个字符",
        ),
    ];
    for (form, en, zh) in cases {
        app.post("/api/setup", form.clone())
            .send()
            .await
            .assert_rejected(en);
        app.post("/api/setup", form)
            .zh()
            .send()
            .await
            .assert_rejected(zh);
    }
    app.post("/api/setup", json!([1, 2])).send().await;
    let malformed = app
        .req(axum::http::Method::POST, "/api/setup")
        .raw_body("application/json", "{not json")
        .send()
        .await;
    assert_eq!(malformed.status, StatusCode::BAD_REQUEST);
    assert_eq!(malformed.body["success"], json!(false));
    assert!(
        !app.get("/api/setup").send().await.data()["status"]
            .as_bool()
            .unwrap()
    );
}

async fn status_reflects_options(app: &TestApp) {
    let root = app.root().await;
    let reply = app
        .put(
            "/api/option/",
            json!({"key": "SystemName", "value": "Acme AI"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(reply.success());
    app.put(
        "/api/option/",
        json!({"key": "Chats", "value": r#"[{"Web":"https://chat.example.com/#/?key={key}"}]"#}),
    )
    .signed_in(&root)
    .send()
    .await;
    // The operator's About and home page, public, as saved.
    for (key, path, value) in [
        (
            "About",
            "/api/about",
            "# About us\n<img src=x onerror=alert(1)>",
        ),
        (
            "HomePageContent",
            "/api/home_page_content",
            "https://example.com/home",
        ),
    ] {
        let saved = app
            .put("/api/option/", json!({"key": key, "value": value}))
            .signed_in(&root)
            .send()
            .await;
        assert!(saved.success());
        assert_eq!(app.get(path).send().await.data(), &json!(value));
    }
    let status = app.get("/api/status").send().await;
    let data = status.data();
    assert_eq!(data["system_name"], json!("Acme AI"));
    assert_eq!(data["quota_per_unit"], json!(500000));
    assert_eq!(
        data["chat_link"],
        json!("https://chat.example.com/#/?key={key}")
    );
    for key in [
        "logo",
        "footer_html",
        "display_in_currency",
        "enable_drawing",
        "enable_task",
        "enable_data_export",
        "data_export_default_time",
        "default_collapse_sidebar",
        "mj_notify_enabled",
        "check_in_enabled",
        "chats",
        "chat_link2",
        "docs_link",
        "email_verification",
        "turnstile_check",
        "turnstile_site_key",
        "github_oauth",
        "github_client_id",
        "oidc_enabled",
        "oidc_client_id",
        "oidc_authorization_endpoint",
        "wechat_login",
        "wechat_qrcode",
        "telegram_oauth",
        "telegram_bot_name",
        "linuxdo_oauth",
        "linuxdo_client_id",
        "version",
        "start_time",
        "setup",
    ] {
        assert!(data.get(key).is_some(), "status lacks {key}");
    }
}

on_both_backends!(
    everything_but_setup_and_status_is_refused_before_setup,
    strangers_need_the_setup_token,
    setup_token_in_the_body_is_accepted,
    setup_form_is_validated,
    status_reflects_options,
);
