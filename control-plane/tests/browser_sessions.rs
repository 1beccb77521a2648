//! Sessions and browsers: security headers on console pages and API replies (over a real
//! socket), the `Secure` session cookie behind HTTPS, a password change ending the user's other
//! sessions, and an administrator's save never writing back a stale quota.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use axum::http::StatusCode;
use common::{Backend, LOOPBACK, REMOTE, ROOT_PASSWORD, Session, TestApp};
use control_plane::settings::{SecureCookies, Settings};
use serde_json::json;

fn assert_security_headers(path: &str, headers: &reqwest::header::HeaderMap) {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("{path}: no {name}"))
            .to_string()
    };
    let csp = get("content-security-policy");
    for directive in [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "frame-ancestors 'none'",
        "object-src 'none'",
    ] {
        assert!(
            csp.contains(directive),
            "{path}: {directive} missing in {csp}"
        );
    }
    assert_eq!(get("x-content-type-options"), "nosniff", "{path}");
    assert_eq!(get("x-frame-options"), "DENY", "{path}");
    assert_eq!(
        get("referrer-policy"),
        "strict-origin-when-cross-origin",
        "{path}"
    );
}

async fn headers_on_every_reply(backend: Backend) {
    let console = tempfile::tempdir().unwrap();
    std::fs::write(
        console.path().join("index.html"),
        "<!doctype html><div id=root></div>",
    )
    .unwrap();
    std::fs::create_dir(console.path().join("assets")).unwrap();
    std::fs::write(console.path().join("assets/app.js"), "console.log(1)").unwrap();
    let dir = console.path().to_path_buf();
    let Some(app) = TestApp::start_with(backend, |s| s.console_dir = Some(dir)).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let addr = common::serve_with_grpc(&app).await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    // Before setup (the gate's redirect and refusal), then after.
    for path in ["/", "/api/user/self", "/api/status"] {
        let reply = client
            .get(format!("http://{addr}{path}"))
            .send()
            .await
            .unwrap();
        assert_security_headers(path, reply.headers());
    }
    app.setup().await;
    for (path, status) in [
        ("/", StatusCode::OK),
        ("/console/route", StatusCode::OK),
        ("/assets/app.js", StatusCode::OK),
        ("/assets/missing.js", StatusCode::NOT_FOUND),
        ("/api/status", StatusCode::OK),
        ("/api/no-such-thing", StatusCode::NOT_FOUND),
        ("/api/user/self", StatusCode::UNAUTHORIZED),
        ("/api/openapi.json", StatusCode::OK),
    ] {
        let reply = client
            .get(format!("http://{addr}{path}"))
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status().as_u16(), status.as_u16(), "{path}");
        assert_security_headers(path, reply.headers());
    }
    // Metrics live on the admin listener only.
    let public = client
        .get(format!("http://{addr}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!public.contains("control_plane_"), "{public}");
    let login = client
        .post(format!("http://{addr}/api/user/login"))
        .json(&json!({"username": "root", "password": ROOT_PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_security_headers("login", login.headers());
    app.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn security_headers_sqlite() {
    headers_on_every_reply(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn security_headers_postgres() {
    headers_on_every_reply(Backend::Postgres).await;
}

/// The `Set-Cookie` of a root sign-in from `peer`, with `X-Forwarded-Proto` when given.
async fn session_cookie_from(app: &TestApp, peer: &str, forwarded_proto: Option<&str>) -> String {
    let mut req = app
        .post(
            "/api/user/login",
            json!({"username": "root", "password": ROOT_PASSWORD}),
        )
        .via_peer(peer);
    if let Some(proto) = forwarded_proto {
        req = req.header("x-forwarded-proto", proto);
    }
    let reply = req.send().await;
    assert!(reply.success(), "{}", reply.body);
    reply
        .set_cookie_header("session")
        .expect("a session cookie")
}

fn is_secure(cookie: &str) -> bool {
    cookie
        .split(';')
        .any(|attr| attr.trim().eq_ignore_ascii_case("secure"))
}

async fn cookie_is_secure_behind_https(app: &TestApp) {
    app.setup().await;
    let plain = session_cookie_from(app, LOOPBACK, None).await;
    assert!(!is_secure(&plain), "{plain}");
    assert!(plain.contains("HttpOnly") && plain.contains("SameSite=Strict"));
    let proxied = session_cookie_from(app, LOOPBACK, Some("https")).await;
    assert!(is_secure(&proxied), "{proxied}");
    // The header counts only from a proxy the control plane trusts.
    let forged = session_cookie_from(app, REMOTE, Some("https")).await;
    assert!(!is_secure(&forged), "{forged}");
    let downgraded = session_cookie_from(app, LOOPBACK, Some("http")).await;
    assert!(!is_secure(&downgraded), "{downgraded}");
}

fn always_secure(s: &mut Settings) {
    s.auth.secure_cookies = SecureCookies::Always;
}

fn never_secure(s: &mut Settings) {
    s.auth.secure_cookies = SecureCookies::Never;
}

async fn cookie_always_secure(app: &TestApp) {
    app.setup().await;
    assert!(is_secure(&session_cookie_from(app, REMOTE, None).await));
}

async fn cookie_never_secure(app: &TestApp) {
    app.setup().await;
    assert!(!is_secure(
        &session_cookie_from(app, LOOPBACK, Some("https")).await
    ));
}

async fn status_of(app: &TestApp, session: &Session) -> StatusCode {
    app.get("/api/user/self")
        .signed_in(session)
        .send()
        .await
        .status
}

async fn password_changes_end_other_sessions(app: &TestApp) {
    let root = app.root().await;
    let laptop = app.user(&root, "pat").await;
    let phone = app.login("pat", "user-pass-1").await;
    let bystander = app.user(&root, "bystander").await;

    // Changing one's own password keeps the session that did it and ends the others.
    let changed = app
        .put(
            "/api/user/self",
            json!({"password": "new-pass-22", "original_password": "user-pass-1"}),
        )
        .signed_in(&laptop)
        .send()
        .await;
    assert!(changed.success(), "{}", changed.body);
    assert_eq!(status_of(app, &laptop).await, StatusCode::OK);
    assert_eq!(status_of(app, &phone).await, StatusCode::UNAUTHORIZED);
    assert_eq!(status_of(app, &bystander).await, StatusCode::OK);
    // A profile edit without a password ends nothing.
    let renamed = app
        .put("/api/user/self", json!({"display_name": "Pat"}))
        .signed_in(&laptop)
        .send()
        .await;
    assert!(renamed.success(), "{}", renamed.body);
    assert_eq!(status_of(app, &laptop).await, StatusCode::OK);

    // An administrator setting the password ends every session of the user.
    let tablet = app.login("pat", "new-pass-22").await;
    let set = app
        .put(
            "/api/user/",
            json!({"id": laptop.user_id, "password": "admin-set-33"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(set.success(), "{}", set.body);
    assert_eq!(status_of(app, &laptop).await, StatusCode::UNAUTHORIZED);
    assert_eq!(status_of(app, &tablet).await, StatusCode::UNAUTHORIZED);
    assert_eq!(status_of(app, &root).await, StatusCode::OK);
    app.login("pat", "admin-set-33").await;

    // Root editing its own password through the admin screen keeps its current session.
    let other_root = app.login("root", ROOT_PASSWORD).await;
    let own = app
        .put(
            "/api/user/",
            json!({"id": root.user_id, "password": "root-pass-44"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(own.success(), "{}", own.body);
    assert_eq!(status_of(app, &root).await, StatusCode::OK);
    assert_eq!(status_of(app, &other_root).await, StatusCode::UNAUTHORIZED);
}

async fn quota_of(app: &TestApp, root: &Session, id: i64) -> i64 {
    app.get(&format!("/api/user/{id}"))
        .signed_in(root)
        .send()
        .await
        .data()["quota"]
        .as_i64()
        .unwrap()
}

async fn saving_a_profile_never_writes_back_a_stale_quota(app: &TestApp) {
    let root = app.root().await;
    let quinn = app.user(&root, "quinn").await;
    let id = quinn.user_id;

    // The console loads the user…
    let loaded = app
        .get(&format!("/api/user/{id}"))
        .signed_in(&root)
        .send()
        .await
        .data()
        .clone();
    let loaded_quota = loaded["quota"].as_i64().unwrap();
    // …meanwhile the user redeems a code…
    let key = app
        .post("/api/redemption/", json!({"quota": 5000, "count": 1}))
        .signed_in(&root)
        .send()
        .await
        .data()[0]
        .clone();
    assert!(
        app.post("/api/user/topup", json!({"key": key}))
            .signed_in(&quinn)
            .send()
            .await
            .success()
    );
    let current = loaded_quota + 5000;
    // …and the admin saves the form as loaded, with a new display name.
    let saved = app
        .put(
            "/api/user/",
            json!({"id": id, "username": loaded["username"], "display_name": "Quinn Q",
                   "group": loaded["group"], "email": loaded["email"], "remark": loaded["remark"],
                   "quota": loaded_quota, "quota_before": loaded_quota}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(saved.success(), "{}", saved.body);
    assert_eq!(
        quota_of(app, &root, id).await,
        current,
        "the redemption is kept"
    );
    let view = app
        .get(&format!("/api/user/{id}"))
        .signed_in(&root)
        .send()
        .await;
    assert_eq!(view.data()["display_name"], json!("Quinn Q"));

    // A new quota typed over a stale form is refused, and says what the balance is now.
    app.put(
        "/api/user/",
        json!({"id": id, "quota": 100, "quota_before": loaded_quota}),
    )
    .signed_in(&root)
    .send()
    .await
    .assert_rejected(&format!(
        "the quota changed to {current} after the form was loaded; reload and try again"
    ));
    assert_eq!(quota_of(app, &root, id).await, current);
    // Over a fresh one it is set, and logged.
    let set = app
        .put(
            "/api/user/",
            json!({"id": id, "quota": 100, "quota_before": current}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(set.success(), "{}", set.body);
    assert_eq!(quota_of(app, &root, id).await, 100);
    let logged: (i64, String) = sqlx::query_as(
        "SELECT quota, content FROM logs WHERE user_id = $1 AND type = 3 ORDER BY id DESC",
    )
    .bind(id)
    .fetch_one(&app.db().pool)
    .await
    .unwrap();
    assert_eq!(logged.0, 100 - current);
    assert!(
        logged.1.contains(&format!("from {current} to 100")),
        "{}",
        logged.1
    );

    // A bare quota must be the current one (a no-op); anything else needs quota_before.
    assert!(
        app.put("/api/user/", json!({"id": id, "quota": 100}))
            .signed_in(&root)
            .send()
            .await
            .success()
    );
    app.put("/api/user/", json!({"id": id, "quota": 900}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("to change the quota, send quota_before (the quota the form was loaded with) or quota_delta");

    // Deltas add to the balance as it is, never below zero.
    assert!(
        app.put("/api/user/", json!({"id": id, "quota_delta": 50}))
            .signed_in(&root)
            .send()
            .await
            .success()
    );
    assert_eq!(quota_of(app, &root, id).await, 150);
    app.put("/api/user/", json!({"id": id, "quota_delta": -1000}))
        .signed_in(&root)
        .send()
        .await
        .assert_rejected("quota cannot be negative");
    app.put(
        "/api/user/",
        json!({"id": id, "quota": 1, "quota_before": 150, "quota_delta": 5}),
    )
    .signed_in(&root)
    .send()
    .await
    .assert_rejected("send either a new quota or quota_delta, not both");
    assert_eq!(quota_of(app, &root, id).await, 150);
}

on_both_backends!(
    cookie_is_secure_behind_https,
    password_changes_end_other_sessions,
    saving_a_profile_never_writes_back_a_stale_quota,
);

on_both_backends_with!(
    cookie_always_secure => always_secure,
    cookie_never_secure => never_secure,
);
