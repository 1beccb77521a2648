//! Stand-in for an operator's fetching worker (`WorkerUrl`): `POST /__worker` with
//! `{"url": …, "key": …}` answers with the bytes at that URL when the key is the one set by
//! `PUT /__worker/key {"key": …}`. It reaches no network: a URL ending in `.txt` is a text
//! file, any other a 1×1 PNG ([`WORKER_PNG_BASE64`]). Fetched URLs are listed in the stats.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use http::StatusCode;
use hyper::Response;
use serde_json::{Value, json};

use crate::{MockBody, SharedStats, bytes_response, json_response, lock};

/// The image every fetched URL is (base64).
pub const WORKER_PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// Whether a path belongs to the worker stand-in.
pub(crate) fn owns(path: &str) -> bool {
    path == "/__worker" || path == "/__worker/key"
}

pub(crate) fn handle(
    method: &http::Method,
    path: &str,
    body: &Bytes,
    stats: &SharedStats,
) -> Response<MockBody> {
    let v: Value = serde_json::from_slice(body).unwrap_or_default();
    let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let mut st = lock(stats);
    match (method.as_str(), path) {
        ("PUT", "/__worker/key") => {
            st.worker_key = Some(field("key"));
            json_response(StatusCode::OK, &json!({"ok": true}))
        }
        ("POST", "/__worker") => {
            let expected = st.worker_key.clone().unwrap_or_default();
            if expected.is_empty() || field("key") != expected {
                return json_response(StatusCode::UNAUTHORIZED, &json!({"error": "invalid key"}));
            }
            let url = field("url");
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return json_response(StatusCode::BAD_REQUEST, &json!({"error": "invalid url"}));
            }
            st.worker_fetches.push(url.clone());
            if url.ends_with(".txt") {
                return bytes_response(
                    StatusCode::OK,
                    "text/plain",
                    Bytes::from_static(b"not an image"),
                );
            }
            let png = STANDARD.decode(WORKER_PNG_BASE64).unwrap_or_default();
            bytes_response(StatusCode::OK, "image/png", Bytes::from(png))
        }
        _ => json_response(StatusCode::NOT_FOUND, &json!({"error": "not_found"})),
    }
}
