//! A small HTTP client over loopback for the mock's dialect tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

/// One answer as the client saw it.
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: String,
    /// Whether the body ended with an error (the mock's mid-stream cut).
    pub cut: bool,
}

impl Answer {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// `event:` names of an SSE body, in order.
    pub fn events(&self) -> Vec<&str> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .collect()
    }

    /// Parsed `data:` payloads of an SSE body, in order.
    pub fn data(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap_or_else(|e| panic!("bad data ({e}): {d}")))
            .collect()
    }
}

pub async fn mock() -> mock_provider::MockHandle {
    mock_provider::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

/// Sends `method url` with `headers` and an optional JSON body; reads the body frame by
/// frame so a cut stream still returns what arrived.
pub async fn send(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Answer {
    match body {
        Some(b) => {
            send_raw(
                method,
                url,
                headers,
                Some(("application/json", &b.to_string())),
            )
            .await
        }
        None => send_raw(method, url, headers, None).await,
    }
}

/// Sends `method url` with `headers` and an optional body of the given content type.
pub async fn send_raw(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<(&str, &str)>,
) -> Answer {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<bytes::Bytes>>();
    let mut req = http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let payload = body.map(|(_, b)| b.to_owned()).unwrap_or_default();
    if let Some((ctype, _)) = body {
        req = req.header("content-type", ctype);
    }
    let resp = client
        .request(req.body(Full::new(payload.into())).unwrap())
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let content_type = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let mut incoming = resp.into_body();
    let (mut bytes, mut cut) = (Vec::new(), false);
    while let Some(frame) = incoming.frame().await {
        match frame {
            Ok(f) => {
                if let Some(d) = f.data_ref() {
                    bytes.extend_from_slice(d);
                }
            }
            Err(_) => {
                cut = true;
                break;
            }
        }
    }
    Answer {
        status,
        content_type,
        body: String::from_utf8_lossy(&bytes).into_owned(),
        cut,
    }
}

/// A 1×1 PNG, base64.
pub const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
