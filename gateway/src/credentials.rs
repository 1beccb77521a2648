//! Credentials that take a network call to get: Vertex AI access tokens, exchanged for a
//! service account's signed assertion at its `token_uri`. One cache entry per channel key,
//! holding the parsed key (parsing an RSA key is far too slow for every request) and its
//! token, reused until shortly before it expires; a refresh is made once for all the
//! requests that need it at the same time (they wait on the entry's lock).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderValue, Method, Request};
use sha2::{Digest, Sha256};

use crate::error::UpstreamError;
use crate::upstream::{Chunks, Upstream};
use adapters::vertex::{self, ServiceAccount, VertexKey};

/// How long a token endpoint may take to answer.
const TOKEN_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest token answer read.
const MAX_TOKEN_ANSWER: usize = 64 << 10;
/// Entries kept at most (channels × keys); past it the cache starts again empty.
const MAX_ENTRIES: usize = 4096;

/// A parsed Vertex key and the last token it got.
struct Entry {
    /// Hash of the key text and key type the entry was made from.
    fingerprint: [u8; 32],
    key: Result<Arc<VertexKey>, String>,
    token: tokio::sync::Mutex<Option<Fresh>>,
}

/// A token and when to stop using it.
struct Fresh {
    header: String,
    refresh_at: Instant,
}

/// The Vertex AI keys and tokens of every channel this gateway has called.
#[derive(Default)]
pub struct VertexTokens {
    entries: Mutex<HashMap<(i64, u32), Arc<Entry>>>,
}

fn fingerprint(key: &str, key_type: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(key_type.as_bytes());
    h.update([0]);
    h.update(key.as_bytes());
    h.finalize().into()
}

impl VertexTokens {
    fn entry(&self, channel: i64, key_index: u32, key: &str, key_type: &str) -> Arc<Entry> {
        let print = fingerprint(key, key_type);
        let mut entries = match self.entries.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(e) = entries.get(&(channel, key_index))
            && e.fingerprint == print
        {
            return e.clone();
        }
        if entries.len() >= MAX_ENTRIES {
            entries.clear();
        }
        let kind = (!key_type.is_empty()).then_some(key_type);
        let entry = Arc::new(Entry {
            fingerprint: print,
            key: VertexKey::parse(key, kind)
                .map(Arc::new)
                .map_err(|e| e.to_string()),
            token: tokio::sync::Mutex::new(None),
        });
        entries.insert((channel, key_index), entry.clone());
        entry
    }

    /// The parsed key of a channel key (`key_type`: the channel's `vertex_key_type`).
    pub fn key(
        &self,
        channel: i64,
        key_index: u32,
        key: &str,
        key_type: &str,
    ) -> Result<Arc<VertexKey>, UpstreamError> {
        self.entry(channel, key_index, key, key_type)
            .key
            .clone()
            .map_err(|e| UpstreamError::Build(format!("channel {channel}: Vertex key: {e}")))
    }

    /// An `Authorization` value for a service account of a channel: the cached token, or a
    /// new one (fetched once however many requests ask at the same time).
    pub async fn bearer(
        &self,
        upstream: &Upstream,
        channel: i64,
        key_index: u32,
        key: &str,
        key_type: &str,
        proxy: Option<&str>,
    ) -> Result<String, UpstreamError> {
        let entry = self.entry(channel, key_index, key, key_type);
        let sa = match entry.key.as_deref() {
            Ok(VertexKey::ServiceAccount(sa)) => sa,
            Ok(VertexKey::ApiKey(_)) => {
                return Err(UpstreamError::Build(
                    "a Vertex API key has no access token".to_owned(),
                ));
            }
            Err(e) => {
                return Err(UpstreamError::Build(format!(
                    "channel {channel}: Vertex key: {e}"
                )));
            }
        };
        let mut token = entry.token.lock().await;
        if let Some(fresh) = token.as_ref()
            && Instant::now() < fresh.refresh_at
        {
            return Ok(fresh.header.clone());
        }
        let fresh = fetch(upstream, sa, proxy).await?;
        let header = fresh.header.clone();
        *token = Some(fresh);
        Ok(header)
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Exchanges a fresh assertion of `sa` for an access token.
async fn fetch(
    upstream: &Upstream,
    sa: &ServiceAccount,
    proxy: Option<&str>,
) -> Result<Fresh, UpstreamError> {
    let asked = Instant::now();
    let form = vertex::token_request(sa, unix_now())
        .map_err(|e| UpstreamError::Build(format!("Vertex assertion: {e}")))?;
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(&form.url)
        .body(Chunks::from(Bytes::from(form.body)))
        .map_err(|_| UpstreamError::Build("Vertex token_uri is not a URL".to_owned()))?;
    let headers = request.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static(vertex::FORM_CONTENT_TYPE),
    );
    headers.insert(
        http::header::ACCEPT,
        HeaderValue::from_static("application/json"),
    );
    let response = upstream.send_via(proxy, request, TOKEN_TIMEOUT).await?;
    let status = response.status().as_u16();
    let mut body = response.into_body();
    let text = crate::relay::read_upstream(&mut body, MAX_TOKEN_ANSWER, TOKEN_TIMEOUT).await?;
    let token = match vertex::parse_token_response(&text) {
        Ok(token) if (200..300).contains(&status) => token,
        // The token endpoint's refusal is the channel's answer: a 401 of the provider.
        Ok(_) | Err(_) => {
            let why = match vertex::parse_token_response(&text) {
                Err(e) => e.to_string(),
                Ok(_) => format!("token endpoint answered {status}"),
            };
            return Err(UpstreamError::Status {
                status: 401,
                body: Bytes::from(
                    serde_json::json!({"error": {
                        "message": format!("Vertex AI token exchange failed: {why}"),
                        "type": "upstream_error",
                    }})
                    .to_string(),
                ),
            });
        }
    };
    let lifetime = Duration::from_secs(token.expires_in_secs);
    // Renewed before it runs out: a tenth of its life early, at most a minute.
    let margin = (lifetime / 10).min(Duration::from_secs(60));
    Ok(Fresh {
        header: token.header().1,
        refresh_at: asked + lifetime.saturating_sub(margin),
    })
}
