//! Mock upstream provider: OpenAI-compatible chat/completions/embeddings/models answers,
//! JSON and SSE, with scenarios (status, time to first byte, chunk delay, mid-stream cut,
//! malformed JSON, usage on/off) and call counting, for tests and benchmarks.

mod answer;
mod scenario;

pub use scenario::Scenario;

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{Request, Response, StatusCode, body::Incoming, service::service_fn};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde::Serialize;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Response body type of every mock answer.
pub type MockBody = BoxBody<Bytes, std::io::Error>;

/// What the mock saw of one request (at least the last `MAX_SEEN` requests are kept).
#[derive(Debug, Clone, Serialize)]
pub struct SeenRequest {
    pub tag: String,
    pub path: String,
    pub model: Option<String>,
    pub body_len: usize,
    pub authorization: Option<String>,
    pub stream: bool,
    pub include_usage: Option<bool>,
}

const MAX_SEEN: usize = 2000;

/// Counters shared by every connection of one mock.
#[derive(Debug, Default, Serialize)]
pub struct Stats {
    /// Calls per scenario tag.
    pub calls: HashMap<String, u64>,
    /// Streams whose client went away before the end.
    pub aborted_streams: u64,
    /// Streams sent to the end.
    pub completed_streams: u64,
    /// Requests whose client left before the first byte (during `ttfb_ms`).
    pub cancelled_requests: u64,
    /// Recent requests (at least the last `MAX_SEEN`), oldest first.
    pub requests: Vec<SeenRequest>,
}

/// Shared, lockable stats.
pub type SharedStats = Arc<Mutex<Stats>>;

/// A running mock provider.
pub struct MockHandle {
    /// The address it listens on.
    pub addr: SocketAddr,
    stats: SharedStats,
    stop: watch::Sender<bool>,
}

impl MockHandle {
    /// Base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Base URL that selects a scenario by path prefix.
    pub fn scenario_url(&self, spec: &str) -> String {
        format!("http://{}/s/{spec}", self.addr)
    }

    /// Calls seen for one tag.
    pub fn calls(&self, tag: &str) -> u64 {
        self.with_stats(|s| s.calls.get(tag).copied().unwrap_or(0))
    }

    /// Runs `f` over the stats under the lock.
    pub fn with_stats<T>(&self, f: impl FnOnce(&Stats) -> T) -> T {
        match self.stats.lock() {
            Ok(g) => f(&g),
            Err(p) => f(&p.into_inner()),
        }
    }

    /// Stops accepting connections.
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

impl Drop for MockHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Counts a request abandoned by its client while the mock waits before answering.
struct Waiting {
    stats: SharedStats,
    armed: bool,
}

impl Waiting {
    fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if self.armed {
            lock(&self.stats).cancelled_requests += 1;
        }
    }
}

/// Binds `listen` and serves on the current tokio runtime until the handle is dropped.
pub async fn start(listen: SocketAddr) -> std::io::Result<MockHandle> {
    let listener = TcpListener::bind(listen).await?;
    let addr = listener.local_addr()?;
    let stats: SharedStats = Arc::default();
    let (stop, mut stopped) = watch::channel(false);
    let st = stats.clone();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = stopped.changed() => break,
                accepted = listener.accept() => {
                    let Ok((tcp, _)) = accepted else { continue };
                    let _ = tcp.set_nodelay(true);
                    let st = st.clone();
                    tokio::spawn(async move {
                        let svc = service_fn(move |req| handle(req, st.clone()));
                        let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                            .serve_connection(TokioIo::new(tcp), svc)
                            .await;
                    });
                }
            }
        }
    });
    Ok(MockHandle { addr, stats, stop })
}

fn lock(stats: &SharedStats) -> std::sync::MutexGuard<'_, Stats> {
    match stats.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// A complete JSON response.
pub fn json_response(status: StatusCode, body: &serde_json::Value) -> Response<MockBody> {
    bytes_response(status, "application/json", Bytes::from(body.to_string()))
}

fn bytes_response(status: StatusCode, ctype: &str, body: Bytes) -> Response<MockBody> {
    let mut resp = Response::new(Full::new(body).map_err(|e: Infallible| match e {}).boxed());
    *resp.status_mut() = status;
    if let Ok(v) = http::HeaderValue::from_str(ctype) {
        resp.headers_mut().insert(http::header::CONTENT_TYPE, v);
    }
    resp
}

async fn handle(
    req: Request<Incoming>,
    stats: SharedStats,
) -> Result<Response<MockBody>, Infallible> {
    let path = req.uri().path().to_owned();
    let (spec, rest) = Scenario::split_path(&path);
    let header_spec = req
        .headers()
        .get("x-mock-scenario")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let scenario =
        Scenario::parse(&[spec.unwrap_or(""), header_spec.as_deref().unwrap_or("")].join(","));
    let rest = rest.to_owned();
    if rest == "/__mock/stats" {
        let body = serde_json::to_value(&*lock(&stats)).unwrap_or_default();
        return Ok(json_response(StatusCode::OK, &body));
    }
    let authorization = req
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let method = req.method().clone();
    let body = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return Ok(bytes_response(
                StatusCode::BAD_REQUEST,
                "text/plain",
                Bytes::new(),
            ));
        }
    };
    let parsed: Option<serde_json::Value> = serde_json::from_slice(&body).ok();
    let field = |k: &str| parsed.as_ref().and_then(|v| v.get(k));
    let seen = SeenRequest {
        tag: scenario.tag.clone(),
        path: rest.clone(),
        model: field("model").and_then(|m| m.as_str()).map(str::to_owned),
        body_len: body.len(),
        authorization,
        stream: field("stream").and_then(|s| s.as_bool()).unwrap_or(false),
        include_usage: field("stream_options")
            .and_then(|o| o.get("include_usage"))
            .and_then(|b| b.as_bool()),
    };
    {
        let mut st = lock(&stats);
        *st.calls.entry(scenario.tag.clone()).or_default() += 1;
        if st.requests.len() >= 2 * MAX_SEEN {
            // Trimmed in bulk: removing the oldest one by one shifts the whole list on every
            // request, which dominated the mock's CPU time under benchmark load.
            st.requests.drain(..MAX_SEEN);
        }
        st.requests.push(seen.clone());
    }
    if !scenario.ttfb.is_zero() {
        let waiting = Waiting {
            stats: stats.clone(),
            armed: true,
        };
        tokio::time::sleep(scenario.ttfb).await;
        waiting.disarm();
    }
    if scenario.status != 200 {
        return Ok(answer::error(&scenario));
    }
    let kind = if rest.ends_with("/chat/completions") {
        answer::Kind::Chat
    } else if rest.ends_with("/completions") {
        answer::Kind::Completion
    } else if rest.ends_with("/embeddings") {
        answer::Kind::Embedding
    } else if method == http::Method::GET && rest.ends_with("/models") {
        return Ok(answer::models());
    } else {
        let body = serde_json::json!({"error": {"message": format!("mock: no route {rest}"), "type": "invalid_request_error"}});
        return Ok(json_response(StatusCode::NOT_FOUND, &body));
    };
    let Some(parsed) = parsed else {
        let body = serde_json::json!({"error": {"message": "mock: body is not JSON", "type": "invalid_request_error"}});
        return Ok(json_response(StatusCode::BAD_REQUEST, &body));
    };
    let model = seen.model.unwrap_or_default();
    if seen.stream && kind != answer::Kind::Embedding {
        let include_usage = seen.include_usage.unwrap_or(false);
        Ok(answer::stream(
            kind,
            &scenario,
            &model,
            include_usage,
            stats,
        ))
    } else {
        Ok(answer::complete(kind, &scenario, &model, &parsed))
    }
}
