//! Notifications: a quota reminder by webhook (an HTTPS receiver of the test's own, its CA
//! given with `--outbound-ca-file`, loopback allowed with `--outbound-allow-networks`) once per
//! crossing of the user's threshold, by email through a stand-in SMTP server, and the SSRF
//! guard refusing internal destinations, whether written as addresses or reached by name; the
//! root user's notice when live failures or a channel test disable a channel, and failures
//! reported late (from before a check brought a channel back) leaving it on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::fakes::FakeSmtp;
use common::{Backend, Session, TestApp};
use control_plane::outbound::guard::{Networks, Outbound, OutboundError};
use proto::usage::v1::usage_service_client::UsageServiceClient;
use proto::usage::v1::{ReportBatch, UsageRecord};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_stream::StreamExt;

/// A CA and a certificate for `localhost` it signed, as PEM files.
struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    fn new() -> Pki {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
        let dir = tempfile::tempdir().unwrap();
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = rcgen::Issuer::new(ca_params, ca_key);
        let key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["localhost".to_string()])
            .unwrap()
            .signed_by(&key, &issuer)
            .unwrap();
        std::fs::write(dir.path().join("ca.pem"), ca_cert.pem()).unwrap();
        std::fs::write(dir.path().join("server.pem"), leaf.pem()).unwrap();
        std::fs::write(dir.path().join("server.key"), key.serialize_pem()).unwrap();
        Pki { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// One webhook call: its `Authorization` header and JSON body.
#[derive(Debug, Clone)]
struct Hook {
    authorization: String,
    body: Value,
}

/// An HTTPS receiver on loopback that answers 200 and keeps what it got.
async fn receiver(pki: &Pki) -> (u16, Arc<Mutex<Vec<Hook>>>) {
    let config = control_plane::sync::tls::server_config(
        &pki.path("server.pem"),
        &pki.path("server.key"),
        None,
    )
    .unwrap();
    let mut config = (*config).clone();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let got: Arc<Mutex<Vec<Hook>>> = Arc::default();
    let keep = got.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, keep) = (acceptor.clone(), keep.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut raw = Vec::new();
                let mut buf = [0u8; 4096];
                let (head, body) = loop {
                    let Ok(n) = tls.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    raw.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&raw).to_string();
                    if let Some((head, body)) = text.split_once("\r\n\r\n") {
                        let length: usize = head
                            .lines()
                            .find_map(|l| {
                                let (k, v) = l.split_once(':')?;
                                k.eq_ignore_ascii_case("content-length")
                                    .then(|| v.trim().parse().ok())?
                            })
                            .unwrap_or(0);
                        if body.len() >= length {
                            break (head.to_string(), body.to_string());
                        }
                    }
                };
                let authorization = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("authorization")
                            .then(|| v.trim().to_string())
                    })
                    .unwrap_or_default();
                keep.lock().unwrap().push(Hook {
                    authorization,
                    body: serde_json::from_str(&body).unwrap_or(Value::Null),
                });
                let _ = tls
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    .await;
                let _ = tls.shutdown().await;
            });
        }
    });
    (port, got)
}

async fn wait_calls(got: &Arc<Mutex<Vec<Hook>>>, n: usize) -> Vec<Hook> {
    for _ in 0..100 {
        let calls = got.lock().unwrap().clone();
        if calls.len() >= n {
            return calls;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    got.lock().unwrap().clone()
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn record(id: &str, user_id: i64, quota: i64) -> UsageRecord {
    UsageRecord {
        request_id: id.into(),
        created_at: now(),
        r#type: 2,
        user_id,
        username: "payer".into(),
        // A console playground call: the wallet with no token.
        token_id: 0,
        token_name: control_plane::domain::usage::PLAYGROUND_TOKEN.into(),
        group: "default".into(),
        model_name: "gpt-4o".into(),
        channel_id: 0,
        prompt_tokens: 10,
        completion_tokens: 5,
        quota,
        other: "{}".into(),
        ..Default::default()
    }
}

/// One batch of one record, acknowledged.
async fn charge(addr: SocketAddr, id: &str, user_id: i64, quota: i64) {
    charge_batch(addr, vec![record(id, user_id, quota)]).await;
}

/// One batch of `records`, all of them inserted.
async fn charge_batch(addr: SocketAddr, records: Vec<UsageRecord>) {
    let expected = records.len() as u32;
    let mut client = UsageServiceClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    let batch = ReportBatch {
        batch_id: rand_id(),
        gateway_id: "gw-notify".into(),
        records,
    };
    let mut acks = client
        .report(common::authed(tokio_stream::iter(vec![batch])))
        .await
        .unwrap()
        .into_inner();
    let ack = acks.next().await.unwrap().unwrap();
    assert_eq!(ack.inserted, expected, "{ack:?}");
}

fn rand_id() -> u64 {
    u64::from(rand::random::<u32>())
}

async fn set_quota(app: &TestApp, user_id: i64, quota: i64) {
    sqlx::query("UPDATE users SET quota = $1 WHERE id = $2")
        .bind(quota)
        .bind(user_id)
        .execute(&app.db().pool)
        .await
        .unwrap();
}

async fn save_setting(app: &TestApp, user: &Session, setting: Value) {
    let reply = app
        .put("/api/user/setting", setting)
        .signed_in(user)
        .send()
        .await;
    assert!(reply.success(), "{}", reply.body);
}

async fn reminders_go_once_per_crossing(backend: Backend) {
    let pki = Pki::new();
    let ca = pki.path("ca.pem");
    let Some(app) = TestApp::start_with(backend, |s| {
        s.outbound_allow_networks = Networks::parse("127.0.0.1, ::1").unwrap();
        s.outbound_ca_file = Some(ca);
    })
    .await
    else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let (port, hooks) = receiver(&pki).await;
    let addr = common::serve_with_grpc(&app).await;
    let root = app.root().await;
    let payer = app.user(&root, "payer").await;
    save_setting(
        &app,
        &payer,
        json!({"notify_type": "webhook", "quota_warning_threshold": 1000,
               "webhook_url": format!("https://localhost:{port}/hook"),
               "webhook_secret": "hook-secret-1"}),
    )
    .await;
    set_quota(&app, payer.user_id, 1500).await;

    // Above the threshold: nothing.
    charge(addr, "r1", payer.user_id, 100).await;
    // Under it: one reminder, signed with the user's secret.
    charge(addr, "r2", payer.user_id, 600).await;
    let calls = wait_calls(&hooks, 1).await;
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].authorization, "Bearer hook-secret-1");
    assert_eq!(calls[0].body["type"], json!("quota_exceed"));
    assert!(
        calls[0].body["content"].as_str().unwrap().contains("800"),
        "{}",
        calls[0].body
    );
    // Still under: no second reminder for the same crossing.
    charge(addr, "r3", payer.user_id, 100).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(hooks.lock().unwrap().len(), 1);
    // Topped up above, then under again: a new crossing, a new reminder.
    set_quota(&app, payer.user_id, 5000).await;
    charge(addr, "r4", payer.user_id, 100).await;
    set_quota(&app, payer.user_id, 1000).await;
    charge(addr, "r5", payer.user_id, 100).await;
    assert_eq!(wait_calls(&hooks, 2).await.len(), 2);

    // By email: to the notification address, through the SMTP server.
    let smtp = FakeSmtp::start().await;
    for (key, value) in [
        ("SMTPServer", "127.0.0.1".to_string()),
        ("SMTPPort", smtp.port.to_string()),
        ("SMTPFrom", "noreply@example.com".to_string()),
    ] {
        let reply = app
            .put("/api/option/", json!({"key": key, "value": value}))
            .signed_in(&root)
            .send()
            .await;
        assert!(reply.success(), "{key}: {}", reply.body);
    }
    let mailed = app.user(&root, "mailed").await;
    save_setting(
        &app,
        &mailed,
        json!({"notify_type": "email", "quota_warning_threshold": 5000,
               "notification_email": "alerts@example.com"}),
    )
    .await;
    set_quota(&app, mailed.user_id, 6000).await;
    charge(addr, "m1", mailed.user_id, 2000).await;
    let mail = smtp.wait_for(1).await;
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0].to, "alerts@example.com");
    assert!(mail[0].text.contains("4000"), "{}", mail[0].text);

    // A channel disabled by live failures: the root user hears of it.
    let (root_port, root_hooks) = receiver(&pki).await;
    save_setting(
        &app,
        &root,
        json!({"notify_type": "webhook", "webhook_url": format!("https://localhost:{root_port}/root"),
               "webhook_secret": "root-secret"}),
    )
    .await;
    let reply = app
        .put(
            "/api/option/",
            json!({"key": "AutomaticDisableChannelEnabled", "value": "true"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(reply.success(), "{}", reply.body);
    let created = app
        .post(
            "/api/channel/",
            json!({"type": 1, "name": "flaky-upstream", "key": "sk-up", "models": "gpt-4o", "group": "default"}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(created.success(), "{}", created.body);
    let channel_id = created.data()[0].as_i64().unwrap();
    report_failure(addr, payer.user_id, channel_id, now()).await;
    let notices = wait_calls(&root_hooks, 1).await;
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0].authorization, "Bearer root-secret");
    assert_eq!(notices[0].body["type"], json!("channel_disabled"));
    assert!(
        notices[0].body["content"]
            .as_str()
            .unwrap()
            .contains("flaky-upstream"),
        "{}",
        notices[0].body
    );

    // A channel that the channel test takes out of service: root hears of it as well.
    let mock = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let revoked = app
        .post(
            "/api/channel/",
            json!({"type": 1, "name": "revoked-upstream", "key": "mock-key", "models": "gpt-4o-mini",
                   "base_url": mock.scenario_url("tag=revoked,status=401")}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(revoked.success(), "{}", revoked.body);
    let revoked_id = revoked.data()[0].as_i64().unwrap();
    app.get(&format!("/api/channel/test/{revoked_id}"))
        .signed_in(&root)
        .send()
        .await;
    let notices = wait_calls(&root_hooks, 2).await;
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert_eq!(notices[1].body["type"], json!("channel_disabled"));
    assert!(
        notices[1].body["content"]
            .as_str()
            .unwrap()
            .contains("revoked-upstream"),
        "{}",
        notices[1].body
    );
    mock.stop();
    app.finish().await;
}

#[tokio::test]
async fn reminders_go_once_per_crossing_sqlite() {
    reminders_go_once_per_crossing(Backend::Sqlite).await;
}

#[tokio::test]
async fn reminders_go_once_per_crossing_postgres() {
    reminders_go_once_per_crossing(Backend::Postgres).await;
}

/// Users of one batch whose reminders were sent, as stored.
async fn sent_reminders(app: &TestApp, users: &[i64]) -> Vec<i64> {
    let mut sent: Vec<i64> = sqlx::query_scalar::<_, i64>("SELECT user_id FROM quota_notices")
        .fetch_all(&app.db().pool)
        .await
        .unwrap()
        .into_iter()
        .filter(|id| users.contains(id))
        .collect();
    sent.sort_unstable();
    sent
}

/// One batch charging four users, each in another state: re-armed, reminded, left alone
/// twice. Each is judged on its own, from one read of the batch's users and sent reminders.
async fn one_batch_judges_each_of_its_users(backend: Backend) {
    let pki = Pki::new();
    let ca = pki.path("ca.pem");
    let Some(app) = TestApp::start_with(backend, |s| {
        s.outbound_allow_networks = Networks::parse("127.0.0.1, ::1").unwrap();
        s.outbound_ca_file = Some(ca);
    })
    .await
    else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let (port, hooks) = receiver(&pki).await;
    let addr = common::serve_with_grpc(&app).await;
    let root = app.root().await;
    // (name, balance before the batch, a reminder already sent)
    let cases = [
        ("backabove", 5000, true),
        ("newlyunder", 500, false),
        ("stillunder", 500, true),
        ("alwaysabove", 5000, false),
    ];
    let mut ids = Vec::new();
    for (i, (name, quota, sent)) in cases.iter().enumerate() {
        let user = app.user(&root, name).await;
        save_setting(
            &app,
            &user,
            json!({"notify_type": "webhook", "quota_warning_threshold": 1000,
                   "webhook_url": format!("https://localhost:{port}/hook"),
                   "webhook_secret": format!("secret-{i}")}),
        )
        .await;
        set_quota(&app, user.user_id, *quota).await;
        if *sent {
            sqlx::query("INSERT INTO quota_notices (user_id, notified_at) VALUES ($1, $2)")
                .bind(user.user_id)
                .bind(now())
                .execute(&app.db().pool)
                .await
                .unwrap();
        }
        ids.push(user.user_id);
    }
    let records = ids
        .iter()
        .enumerate()
        .map(|(i, id)| record(&format!("many-{i}"), *id, 10))
        .collect();
    charge_batch(addr, records).await;

    let calls = wait_calls(&hooks, 1).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let calls_now = hooks.lock().unwrap().len();
    assert_eq!(calls_now, 1, "{calls:?}");
    assert_eq!(calls[0].authorization, "Bearer secret-1");
    assert!(
        calls[0].body["content"].as_str().unwrap().contains("490"),
        "{}",
        calls[0].body
    );
    // The reminder of "back-above" is re-armed, "newly-under" now holds one, "still-under"
    // keeps its own.
    let mut expected = vec![ids[1], ids[2]];
    expected.sort_unstable();
    assert_eq!(sent_reminders(&app, &ids).await, expected);
    app.finish().await;
}

#[tokio::test]
async fn one_batch_judges_each_of_its_users_sqlite() {
    one_batch_judges_each_of_its_users(Backend::Sqlite).await;
}

#[tokio::test]
async fn one_batch_judges_each_of_its_users_postgres() {
    one_batch_judges_each_of_its_users(Backend::Postgres).await;
}

#[tokio::test]
async fn the_guard_refuses_internal_destinations() {
    let pki = Pki::new();
    let (port, hooks) = receiver(&pki).await;
    let body = json!({"type": "test"});
    let guarded = Outbound::new(Networks::default(), Some(&pki.path("ca.pem"))).unwrap();
    for url in [
        format!("https://127.0.0.1:{port}/hook"),
        "https://10.0.0.1/hook".to_string(),
        "https://169.254.169.254/latest/meta-data".to_string(),
        "https://[::1]/hook".to_string(),
    ] {
        let refused = guarded.post_json(&url, None, &body).await;
        assert!(
            matches!(refused, Err(OutboundError::Internal(_))),
            "{url}: {refused:?}"
        );
    }
    // A name that resolves to loopback is refused when it resolves.
    let by_name = guarded
        .post_json(&format!("https://localhost:{port}/hook"), None, &body)
        .await;
    assert!(
        by_name
            .as_ref()
            .is_err_and(|e| e.to_string().contains("internal address")),
        "{by_name:?}"
    );
    assert!(matches!(
        guarded
            .post_json(&format!("http://localhost:{port}/hook"), None, &body)
            .await,
        Err(OutboundError::NotHttps)
    ));
    assert!(hooks.lock().unwrap().is_empty(), "nothing reached loopback");
    // An operator's allowed network is reached.
    let allowed = Outbound::new(
        Networks::parse("127.0.0.1, ::1").unwrap(),
        Some(&pki.path("ca.pem")),
    )
    .unwrap();
    allowed
        .post_json(&format!("https://localhost:{port}/hook"), Some("t"), &body)
        .await
        .unwrap();
    assert_eq!(wait_calls(&hooks, 1).await.len(), 1);
}

/// Reports one failed attempt on `channel_id` (a 401), recorded at `created_at`.
async fn report_failure(addr: SocketAddr, user_id: i64, channel_id: i64, created_at: i64) {
    let mut failed = record(&format!("f-{}", rand_id()), user_id, 0);
    failed.r#type = 6;
    failed.created_at = created_at;
    failed.channel_id = channel_id;
    failed.channel_failures = vec![proto::usage::v1::ChannelFailure {
        channel_id,
        key_index: 0,
        status: 401,
        message: "invalid api key".into(),
    }];
    let mut client = UsageServiceClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    let batch = ReportBatch {
        batch_id: rand_id(),
        gateway_id: "gw-late".into(),
        records: vec![failed],
    };
    let mut acks = client
        .report(common::authed(tokio_stream::iter(vec![batch])))
        .await
        .unwrap()
        .into_inner();
    acks.next().await.unwrap().unwrap();
}

#[tokio::test]
async fn late_failures_leave_a_channel_brought_back_on() {
    let app = TestApp::start(Backend::Sqlite).await.unwrap();
    let addr = common::serve_with_grpc(&app).await;
    let root = app.root().await;
    app.set_option("AutomaticDisableChannelEnabled", "true")
        .await;
    app.set_option("AutomaticEnableChannelEnabled", "true")
        .await;
    let mock = mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let created = app
        .post(
            "/api/channel/",
            json!({"type": 1, "name": "flapping", "key": "mock-key", "models": "gpt-4o-mini",
                   "base_url": mock.scenario_url("tag=flapping")}),
        )
        .signed_in(&root)
        .send()
        .await;
    assert!(created.success(), "{}", created.body);
    let id = created.data()[0].as_i64().unwrap();
    let status = || async {
        app.get(&format!("/api/channel/{id}"))
            .signed_in(&root)
            .send()
            .await
            .data()["status"]
            .as_i64()
            .unwrap()
    };
    let wait_status = |want: i64| async move {
        for _ in 0..100 {
            if status().await == want {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("channel status never became {want}");
    };
    report_failure(addr, root.user_id, id, now()).await;
    wait_status(3).await;
    // The upstream works: a test brings the channel back.
    let tested = app
        .get(&format!("/api/channel/test/{id}"))
        .signed_in(&root)
        .send()
        .await;
    assert!(tested.success(), "{}", tested.body);
    assert_eq!(status().await, 1);
    // A failure recorded before that (a gateway's batch delivered late) changes nothing...
    report_failure(addr, root.user_id, id, now() - 5).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        status().await,
        1,
        "a stale failure disabled the channel again"
    );
    // ...while a newer one disables it.
    report_failure(addr, root.user_id, id, now() + 2).await;
    wait_status(3).await;
    mock.stop();
    app.finish().await;
}
