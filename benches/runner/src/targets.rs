//! What is measured: the mock directly, nginx `proxy_pass`, the pingora floor, the gateway
//! (with its control plane, a real channel and token; same-dialect, and converted to an
//! Anthropic channel) and the peers (LiteLLM, Portkey), each started on the measured core, and
//! how each is asked for the same mock answer.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::load::Req;
use crate::procs::{Child, Spec};
use crate::setup;

mod gateway;
pub use gateway::{
    converted_view, limited_view, start_converted, start_gateway, start_gateway_seeded,
    start_limited,
};

/// The kinds of request a scenario sends (each maps to a mock scenario).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// Non-stream chat: a 20-word chat.completion with usage.
    Chat,
    /// The same answer to a request of about 16 KiB (one long user message).
    BigChat,
    /// Streaming chat: 23 SSE events (20 content, finish, usage, `[DONE]`) at once.
    Stream,
    /// Non-stream chat answered after 2 s (requests held in flight).
    Slow,
    /// Streaming chat with paced events (long-lived streams).
    Paced { chunks: u32, delay_ms: u32 },
}

impl Workload {
    /// The mock scenario spec (`/s/{spec}` prefix).
    pub fn spec(self) -> String {
        match self {
            Workload::Chat | Workload::BigChat | Workload::Stream => "chunks=20".into(),
            Workload::Slow => "ttfb_ms=2000,chunks=20".into(),
            Workload::Paced { chunks, delay_ms } => {
                format!("chunk_delay_ms={delay_ms},chunks={chunks}")
            }
        }
    }

    pub fn stream(self) -> bool {
        matches!(self, Workload::Stream | Workload::Paced { .. })
    }

    /// Model name the gateway routes to the channel serving this workload.
    fn gateway_model(self) -> &'static str {
        match self {
            Workload::Chat | Workload::BigChat | Workload::Stream => "gpt-4o-mini",
            Workload::Slow => "gpt-4o",
            Workload::Paced { .. } => "gpt-4.1-mini",
        }
    }

    /// Model name in the LiteLLM config.
    fn litellm_model(self) -> &'static str {
        match self {
            Workload::Chat | Workload::BigChat | Workload::Stream => "bench-chat",
            Workload::Slow => "bench-slow",
            Workload::Paced { .. } => "bench-paced",
        }
    }

    /// The label among the workloads' own that reads `label`.
    pub fn label_of(label: &str) -> Option<&'static str> {
        [
            Workload::Chat,
            Workload::BigChat,
            Workload::Stream,
            Workload::Slow,
            Workload::Paced {
                chunks: 0,
                delay_ms: 0,
            },
        ]
        .into_iter()
        .map(Workload::label)
        .find(|l| *l == label)
    }

    pub fn label(self) -> &'static str {
        match self {
            Workload::Chat => "non-stream chat",
            Workload::BigChat => "non-stream chat, 16 KiB request",
            Workload::Stream => "streaming chat",
            Workload::Slow => "slow non-stream (2 s)",
            Workload::Paced { .. } => "paced stream",
        }
    }
}

/// The model of the Anthropic-type channel (type 14) the converted scenario is routed to: a
/// name the control plane prices by default.
const CONVERTED_MODEL: &str = "claude-3-5-haiku-20241022";

/// Size of the [`Workload::BigChat`] request body, in bytes.
pub const BIG_BODY_BYTES: usize = 16 * 1024;

/// A non-stream chat request of `len` bytes (at least the plain one's): one user message of
/// English-like text, numbered sentences so no two are alike.
pub fn long_chat_body(model: &str, len: usize) -> String {
    let head = format!(r#"{{"model":"{model}","messages":[{{"role":"user","content":""#);
    let tail = r#""}]}"#;
    let room = len.saturating_sub(head.len() + tail.len());
    let mut text = String::with_capacity(room + 64);
    let mut i = 0;
    while text.len() < room {
        i += 1;
        text +=
            &format!("Sentence {i} of a long question about the weather, the sea and the hills. ");
    }
    text.truncate(room);
    format!("{head}{}{tail}", text.trim_end())
}

/// A chat request body.
pub fn chat_body(model: &str, stream: bool) -> String {
    let messages = r#"[{"role":"user","content":"hello"}]"#;
    if stream {
        format!(
            r#"{{"model":"{model}","stream":true,"stream_options":{{"include_usage":true}},"messages":{messages}}}"#
        )
    } else {
        format!(r#"{{"model":"{model}","messages":{messages}}}"#)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    Mock,
    Nginx,
    Floor,
    Gateway,
    /// The same gateway process, with OpenAI chat requests for a model its Anthropic-type
    /// channel serves: every request, answer and stream event is converted.
    GatewayConverted,
    /// The same gateway process, with a token whose rate limit is counted in Redis (one
    /// Redis call per request; the limit is never reached).
    GatewayLimited,
    LiteLlm,
    Portkey,
}

impl Kind {
    pub fn is_peer(self) -> bool {
        matches!(self, Kind::LiteLlm | Kind::Portkey)
    }

    /// Measured in the closed-loop scenarios only (non-stream and streaming chat).
    pub fn closed_loop_only(self) -> bool {
        matches!(self, Kind::GatewayConverted | Kind::GatewayLimited)
    }

    /// Another view of the gateway process (measured in the open loop too, at its rate).
    pub fn is_gateway_view(self) -> bool {
        matches!(self, Kind::GatewayConverted | Kind::GatewayLimited)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Mock => "mock (direct)",
            Kind::Nginx => "nginx proxy_pass",
            Kind::Floor => "pingora floor",
            Kind::Gateway => "gateway",
            Kind::GatewayConverted => "gateway, converted (OpenAI chat → Anthropic channel)",
            Kind::GatewayLimited => "gateway, rate-limited token (counted in Redis)",
            Kind::LiteLlm => "LiteLLM",
            Kind::Portkey => "Portkey",
        })
    }
}

/// A started target.
pub struct Target {
    pub kind: Kind,
    /// Version or build note shown in the results.
    pub version: String,
    pub addr: String,
    /// Root of the measured process tree.
    pub pid: u32,
    /// The control plane's pid (gateway only): its usage-ingest CPU is reported apart.
    pub control_plane_pid: Option<u32>,
    mock_addr: String,
    key: String,
    /// The gateway's rate-limited token, when its Redis runs (see [`Kind::GatewayLimited`]).
    limited_key: Option<String>,
    /// The gateway's control plane (REST API) and admin port (`/readyz`).
    pub cp_addr: Option<String>,
    pub admin_addr: Option<String>,
    /// Resident memory of the process tree a few seconds after it was ready, before any
    /// request (when [`Env::measure_idle`]).
    pub idle_rss_kib: Option<u64>,
    /// From starting the gateway process to its first snapshot loaded (`/readyz`).
    pub ready_after: Option<Duration>,
    /// Kept alive while measuring; stopped on drop (last first).
    procs: Vec<Child>,
}

impl Drop for Target {
    fn drop(&mut self) {
        while let Some(mut p) = self.procs.pop() {
            p.stop(Duration::from_secs(5));
        }
    }
}

impl Target {
    /// The request for `w` through this target.
    pub fn request(&self, w: Workload) -> Req {
        let json = ("Content-Type".to_owned(), "application/json".to_owned());
        let bearer = |k: &str| ("Authorization".to_owned(), format!("Bearer {k}"));
        let (path, model, headers) = match self.kind {
            Kind::Mock | Kind::Nginx | Kind::Floor => (
                format!("/s/{}/v1/chat/completions", w.spec()),
                "gpt-4o-mini",
                vec![json, bearer("sk-upstream")],
            ),
            Kind::Gateway | Kind::GatewayLimited => (
                "/v1/chat/completions".to_owned(),
                w.gateway_model(),
                vec![json, bearer(&self.key)],
            ),
            // Only one Anthropic channel (the non-stream and streaming chat workloads).
            Kind::GatewayConverted => (
                "/v1/chat/completions".to_owned(),
                CONVERTED_MODEL,
                vec![json, bearer(&self.key)],
            ),
            Kind::LiteLlm => (
                "/v1/chat/completions".to_owned(),
                w.litellm_model(),
                vec![json, bearer(&self.key)],
            ),
            Kind::Portkey => (
                "/v1/chat/completions".to_owned(),
                "gpt-4o-mini",
                vec![
                    json,
                    bearer("sk-upstream"),
                    ("x-portkey-provider".to_owned(), "openai".to_owned()),
                    (
                        "x-portkey-custom-host".to_owned(),
                        format!("http://{}/s/{}/v1", self.mock_addr, w.spec()),
                    ),
                ],
            ),
        };
        let body = if w == Workload::BigChat {
            long_chat_body(model, BIG_BODY_BYTES)
        } else {
            chat_body(model, w.stream())
        };
        Req {
            url: format!("http://{}{path}", self.addr),
            headers,
            body,
        }
    }
}

impl Target {
    /// The request for `w` through this target, authenticated with `key` instead.
    pub fn request_as(&self, w: Workload, key: &str) -> Req {
        let mut req = self.request(w);
        for (k, v) in &mut req.headers {
            if k == "Authorization" {
                *v = format!("Bearer {key}");
            }
        }
        req
    }
}

/// Where binaries and scratch files are, and which cores to use.
pub struct Env {
    pub bin_dir: PathBuf,
    pub work: PathBuf,
    pub peers_dir: PathBuf,
    pub nginx: Option<PathBuf>,
    /// The measured core and the load core.
    pub target_cpu: usize,
    pub load_cpu: usize,
    /// Paced-stream workload used by the streams scenario (its channel is set up once).
    pub paced: Workload,
    /// Read each gateway's and the floor's idle RSS at start (the idle scenario).
    pub measure_idle: bool,
}

/// A free loopback port.
pub fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// Waits until `addr` accepts TCP connections.
pub fn wait_listening(addr: &str, limit: Duration, child: &mut Child) -> anyhow::Result<()> {
    let start = Instant::now();
    while std::net::TcpStream::connect(addr).is_err() {
        child.check_running()?;
        if start.elapsed() > limit {
            bail!("{} does not listen on {addr}", child.name);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

/// Starts the shared mock provider on the load core.
pub fn start_mock(env: &Env) -> anyhow::Result<(Child, String)> {
    let addr = format!("127.0.0.1:{}", free_port()?);
    let mut mock = Child::start(Spec {
        name: "mock-provider",
        program: &env.bin_dir.join("mock-provider"),
        args: vec!["--listen".into(), addr.clone()],
        env: vec![],
        cpu: Some(env.load_cpu),
        log: &env.work.join("mock.log"),
        cwd: None,
    })?;
    wait_listening(&addr, Duration::from_secs(10), &mut mock)?;
    Ok((mock, addr))
}

/// The mock itself as a target (its process is shared, so it is not stopped here).
pub fn mock_target(mock_pid: u32, mock_addr: &str) -> Target {
    Target {
        kind: Kind::Mock,
        version: "mock-provider (this workspace, release)".into(),
        addr: mock_addr.to_owned(),
        pid: mock_pid,
        control_plane_pid: None,
        mock_addr: mock_addr.to_owned(),
        key: String::new(),
        limited_key: None,
        cp_addr: None,
        admin_addr: None,
        idle_rss_kib: None,
        ready_after: None,
        procs: vec![],
    }
}

fn target(kind: Kind, version: String, addr: String, mock: &str, procs: Vec<Child>) -> Target {
    let pid = procs.last().map_or(0, Child::pid);
    Target {
        kind,
        version,
        addr,
        pid,
        control_plane_pid: None,
        mock_addr: mock.to_owned(),
        key: String::new(),
        limited_key: None,
        cp_addr: None,
        admin_addr: None,
        idle_rss_kib: None,
        ready_after: None,
        procs,
    }
}

/// nginx with one worker, upstream keep-alive and no buffering, pinned to the target core.
pub fn start_nginx(env: &Env, mock: &str) -> anyhow::Result<Target> {
    let nginx = env.nginx.as_deref().context("nginx is not installed")?;
    let dir = env.work.join("nginx");
    std::fs::create_dir_all(&dir)?;
    let addr = format!("127.0.0.1:{}", free_port()?);
    let d = dir.display();
    let conf = format!(
        r#"worker_processes 1;
worker_rlimit_nofile 100000;
error_log {d}/error.log warn;
pid {d}/nginx.pid;
events {{ worker_connections 60000; }}
http {{
  access_log off;
  client_body_temp_path {d}/body;
  proxy_temp_path {d}/proxy;
  keepalive_requests 10000000;
  keepalive_timeout 300s;
  upstream mock {{ server {mock}; keepalive 1024; keepalive_requests 10000000; }}
  server {{
    listen {addr} backlog=16384;
    location / {{
      proxy_pass http://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 300s;
    }}
  }}
}}
"#
    );
    let conf_path = dir.join("nginx.conf");
    std::fs::write(&conf_path, conf)?;
    let mut child = Child::start(Spec {
        name: "nginx",
        program: nginx,
        args: vec![
            "-e".into(),
            format!("{d}/error.log"),
            "-c".into(),
            conf_path.display().to_string(),
            "-g".into(),
            "daemon off;".into(),
        ],
        env: vec![],
        cpu: Some(env.target_cpu),
        log: &env.work.join("nginx.log"),
        cwd: None,
    })?;
    wait_listening(&addr, Duration::from_secs(10), &mut child)?;
    let version = crate::tools::version_line(nginx, &["-v"]).unwrap_or_else(|| "nginx".into());
    Ok(target(
        Kind::Nginx,
        format!("{version}, 1 worker, upstream keepalive, no buffering"),
        addr,
        mock,
        vec![child],
    ))
}

/// The minimal pingora pass-through proxy of `benches/pingora-floor`, one worker thread.
pub fn start_floor(env: &Env, mock: &str) -> anyhow::Result<Target> {
    let addr = format!("127.0.0.1:{}", free_port()?);
    let mut child = Child::start(Spec {
        name: "pingora-floor",
        program: &env.bin_dir.join("pingora-floor"),
        args: vec![
            "--listen".into(),
            addr.clone(),
            "--upstream".into(),
            mock.into(),
            "--threads".into(),
            "1".into(),
        ],
        env: vec![],
        cpu: Some(env.target_cpu),
        log: &env.work.join("pingora-floor.log"),
        cwd: None,
    })?;
    wait_listening(&addr, Duration::from_secs(10), &mut child)?;
    // Nothing to load: ready once it listens.
    let idle = env
        .measure_idle
        .then(|| crate::idle::settled_rss(child.pid()));
    let mut t = target(
        Kind::Floor,
        "pingora 0.9.1, empty ProxyHttp, 1 worker thread".into(),
        addr,
        mock,
        vec![child],
    );
    t.idle_rss_kib = idle;
    Ok(t)
}

/// Sends `req` until it is answered 200 (the target has its config).
pub fn wait_ok(req: &Req, limit: Duration) -> anyhow::Result<()> {
    let start = Instant::now();
    loop {
        match setup::send(req) {
            Ok((200, _)) => return Ok(()),
            Ok((status, body)) if start.elapsed() > limit => {
                bail!(
                    "status {status}: {}",
                    body.chars().take(300).collect::<String>()
                )
            }
            Err(e) if start.elapsed() > limit => return Err(e),
            _ => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

/// LiteLLM proxy (one worker) from its virtual environment, if installed.
pub fn start_litellm(env: &Env, mock: &str, venv: &Path) -> anyhow::Result<Target> {
    let addr_port = free_port()?;
    let addr = format!("127.0.0.1:{addr_port}");
    let dir = env.work.join("litellm");
    std::fs::create_dir_all(&dir)?;
    let mut cfg = String::from("model_list:\n");
    for w in [Workload::Chat, Workload::Slow, env.paced] {
        cfg += &format!(
            "  - model_name: {}\n    litellm_params:\n      model: openai/gpt-4o-mini\n      api_base: \"http://{mock}/s/{}/v1\"\n      api_key: sk-upstream\n",
            w.litellm_model(),
            w.spec()
        );
    }
    cfg += "litellm_settings:\n  telemetry: false\n";
    let cfg_path = dir.join("config.yaml");
    std::fs::write(&cfg_path, cfg)?;
    // LiteLLM refuses to start without a strong master key; clients send it as their key.
    let mut random = [0u8; 32];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut random)?;
    let master: String = random.iter().map(|b| format!("{b:02x}")).collect();
    let master = format!("sk-{master}");
    let mut child = Child::start(Spec {
        name: "litellm",
        program: &venv.join("bin/litellm"),
        args: vec![
            "--config".into(),
            cfg_path.display().to_string(),
            "--host".into(),
            "127.0.0.1".into(),
            "--port".into(),
            addr_port.to_string(),
            "--num_workers".into(),
            "1".into(),
        ],
        env: vec![
            ("LITELLM_MASTER_KEY".into(), master.clone()),
            ("LITELLM_LOCAL_MODEL_COST_MAP".into(), "True".into()),
            ("LITELLM_LOG".into(), "ERROR".into()),
            ("LITELLM_TELEMETRY".into(), "False".into()),
            ("DISABLE_SCHEMA_UPDATE".into(), "True".into()),
        ],
        cpu: Some(env.target_cpu),
        log: &env.work.join("litellm.log"),
        cwd: Some(&dir),
    })?;
    wait_listening(&addr, Duration::from_secs(180), &mut child)?;
    let version = crate::tools::pip_version(venv, "litellm").unwrap_or_default();
    let mut t = target(
        Kind::LiteLlm,
        format!("LiteLLM proxy {version} (PyPI), 1 worker"),
        addr,
        mock,
        vec![child],
    );
    t.key = master;
    wait_ok(&t.request(Workload::Chat), Duration::from_secs(60))?;
    Ok(t)
}

/// Portkey's gateway (Node.js) from npm, if installed.
pub fn start_portkey(env: &Env, mock: &str, dir: &Path) -> anyhow::Result<Target> {
    let port = free_port()?;
    let addr = format!("127.0.0.1:{port}");
    let pkg = dir.join("node_modules/@portkey-ai/gateway");
    let node = crate::tools::which("node").context("node is not installed")?;
    let mut child = Child::start(Spec {
        name: "portkey",
        program: &node,
        args: vec![
            pkg.join("build/start-server.js").display().to_string(),
            format!("--port={port}"),
            "--headless".into(),
        ],
        env: vec![("NODE_ENV".into(), "production".into())],
        cpu: Some(env.target_cpu),
        log: &env.work.join("portkey.log"),
        cwd: Some(dir),
    })?;
    wait_listening(&addr, Duration::from_secs(60), &mut child)?;
    let version = crate::tools::package_version(&pkg).unwrap_or_default();
    let node_version = crate::tools::version_line(&node, &["--version"]).unwrap_or_default();
    let t = target(
        Kind::Portkey,
        format!("Portkey gateway {version} (npm), Node {node_version}"),
        addr,
        mock,
        vec![child],
    );
    wait_ok(&t.request(Workload::Chat), Duration::from_secs(30))?;
    Ok(t)
}
