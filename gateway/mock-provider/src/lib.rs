//! Mock upstream provider: OpenAI-compatible chat/completions/embeddings/models answers, the
//! OpenAI media endpoints (images, audio, rerank, moderations; multipart uploads checked),
//! OpenAI Responses, Anthropic Messages, Google Gemini, AWS Bedrock (Claude invoke and
//! Converse, SigV4-verified), Google Vertex AI (Gemini and Claude models, with Google's
//! service-account token endpoint), Ollama's native API (NDJSON streams) and Cohere v2
//! (chat and rerank), JSON and streams, and the sign-in providers of the console (OAuth2,
//! OpenID Connect, the WeChat server), an operator's image-fetching worker, and the
//! asynchronous task APIs of a Midjourney-Proxy server and of Suno, with
//! scenarios (status, time to first byte, chunk delay, mid-stream cut, malformed JSON,
//! usage on/off, tool calls, thinking, cache usage), request checks like the real
//! services, and call counting, for tests and benchmarks.

mod answer;
mod anthropic;
mod anthropic_check;
mod anthropic_stream;
mod audio;
mod azure;
mod b64;
mod bedrock;
mod bedrock_stream;
mod cloud_models;
mod cohere;
mod form;
mod gemini;
mod gemini_check;
mod gemini_stream;
mod google_oauth;
mod images;
mod midjourney;
mod moderations;
mod ollama;
mod openai_check;
mod rerank;
mod responses;
mod responses_check;
mod responses_stream;
mod scenario;
mod sign_in;
mod sigv4_check;
mod sse;
mod suno;
mod vertex;
mod worker;

pub use audio::{SPEECH_BYTES, TRANSCRIPT, TRANSCRIPT_TOKENS};
pub use cloud_models::VERTEX_PAGE;
pub use google_oauth::{
    CLOUD_PLATFORM_SCOPE, DEFAULT_TOKEN_TTL_SECS, GOOGLE_TOKEN_AUDIENCES, TEST_CLIENT_EMAIL,
    TEST_KEY_ID, TEST_PROJECT_ID, TOKEN_PATH, test_service_account_json,
};
pub use images::IMAGE_OUTPUT_TOKENS;
pub use scenario::{CacheUsage, Scenario};
pub use sigv4_check::{MOCK_ACCESS_KEY, MOCK_SECRET};
pub use vertex::VERTEX_ANTHROPIC_VERSION;
pub use worker::WORKER_PNG_BASE64;

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{Request, Response, StatusCode, body::Incoming, service::service_fn};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde::Serialize;
use tokio::net::TcpSocket;
use tokio::sync::watch;

/// Response body type of every mock answer.
pub type MockBody = BoxBody<Bytes, std::io::Error>;

/// What the mock saw of one request (at least the last `MAX_SEEN` requests are kept).
#[derive(Debug, Clone, Serialize)]
pub struct SeenRequest {
    pub tag: String,
    /// Path without the `/s/{spec}` prefix and without the query.
    pub path: String,
    /// Query string, if any (Gemini's `alt=sse`, `key=`).
    pub query: Option<String>,
    /// `openai`, `anthropic`, `gemini`, `bedrock`, `vertex`, `ollama` or `cohere`, as chosen
    /// by the path.
    pub dialect: &'static str,
    /// Body `model` (OpenAI, Anthropic) or the model named in the path (Gemini, Vertex, Bedrock:
    /// percent-decoded).
    pub model: Option<String>,
    pub body_len: usize,
    pub authorization: Option<String>,
    /// The key as the dialect expects it: `authorization` (OpenAI), `x-api-key` (Anthropic),
    /// `x-goog-api-key` or the `key` query parameter (Gemini); Bedrock: `authorization` (an
    /// API key, `Bearer …`) or `sigv4` with the access key id of the signature; Vertex:
    /// `authorization` (the whole `Bearer …` value) or else an API key.
    pub credential: Option<Credential>,
    /// `anthropic-version` header; on Vertex the body's `anthropic_version`.
    pub anthropic_version: Option<String>,
    /// `anthropic-beta` header.
    pub anthropic_beta: Option<String>,
    /// Body `stream: true`, Gemini's `:streamGenerateContent` (on Vertex too), Bedrock's
    /// stream paths.
    pub stream: bool,
    pub include_usage: Option<bool>,
    /// W3C `traceparent` header (the caller's trace context).
    pub traceparent: Option<String>,
    /// The JSON body, with the `record=1` scenario only.
    pub body: Option<serde_json::Value>,
    /// Every header (names lower-case; values of visible ASCII), with `record=1` only.
    pub headers: Option<std::collections::BTreeMap<String, String>>,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// A multipart upload's `file` part (or first `image` part): its length and lower-case
    /// hex SHA-256, to check the bytes arrived unchanged.
    pub file_len: Option<usize>,
    pub file_sha256: Option<String>,
}

/// Where a request carried its key, and the key (test keys only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Credential {
    /// `authorization`, `x-api-key`, `x-goog-api-key`, `api-key` (Azure), `query:key` or
    /// `sigv4` (the access key id).
    pub carrier: String,
    pub value: String,
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
    /// Statuses forced on every call of a tag (an upstream that went down), until cleared.
    pub forced_status: HashMap<String, u16>,
    /// Keys the provider refuses with 401 (a key revoked at the provider), until restored.
    pub revoked_keys: std::collections::HashSet<String>,
    /// Requests to the token endpoint (`POST /token`), granted or not. They are not counted
    /// in `calls` nor listed in `requests`.
    pub token_calls: u64,
    /// Access tokens the token endpoint issued.
    pub tokens_issued: u64,
    /// Issued tokens and the accepted audience.
    #[serde(skip)]
    pub(crate) oauth: google_oauth::OAuthState,
    /// Requests to the Midjourney-Proxy stand-in, per path.
    pub mj_calls: HashMap<String, u64>,
    /// The body of the last Midjourney submission.
    pub mj_last_submit: Option<serde_json::Value>,
    /// The Midjourney-Proxy stand-in's tasks.
    #[serde(skip)]
    pub(crate) mj: midjourney::MjState,
    /// Requests to the Suno stand-in, per path.
    pub suno_calls: HashMap<String, u64>,
    /// The Suno stand-in's tasks.
    #[serde(skip)]
    pub(crate) suno: suno::SunoState,
    /// The key the fetching worker's stand-in accepts.
    #[serde(skip)]
    pub worker_key: Option<String>,
    /// URLs the fetching worker's stand-in fetched, in order.
    pub worker_fetches: Vec<String>,
    /// Requests to the sign-in providers' stand-in, per path.
    pub sign_in_calls: HashMap<String, u64>,
    /// The sign-in providers' stand-in: registered client, codes, tokens.
    #[serde(skip)]
    pub(crate) sign_in: sign_in::SignInState,
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

    /// Answers every call of `tag` with `status` from now on (`None`: as its scenario says
    /// again), as an upstream that goes down and comes back.
    pub fn force_status(&self, tag: &str, status: Option<u16>) {
        let mut st = lock(&self.stats);
        match status {
            Some(s) => st.forced_status.insert(tag.to_owned(), s),
            None => st.forced_status.remove(tag),
        };
    }

    /// Refuses every call made with `key` (in any of the providers' key headers or the `key`
    /// query parameter) with 401 from now on, or (`revoked: false`) accepts it again.
    pub fn revoke_key(&self, key: &str, revoked: bool) {
        let mut st = lock(&self.stats);
        if revoked {
            st.revoked_keys.insert(key.to_owned());
        } else {
            st.revoked_keys.remove(key);
        }
    }

    /// Requests the token endpoint received.
    pub fn token_calls(&self) -> u64 {
        self.with_stats(|s| s.token_calls)
    }

    /// Makes the token endpoint accept assertions for `audience` only (`None`: Google's
    /// audiences again, [`GOOGLE_TOKEN_AUDIENCES`]).
    pub fn set_token_audience(&self, audience: Option<&str>) {
        lock(&self.stats).oauth.audience = audience.map(str::to_owned);
    }

    /// Ends the life of every token issued so far, as if an hour had passed: Vertex calls
    /// carrying one are refused with 401 until a new one is fetched.
    pub fn expire_tokens(&self) {
        lock(&self.stats).oauth.expire_all();
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

/// Connections a busy mock leaves waiting to be accepted (the kernel caps it at
/// `net.core.somaxconn`). A provider does not drop connections at a few thousand a second; with
/// the default of 128, thousands of streams opened at once overflowed it, and every dropped SYN
/// cost its stream a 1 s retransmission in the benchmarks.
const ACCEPT_BACKLOG: u32 = 4096;

/// Binds `listen` and serves on the current tokio runtime until the handle is dropped.
pub async fn start(listen: SocketAddr) -> std::io::Result<MockHandle> {
    let socket = if listen.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(listen)?;
    let listener = socket.listen(ACCEPT_BACKLOG)?;
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

/// An OpenAI `invalid_request_error` of the media endpoints.
pub(crate) fn media_error(
    status: StatusCode,
    message: &str,
    param: Option<&str>,
) -> Response<MockBody> {
    json_response(
        status,
        &serde_json::json!({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": null}}),
    )
}

/// Answers the OpenAI media endpoints (`rest` ends with their path, so Azure deployment
/// paths are served too); `None` for other paths.
pub(crate) fn media_route(call: &Call, rest: &str) -> Option<Response<MockBody>> {
    Some(if rest.ends_with("/images/generations") {
        images::handle(call, false)
    } else if rest.ends_with("/images/edits") {
        images::handle(call, true)
    } else if rest.ends_with("/audio/speech") {
        audio::speech(call)
    } else if rest.ends_with("/audio/transcriptions") || rest.ends_with("/audio/translations") {
        audio::transcription(call)
    } else if rest.ends_with("/rerank") {
        rerank::handle(call)
    } else if rest.ends_with("/moderations") {
        moderations::handle(call)
    } else {
        return None;
    })
}

/// A body that is not valid JSON, sent with a JSON content type (`malformed=1`).
pub(crate) fn broken_json() -> Response<MockBody> {
    bytes_response(
        StatusCode::OK,
        "application/json",
        Bytes::from_static(b"{\"id\": \"broken"),
    )
}

/// Which API family a path belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    OpenAi,
    Anthropic,
    Gemini,
    Bedrock,
    Vertex,
    Ollama,
    Cohere,
    /// Google's OAuth token endpoint.
    Token,
}

impl Dialect {
    fn of(path: &str) -> Dialect {
        if bedrock::route(path).is_some() || path == cloud_models::FOUNDATION_MODELS_PATH {
            Dialect::Bedrock
        } else if path == TOKEN_PATH {
            Dialect::Token
        } else if vertex::route(path).is_some() || path == cloud_models::PUBLISHER_MODELS_PATH {
            Dialect::Vertex
        } else if ollama::serves(path) {
            Dialect::Ollama
        } else if cohere::serves(path) {
            Dialect::Cohere
        } else if anthropic::serves(path) {
            Dialect::Anthropic
        } else if gemini::route(path).is_some() {
            Dialect::Gemini
        } else {
            Dialect::OpenAi
        }
    }

    fn name(self) -> &'static str {
        match self {
            Dialect::OpenAi => "openai",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Bedrock => "bedrock",
            Dialect::Vertex => "vertex",
            Dialect::Ollama => "ollama",
            Dialect::Cohere => "cohere",
            Dialect::Token => "google-oauth",
        }
    }
}

/// One request as the dialect handlers see it.
pub(crate) struct Call {
    pub scenario: Scenario,
    /// Path without the scenario prefix and the query.
    pub path: String,
    /// The path as received, scenario prefix included (what a SigV4 signature covers).
    pub raw_path: String,
    /// The request URI's authority, when it has one (HTTP/2).
    pub authority: Option<String>,
    pub method: http::Method,
    pub query: Option<String>,
    pub headers: http::HeaderMap,
    /// The body, when it is JSON.
    pub json: Option<serde_json::Value>,
    /// The body's bytes.
    pub body: Bytes,
    /// The parsed form of a `multipart/form-data` body (or why it does not parse).
    pub form: Option<Result<form::Form, String>>,
    pub stats: SharedStats,
}

impl Call {
    /// A header's value, when present and visible ASCII.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// A body field.
    pub fn field(&self, key: &str) -> Option<&serde_json::Value> {
        self.json.as_ref().and_then(|v| v.get(key))
    }

    /// A query parameter (raw, not percent-decoded).
    pub fn query_param(&self, key: &str) -> Option<&str> {
        self.query.as_deref().and_then(|q| {
            q.split('&')
                .filter_map(|p| p.split_once('=').or(Some((p, ""))))
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v)
        })
    }

    fn seen(&self, dialect: Dialect, body_len: usize) -> SeenRequest {
        let owned = |v: Option<&str>| v.map(str::to_owned);
        let credential = |carrier: &str, value: Option<&str>| {
            value.map(|v| Credential {
                carrier: carrier.to_owned(),
                value: v.to_owned(),
            })
        };
        let mut anthropic_version = owned(self.header("anthropic-version"));
        let (model, stream, credential) = match dialect {
            Dialect::Vertex => {
                let route = vertex::route(&self.path);
                let streamed = route.is_some_and(|r| r.method == "streamGenerateContent")
                    || self.field("stream").and_then(|s| s.as_bool()) == Some(true);
                anthropic_version = owned(self.field("anthropic_version").and_then(|v| v.as_str()));
                (
                    route.map(|r| vertex::decode_segment(r.model)),
                    streamed,
                    credential("authorization", self.header("authorization"))
                        .or_else(|| credential("x-goog-api-key", self.header("x-goog-api-key")))
                        .or_else(|| credential("query:key", self.query_param("key"))),
                )
            }
            Dialect::Gemini => (
                gemini::route(&self.path).and_then(|r| r.model().map(str::to_owned)),
                self.path.ends_with(":streamGenerateContent"),
                credential("x-goog-api-key", self.header("x-goog-api-key"))
                    .or_else(|| credential("query:key", self.query_param("key"))),
            ),
            Dialect::OpenAi if azure::serves(&self.path) => (
                azure::deployment(&self.path)
                    .map(str::to_owned)
                    .or_else(|| owned(self.field("model").and_then(|m| m.as_str()))),
                self.field("stream")
                    .and_then(|s| s.as_bool())
                    .unwrap_or(false),
                credential("api-key", self.header("api-key")),
            ),
            Dialect::Bedrock => (
                bedrock::model_of(&self.path),
                bedrock::route(&self.path).is_some_and(|(_, a)| a.is_stream()),
                self.header("authorization").and_then(|a| {
                    match a.strip_prefix("AWS4-HMAC-SHA256 Credential=") {
                        Some(rest) => credential("sigv4", rest.split('/').next()),
                        None => credential("authorization", Some(a)),
                    }
                }),
            ),
            Dialect::Ollama => (
                owned(self.field("model").and_then(|m| m.as_str())),
                self.path == "/api/chat" && ollama::streamed(self.json.as_ref()),
                credential("authorization", self.header("authorization")),
            ),
            Dialect::Anthropic | Dialect::OpenAi | Dialect::Cohere | Dialect::Token => (
                owned(self.field("model").and_then(|m| m.as_str())).or_else(|| {
                    let form = self.form.as_ref()?.as_ref().ok()?;
                    form.text("model").map(str::to_owned)
                }),
                self.field("stream")
                    .and_then(|s| s.as_bool())
                    .unwrap_or(false),
                if dialect == Dialect::Anthropic {
                    credential("x-api-key", self.header("x-api-key"))
                } else {
                    credential("authorization", self.header("authorization"))
                },
            ),
        };
        let file = self
            .form
            .as_ref()
            .and_then(|f| f.as_ref().ok())
            .and_then(|f| {
                f.part("file")
                    .or_else(|| f.parts.iter().find(|p| p.name.starts_with("image")))
            });
        SeenRequest {
            content_type: owned(self.header("content-type")),
            file_len: file.map(|p| p.data.len()),
            file_sha256: file.map(|p| {
                use sha2::Digest;
                sha2::Sha256::digest(&p.data)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect()
            }),
            tag: self.scenario.tag.clone(),
            path: self.path.clone(),
            query: self.query.clone(),
            dialect: dialect.name(),
            model,
            body_len,
            authorization: owned(self.header("authorization")),
            credential,
            anthropic_version,
            anthropic_beta: owned(self.header("anthropic-beta")),
            traceparent: owned(self.header("traceparent")),
            body: self.scenario.record.then(|| self.json.clone()).flatten(),
            headers: self.scenario.record.then(|| {
                self.headers
                    .iter()
                    .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
                    .collect()
            }),
            stream,
            include_usage: self
                .field("stream_options")
                .and_then(|o| o.get("include_usage"))
                .and_then(|b| b.as_bool()),
        }
    }
}

/// Whether the request carries a key the test revoked.
fn uses_revoked_key(stats: &SharedStats, headers: &http::HeaderMap, query: Option<&str>) -> bool {
    let st = lock(stats);
    if st.revoked_keys.is_empty() {
        return false;
    }
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let from_query = query.and_then(|q| q.split('&').find_map(|p| p.strip_prefix("key=")));
    [
        header("authorization").map(|v| v.strip_prefix("Bearer ").unwrap_or(v)),
        header("x-api-key"),
        header("x-goog-api-key"),
        header("api-key"),
        from_query,
    ]
    .into_iter()
    .flatten()
    .any(|k| st.revoked_keys.contains(k))
}

async fn handle(
    req: Request<Incoming>,
    stats: SharedStats,
) -> Result<Response<MockBody>, Infallible> {
    let (spec, rest) = Scenario::split_path(req.uri().path());
    let header_spec = req
        .headers()
        .get("x-mock-scenario")
        .and_then(|v| v.to_str().ok());
    let mut scenario = Scenario::parse(&[spec.unwrap_or(""), header_spec.unwrap_or("")].join(","));
    let path = rest.to_owned();
    let raw_path = req.uri().path().to_owned();
    let authority = req.uri().authority().map(|a| a.as_str().to_owned());
    if path == "/__mock/stats" {
        let body = serde_json::to_value(&*lock(&stats)).unwrap_or_default();
        return Ok(json_response(StatusCode::OK, &body));
    }
    if let Some(forced) = lock(&stats).forced_status.get(&scenario.tag) {
        scenario.status = *forced;
    }
    let query = req.uri().query().map(str::to_owned);
    if uses_revoked_key(&stats, req.headers(), query.as_deref()) {
        scenario.status = 401;
    }
    let (parts, body) = req.into_parts();
    let body = match body.collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return Ok(bytes_response(
                StatusCode::BAD_REQUEST,
                "text/plain",
                Bytes::new(),
            ));
        }
    };
    if midjourney::owns(&path) {
        return Ok(midjourney::handle(
            &parts.method,
            &path,
            &parts.headers,
            &body,
            &stats,
        ));
    }
    if suno::owns(&path) {
        return Ok(suno::handle(
            &parts.method,
            &path,
            &parts.headers,
            &body,
            &stats,
        ));
    }
    if worker::owns(&path) {
        return Ok(worker::handle(&parts.method, &path, &body, &stats));
    }
    if sign_in::owns(&path) {
        *lock(&stats).sign_in_calls.entry(path.clone()).or_default() += 1;
        return Ok(sign_in::handle(
            &parts.method,
            &path,
            query.as_deref(),
            &parts.headers,
            &body,
            &stats,
        ));
    }
    let dialect = Dialect::of(&path);
    if dialect == Dialect::Token {
        lock(&stats).token_calls += 1;
        if !scenario.ttfb.is_zero() {
            tokio::time::sleep(scenario.ttfb).await;
        }
        return Ok(google_oauth::token(&scenario, &parts.method, &body, &stats));
    }
    let form = parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(form::boundary_of)
        .map(|b| form::parse(&body, &b));
    let call = Call {
        form,
        scenario,
        path,
        raw_path,
        authority,
        method: parts.method,
        query,
        headers: parts.headers,
        json: serde_json::from_slice(&body).ok(),
        body: body.clone(),
        stats: stats.clone(),
    };
    let seen = call.seen(dialect, body.len());
    {
        let mut st = lock(&stats);
        *st.calls.entry(call.scenario.tag.clone()).or_default() += 1;
        if st.requests.len() >= 2 * MAX_SEEN {
            // Trimmed in bulk: removing the oldest one by one shifts the whole list on every
            // request, which dominated the mock's CPU time under benchmark load.
            st.requests.drain(..MAX_SEEN);
        }
        st.requests.push(seen);
    }
    if !call.scenario.ttfb.is_zero() {
        let waiting = Waiting {
            stats: stats.clone(),
            armed: true,
        };
        tokio::time::sleep(call.scenario.ttfb).await;
        waiting.disarm();
    }
    Ok(match dialect {
        Dialect::OpenAi => answer::handle(&call),
        Dialect::Anthropic => anthropic::handle(&call),
        Dialect::Gemini => gemini::handle(&call),
        Dialect::Bedrock => bedrock::handle(&call, unix_now()),
        Dialect::Vertex => vertex::handle(&call),
        Dialect::Ollama => ollama::handle(&call),
        Dialect::Cohere => cohere::handle(&call),
        // Answered above.
        Dialect::Token => gemini::error(404, "mock: token endpoint"),
    })
}

/// Seconds since the epoch by the system clock (0 if it is before 1970).
fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
