//! Shared harness for the end-to-end tests: a mock provider on the test runtime, an
//! in-process gateway on loopback ports, a small HTTP client and snapshot builders.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use bytes::Bytes;
use gateway::edge::key_hash;
use gateway::usage::{MemorySink, UsageRecord};
use gateway::{RunningGateway, ServeOptions, build_state};
use http::HeaderMap;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub mod system;

/// A free loopback port for a server a test starts by address. Taken below the kernel's
/// ephemeral range when there is room: a port picked by binding port 0 is free only until a
/// listener elsewhere binds port 0 and may be given it (a mock provider of a parallel test),
/// and then the test would talk to that listener instead. Below the range, only other callers
/// of this function compete, and each port is handed out once per process.
pub fn free_port() -> u16 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let ephemeral_low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse::<u32>().ok())
        .unwrap_or(0);
    const LOWEST: u32 = 10_000;
    if ephemeral_low > LOWEST + 1_000 {
        let span = ephemeral_low - LOWEST;
        // Test binaries running side by side start in different blocks: their process ids are
        // often consecutive, and consecutive starting ports overlapped (one test's relay port
        // was the next one's admin port). The id, multiplied by an odd constant to scatter
        // neighbours, picks a block of 64 ports, more than a test binary takes.
        const BLOCK: u32 = 64;
        let blocks = span / BLOCK;
        let scattered = std::process::id().wrapping_mul(0x9E37_79B9);
        let base = (scattered % blocks) * BLOCK;
        for _ in 0..span {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let port = LOWEST + (base + n) % span;
            if let Ok(port) = u16::try_from(port)
                && std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()
            {
                return port;
            }
        }
    }
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running gateway with an in-memory usage sink.
pub struct Gw {
    pub addr: SocketAddr,
    pub admin: SocketAddr,
    pub sink: Arc<MemorySink>,
    pub running: Option<RunningGateway>,
}

impl Gw {
    /// Starts a gateway from a snapshot given as JSON and waits until it accepts connections.
    pub async fn start(snapshot: Value) -> Gw {
        let sink = Arc::new(MemorySink::default());
        Gw::start_with_sink(snapshot, sink.clone(), sink).await
    }

    /// Like [`Gw::start`], with charges carried across config swaps as with a control plane
    /// (records are never acknowledged: nothing is ever reflected).
    pub async fn start_carried(snapshot: Value) -> Gw {
        let memory = Arc::new(MemorySink::default());
        let sink = Arc::new(CarriedSink {
            memory: memory.clone(),
            carry: Arc::new(gateway::billing::Carry::default()),
        });
        Gw::start_with_sink(snapshot, sink, memory).await
    }

    /// Like [`Gw::start`], believing `X-Forwarded-For` from `trusted` proxies.
    pub async fn start_trusting(snapshot: Value, trusted: &str) -> Gw {
        let sink = Arc::new(MemorySink::default());
        let proxies = gateway::edge::TrustedProxies::parse(trusted).expect("trusted proxies");
        Gw::start_with(snapshot, sink.clone(), sink, proxies).await
    }

    async fn start_with_sink(
        snapshot: Value,
        sink: Arc<dyn gateway::usage::UsageSink>,
        memory: Arc<MemorySink>,
    ) -> Gw {
        Gw::start_with(snapshot, sink, memory, Default::default()).await
    }

    async fn start_with(
        snapshot: Value,
        sink: Arc<dyn gateway::usage::UsageSink>,
        memory: Arc<MemorySink>,
        trusted_proxies: gateway::edge::TrustedProxies,
    ) -> Gw {
        let raw = serde_json::from_value(snapshot).expect("snapshot JSON");
        let state = build_state(&raw, sink).expect("valid snapshot");
        let sink = memory;
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let admin: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let opts = ServeOptions {
            trusted_proxies,
            ..ServeOptions::new(addr.to_string(), Some(admin.to_string()))
        };
        let running = tokio::task::spawn_blocking(move || RunningGateway::spawn(state, &opts))
            .await
            .unwrap();
        for a in [addr, admin] {
            wait_listening(a).await;
        }
        Gw {
            addr,
            admin,
            sink,
            running: Some(running),
        }
    }

    /// Swaps in a new config (as the watch does on every snapshot or delta).
    pub fn install(&self, snapshot: Value) {
        let raw: proto::config::v1::Snapshot =
            serde_json::from_value(snapshot).expect("snapshot JSON");
        let built = gateway::config::Snapshot::build(&raw).expect("valid snapshot");
        let state = &self.running.as_ref().unwrap().state;
        gateway::config::watch::install(state, raw.version, built);
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Balance of a user now.
    pub fn user_quota(&self, id: i64) -> i64 {
        let snap = self.running.as_ref().unwrap().state.config.load();
        snap.users[&id]
            .quota
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Remaining quota of a token (by its plain key without `sk-`).
    pub fn token_remain(&self, key: &str) -> i64 {
        let snap = self.running.as_ref().unwrap().state.config.load();
        snap.tokens[&gateway::config::KeyHash::of_key(key)]
            .remain
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Usage records so far.
    pub fn records(&self) -> Vec<UsageRecord> {
        self.sink.records()
    }

    /// The record of one request id, waiting briefly for it (it is written after the answer).
    pub async fn record(&self, request_id: &str) -> UsageRecord {
        for _ in 0..250 {
            if let Some(r) = self
                .records()
                .into_iter()
                .find(|r| r.request_id == request_id)
            {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("no usage record for {request_id}");
    }

    /// POSTs JSON to the gateway with `Authorization: Bearer sk-{key}`.
    pub async fn chat(&self, key: &str, body: Value) -> Reply {
        self.post("/v1/chat/completions", key, body).await
    }

    pub async fn post(&self, path: &str, key: &str, body: Value) -> Reply {
        let auth = format!("Bearer sk-{key}");
        send(
            "POST",
            &self.url(path),
            &[
                ("authorization", &auth),
                ("content-type", "application/json"),
            ],
            Bytes::from(body.to_string()),
        )
        .await
    }
}

impl Drop for Gw {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            // Joining blocks: do it off the async runtime's worker.
            std::thread::spawn(move || r.shutdown());
        }
    }
}

pub async fn wait_listening(addr: SocketAddr) {
    for _ in 0..250 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("nothing listening on {addr}");
}

/// A complete HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    pub fn request_id(&self) -> String {
        self.headers["x-oneapi-request-id"]
            .to_str()
            .unwrap()
            .to_owned()
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Asserts an OpenAI-shaped gateway error with this status and code; returns the error object.
    pub fn assert_error(&self, status: u16, code: &str) -> Value {
        assert_eq!(self.status, status, "body: {}", self.text());
        let v = self.json();
        let err = v["error"].clone();
        assert_eq!(err["code"], code, "body: {v}");
        assert!(
            err["type"].is_string() && err.get("param").is_some(),
            "shape: {v}"
        );
        let msg = err["message"].as_str().unwrap();
        assert!(
            msg.ends_with(&format!("(request id: {})", self.request_id())),
            "message: {msg}"
        );
        err
    }
}

/// One HTTP/2 (prior knowledge, h2c) POST over a fresh connection.
pub async fn send_h2(url: &str, headers: &[(&str, &str)], body: Bytes) -> Reply {
    send_h2_as("POST", url, headers, body).await
}

/// One HTTP/2 (prior knowledge, h2c) request over a fresh connection.
pub async fn send_h2_as(method: &str, url: &str, headers: &[(&str, &str)], body: Bytes) -> Reply {
    let client = Client::builder(TokioExecutor::new())
        .http2_only(true)
        .build_http::<Full<Bytes>>();
    let mut req = http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = client
        .request(req.body(Full::new(body)).unwrap())
        .await
        .expect("request sent");
    assert_eq!(resp.version(), http::Version::HTTP_2);
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp
        .into_body()
        .collect()
        .await
        .expect("body read")
        .to_bytes();
    Reply {
        status,
        headers,
        body,
    }
}

/// One HTTP/1.1 request over a fresh connection.
pub async fn send(method: &str, url: &str, headers: &[(&str, &str)], body: Bytes) -> Reply {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let mut req = http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = client
        .request(req.body(Full::new(body)).unwrap())
        .await
        .expect("request sent");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp
        .into_body()
        .collect()
        .await
        .expect("body read")
        .to_bytes();
    Reply {
        status,
        headers,
        body,
    }
}

/// Sends a streaming chat request over a raw socket and reads until `events` SSE events
/// arrived, then returns what was read (dropping the connection).
pub async fn read_some_events(addr: SocketAddr, key: &str, body: &Value, events: usize) -> String {
    let body = body.to_string();
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer sk-{key}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(body.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while String::from_utf8_lossy(&got).matches("data: ").count() < events {
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(
            n > 0,
            "connection closed early: {}",
            String::from_utf8_lossy(&got)
        );
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// The `data:` payloads of an SSE body, in order.
pub fn sse_data(body: &str) -> Vec<String> {
    body.split("\n\n")
        .filter_map(|ev| {
            ev.lines()
                .find_map(|l| l.strip_prefix("data: "))
                .map(str::to_owned)
        })
        .collect()
}

/// Concatenated `delta.content` of chat chunks.
pub fn sse_content(body: &str) -> String {
    sse_data(body)
        .iter()
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect()
}

/// A user, and an unlimited token `sk-{key}` of theirs.
pub fn user(id: i64, group: &str, quota: i64) -> Value {
    json!({"id": id, "username": format!("user{id}"), "status": 1, "group": group, "quota": quota, "role": 1})
}

pub fn token(id: i64, user_id: i64, key: &str) -> Value {
    json!({"id": id, "user_id": user_id, "name": format!("token{id}"), "key_hash": key_hash(key),
           "status": 1, "expired_time": -1, "unlimited_quota": true})
}

/// An enabled OpenAI channel.
pub fn channel(id: i64, base_url: &str, models: &[&str], priority: i64, weight: u32) -> Value {
    json!({"id": id, "type": 1, "name": format!("ch{id}"), "base_url": base_url, "key": format!("sk-upstream-{id}"),
           "models": models, "groups": ["default"], "priority": priority, "weight": weight, "status": 1})
}

/// A snapshot with user 1 (`sk-alice`, unlimited token, ample quota), the given channels,
/// and prices for `gpt-test` (ratio 1, completion 2) and `fixed-test` ($0.002 a call).
pub fn snapshot(channels: Vec<Value>) -> Value {
    json!({
        "version": 3,
        "users": [user(1, "default", 1_000_000_000)],
        "tokens": [token(1, 1, "alice")],
        "channels": channels,
        "pricing": {
            "model_ratio": {"gpt-test": 1.0, "embed-test": 0.5},
            "completion_ratio": {"gpt-test": 2.0},
            "model_price": {"fixed-test": 0.002},
            "group_ratio": {"default": 1.0, "vip": 1.5}
        },
        "options": {"retry_times": 3}
    })
}

/// A chat request body.
pub fn chat_body(model: &str, stream: bool) -> Value {
    json!({"model": model, "stream": stream, "messages": [{"role": "user", "content": "hello there"}]})
}

/// A memory sink that carries charges as the control-plane sink does.
pub struct CarriedSink {
    pub memory: Arc<MemorySink>,
    pub carry: Arc<gateway::billing::Carry>,
}

impl gateway::usage::UsageSink for CarriedSink {
    fn record(&self, r: gateway::usage::UsageRecord) {
        self.carry
            .charged(&r.request_id, r.user_id, r.token_id, r.quota);
        self.memory.record(r);
    }

    fn carry(&self) -> Option<Arc<gateway::billing::Carry>> {
        Some(self.carry.clone())
    }
}

/// The last request the mock saw.
pub fn last_seen(m: &mock_provider::MockHandle) -> mock_provider::SeenRequest {
    m.with_stats(|s| {
        s.requests
            .last()
            .cloned()
            .expect("a request reached the mock")
    })
}

/// A snapshot of `channels` with every model of them priced (ratio 1).
pub fn priced(channels: Vec<Value>) -> Value {
    let mut snap = snapshot(channels.clone());
    for c in &channels {
        for m in c["models"].as_array().unwrap() {
            snap["pricing"]["model_ratio"][m.as_str().unwrap()] = json!(1.0);
        }
    }
    snap
}
