//! The upstream HTTP client: sends one attempt and applies the connect and time-to-first-byte
//! timeouts. Plain-HTTP calls without a proxy go over our own pooled connections in the
//! request's own task ([`direct`]; new connections opened by [`connect`], answers read by
//! [`answer`], connections kept by [`idle`]);
//! HTTPS calls and calls through a channel's own proxy (HTTP CONNECT or SOCKS5; one pooled
//! client per proxy, made on first use) go through hyper (rustls + ring, HTTP/1.1 and HTTP/2).

pub mod answer;
mod connect;
mod direct;
mod idle;

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, Response};
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::proxy::{SocksV5, Tunnel};
use hyper_util::rt::TokioExecutor;

use crate::config::{ChannelEntry, KeyChoice};
use crate::error::UpstreamError;
use adapters::provider::AuthStyle;
use adapters::shaping::{HeaderContext, HeaderEdits};

type Pooled<C> = Client<HttpsConnector<C>, Chunks>;

/// A client whose connections go through one proxy.
enum Proxied {
    /// `http://[user:pass@]host:port`: an HTTP CONNECT tunnel.
    Tunnel(Pooled<Tunnel<HttpConnector>>),
    /// `socks5://` (names resolved here) or `socks5h://` (by the proxy).
    Socks(Pooled<SocksV5<HttpConnector>>),
}

/// Most distinct proxies kept (each with its own pool); more are refused until a restart.
const MAX_PROXIES: usize = 256;

/// The upstream client of every channel: the direct path for plain HTTP, hyper (HTTP/1.1 and
/// HTTP/2) for the rest, and one hyper client per channel proxy.
pub struct Upstream {
    client: Pooled<HttpConnector>,
    direct: direct::Direct,
    connect_timeout: Duration,
    proxied: Mutex<HashMap<String, Arc<Proxied>>>,
}

fn tcp(connect_timeout: Duration) -> HttpConnector {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_connect_timeout(Some(connect_timeout));
    http.set_nodelay(true);
    http
}

fn pooled<C>(connector: C) -> Result<Pooled<C>, UpstreamError>
where
    C: tower_service::Service<http::Uri> + Clone + Send + Sync + 'static,
    C::Response: hyper::rt::Read
        + hyper::rt::Write
        + hyper_util::client::legacy::connect::Connection
        + Send
        + Unpin
        + 'static,
    C::Future: Send + Unpin + 'static,
    C::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_provider_and_webpki_roots(rustls_ring_provider())
        .map_err(|e| UpstreamError::Build(e.to_string()))?
        .https_or_http()
        .enable_http1()
        .enable_http2()
        .wrap_connector(connector);
    Ok(Client::builder(TokioExecutor::new())
        .pool_idle_timeout(Duration::from_secs(90))
        .build(https))
}

/// The proxy part of a URL as the connectors take it, and its credentials.
struct ProxyUrl {
    scheme: String,
    address: http::Uri,
    auth: Option<(String, String)>,
}

fn parse_proxy(url: &str) -> Result<ProxyUrl, UpstreamError> {
    // Never echo the URL: it may carry a password.
    let bad = |why: &str| UpstreamError::Build(format!("channel proxy: {why}"));
    let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("not a URL"))?;
    let scheme = scheme.to_ascii_lowercase();
    let rest = rest.trim_end_matches('/');
    let (auth, host) = match rest.rsplit_once('@') {
        Some((auth, host)) => {
            let (user, pass) = auth.split_once(':').unwrap_or((auth, ""));
            let decode = |s: &str| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8()
                    .map(|s| s.into_owned())
                    .map_err(|_| bad("credentials are not UTF-8"))
            };
            (Some((decode(user)?, decode(pass)?)), host)
        }
        None => (None, rest),
    };
    if host.is_empty() || host.contains('/') {
        return Err(bad("no host:port"));
    }
    let default_port = if scheme == "http" { 80 } else { 1080 };
    let host = if host
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        host.to_owned()
    } else {
        format!("{host}:{default_port}")
    };
    let address = format!("{scheme}://{host}")
        .parse::<http::Uri>()
        .map_err(|_| bad("bad host"))?;
    Ok(ProxyUrl {
        scheme,
        address,
        auth,
    })
}

impl Proxied {
    fn new(url: &str, connect_timeout: Duration) -> Result<Proxied, UpstreamError> {
        let p = parse_proxy(url)?;
        match p.scheme.as_str() {
            "http" => {
                let mut tunnel = Tunnel::new(p.address, tcp(connect_timeout));
                if let Some((user, pass)) = p.auth {
                    use base64::Engine;
                    let token =
                        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"));
                    let value = HeaderValue::from_str(&format!("Basic {token}")).map_err(|_| {
                        UpstreamError::Build("channel proxy: bad credentials".to_owned())
                    })?;
                    tunnel = tunnel.with_auth(value);
                }
                Ok(Proxied::Tunnel(pooled(tunnel)?))
            }
            "socks5" | "socks5h" => {
                let mut socks =
                    SocksV5::new(p.address, tcp(connect_timeout)).local_dns(p.scheme == "socks5");
                if let Some((user, pass)) = p.auth {
                    socks = socks.with_auth(user, pass);
                }
                Ok(Proxied::Socks(pooled(socks)?))
            }
            _ => Err(UpstreamError::Build(
                "channel proxy: the scheme must be http, socks5 or socks5h".to_owned(),
            )),
        }
    }
}

impl Upstream {
    /// Builds the client with a connect timeout.
    pub fn new(connect_timeout: Duration) -> Result<Self, UpstreamError> {
        Ok(Upstream {
            client: pooled(tcp(connect_timeout))?,
            direct: direct::Direct::new(connect_timeout),
            connect_timeout,
            proxied: Mutex::new(HashMap::new()),
        })
    }

    /// The client of `proxy`, made on first use.
    fn via(&self, proxy: &str) -> Result<Arc<Proxied>, UpstreamError> {
        let mut clients = match self.proxied.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(client) = clients.get(proxy) {
            return Ok(client.clone());
        }
        if clients.len() >= MAX_PROXIES {
            return Err(UpstreamError::Build(format!(
                "more than {MAX_PROXIES} distinct channel proxies"
            )));
        }
        let client = Arc::new(Proxied::new(proxy, self.connect_timeout)?);
        clients.insert(proxy.to_owned(), client.clone());
        Ok(client)
    }

    /// Sends a request; fails with `Timeout` when no response head arrives in `ttfb`.
    pub async fn send(
        &self,
        request: Request<Chunks>,
        ttfb: Duration,
    ) -> Result<Response<UpstreamBody>, UpstreamError> {
        self.send_via(None, request, ttfb).await
    }

    /// Sends a request through `proxy` (a channel's), or directly.
    pub async fn send_via(
        &self,
        proxy: Option<&str>,
        request: Request<Chunks>,
        ttfb: Duration,
    ) -> Result<Response<UpstreamBody>, UpstreamError> {
        let timed_out =
            || UpstreamError::Timeout(u64::try_from(ttfb.as_millis()).unwrap_or(u64::MAX));
        if proxy.is_none()
            && let Some(target) = direct::Target::of(&request)
        {
            let sent = self.direct.send(&target, request);
            return match tokio::time::timeout(ttfb, sent).await {
                Err(_) => Err(timed_out()),
                Ok(answer) => answer.map(|r| r.map(|body| UpstreamBody::Direct(Box::new(body)))),
            };
        }
        let proxied = proxy.map(|p| self.via(p)).transpose()?;
        let sent = async {
            match proxied.as_deref() {
                None => self.client.request(request).await,
                Some(Proxied::Tunnel(c)) => c.request(request).await,
                Some(Proxied::Socks(c)) => c.request(request).await,
            }
        };
        match tokio::time::timeout(ttfb, sent).await {
            Err(_) => Err(timed_out()),
            Ok(Err(e)) if e.is_connect() => Err(UpstreamError::Connect(error_chain(&e))),
            Ok(Err(e)) => Err(UpstreamError::Broken(error_chain(&e))),
            Ok(Ok(resp)) => Ok(resp.map(UpstreamBody::Pooled)),
        }
    }
}

/// The body of an upstream answer.
pub enum UpstreamBody {
    /// Decoded by the hyper client's connection task.
    Pooled(Incoming),
    /// Read from a pooled connection by the caller.
    Direct(Box<direct::DirectBody>),
}

impl UpstreamBody {
    /// The next piece of the body; `None` at its end.
    pub async fn chunk(&mut self) -> Option<Result<Bytes, UpstreamError>> {
        match self {
            UpstreamBody::Pooled(body) => loop {
                match body.frame().await? {
                    Err(e) => return Some(Err(UpstreamError::Broken(e.to_string()))),
                    Ok(frame) => {
                        // Trailers carry nothing a relay reads.
                        if let Ok(data) = frame.into_data() {
                            return Some(Ok(data));
                        }
                    }
                }
            },
            UpstreamBody::Direct(body) => body.chunk().await,
        }
    }

    /// Whether another task decodes the body, so that a piece not ready now may be after the
    /// caller yields once.
    pub fn decoded_elsewhere(&self) -> bool {
        matches!(self, UpstreamBody::Pooled(_))
    }
}

/// A request body sent as the pieces it is made of, one after another, with its exact length
/// declared: a client's body with one value replaced goes out as slices of the client's
/// bytes around the new value, never copied into one buffer.
#[derive(Debug, Default)]
pub struct Chunks {
    chunks: VecDeque<Bytes>,
    remaining: u64,
}

impl Chunks {
    pub fn new(chunks: impl IntoIterator<Item = Bytes>) -> Chunks {
        let chunks: VecDeque<Bytes> = chunks.into_iter().filter(|c| !c.is_empty()).collect();
        let remaining = chunks.iter().map(|c| c.len() as u64).sum();
        Chunks { chunks, remaining }
    }

    /// Bytes not yet sent.
    pub fn len(&self) -> u64 {
        self.remaining
    }

    pub fn is_empty(&self) -> bool {
        self.remaining == 0
    }

    /// The pieces not yet sent, in order.
    pub fn pieces(&self) -> impl Iterator<Item = &Bytes> {
        self.chunks.iter()
    }
}

impl From<Bytes> for Chunks {
    fn from(body: Bytes) -> Chunks {
        Chunks::new([body])
    }
}

impl From<Vec<Bytes>> for Chunks {
    fn from(chunks: Vec<Bytes>) -> Chunks {
        Chunks::new(chunks)
    }
}

impl Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        Poll::Ready(this.chunks.pop_front().map(|c| {
            this.remaining -= c.len() as u64;
            Ok(Frame::data(c))
        }))
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}

fn rustls_ring_provider() -> rustls::crypto::CryptoProvider {
    rustls::crypto::ring::default_provider()
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// Builds the POST for a channel: auth in the protocol's header, JSON content type, no
/// compression, `extra` headers (protocol version headers). The channel's own header rules
/// come after, with [`apply_header_rules`].
pub fn build_request(
    channel: &ChannelEntry,
    key: KeyChoice,
    url: &str,
    body: impl Into<Chunks>,
    stream: bool,
    extra: &[(&'static str, &str)],
) -> Result<Request<Chunks>, UpstreamError> {
    let bad = |what: &str| UpstreamError::Build(format!("channel {}: invalid {what}", channel.id));
    let mut headers = HeaderMap::new();
    let key = &channel.keys.secret(key.slot).0;
    // Cloud channels authenticate each request themselves (signatures, access tokens); an
    // empty key (a keyless local provider) sends no header.
    if channel.spec.auth != AuthStyle::PerRequest && !key.is_empty() {
        let (auth_name, auth_value) = channel.spec.auth.header(key);
        let auth = HeaderValue::from_str(&auth_value).map_err(|_| bad("key"))?;
        headers.insert(auth_name, auth);
    }
    for (name, value) in extra {
        headers.insert(*name, HeaderValue::from_str(value).map_err(|_| bad(name))?);
    }
    headers.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        http::header::ACCEPT_ENCODING,
        HeaderValue::from_static("identity"),
    );
    let accept = if stream {
        "text/event-stream"
    } else {
        "application/json"
    };
    headers.insert(http::header::ACCEPT, HeaderValue::from_static(accept));
    if !channel.organization.is_empty() {
        headers.insert(
            "openai-organization",
            HeaderValue::from_str(&channel.organization).map_err(|_| bad("organization"))?,
        );
    }
    let mut req = Request::builder()
        .method(Method::POST)
        .uri(url)
        .body(body.into())
        .map_err(|_| bad("base URL"))?;
    *req.headers_mut() = headers;
    Ok(req)
}

/// Applies the channel's header override (values with `{api_key}` and `{client_header:…}`,
/// pass-through rules) and a param override's header edits to an upstream request, after the
/// relay's own headers. A channel whose rules cannot be read, or whose values cannot be built
/// for this request, fails the attempt (another channel may serve it).
pub fn apply_header_rules(
    request: &mut Request<Chunks>,
    channel: &ChannelEntry,
    key: KeyChoice,
    edits: &HeaderEdits,
    client_headers: Option<&HeaderMap>,
) -> Result<(), UpstreamError> {
    let shaping = channel
        .shaping
        .as_ref()
        .map_err(|e| UpstreamError::Build(format!("channel {}: {e}", channel.id)))?;
    if !shaping.has_header_override() && edits.is_empty() {
        return Ok(());
    }
    let ctx = HeaderContext {
        api_key: &channel.keys.secret(key.slot).0,
        client_headers,
    };
    let headers = shaping
        .upstream_headers(edits, &ctx)
        .map_err(|e| UpstreamError::Build(format!("channel {}: {e}", channel.id)))?;
    headers.apply_to(request.headers_mut());
    Ok(())
}
