//! The upstream HTTP client (hyper, rustls + ring, pooled): sends one attempt and applies
//! the connect and time-to-first-byte timeouts.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use crate::config::{ChannelEntry, KeyChoice};
use crate::error::UpstreamError;

/// Pooled HTTP/1.1 and HTTP/2 client for every channel.
pub struct Upstream {
    client: Client<HttpsConnector<HttpConnector>, Chunks>,
}

impl Upstream {
    /// Builds the client with a connect timeout.
    pub fn new(connect_timeout: Duration) -> Result<Self, UpstreamError> {
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_connect_timeout(Some(connect_timeout));
        http.set_nodelay(true);
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls_ring_provider())
            .map_err(|e| UpstreamError::Build(e.to_string()))?
            .https_or_http()
            .enable_http1()
            .enable_http2()
            .wrap_connector(http);
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(90))
            .build(https);
        Ok(Upstream { client })
    }

    /// Sends a request; fails with `Timeout` when no response head arrives in `ttfb`.
    pub async fn send(
        &self,
        request: Request<Chunks>,
        ttfb: Duration,
    ) -> Result<Response<Incoming>, UpstreamError> {
        match tokio::time::timeout(ttfb, self.client.request(request)).await {
            Err(_) => Err(UpstreamError::Timeout(
                u64::try_from(ttfb.as_millis()).unwrap_or(u64::MAX),
            )),
            Ok(Err(e)) if e.is_connect() => Err(UpstreamError::Connect(error_chain(&e))),
            Ok(Err(e)) => Err(UpstreamError::Broken(error_chain(&e))),
            Ok(Ok(resp)) => Ok(resp),
        }
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
/// compression, `extra` headers (protocol version headers), then the channel's own headers.
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
    let (auth_name, auth_value) = channel.spec.auth.header(key);
    let auth = HeaderValue::from_str(&auth_value).map_err(|_| bad("key"))?;
    headers.insert(auth_name, auth);
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
    for (k, v) in &channel.headers {
        let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| bad("header name"))?;
        let value =
            HeaderValue::from_str(&v.replace("{api_key}", key)).map_err(|_| bad("header value"))?;
        headers.insert(name, value);
    }
    let mut req = Request::builder()
        .method(Method::POST)
        .uri(url)
        .body(body.into())
        .map_err(|_| bad("base URL"))?;
    *req.headers_mut() = headers;
    Ok(req)
}
