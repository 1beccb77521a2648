//! Both planes as real processes for the end-to-end tests: the `control-plane` binary
//! (SQLite, or a fresh PostgreSQL database when `DATABASE_URL` is set), `gateway
//! --control-plane` binaries, the mock provider upstream, and the admin session to drive them.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};

use super::{Reply, chat_body, free_port, send, wait_listening};

pub const GATEWAY: &str = env!("CARGO_BIN_EXE_gateway");
pub const ROOT_PASSWORD: &str = "root-pass-1";

/// The control-plane binary of this workspace, built once per test run.
pub fn control_plane_bin() -> &'static Path {
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
pub struct Proc(pub Child);

impl Proc {
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.0.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the process to exit (at most `limit`).
    pub fn wait_exit(&mut self, limit: Duration) -> std::process::ExitStatus {
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
pub enum Database {
    Sqlite,
    Postgres { admin_url: String, name: String },
}

impl Database {
    pub fn url(&self) -> Option<String> {
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
pub struct ControlPlane {
    pub port: u16,
    /// The admin listener (metrics, health).
    pub admin_port: u16,
    pub dir: tempfile::TempDir,
    pub db: Database,
    pub proc: Option<Proc>,
    /// The admin's session: cookie and user id.
    pub admin: (String, i64),
    /// More arguments for every launch.
    pub extra_args: Vec<String>,
}

/// Environment variables every control plane and gateway this test binary starts gets (set
/// once, before the first start; e.g. the OpenTelemetry exporter's).
pub static CHILD_ENV: OnceLock<Vec<(String, String)>> = OnceLock::new();

fn child_env() -> impl Iterator<Item = (&'static str, &'static str)> {
    CHILD_ENV
        .get()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v.as_str()))
}

/// A log file opened for appending (several processes may share one).
pub fn log_file(path: &Path) -> std::fs::File {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap()
}

/// The PostgreSQL admin URL for a scenario: `Some(None)` for SQLite, `Some(Some(url))` from
/// `DATABASE_URL` for PostgreSQL, `None` when PostgreSQL is asked for and not configured.
fn admin_url(postgres: bool) -> Option<Option<String>> {
    if !postgres {
        return Some(None);
    }
    std::env::var("DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .map(Some)
}

impl ControlPlane {
    pub async fn start(postgres: bool) -> Option<ControlPlane> {
        Self::start_with(postgres, Vec::new()).await
    }

    /// Like [`ControlPlane::start`], with more command-line arguments (gRPC listener, TLS).
    pub async fn start_with(postgres: bool, extra_args: Vec<String>) -> Option<ControlPlane> {
        Some(Self::start_on(admin_url(postgres)?, extra_args).await)
    }

    /// A control plane on a fresh database of the PostgreSQL server at `admin_url` (SQLite
    /// when `None`).
    pub async fn start_on(admin_url: Option<String>, extra_args: Vec<String>) -> ControlPlane {
        let mut cp = Self::start_uninitialized(admin_url, extra_args).await;
        let setup = cp
            .call(
                "POST",
                "/api/setup",
                json!({"username": "root", "password": ROOT_PASSWORD, "confirmPassword": ROOT_PASSWORD}),
            )
            .await;
        assert_eq!(setup["success"], json!(true), "{setup}");
        cp.admin = cp.login("root", ROOT_PASSWORD).await;
        cp
    }

    /// A control plane as first started: no root account yet, setup still open. Its admin
    /// calls fail until something runs setup and [`ControlPlane::login`]s.
    pub async fn start_uninitialized(
        admin_url: Option<String>,
        extra_args: Vec<String>,
    ) -> ControlPlane {
        let db = if let Some(admin_url) = admin_url {
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
            admin_port: free_port(),
            dir: tempfile::tempdir().unwrap(),
            db,
            proc: None,
            admin: (String::new(), 0),
            extra_args,
        };
        cp.launch().await;
        cp
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The sync token the control plane generated into its data folder.
    pub fn token_file(&self) -> PathBuf {
        self.dir.path().join("gateway-sync-token")
    }

    /// Its log (stdout and stderr of every launch).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("control-plane.log")).unwrap_or_default()
    }

    /// Starts (or restarts) the process on the same port and data. A process that exits
    /// before it listens because its admin port was taken meanwhile (ports are picked free,
    /// then bound by the child) is started again on another admin port.
    pub async fn launch(&mut self) {
        for _ in 0..3 {
            if self.try_launch().await {
                return;
            }
            let log = self.log();
            assert!(
                log.contains("binding the admin listener"),
                "control plane exited before listening: {log}"
            );
            self.admin_port = free_port();
        }
        panic!("control plane never started: {}", self.log());
    }

    /// Starts the process; `false` when it exited before listening.
    async fn try_launch(&mut self) -> bool {
        let mut cmd = Command::new(control_plane_bin());
        cmd.args([
            "--listen",
            &format!("127.0.0.1:{}", self.port),
            "--admin-listen",
            &format!("127.0.0.1:{}", self.admin_port),
            "--data-dir",
            self.dir.path().to_str().unwrap(),
        ])
        .args(&self.extra_args)
        .env_remove("DATABASE_URL")
        .env_remove("GATEWAY_SYNC_TOKEN")
        .env("RUST_LOG", "warn")
        .envs(child_env())
        .stdout(log_file(&self.dir.path().join("control-plane.log")))
        .stderr(log_file(&self.dir.path().join("control-plane.log")));
        if let Some(url) = self.db.url() {
            cmd.args(["--database-url", &url]);
        }
        let mut proc = Proc(cmd.spawn().unwrap());
        let start = Instant::now();
        while tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .is_err()
        {
            if proc.0.try_wait().ok().flatten().is_some() {
                return false;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "control plane not up: {}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.proc = Some(proc);
        true
    }

    /// A sample of the control plane's `/metrics` (admin listener), e.g.
    /// `control_plane_gateways_connected` or `name{label="v"}`.
    pub async fn metric(&self, sample: &str) -> Option<f64> {
        let reply = send(
            "GET",
            &format!("http://127.0.0.1:{}/metrics", self.admin_port),
            &[],
            Bytes::new(),
        )
        .await;
        String::from_utf8_lossy(&reply.body).lines().find_map(|l| {
            l.strip_prefix(sample)?
                .strip_prefix(' ')?
                .trim()
                .parse()
                .ok()
        })
    }

    pub fn kill(&mut self) {
        if let Some(mut p) = self.proc.take() {
            p.signal("KILL");
            p.wait_exit(Duration::from_secs(10));
        }
    }

    pub async fn login(&self, username: &str, password: &str) -> (String, i64) {
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
    pub async fn call(&self, method: &str, path: &str, body: Value) -> Value {
        self.call_as(&self.admin, method, path, body).await
    }

    pub async fn call_as(
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

    pub async fn ok(&self, method: &str, path: &str, body: Value) -> Value {
        let reply = self.call(method, path, body).await;
        assert_eq!(reply["success"], json!(true), "{method} {path}: {reply}");
        reply["data"].clone()
    }
}

pub async fn send_json(method: &str, url: &str, headers: &[(&str, &str)], body: Value) -> Reply {
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
pub struct Gateway {
    pub addr: SocketAddr,
    pub admin: String,
    pub proc: Proc,
    pub log: PathBuf,
}

impl Gateway {
    pub async fn start(cp: &ControlPlane, spool: &Path, name: &str) -> Gateway {
        Self::start_with_env(cp, spool, name, &[]).await
    }

    /// Like [`Gateway::start`], with more environment variables for this process.
    pub async fn start_with_env(
        cp: &ControlPlane,
        spool: &Path,
        name: &str,
        env: &[(&str, &str)],
    ) -> Gateway {
        let token = cp.token_file();
        let args = ["--sync-token-file".to_string(), token.display().to_string()];
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let gw = Self::launch(addr, cp.port, &cp.url(), spool, name, &args, env);
        wait_listening(gw.addr).await;
        gw
    }

    /// Starts a gateway following `control_plane` (forwarding the console to `cp_port`) with
    /// `args` for the credentials; it listens only once it has a snapshot. Its log goes to
    /// `<spool>/gateway.log`.
    pub fn spawn(
        cp_port: u16,
        control_plane: &str,
        spool: &Path,
        name: &str,
        args: &[String],
    ) -> Gateway {
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        Self::spawn_on(addr, cp_port, control_plane, spool, name, args)
    }

    /// Like [`Gateway::spawn`], with the public port on `addr`.
    pub fn spawn_on(
        addr: SocketAddr,
        cp_port: u16,
        control_plane: &str,
        spool: &Path,
        name: &str,
        args: &[String],
    ) -> Gateway {
        Self::launch(addr, cp_port, control_plane, spool, name, args, &[])
    }

    fn launch(
        addr: SocketAddr,
        cp_port: u16,
        control_plane: &str,
        spool: &Path,
        name: &str,
        args: &[String],
        env: &[(&str, &str)],
    ) -> Gateway {
        let admin = format!("127.0.0.1:{}", free_port());
        std::fs::create_dir_all(spool).unwrap();
        let log = spool.join("gateway.log");
        let child = Command::new(GATEWAY)
            .args([
                "--forward-to",
                &format!("127.0.0.1:{cp_port}"),
                "--control-plane",
                control_plane,
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
            .args(args)
            .env_remove("GATEWAY_SYNC_TOKEN")
            .env("RUST_LOG", "warn")
            .envs(child_env())
            .envs(env.iter().copied())
            .stdout(log_file(&log))
            .stderr(log_file(&log))
            .spawn()
            .unwrap();
        Gateway {
            addr,
            admin,
            proc: Proc(child),
            log,
        }
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// A gauge or counter from `/metrics` on the admin port (`None` while it does not listen
    /// yet: the relay port may open first).
    pub async fn metric(&self, name: &str) -> Option<i64> {
        tokio::net::TcpStream::connect(self.admin.as_str())
            .await
            .ok()?;
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
    pub async fn wait_metric(&self, name: &str, value: i64, limit: Duration) {
        self.wait_metric_until(name, |v| v == value, limit).await;
    }

    /// Waits until a metric satisfies `ok` (at most `limit`).
    pub async fn wait_metric_until(&self, name: &str, ok: impl Fn(i64) -> bool, limit: Duration) {
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

    pub async fn chat(&self, key: &str, model: &str) -> Reply {
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
pub struct System {
    pub mock: mock_provider::MockHandle,
    pub cp: ControlPlane,
    pub user_id: i64,
    pub user_session: (String, i64),
    pub fast_channel: i64,
    pub key: String,
    pub dir: tempfile::TempDir,
}

pub const INITIAL_QUOTA: i64 = 100_000_000;

impl System {
    pub async fn start(postgres: bool) -> Option<System> {
        Self::start_with(postgres, Vec::new()).await
    }

    /// Like [`System::start`], with more control-plane arguments.
    pub async fn start_with(postgres: bool, cp_args: Vec<String>) -> Option<System> {
        Self::start_on(admin_url(postgres)?, cp_args).await
    }

    /// Like [`System::start`], on the PostgreSQL server at `admin_url` (SQLite when `None`).
    pub async fn start_on(admin_url: Option<String>, cp_args: Vec<String>) -> Option<System> {
        let mock = mock_provider::start("127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let cp = ControlPlane::start_on(admin_url, cp_args).await;
        cp.ok(
            "POST",
            "/api/user/",
            json!({"username": "client", "password": "client-pass-1", "display_name": "client"}),
        )
        .await;
        let user_session = cp.login("client", "client-pass-1").await;
        let user_id = user_session.1;
        // Quota is set against the value it was read with (no stale write-back).
        let before = cp
            .ok("GET", &format!("/api/user/{user_id}"), Value::Null)
            .await["quota"]
            .clone();
        cp.ok(
            "PUT",
            "/api/user/",
            json!({"id": user_id, "quota": INITIAL_QUOTA, "quota_before": before}),
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

    pub async fn new_token(&self, name: &str) -> String {
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

    pub async fn gateway(&self, name: &str) -> Gateway {
        Gateway::start(&self.cp, &self.dir.path().join(name), name).await
    }

    /// (rows, sum of their quota) of consume logs.
    pub async fn consume_logs(&self) -> (i64, i64) {
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
    pub async fn wait_logs(&self, n: i64, limit: Duration) -> (i64, i64) {
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
    pub async fn balances(&self) -> (i64, i64, i64) {
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
pub async fn time_until<F, Fut>(limit: Duration, mut ok: F) -> Duration
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

/// Runs each `async fn NAME(postgres: bool)` scenario on SQLite and on PostgreSQL.
#[macro_export]
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

/// A PostgreSQL server of the test's own (initdb into a temporary folder, a free port), so a
/// test can restart it without disturbing others.
pub struct PrivatePostgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    pub port: u16,
}

impl PrivatePostgres {
    /// Starts one; `None` when PostgreSQL's server binaries are not installed.
    pub fn start() -> Option<PrivatePostgres> {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path().join("bin"))
            .find(|b| b.join("initdb").exists())?;
        let dir = tempfile::tempdir().unwrap();
        let pg = PrivatePostgres {
            dir,
            bin,
            port: free_port(),
        };
        if pg.as_root() {
            // The server refuses to run as root: the folder goes to the postgres user.
            let ok = Command::new("chown")
                .args(["-R", "postgres", pg.dir.path().to_str().unwrap()])
                .status()
                .unwrap()
                .success();
            assert!(ok, "chown failed");
        }
        let data = pg.dir.path().join("data");
        pg.run(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
            ],
        );
        pg.pg_ctl("start");
        Some(pg)
    }

    fn as_root(&self) -> bool {
        Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
    }

    fn run(&self, program: &str, args: &[&str]) {
        let exe = self.bin.join(program);
        let mut cmd = if self.as_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        let out = cmd.args(args).stdout(Stdio::null()).output().unwrap();
        assert!(
            out.status.success(),
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn pg_ctl(&self, action: &str) {
        let data = self.dir.path().join("data");
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("server.log");
        self.run(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-o",
                &opts,
                "-l",
                log.to_str().unwrap(),
                "-m",
                "fast",
                "-w",
                action,
            ],
        );
    }

    /// The URL of its `postgres` database (an admin URL for [`ControlPlane::start_on`]).
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops and starts the server (every connection is lost).
    pub fn restart(&self) {
        self.pg_ctl("restart");
    }
}

impl Drop for PrivatePostgres {
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let exe = self.bin.join("pg_ctl");
        let mut cmd = if self.as_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        let _ = cmd
            .args(["-D", data.to_str().unwrap(), "-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// A Redis server of the test's own on a free port (no persistence), so a test can kill and
/// restart it. `None` when `redis-server` is not installed.
pub struct PrivateRedis {
    pub port: u16,
    proc: Option<Proc>,
}

impl PrivateRedis {
    pub async fn start() -> Option<PrivateRedis> {
        let found = Command::new("redis-server")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            return None;
        }
        let mut redis = PrivateRedis {
            port: free_port(),
            proc: None,
        };
        redis.launch().await;
        Some(redis)
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Starts (or restarts) the server on its port.
    pub async fn launch(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        self.proc = Some(Proc(child));
        wait_listening(format!("127.0.0.1:{}", self.port).parse().unwrap()).await;
    }

    /// SIGKILL, and waits for the exit.
    pub fn kill(&mut self) {
        if let Some(mut p) = self.proc.take() {
            p.signal("KILL");
            p.wait_exit(Duration::from_secs(10));
        }
    }
}
