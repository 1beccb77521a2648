//! Credential guessing is slow: sign-in, registration, email codes, password reset and redeeming
//! are limited per client address and per account (429 with `Retry-After`, then recovery after
//! the window); email-code attempts are counted atomically; password hashing runs on a bounded
//! pool; an unknown account costs the same password check as a wrong password.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use axum::http::StatusCode;
use common::fakes::FakeSmtp;
use common::{ROOT_PASSWORD, Reply, TestApp};
use control_plane::settings::Settings;
use serde_json::json;

const WRONG_CREDENTIALS: &str = "wrong username or password, or the user has been banned";
const WRONG_CODE: &str = "the verification code is wrong or has expired";
const NO_SMTP: &str = "the administrator has not configured SMTP, so no email can be sent";
const NO_SERVER: &str = "the administrator has not set the server address";

/// Asserts a 429 in the envelope with a matching `Retry-After`, and returns its seconds.
#[track_caller]
fn assert_throttled(reply: &Reply) -> u64 {
    assert_eq!(
        reply.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        reply.body
    );
    assert_eq!(reply.body["success"], json!(false), "{}", reply.body);
    let secs: u64 = reply
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("a Retry-After header in seconds");
    assert!(secs >= 1, "{secs}");
    assert_eq!(
        reply.message(),
        format!("too many attempts, try again in {secs} seconds")
    );
    secs
}

#[track_caller]
fn assert_not_throttled(reply: &Reply) {
    assert_ne!(
        reply.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        reply.body
    );
}

fn login_body(username: &str, password: &str) -> serde_json::Value {
    json!({"username": username, "password": password})
}

/// A long window, 3 attempts per account, 6 per address.
fn tight(s: &mut Settings) {
    s.auth.auth_limit_window_secs = 600;
    s.auth.auth_limit_per_account = 3;
    s.auth.auth_limit_per_ip = 6;
}

/// A 3-second window, 1 attempt per account.
fn short_window(s: &mut Settings) {
    s.auth.auth_limit_window_secs = 3;
    s.auth.auth_limit_per_account = 1;
    s.auth.auth_limit_per_ip = 100;
}

/// Limits out of the way.
fn generous(s: &mut Settings) {
    s.auth.auth_limit_per_account = 1000;
    s.auth.auth_limit_per_ip = 1000;
}

/// Two hashes at once; waiting for a slot is allowed for long.
fn two_hash_slots(s: &mut Settings) {
    generous(s);
    s.auth.password_hash_concurrency = 2;
    s.auth.password_hash_wait_ms = 60_000;
}

/// One hash at a time; a request waits 100 ms for it.
fn one_hash_slot(s: &mut Settings) {
    s.auth.password_hash_concurrency = 1;
    s.auth.password_hash_wait_ms = 100;
}

async fn sign_in_is_limited_per_account_and_per_address(app: &TestApp) {
    app.setup().await;
    // Successful sign-ins are not failures: any number of them.
    for _ in 0..5 {
        app.login("root", ROOT_PASSWORD).await;
    }
    // Three wrong passwords from one address; then even the right one waits, from any address.
    for _ in 0..3 {
        app.post("/api/user/login", login_body("root", "wrong-pass-1"))
            .via_peer("198.51.100.1:40000")
            .send()
            .await
            .assert_rejected(WRONG_CREDENTIALS);
    }
    let refused = app
        .post("/api/user/login", login_body("root", ROOT_PASSWORD))
        .via_peer("198.51.100.1:40000")
        .send()
        .await;
    assert!(assert_throttled(&refused) <= 600);
    assert_throttled(
        &app.post("/api/user/login", login_body("root", ROOT_PASSWORD))
            .via_peer("198.51.100.2:40000")
            .send()
            .await,
    );
    // In Chinese, with the header kept.
    let zh = app
        .post("/api/user/login", login_body("root", ROOT_PASSWORD))
        .zh()
        .send()
        .await;
    assert_eq!(zh.status, StatusCode::TOO_MANY_REQUESTS);
    let secs = zh.headers["retry-after"].to_str().unwrap();
    assert_eq!(zh.message(), format!("尝试次数过多，请 {secs} 秒后再试"));

    // A name that is no account is limited the same way.
    for _ in 0..3 {
        app.post("/api/user/login", login_body("ghost", "wrong-pass-1"))
            .via_peer("198.51.100.3:40000")
            .send()
            .await
            .assert_rejected(WRONG_CREDENTIALS);
    }
    assert_throttled(
        &app.post("/api/user/login", login_body("ghost", "wrong-pass-1"))
            .via_peer("198.51.100.4:40000")
            .send()
            .await,
    );

    // One address trying many names: six failures, then it waits; another address does not.
    for i in 0..6 {
        app.post(
            "/api/user/login",
            login_body(&format!("name{i}"), "wrong-pass-1"),
        )
        .via_peer("198.51.100.5:40000")
        .send()
        .await
        .assert_rejected(WRONG_CREDENTIALS);
    }
    assert_throttled(
        &app.post("/api/user/login", login_body("name-x", "wrong-pass-1"))
            .via_peer("198.51.100.5:40000")
            .send()
            .await,
    );
    app.post("/api/user/login", login_body("name-x", "wrong-pass-1"))
        .via_peer("198.51.100.6:40000")
        .send()
        .await
        .assert_rejected(WRONG_CREDENTIALS);
    // IPv6 clients are counted per /64.
    for i in 0..6 {
        app.post(
            "/api/user/login",
            login_body(&format!("v6name{i}"), "wrong-pass-1"),
        )
        .via_peer(&format!("[2001:db8:7:7::{i}]:40000"))
        .send()
        .await
        .assert_rejected(WRONG_CREDENTIALS);
    }
    assert_throttled(
        &app.post("/api/user/login", login_body("v6name-x", "wrong-pass-1"))
            .via_peer("[2001:db8:7:7:ffff::1]:40000")
            .send()
            .await,
    );
    let refused: i64 = metric(app, "control_plane_auth_throttled_total{action=\"login\"}").await;
    assert!(refused >= 5, "{refused}");
}

async fn every_guarded_endpoint_answers_429_past_its_limit(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "guesser").await;

    // Registration: every attempt counts, per username and per address.
    let register = |name: &str| {
        app.post(
            "/api/user/register",
            json!({"username": name, "password": "reg-pass-1"}),
        )
    };
    assert!(
        register("taken")
            .via_peer("198.51.100.10:1")
            .send()
            .await
            .success()
    );
    for peer in ["198.51.100.11:1", "198.51.100.12:1"] {
        register("taken")
            .via_peer(peer)
            .send()
            .await
            .assert_rejected("username already exists");
    }
    assert_throttled(&register("taken").via_peer("198.51.100.13:1").send().await);
    for i in 0..6 {
        assert!(
            register(&format!("fresh{i}"))
                .via_peer("198.51.100.14:1")
                .send()
                .await
                .success()
        );
    }
    assert_throttled(&register("fresh-x").via_peer("198.51.100.14:1").send().await);

    // Sending a code and asking for a reset link: every attempt counts, per address of mail.
    for _ in 0..3 {
        app.get("/api/verification?email=code@example.com")
            .send()
            .await
            .assert_rejected(NO_SMTP);
        app.get("/api/reset_password?email=reset@example.com")
            .send()
            .await
            .assert_rejected(NO_SERVER);
    }
    assert_throttled(
        &app.get("/api/verification?email=CODE@example.com")
            .send()
            .await,
    );
    assert_throttled(
        &app.get("/api/reset_password?email=reset@example.com")
            .send()
            .await,
    );

    // Reset tokens, email binding codes and redemption codes: failures count.
    for _ in 0..3 {
        app.post(
            "/api/user/reset",
            json!({"email": "reset@example.com", "token": "x".repeat(32)}),
        )
        .send()
        .await
        .assert_rejected(WRONG_CODE);
        app.get("/api/oauth/email/bind?email=bind@example.com&code=123456")
            .signed_in(&user)
            .send()
            .await
            .assert_rejected(WRONG_CODE);
        app.post("/api/user/topup", json!({"key": "no-such-code"}))
            .signed_in(&user)
            .send()
            .await
            .assert_rejected("invalid redemption code");
    }
    assert_throttled(
        &app.post(
            "/api/user/reset",
            json!({"email": "reset@example.com", "token": "y".repeat(32)}),
        )
        .send()
        .await,
    );
    assert_throttled(
        &app.get("/api/oauth/email/bind?email=other@example.com&code=654321")
            .signed_in(&user)
            .send()
            .await,
    );
    assert_throttled(
        &app.post("/api/user/topup", json!({"key": "another-code"}))
            .signed_in(&user)
            .send()
            .await,
    );

    // Successful redemptions never count: five in a row for a user with a limit of three.
    let buyer = app.user(&root, "buyer").await;
    let created = app
        .post("/api/redemption/", json!({"quota": 1000, "count": 5}))
        .signed_in(&root)
        .send()
        .await;
    assert!(created.success(), "{}", created.body);
    for key in created.data().as_array().unwrap() {
        let redeemed = app
            .post("/api/user/topup", json!({"key": key}))
            .signed_in(&buyer)
            .send()
            .await;
        assert!(redeemed.success(), "{}", redeemed.body);
    }
}

async fn limits_lift_after_the_window(app: &TestApp) {
    let root = app.root().await;
    let user = app.user(&root, "patient").await;
    let mut waits = Vec::new();

    app.post("/api/user/login", login_body("root", "wrong-pass-1"))
        .send()
        .await
        .assert_rejected(WRONG_CREDENTIALS);
    waits.push(assert_throttled(
        &app.post("/api/user/login", login_body("root", ROOT_PASSWORD))
            .send()
            .await,
    ));
    let register = || {
        app.post(
            "/api/user/register",
            json!({"username": "again", "password": "reg-pass-1"}),
        )
    };
    assert!(register().send().await.success());
    waits.push(assert_throttled(&register().send().await));
    let send_code = || app.get("/api/verification?email=w@example.com");
    send_code().send().await.assert_rejected(NO_SMTP);
    waits.push(assert_throttled(&send_code().send().await));
    let reset_link = || app.get("/api/reset_password?email=w@example.com");
    reset_link().send().await.assert_rejected(NO_SERVER);
    waits.push(assert_throttled(&reset_link().send().await));
    let reset = || {
        app.post(
            "/api/user/reset",
            json!({"email": "w@example.com", "token": "x".repeat(32)}),
        )
    };
    reset().send().await.assert_rejected(WRONG_CODE);
    waits.push(assert_throttled(&reset().send().await));
    let bind = || {
        app.get("/api/oauth/email/bind?email=w@example.com&code=123456")
            .signed_in(&user)
    };
    bind().send().await.assert_rejected(WRONG_CODE);
    waits.push(assert_throttled(&bind().send().await));
    let redeem = || {
        app.post("/api/user/topup", json!({"key": "no-such-code"}))
            .signed_in(&user)
    };
    redeem()
        .send()
        .await
        .assert_rejected("invalid redemption code");
    waits.push(assert_throttled(&redeem().send().await));

    assert!(waits.iter().all(|w| *w <= 3), "{waits:?}");
    let longest = waits.into_iter().max().unwrap();
    tokio::time::sleep(Duration::from_secs(longest + 1)).await;

    app.login("root", ROOT_PASSWORD).await;
    register()
        .send()
        .await
        .assert_rejected("username already exists");
    send_code().send().await.assert_rejected(NO_SMTP);
    reset_link().send().await.assert_rejected(NO_SERVER);
    reset().send().await.assert_rejected(WRONG_CODE);
    bind().send().await.assert_rejected(WRONG_CODE);
    let last = redeem().send().await;
    assert_not_throttled(&last);
    last.assert_rejected("invalid redemption code");
}

async fn concurrent_wrong_codes_use_up_at_most_the_limit(app: &TestApp) {
    app.setup().await;
    app.set_option("EmailVerificationEnabled", "true").await;
    let smtp = FakeSmtp::start().await;
    app.set_option("SMTPServer", "127.0.0.1").await;
    app.set_option("SMTPPort", &smtp.port.to_string()).await;
    app.set_option("SMTPFrom", "noreply@example.com").await;
    assert!(
        app.get("/api/verification?email=race@example.com")
            .send()
            .await
            .success()
    );
    let mail = smtp.received();
    let text = &mail[0].text;
    let start = text.find("<strong>").unwrap() + "<strong>".len();
    let code = text[start..start + 6].to_string();

    // Thirty wrong codes at once: each is refused, and only five were ever compared.
    let guesses = (0..30).map(|i| {
        let mut wrong = format!("{:06}", (i * 7919) % 1_000_000);
        if wrong == code {
            wrong = "abcdef".into();
        }
        app.post(
            "/api/user/register",
            json!({"username": format!("racer{i}"), "password": "race-pass-1",
                   "email": "race@example.com", "verification_code": wrong}),
        )
        .send()
    });
    for reply in futures::future::join_all(guesses).await {
        reply.assert_rejected(WRONG_CODE);
    }
    let attempts: i64 =
        sqlx::query_scalar("SELECT attempts FROM verification_codes WHERE email = $1")
            .bind("race@example.com")
            .fetch_one(&app.db().pool)
            .await
            .unwrap();
    assert_eq!(
        attempts, 5,
        "each check used one attempt, none past the limit"
    );
    // The code is dead now, even when right.
    app.post(
        "/api/user/register",
        json!({"username": "winner", "password": "race-pass-1",
               "email": "race@example.com", "verification_code": code}),
    )
    .send()
    .await
    .assert_rejected(WRONG_CODE);
}

async fn hashing_runs_on_a_bounded_pool(app: &TestApp) {
    app.setup().await;
    assert_eq!(app.state.passwords().capacity(), 2);
    let registrations = (0..8).map(|i| {
        app.post(
            "/api/user/register",
            json!({"username": format!("crowd{i}"), "password": "crowd-pass-1"}),
        )
        .via_peer(&format!("198.51.100.{}:1", 20 + i))
        .send()
    });
    for reply in futures::future::join_all(registrations).await {
        assert!(reply.success(), "{}", reply.body);
    }
    let peak = app.state.passwords().peak();
    assert!(
        (1..=2).contains(&peak),
        "at most two hashes at once, saw {peak}"
    );
    app.login("crowd7", "crowd-pass-1").await;
}

async fn a_full_pool_answers_503(app: &TestApp) {
    app.setup().await;
    let slot = app.state.passwords().acquire().await.unwrap();
    let busy = app
        .post("/api/user/login", login_body("root", ROOT_PASSWORD))
        .send()
        .await;
    assert_eq!(
        busy.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        busy.body
    );
    assert_eq!(busy.body["success"], json!(false));
    assert_eq!(busy.message(), "the server is busy, try again in a moment");
    drop(slot);
    app.login("root", ROOT_PASSWORD).await;
}

/// The value of one sample of the metrics (0 when absent).
async fn metric(app: &TestApp, sample: &str) -> i64 {
    let text = app.state.metrics().render();
    text.lines()
        .find_map(|line| line.strip_prefix(sample))
        .and_then(|rest| rest.trim().parse().ok())
        .unwrap_or(0)
}

async fn unknown_accounts_cost_a_password_check(app: &TestApp) {
    app.setup().await;
    let verifies = "control_plane_password_hashes_total{op=\"verify\"}";
    let before = metric(app, verifies).await;
    app.post("/api/user/login", login_body("nobody", "some-pass-1"))
        .send()
        .await
        .assert_rejected(WRONG_CREDENTIALS);
    let after_unknown = metric(app, verifies).await;
    assert_eq!(after_unknown, before + 1, "an unknown name is checked too");
    app.post("/api/user/login", login_body("root", "some-pass-1"))
        .send()
        .await
        .assert_rejected(WRONG_CREDENTIALS);
    assert_eq!(metric(app, verifies).await, after_unknown + 1);
    // An account without a usable password hash costs the same check.
    sqlx::query("UPDATE users SET password = '' WHERE username = 'root'")
        .execute(&app.db().pool)
        .await
        .unwrap();
    app.post("/api/user/login", login_body("root", ""))
        .send()
        .await
        .assert_rejected("please enter username and password");
    app.post("/api/user/login", login_body("root", "x"))
        .send()
        .await
        .assert_rejected(WRONG_CREDENTIALS);
    assert_eq!(metric(app, verifies).await, after_unknown + 2);
}

on_both_backends_with!(
    sign_in_is_limited_per_account_and_per_address => tight,
    every_guarded_endpoint_answers_429_past_its_limit => tight,
    limits_lift_after_the_window => short_window,
    concurrent_wrong_codes_use_up_at_most_the_limit => generous,
    hashing_runs_on_a_bounded_pool => two_hash_slots,
    a_full_pool_answers_503 => one_hash_slot,
    unknown_accounts_cost_a_password_check => generous,
);
