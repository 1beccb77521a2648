//! Email codes (registration, binding), password reset by link, and Turnstile on sign-in paths,
//! against a stand-in SMTP server and a stand-in siteverify endpoint.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use axum::http::StatusCode;
use common::fakes::{FakeSmtp, fake_turnstile};
use common::{Backend, TestApp};
use serde_json::json;

async fn configure_smtp(app: &TestApp) -> FakeSmtp {
    let smtp = FakeSmtp::start().await;
    app.set_option("SMTPServer", "127.0.0.1").await;
    app.set_option("SMTPPort", &smtp.port.to_string()).await;
    app.set_option("SMTPFrom", "noreply@example.com").await;
    smtp
}

fn code_in(text: &str) -> String {
    let start = text.find("<strong>").expect("a code in the email") + "<strong>".len();
    text[start..start + 6].to_string()
}

async fn email_verified_registration(app: &TestApp) {
    app.setup().await;
    app.set_option("EmailVerificationEnabled", "true").await;
    app.get("/api/verification?email=new@example.com")
        .send()
        .await
        .assert_rejected("the administrator has not configured SMTP, so no email can be sent");
    let smtp = configure_smtp(app).await;

    let sent = app
        .get("/api/verification?email=New@Example.com")
        .send()
        .await;
    assert!(sent.success(), "{}", sent.body);
    assert_eq!(sent.message(), "the verification code has been sent");
    let mail = smtp.received();
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0].to, "new@example.com");
    let code = code_in(&mail[0].text);
    assert!(code.chars().all(|c| c.is_ascii_digit()), "{code}");
    let stored: String = sqlx::query_scalar("SELECT code_hash FROM verification_codes")
        .fetch_one(&app.db().pool)
        .await
        .unwrap();
    assert_ne!(stored, code, "only a hash is stored");

    let again = app
        .get("/api/verification?email=new@example.com")
        .send()
        .await;
    assert_eq!(again.body["success"], json!(false));
    let waited: i64 = again
        .message()
        .strip_prefix("please wait ")
        .and_then(|rest| rest.strip_suffix(" seconds before requesting another code"))
        .and_then(|n| n.parse().ok())
        .expect("a cooldown message");
    assert!((28..=30).contains(&waited), "{waited}");
    let form = |code: &str| json!({"username": "newbie", "password": "newbie-pass", "email": "new@example.com", "verification_code": code});
    app.post(
        "/api/user/register",
        json!({"username": "newbie", "password": "newbie-pass", "email": "new@example.com"}),
    )
    .send()
    .await
    .assert_rejected("please enter the verification code");
    let wrong = if code == "000000" { "111111" } else { "000000" };
    app.post("/api/user/register", form(wrong))
        .send()
        .await
        .assert_rejected("the verification code is wrong or has expired");
    let ok = app.post("/api/user/register", form(&code)).send().await;
    assert!(ok.success(), "{}", ok.body);
    let me = app.login("newbie", "newbie-pass").await;
    let view = app.get("/api/user/self").signed_in(&me).send().await;
    assert_eq!(view.data()["email"], json!("new@example.com"));
    // Signing in by email works too, and the code is gone.
    app.login("new@example.com", "newbie-pass").await;
    app.post("/api/user/register", json!({"username": "second", "password": "second-pass", "email": "new@example.com", "verification_code": code}))
        .send()
        .await
        .assert_rejected("this email address is already in use");
    app.get("/api/verification?email=NEW@example.com")
        .send()
        .await
        .assert_rejected("this email address is already in use");
}

async fn wrong_guesses_kill_a_code(app: &TestApp) {
    app.setup().await;
    app.set_option("EmailVerificationEnabled", "true").await;
    let smtp = configure_smtp(app).await;
    assert!(
        app.get("/api/verification?email=g@example.com")
            .send()
            .await
            .success()
    );
    let code = code_in(&smtp.received()[0].text);
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 0..5 {
        app.post("/api/user/register", json!({"username": "guess", "password": "guess-pass", "email": "g@example.com", "verification_code": wrong}))
            .send()
            .await
            .assert_rejected("the verification code is wrong or has expired");
    }
    app.post("/api/user/register", json!({"username": "guess", "password": "guess-pass", "email": "g@example.com", "verification_code": code}))
        .send()
        .await
        .assert_rejected("the verification code is wrong or has expired");
}

async fn bind_email_while_signed_in(app: &TestApp) {
    let root = app.root().await;
    let smtp = configure_smtp(app).await;
    let user = app.user(&root, "binder").await;
    assert!(
        app.get("/api/verification?email=binder@example.com")
            .zh()
            .send()
            .await
            .success()
    );
    let code = code_in(&smtp.received()[0].text);
    let anonymous = app
        .get(&format!(
            "/api/oauth/email/bind?email=binder@example.com&code={code}"
        ))
        .send()
        .await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
    app.get("/api/oauth/email/bind?email=binder@example.com&code=")
        .signed_in(&user)
        .zh()
        .send()
        .await
        .assert_rejected("请输入验证码！");
    let bound = app
        .get(&format!(
            "/api/oauth/email/bind?email=binder@example.com&code={code}"
        ))
        .signed_in(&user)
        .send()
        .await;
    assert!(bound.success(), "{}", bound.body);
    let me = app.get("/api/user/self").signed_in(&user).send().await;
    assert_eq!(me.data()["email"], json!("binder@example.com"));
}

async fn password_reset_by_link(app: &TestApp) {
    let root = app.root().await;
    let smtp = configure_smtp(app).await;
    let user = app.user(&root, "forgetful").await;
    app.put(
        "/api/user/",
        json!({"id": user.user_id, "email": "forgetful@example.com"}),
    )
    .signed_in(&root)
    .send()
    .await;

    app.get("/api/reset_password?email=")
        .zh()
        .send()
        .await
        .assert_rejected("请输入邮箱！");
    app.post("/api/user/reset", json!({"email": "", "token": "x"}))
        .send()
        .await
        .assert_rejected("please enter the email");
    app.get("/api/reset_password?email=forgetful@example.com")
        .send()
        .await
        .assert_rejected("the administrator has not set the server address");
    app.set_option("ServerAddress", "https://gw.example.com")
        .await;

    let unknown = app
        .get("/api/reset_password?email=nobody@example.com")
        .send()
        .await;
    assert!(unknown.success());
    assert!(smtp.received().is_empty(), "no mail for an unknown address");

    let sent = app
        .get("/api/reset_password?email=forgetful@example.com")
        .send()
        .await;
    assert!(sent.success());
    assert_eq!(sent.message(), unknown.message(), "same reply either way");
    let mail = smtp.wait_for(1).await;
    assert_eq!(mail.len(), 1);
    let text = &mail[0].text;
    let at = text
        .find("https://gw.example.com/user/reset?email=forgetful%40example.com&amp;token=")
        .or_else(|| {
            text.find("https://gw.example.com/user/reset?email=forgetful%40example.com&token=")
        })
        .expect("reset link in the email");
    let token_at = text[at..].find("token=").unwrap() + at + "token=".len();
    let token: String = text[token_at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    assert_eq!(token.len(), 32);

    app.post(
        "/api/user/reset",
        json!({"email": "forgetful@example.com", "token": "x".repeat(32)}),
    )
    .send()
    .await
    .assert_rejected("the verification code is wrong or has expired");
    let reset = app
        .post(
            "/api/user/reset",
            json!({"email": "forgetful@example.com", "token": token}),
        )
        .send()
        .await;
    assert!(reset.success(), "{}", reset.body);
    let new_password = reset.data().as_str().unwrap().to_string();
    assert_eq!(new_password.len(), 12);
    assert_eq!(
        app.get("/api/user/self")
            .signed_in(&user)
            .send()
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
    app.login("forgetful", &new_password).await;
    app.post(
        "/api/user/reset",
        json!({"email": "forgetful@example.com", "token": token}),
    )
    .send()
    .await
    .assert_rejected("the verification code is wrong or has expired");
}

async fn turnstile_guards_sign_in(app: &TestApp) {
    app.setup().await;
    app.set_option("TurnstileCheckEnabled", "true").await;
    app.set_option("TurnstileSecretKey", "s3cret").await;
    let login = json!({"username": "root", "password": common::ROOT_PASSWORD});
    app.post("/api/user/login", login.clone())
        .send()
        .await
        .assert_rejected("please retry in a few seconds, Turnstile is checking the environment");
    app.post("/api/user/login?turnstile=bad-token", login.clone())
        .send()
        .await
        .assert_rejected("human verification failed, please retry");
    assert!(
        app.post("/api/user/login?turnstile=good-token", login)
            .send()
            .await
            .success()
    );
    let register = json!({"username": "human", "password": "human-pass"});
    app.post("/api/user/register", register.clone())
        .zh()
        .send()
        .await
        .assert_rejected("Turnstile 正在检查用户环境，请稍后重试");
    assert!(
        app.post("/api/user/register?turnstile=good-token", register)
            .send()
            .await
            .success()
    );
    app.get("/api/verification?email=a@example.com&turnstile=bad-token")
        .send()
        .await
        .assert_rejected("human verification failed, please retry");
}

async fn run_turnstile(backend: Backend) {
    let url = fake_turnstile("s3cret", "good-token").await;
    let Some(app) = TestApp::start_with(backend, |s| s.turnstile_verify_url = url).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    turnstile_guards_sign_in(&app).await;
    app.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turnstile_sqlite() {
    run_turnstile(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turnstile_postgres() {
    run_turnstile(Backend::Postgres).await;
}

on_both_backends!(
    email_verified_registration,
    wrong_guesses_kill_a_code,
    bind_email_while_signed_in,
    password_reset_by_link,
);
