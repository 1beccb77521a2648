//! Both planes as real processes: the `control-plane` binary (SQLite, or a fresh PostgreSQL
//! database when `DATABASE_URL` is set) and `gateway --control-plane` binaries, with the
//! mock provider upstream. Covers config push latency, the usage outage path (nothing lost,
//! nothing charged twice) and SIGTERM mid-stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{Reply, chat_body, free_port, send, wait_listening};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const GATEWAY: &str = env!("CARGO_BIN_EXE_gateway");
const ROOT_PASSWORD: &str = "root-pass-1";

/// The control-plane binary of this workspace, built once per test run.
fn control_plane_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        // target/<profile>/deps/planes-… → target/<profile>
        let profile_dir = std::env::current_exe()
            .unwrap()
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .to_path_buf();
        // The same profile as this test binary (its folder is `debug` for the dev profile).
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => "dev".to_string(),
            Some(name) => name.to_string(),
        };
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "-p", "control-plane", "--bin", "control-plane"])
            .args(["--profile", &profile])
            .env("CARGO_TARGET_DIR", profile_dir.parent().unwrap())
            .status()
            .unwrap();
        assert!(status.success(), "building control-plane failed");
        profile_dir.join("control-plane")
    })
}

/// A child process killed when dropped.
struct Proc(Child);

impl Proc {
    fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.0.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the process to exit (at most `limit`).
    fn wait_exit(&mut self, limit: Duration) -> std::process::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.0.try_wait().unwrap() {
                return status;
            }
            assert!(start.elapsed() < limit, "process still running");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Where the control plane keeps its data.
enum Database {
    Sqlite,
    Postgres { admin_url: String, name: String },
}

impl Database {
    fn url(&self) -> Option<String> {
        match self {
            Database::Sqlite => None,
            Database::Postgres { admin_url, name } => {
                let (base, _) = admin_url.rsplit_once('/').unwrap();
                Some(format!("{base}/{name}"))
            }
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Database::Postgres { admin_url, name } = self {
            let _ = Command::new("psql")
                .args([
                    admin_url.as_str(),
                    "-qc",
                    &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// The control plane process and a signed-in admin.
struct ControlPlane {
    port: u16,
    dir: tempfile::TempDir,
    db: Database,
    proc: Option<Proc>,
    /// The admin's session: cookie and user id.
    admin: (String, i64),
}

impl ControlPlane {
    async fn start(postgres: bool) -> Option<ControlPlane> {
        let db = if postgres {
            let admin_url = std::env::var("DATABASE_URL")
                .ok()
                .filter(|u| !u.is_empty())?;
            let name = format!("planes_{}_{}", std::process::id(), free_port());
            let status = Command::new("psql")
                .args([
                    admin_url.as_str(),
                    "-qc",
                    &format!("CREATE DATABASE {name}"),
                ])
                .status()
                .unwrap();
            assert!(status.success(), "CREATE DATABASE failed");
            Database::Postgres { admin_url, name }
        } else {
            Database::Sqlite
        };
        let mut cp = ControlPlane {
            port: free_port(),
            dir: tempfile::tempdir().unwrap(),
            db,
            proc: None,
            admin: (String::new(), 0),
        };
        cp.launch().await;
        let setup = cp
            .call(
                "POST",
                "/api/setup",
                json!({"username": "root", "password": ROOT_PASSWORD, "confirmPassword": ROOT_PASSWORD}),
            )
            .await;
        assert_eq!(setup["success"], json!(true), "{setup}");
        cp.admin = cp.login("root", ROOT_PASSWORD).await;
        Some(cp)
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Starts (or restarts) the process on the same port and data.
    async fn launch(&mut self) {
        let mut cmd = Command::new(control_plane_bin());
        cmd.args([
            "--listen",
            &format!("127.0.0.1:{}", self.port),
            "--data-dir",
            self.dir.path().to_str().unwrap(),
        ])
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null());
        if let Some(url) = self.db.url() {
            cmd.args(["--database-url", &url]);
        }
        self.proc = Some(Proc(cmd.spawn().unwrap()));
        let start = Instant::now();
        while tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .is_err()
        {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "control plane not up"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn kill(&mut self) {
        if let Some(mut p) = self.proc.take() {
            p.signal("KILL");
            p.wait_exit(Duration::from_secs(10));
        }
    }

    async fn login(&self, username: &str, password: &str) -> (String, i64) {
        let reply = send_json(
            "POST",
            &format!("{}/api/user/login", self.url()),
            &[],
            json!({"username": username, "password": password}),
        )
        .await;
        let body: Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(body["success"], json!(true), "{body}");
        let cookie = reply
            .headers
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find(|v| v.starts_with("session="))
            .and_then(|v| v.split(';').next())
            .unwrap()
            .to_string();
        (cookie, body["data"]["id"].as_i64().unwrap())
    }

    /// An API call as the admin; returns the envelope.
    async fn call(&self, method: &str, path: &str, body: Value) -> Value {
        self.call_as(&self.admin, method, path, body).await
    }

    async fn call_as(
        &self,
        (cookie, id): &(String, i64),
        method: &str,
        path: &str,
        body: Value,
    ) -> Value {
        let url = format!("{}{path}", self.url());
        let id = id.to_string();
        let headers = [("cookie", cookie.as_str()), ("new-api-user", id.as_str())];
        let reply = send_json(method, &url, &headers, body).await;
        serde_json::from_slice(&reply.body)
            .unwrap_or_else(|_| panic!("{method} {path}: {}", String::from_utf8_lossy(&reply.body)))
    }

    async fn ok(&self, method: &str, path: &str, body: Value) -> Value {
        let reply = self.call(method, path, body).await;
        assert_eq!(reply["success"], json!(true), "{method} {path}: {reply}");
        reply["data"].clone()
    }
}

async fn send_json(method: &str, url: &str, headers: &[(&str, &str)], body: Value) -> Reply {
    let mut all = vec![("content-type", "application/json")];
    all.extend_from_slice(headers);
    let bytes = if body.is_null() {
        Bytes::new()
    } else {
        Bytes::from(body.to_string())
    };
    send(method, url, &all, bytes).await
}

/// A gateway process following the control plane.
struct Gateway {
    addr: SocketAddr,
    admin: String,
    proc: Proc,
}

impl Gateway {
    async fn start(cp: &ControlPlane, spool: &Path, name: &str) -> Gateway {
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let admin = format!("127.0.0.1:{}", free_port());
        let child = Command::new(GATEWAY)
            .args([
                "--forward-to",
                &format!("127.0.0.1:{}", cp.port),
                "--control-plane",
                &cp.url(),
                "--listen",
                &addr.to_string(),
                "--admin-listen",
                &admin,
                "--spool-dir",
                spool.to_str().unwrap(),
                "--gateway-id",
                name,
                // On SIGTERM in-flight streams finish (up to the drain time), then it stops.
                "--drain-seconds",
                "30",
                "--grace-period-seconds",
                "0",
                "--shutdown-timeout-seconds",
                "1",
            ])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let gw = Gateway {
            addr,
            admin,
            proc: Proc(child),
        };
        wait_listening(addr).await;
        gw
    }

    /// A gauge or counter from `/metrics` on the admin port.
    async fn metric(&self, name: &str) -> Option<i64> {
        let reply = send(
            "GET",
            &format!("http://{}/metrics", self.admin),
            &[],
            Bytes::new(),
        )
        .await;
        String::from_utf8_lossy(&reply.body)
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
    }

    /// Waits until a metric has `value` (at most `limit`).
    async fn wait_metric(&self, name: &str, value: i64, limit: Duration) {
        self.wait_metric_until(name, |v| v == value, limit).await;
    }

    /// Waits until a metric satisfies `ok` (at most `limit`).
    async fn wait_metric_until(&self, name: &str, ok: impl Fn(i64) -> bool, limit: Duration) {
        let start = Instant::now();
        while !self.metric(name).await.is_some_and(&ok) {
            assert!(
                start.elapsed() < limit,
                "{name} is {:?}",
                self.metric(name).await
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn chat(&self, key: &str, model: &str) -> Reply {
        send_json(
            "POST",
            &format!("http://{}/v1/chat/completions", self.addr),
            &[("authorization", &format!("Bearer {key}"))],
            chat_body(model, false),
        )
        .await
    }
}

/// Mock provider, control plane, a user with quota, a fast and a slow channel, a token.
struct System {
    mock: mock_provider::MockHandle,
    cp: ControlPlane,
    user_id: i64,
    user_session: (String, i64),
    fast_channel: i64,
    key: String,
    dir: tempfile::TempDir,
}

const INITIAL_QUOTA: i64 = 100_000_000;

impl System {
    async fn start(postgres: bool) -> Option<System> {
        let mock = mock_provider::start("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let cp = ControlPlane::start(postgres).await?;
        cp.ok(
            "POST",
            "/api/user/",
            json!({"username": "client", "password": "client-pass-1", "display_name": "client"}),
        )
        .await;
        let user_session = cp.login("client", "client-pass-1").await;
        let user_id = user_session.1;
        cp.ok(
            "PUT",
            "/api/user/",
            json!({"id": user_id, "quota": INITIAL_QUOTA}),
        )
        .await;
        let fast = cp
            .ok(
                "POST",
                "/api/channel/",
                json!({"type": 1, "name": "fast", "key": "sk-up-1", "models": "gpt-4o-mini", "group": "default", "base_url": mock.url()}),
            )
            .await;
        cp.ok(
            "POST",
            "/api/channel/",
            json!({"type": 1, "name": "slow", "key": "sk-up-2", "models": "gpt-4o", "group": "default",
                   "base_url": mock.scenario_url("tag=slow,chunks=20,chunk_delay_ms=100")}),
        )
        .await;
        let mut sys = System {
            mock,
            cp,
            user_id,
            user_session,
            fast_channel: fast[0].as_i64().unwrap(),
            key: String::new(),
            dir: tempfile::tempdir().unwrap(),
        };
        sys.key = sys.new_token("main").await;
        Some(sys)
    }

    async fn new_token(&self, name: &str) -> String {
        let reply = self
            .cp
            .call_as(
                &self.user_session,
                "POST",
                "/api/token/",
                json!({"name": name, "remain_quota": 0, "unlimited_quota": true, "expired_time": -1}),
            )
            .await;
        assert_eq!(reply["success"], json!(true), "{reply}");
        reply["data"][0]["key"].as_str().unwrap().to_string()
    }

    async fn gateway(&self, name: &str) -> Gateway {
        Gateway::start(&self.cp, &self.dir.path().join(name), name).await
    }

    /// (rows, sum of their quota) of consume logs.
    async fn consume_logs(&self) -> (i64, i64) {
        let list = self
            .cp
            .ok("GET", "/api/log/?type=2&p=1&page_size=1", Value::Null)
            .await;
        let stat = self.cp.ok("GET", "/api/log/stat?type=2", Value::Null).await;
        (
            list["total"].as_i64().unwrap(),
            stat["quota"].as_i64().unwrap(),
        )
    }

    /// Waits until `n` consume logs are stored (at most `limit`).
    async fn wait_logs(&self, n: i64, limit: Duration) -> (i64, i64) {
        let start = Instant::now();
        loop {
            let got = self.consume_logs().await;
            if got.0 >= n || start.elapsed() > limit {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// (quota, used_quota, request_count) of the user.
    async fn balances(&self) -> (i64, i64, i64) {
        let u = self
            .cp
            .ok("GET", &format!("/api/user/{}", self.user_id), Value::Null)
            .await;
        (
            u["quota"].as_i64().unwrap(),
            u["used_quota"].as_i64().unwrap(),
            u["request_count"].as_i64().unwrap(),
        )
    }
}

/// Polls until `ok` holds for every gateway; returns how long it took.
async fn time_until<F, Fut>(limit: Duration, mut ok: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    loop {
        if ok().await {
            return start.elapsed();
        }
        assert!(start.elapsed() < limit, "not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn config_push_reaches_two_gateways_within_a_second(postgres: bool) {
    let Some(sys) = System::start(postgres).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let gws = [sys.gateway("gw-a").await, sys.gateway("gw-b").await];
    for gw in &gws {
        assert_eq!(gw.chat(&sys.key, "gpt-4o-mini").await.status, 200);
    }
    // One port: paths outside the relay reach the control plane through the gateway.
    let status = send(
        "GET",
        &format!("http://{}/api/status", gws[0].addr),
        &[],
        Bytes::new(),
    )
    .await;
    let status: Value = serde_json::from_slice(&status.body).unwrap();
    assert_eq!(status["success"], json!(true), "{status}");
    assert_eq!(status["data"]["setup"], json!(true));
    let listed = sys
        .cp
        .call_as(&sys.cp.admin, "GET", "/api/gateway/", Value::Null)
        .await;
    let names: Vec<&str> = listed["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["connected"] == json!(true))
        .filter_map(|g| g["gateway_id"].as_str())
        .collect();
    assert_eq!(names, vec!["gw-a", "gw-b"], "{listed}");

    let key = sys.new_token("fresh").await;
    let took = time_until(Duration::from_secs(5), || async {
        let mut all = true;
        for gw in &gws {
            all &= gw.chat(&key, "gpt-4o-mini").await.status == 200;
        }
        all
    })
    .await;
    assert!(
        took < Duration::from_secs(1),
        "new token accepted after {took:?}"
    );

    sys.cp
        .ok(
            "PUT",
            "/api/channel/",
            json!({"id": sys.fast_channel, "status": 2}),
        )
        .await;
    let took = time_until(Duration::from_secs(5), || async {
        let mut all = true;
        for gw in &gws {
            all &= gw.chat(&sys.key, "gpt-4o-mini").await.status != 200;
        }
        all
    })
    .await;
    assert!(
        took < Duration::from_secs(1),
        "disabled channel still used after {took:?}"
    );
    let calls = sys.mock.calls("default");
    for gw in &gws {
        assert_ne!(gw.chat(&sys.key, "gpt-4o-mini").await.status, 200);
    }
    assert_eq!(
        sys.mock.calls("default"),
        calls,
        "no traffic to the disabled channel"
    );
}

async fn control_plane_outage_loses_and_doubles_nothing(postgres: bool) {
    let Some(mut sys) = System::start(postgres).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let gw = sys.gateway("gw-outage").await;
    const N: i64 = 60;
    let mut served = 0;
    for i in 0..N {
        if i == 20 {
            sys.cp.kill();
        }
        if i == 40 {
            sys.cp.launch().await;
        }
        let r = gw.chat(&sys.key, "gpt-4o-mini").await;
        assert_eq!(
            r.status,
            200,
            "request {i}: {}",
            String::from_utf8_lossy(&r.body)
        );
        served += 1;
    }
    assert_eq!(served, N);
    let (rows, charged) = sys.wait_logs(N, Duration::from_secs(30)).await;
    assert_eq!(rows, N, "exactly one log row per request");
    assert!(charged > 0);
    // Nothing more arrives later (no duplicates from the spool replay).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(sys.consume_logs().await, (N, charged));
    let (quota, used, count) = sys.balances().await;
    assert_eq!(used, charged, "used quota is the sum of the charges");
    assert_eq!(quota, INITIAL_QUOTA - charged);
    assert_eq!(count, N);
}

async fn sigterm_mid_stream_loses_no_record(postgres: bool) {
    let Some(sys) = System::start(postgres).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let mut gw = sys.gateway("gw-term").await;
    let body = chat_body("gpt-4o", true).to_string();
    let mut s = tokio::net::TcpStream::connect(gw.addr).await.unwrap();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        sys.key,
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(body.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("data: {") {
        let n = s.read(&mut buf).await.unwrap();
        assert!(n > 0, "stream ended early");
        got.extend_from_slice(&buf[..n]);
    }
    gw.proc.signal("TERM");
    let reader = tokio::spawn(async move {
        let mut buf = [0u8; 4096];
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        String::from_utf8_lossy(&got).to_string()
    });
    let text = tokio::time::timeout(Duration::from_secs(20), reader)
        .await
        .unwrap()
        .unwrap();
    assert!(text.contains("data: [DONE]"), "the stream finished: {text}");
    let status = tokio::task::spawn_blocking(move || {
        let s = gw.proc.wait_exit(Duration::from_secs(30));
        drop(gw);
        s
    })
    .await
    .unwrap();
    assert!(status.success(), "gateway exit {status:?}");
    let (rows, charged) = sys.wait_logs(1, Duration::from_secs(10)).await;
    assert_eq!(rows, 1, "the streamed request is logged");
    assert!(charged > 0);
    assert_eq!(sys.mock.calls("slow"), 1);
}

async fn gateway_restart_replays_its_spool(postgres: bool) {
    let Some(mut sys) = System::start(postgres).await else {
        eprintln!("DATABASE_URL not set: PostgreSQL variant skipped");
        return;
    };
    let mut gw = sys.gateway("gw-spool").await;
    assert_eq!(gw.chat(&sys.key, "gpt-4o-mini").await.status, 200);
    sys.cp.kill();
    const M: i64 = 15;
    for i in 0..M {
        let r = gw.chat(&sys.key, "gpt-4o-mini").await;
        assert_eq!(r.status, 200, "request {i} served from the last snapshot");
    }
    // The admin port shows the outage: config stream down, records in the spool.
    gw.wait_metric("gateway_config_stream_up", 0, Duration::from_secs(5))
        .await;
    gw.wait_metric_until(
        "gateway_usage_spool_records",
        |n| n >= M,
        Duration::from_secs(10),
    )
    .await;
    // Stopped while the control plane is away: what was not delivered is on disk.
    gw.proc.signal("TERM");
    let status = tokio::task::spawn_blocking(move || {
        let s = gw.proc.wait_exit(Duration::from_secs(30));
        drop(gw);
        s
    })
    .await
    .unwrap();
    assert!(status.success(), "gateway exit {status:?}");
    // The spool file, and the part of it a failed replay had taken aside.
    let spooled: usize = ["usage-spool.jsonl", "usage-spool.replaying"]
        .iter()
        .map(|f| {
            std::fs::read_to_string(sys.dir.path().join("gw-spool").join(f))
                .unwrap_or_default()
                .lines()
                .count()
        })
        .sum();
    assert!(spooled >= M as usize, "spooled {spooled} records");

    sys.cp.launch().await;
    let gw = sys.gateway("gw-spool").await;
    let (rows, charged) = sys.wait_logs(M + 1, Duration::from_secs(30)).await;
    assert_eq!(rows, M + 1, "every request logged once");
    gw.wait_metric("gateway_usage_spool_records", 0, Duration::from_secs(5))
        .await;
    gw.wait_metric("gateway_config_stream_up", 1, Duration::from_secs(5))
        .await;
    let (quota, used, _) = sys.balances().await;
    assert_eq!(used, charged);
    assert_eq!(quota, INITIAL_QUOTA - charged);
}

macro_rules! on_both_databases {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    super::$name(false).await;
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    super::$name(true).await;
                }
            }
        )*
    };
}

on_both_databases!(
    config_push_reaches_two_gateways_within_a_second,
    control_plane_outage_loses_and_doubles_nothing,
    sigterm_mid_stream_loses_no_record,
    gateway_restart_replays_its_spool
);
