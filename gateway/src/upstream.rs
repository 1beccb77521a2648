//! The upstream HTTP client (hyper, rustls + ring, pooled): sends one attempt and applies
//! the connect and time-to-first-byte timeouts.

use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use crate::config::ChannelEntry;
use crate::error::UpstreamError;

/// Pooled HTTP/1.1 and HTTP/2 client for every channel.
pub struct Upstream {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
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
        request: Request<Full<Bytes>>,
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

/// Builds the POST for a channel: auth, JSON content type, no compression, channel headers.
pub fn build_request(
    channel: &ChannelEntry,
    url: &str,
    body: Bytes,
    stream: bool,
) -> Result<Request<Full<Bytes>>, UpstreamError> {
    let bad = |what: &str| UpstreamError::Build(format!("channel {}: invalid {what}", channel.id));
    let mut headers = HeaderMap::new();
    let key = &channel.keys.pick().0;
    let auth = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| bad("key"))?;
    headers.insert(http::header::AUTHORIZATION, auth);
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
        .body(Full::new(body))
        .map_err(|_| bad("base URL"))?;
    *req.headers_mut() = headers;
    Ok(req)
}
