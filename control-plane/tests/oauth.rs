//! Third-party sign-in against the provider stand-in (mock-provider's OAuth2 / OIDC / WeChat
//! server): the state round trip, first sign-in registering (with the invitation code kept),
//! later sign-ins, binding and unbinding, the Telegram widget's signature, WeChat codes, and
//! the SSRF guard on provider addresses.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Backend, Reply, Session, TestApp};
use control_plane::settings::TrustedProxies;
use mock_provider::MockHandle;
use ring::hmac;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const CLIENT_ID: &str = "cp-test-client";
const CLIENT_SECRET: &str = "cp-test-secret";
const WECHAT_TOKEN: &str = "wechat-server-token";
const BOT_TOKEN: &str = "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
/// Where the console would be (the redirect URI the provider sends the browser back to).
const CONSOLE: &str = "http://console.test";
const CONSOLE_HOST: &str = "console.test";

/// The control plane allowed to call the stand-in on loopback, GitHub and LinuxDO pointed at it.
async fn start(backend: Backend, mock: &MockHandle) -> Option<TestApp> {
    let base = mock.url();
    TestApp::start_with(backend, move |s| {
        s.outbound_allow_networks = TrustedProxies::parse("127.0.0.1/32").unwrap();
        s.oauth.oauth_github_token_url = format!("{base}/__oauth/token");
        s.oauth.oauth_github_user_url = format!("{base}/__oauth/user");
        s.oauth.oauth_linuxdo_token_url = format!("{base}/__oauth/token");
        s.oauth.oauth_linuxdo_user_url = format!("{base}/__oauth/user");
    })
    .await
}

async fn mock() -> MockHandle {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mock = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let registered = reqwest::Client::new()
        .put(format!("{}/__oauth/client", mock.url()))
        .json(&json!({"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "wechat_token": WECHAT_TOKEN}))
        .send()
        .await
        .unwrap();
    assert!(registered.status().is_success());
    mock
}

/// The browser's side of a round trip: a state from the control plane (and its cookies), then
/// the provider's authorize page approving as `login`; returns the code and the cookies.
struct RoundTrip {
    state: String,
    code: String,
    cookies: String,
}

async fn authorize(
    app: &TestApp,
    mock: &MockHandle,
    provider: &str,
    login: &str,
    aff: Option<&str>,
) -> RoundTrip {
    let path = match aff {
        Some(aff) => format!("/api/oauth/state?aff={aff}"),
        None => "/api/oauth/state".to_owned(),
    };
    let issued = app.get(&path).send().await;
    assert!(issued.success(), "{}", issued.body);
    let state = issued.data().as_str().unwrap().to_owned();
    let cookie = issued.set_cookie_header("oauth_state").unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let mut cookies = format!("oauth_state={}", issued.cookie("oauth_state").unwrap());
    if let Some(aff) = issued.cookie("oauth_aff").filter(|a| !a.is_empty()) {
        cookies.push_str(&format!("; oauth_aff={aff}"));
    }
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut url = reqwest::Url::parse(&format!("{}/__oauth/authorize", mock.url())).unwrap();
    url.query_pairs_mut()
        .append_pair("client_id", CLIENT_ID)
        .append_pair("redirect_uri", &format!("{CONSOLE}/oauth/{provider}"))
        .append_pair("response_type", "code")
        .append_pair("state", &state)
        .append_pair("login", login);
    let answer = client.get(url).send().await.unwrap();
    assert_eq!(answer.status(), 302);
    let location = answer.headers()["location"].to_str().unwrap().to_owned();
    let url = reqwest::Url::parse(&location).unwrap();
    let pairs: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
    assert_eq!(pairs["state"], state, "the provider sends the state back");
    RoundTrip {
        state,
        code: pairs["code"].clone(),
        cookies,
    }
}

async fn callback(
    app: &TestApp,
    provider: &str,
    trip: &RoundTrip,
    as_user: Option<&Session>,
) -> Reply {
    let path = format!(
        "/api/oauth/{provider}?code={}&state={}",
        trip.code, trip.state
    );
    let mut req = app.get(&path).header("host", CONSOLE_HOST);
    match as_user {
        Some(session) => {
            let cookie = format!("{}; session={}", trip.cookies, session.cookie);
            req = req
                .header("cookie", &cookie)
                .header("new-api-user", &session.user_id.to_string());
        }
        None => req = req.header("cookie", &trip.cookies),
    }
    req.send().await
}

async fn user_row(app: &TestApp, id: i64) -> Value {
    let row: (String, String, String, i64, i64) = sqlx::query_as(
        "SELECT username, github_id, email, inviter_id, quota FROM users WHERE id = $1",
    )
    .bind(id)
    .fetch_one(&app.db().pool)
    .await
    .unwrap();
    json!({"username": row.0, "github_id": row.1, "email": row.2, "inviter_id": row.3, "quota": row.4})
}

async fn github(backend: Backend) {
    let mock = mock().await;
    let Some(app) = start(backend, &mock).await else {
        return;
    };
    let root = app.root().await;
    let aff = app.get("/api/user/aff").signed_in(&root).send().await;
    let aff = aff.data().as_str().unwrap().to_owned();

    let trip = authorize(&app, &mock, "github", "alice", Some(&aff)).await;
    callback(&app, "github", &trip, None)
        .await
        .assert_rejected("the administrator has not enabled sign-in and registration with GitHub");
    app.set_option("GitHubOAuthEnabled", "true").await;
    callback(&app, "github", &trip, None)
        .await
        .assert_rejected("sign-in with GitHub is not fully configured; contact the administrator");
    app.set_option("GitHubClientId", CLIENT_ID).await;
    app.set_option("GitHubClientSecret", CLIENT_SECRET).await;
    app.set_option("QuotaForNewUser", "500").await;
    app.set_option("QuotaForInviter", "70").await;

    // CSRF: a state that is not this browser's, or no state cookie at all.
    let forged = RoundTrip {
        state: "x".repeat(32),
        code: trip.code.clone(),
        cookies: trip.cookies.clone(),
    };
    let stateless = RoundTrip {
        state: trip.state.clone(),
        code: trip.code.clone(),
        cookies: String::new(),
    };
    for bad in [&forged, &stateless] {
        callback(&app, "github", bad, None).await.assert_rejected(
            "the sign-in has expired or was not started in this browser; please start it again",
        );
    }

    // First sign-in registers, keeps the invitation, and signs in.
    let first = callback(&app, "github", &trip, None).await;
    assert!(first.success(), "{}", first.body);
    assert!(first.cookie("session").is_some_and(|c| !c.is_empty()));
    assert!(
        first
            .set_cookie_header("oauth_state")
            .unwrap()
            .contains("Max-Age=0"),
        "the state is used up"
    );
    let alice_id = first.data()["id"].as_i64().unwrap();
    let row = user_row(&app, alice_id).await;
    assert_eq!(row["username"], "alice");
    assert_eq!(row["email"], "alice@users.example.com");
    assert_eq!(row["inviter_id"], json!(root.user_id));
    assert!(
        row["github_id"].as_str().unwrap().parse::<u64>().is_ok(),
        "{row}"
    );
    let invitee_quota = row["quota"].as_i64().unwrap();
    assert!(invitee_quota >= 500, "{row}");
    // The session works.
    let session = Session {
        cookie: first.cookie("session").unwrap(),
        user_id: alice_id,
    };
    let me = app.get("/api/user/self").signed_in(&session).send().await;
    assert_eq!(me.data()["username"], "alice");

    // A code works once.
    callback(&app, "github", &trip, None)
        .await
        .assert_rejected("GitHub did not confirm the sign-in; please try again");

    // Later sign-ins find the same account, even with registration closed; a new GitHub
    // account then cannot register.
    app.set_option("RegisterEnabled", "false").await;
    let again = callback(
        &app,
        "github",
        &authorize(&app, &mock, "github", "alice", None).await,
        None,
    )
    .await;
    assert!(again.success(), "{}", again.body);
    assert_eq!(again.data()["id"].as_i64(), Some(alice_id));
    callback(
        &app,
        "github",
        &authorize(&app, &mock, "github", "bob", None).await,
        None,
    )
    .await
    .assert_rejected("the administrator has disabled new user registration");
    app.set_option("RegisterEnabled", "true").await;

    // A signed-in user binds; someone else's GitHub account cannot be bound; unbinding works.
    let carol = app.user(&root, "carol").await;
    let bound = callback(
        &app,
        "github",
        &authorize(&app, &mock, "github", "carol-gh", None).await,
        Some(&carol),
    )
    .await;
    assert!(bound.success(), "{}", bound.body);
    assert_eq!(bound.message(), "bind");
    assert!(
        !user_row(&app, carol.user_id).await["github_id"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    callback(
        &app,
        "github",
        &authorize(&app, &mock, "github", "alice", None).await,
        Some(&carol),
    )
    .await
    .assert_rejected("this GitHub account is already bound to another user");
    let unbound = app
        .delete("/api/user/self/bindings/github")
        .signed_in(&carol)
        .send()
        .await;
    assert!(unbound.success(), "{}", unbound.body);
    assert_eq!(user_row(&app, carol.user_id).await["github_id"], "");

    // A banned account cannot sign in through its binding.
    let banned = app
        .post(
            "/api/user/manage",
            json!({"id": alice_id, "action": "disable"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(banned.success(), "{}", banned.body);
    callback(
        &app,
        "github",
        &authorize(&app, &mock, "github", "alice", None).await,
        None,
    )
    .await
    .assert_rejected("user has been banned");
    app.finish().await;
}

async fn oidc(backend: Backend) {
    let mock = mock().await;
    let Some(app) = start(backend, &mock).await else {
        return;
    };
    app.setup().await;
    app.set_option("oidc.enabled", "true").await;
    app.set_option("oidc.client_id", CLIENT_ID).await;
    app.set_option("oidc.client_secret", CLIENT_SECRET).await;
    // Endpoints left empty: found through discovery.
    app.set_option(
        "oidc.well_known",
        &format!("{}/.well-known/openid-configuration", mock.url()),
    )
    .await;
    let signed = callback(
        &app,
        "oidc",
        &authorize(&app, &mock, "oidc", "dora", None).await,
        None,
    )
    .await;
    assert!(signed.success(), "{}", signed.body);
    assert_eq!(signed.data()["username"], "dora");
    assert_eq!(signed.data()["oidc_id"], "sub-dora");

    // The token endpoint checks the redirect URI against the authorize request's: a callback
    // through another address than the one the sign-in started from fails.
    let trip = authorize(&app, &mock, "oidc", "dora", None).await;
    app.get(&format!(
        "/api/oauth/oidc?code={}&state={}",
        trip.code, trip.state
    ))
    .header("host", "elsewhere.test")
    .header("cookie", &trip.cookies)
    .send()
    .await
    .assert_rejected("OIDC did not confirm the sign-in; please try again");
    app.finish().await;
}

/// Telegram login widget data signed with the bot token, as Telegram signs it.
fn telegram_query(id: &str, username: &str, auth_date: i64, token: &str) -> String {
    let fields = [
        ("auth_date", auth_date.to_string()),
        ("first_name", "Tele".to_owned()),
        ("id", id.to_owned()),
        ("username", username.to_owned()),
    ];
    let check = fields
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("\n");
    let key = hmac::Key::new(hmac::HMAC_SHA256, &Sha256::digest(token.as_bytes()));
    let hash = hex::encode(hmac::sign(&key, check.as_bytes()).as_ref());
    let query = fields
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    format!("{query}&hash={hash}")
}

async fn telegram_and_wechat(backend: Backend) {
    let mock = mock().await;
    let Some(app) = start(backend, &mock).await else {
        return;
    };
    app.setup().await;
    app.set_option("TelegramOAuthEnabled", "true").await;
    app.set_option("TelegramBotToken", BOT_TOKEN).await;
    let now = control_plane::store::now();
    let good = telegram_query("4242", "tele_user", now, BOT_TOKEN);
    let signed = app
        .get(&format!("/api/oauth/telegram/login?{good}"))
        .send()
        .await;
    assert!(signed.success(), "{}", signed.body);
    assert_eq!(signed.data()["username"], "tele_user");
    assert_eq!(signed.data()["telegram_id"], "4242");
    let tele = Session {
        cookie: signed.cookie("session").unwrap(),
        user_id: signed.data()["id"].as_i64().unwrap(),
    };
    app.get(&format!(
        "/api/oauth/telegram/login?{}",
        good.replace("id=4242", "id=4243")
    ))
    .send()
    .await
    .assert_rejected("the Telegram login data could not be verified");
    let forged = telegram_query("4242", "tele_user", now, "999:another-bot");
    app.get(&format!("/api/oauth/telegram/login?{forged}"))
        .send()
        .await
        .assert_rejected("the Telegram login data could not be verified");
    let stale = telegram_query("4242", "tele_user", now - 2 * 86_400, BOT_TOKEN);
    app.get(&format!("/api/oauth/telegram/login?{stale}"))
        .send()
        .await
        .assert_rejected("the Telegram login is too old; please sign in again");
    // Its only way to sign in cannot be unbound.
    app.delete("/api/user/self/bindings/telegram")
        .signed_in(&tele)
        .send()
        .await
        .assert_rejected(
            "this is the account's only way to sign in; set a password or bind another account first",
        );

    // WeChat: the server's token and a one-time code.
    app.set_option("WeChatAuthEnabled", "true").await;
    app.set_option("WeChatServerAddress", &mock.url()).await;
    app.set_option("WeChatServerToken", WECHAT_TOKEN).await;
    let code = reqwest::Client::new()
        .post(format!("{}/__oauth/wechat_code", mock.url()))
        .json(&json!({"openid": "wx-openid-1"}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap()["code"]
        .as_str()
        .unwrap()
        .to_owned();
    let bound = app
        .get(&format!("/api/oauth/wechat/bind?code={code}"))
        .signed_in(&tele)
        .send()
        .await;
    assert!(bound.success(), "{}", bound.body);
    assert_eq!(bound.message(), "bind");
    // Now Telegram can go: WeChat remains.
    let unbound = app
        .delete("/api/user/self/bindings/telegram")
        .signed_in(&tele)
        .send()
        .await;
    assert!(unbound.success(), "{}", unbound.body);
    // The same code twice: the WeChat server refuses.
    app.get(&format!("/api/oauth/wechat?code={code}"))
        .send()
        .await
        .assert_rejected("WeChat did not confirm the sign-in; please try again");
    let code = reqwest::Client::new()
        .post(format!("{}/__oauth/wechat_code", mock.url()))
        .json(&json!({"openid": "wx-openid-1"}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap()["code"]
        .as_str()
        .unwrap()
        .to_owned();
    let wechat = app
        .get(&format!("/api/oauth/wechat?code={code}"))
        .send()
        .await;
    assert!(wechat.success(), "{}", wechat.body);
    assert_eq!(wechat.data()["id"].as_i64(), Some(tele.user_id));
    app.finish().await;
}

/// Without an operator's permission, provider addresses on loopback, private networks, the
/// metadata service, or names resolving to them are never called.
async fn ssrf_guard(backend: Backend) {
    let mock = mock().await;
    let Some(app) = TestApp::start(backend).await else {
        return;
    };
    app.setup().await;
    app.set_option("oidc.enabled", "true").await;
    app.set_option("oidc.client_id", CLIENT_ID).await;
    app.set_option("oidc.client_secret", CLIENT_SECRET).await;
    let port = mock.addr.port();
    for well_known in [
        format!("http://127.0.0.1:{port}/.well-known/openid-configuration"),
        format!("https://127.0.0.1:{port}/.well-known/openid-configuration"),
        format!("https://localhost:{port}/.well-known/openid-configuration"),
        "https://10.0.0.1/.well-known/openid-configuration".to_owned(),
        "https://169.254.169.254/latest/meta-data".to_owned(),
    ] {
        app.set_option("oidc.well_known", &well_known).await;
        let trip = authorize(&app, &mock, "oidc", "eve", None).await;
        callback(&app, "oidc", &trip, None)
            .await
            .assert_rejected("OIDC did not confirm the sign-in; please try again");
    }
    let stats: Value = reqwest::get(format!("{}/__mock/stats", mock.url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        stats["sign_in_calls"]["/.well-known/openid-configuration"],
        Value::Null,
        "the discovery document was never fetched: {stats}"
    );
    assert!(stats["sign_in_calls"]["/__oauth/authorize"].as_u64() >= Some(5));
    app.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_sqlite() {
    github(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_postgres() {
    github(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oidc_sqlite() {
    oidc(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oidc_postgres() {
    oidc(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_and_wechat_sqlite() {
    telegram_and_wechat(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn telegram_and_wechat_postgres() {
    telegram_and_wechat(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ssrf_guard_sqlite() {
    ssrf_guard(Backend::Sqlite).await;
}
