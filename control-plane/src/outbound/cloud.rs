//! Cloud channels (AWS Bedrock, Google Vertex AI) as the control plane calls them: the channel
//! test's chat request, built by `adapters::cloud` exactly as the gateway builds it (the key
//! gives the region, project and credentials), and the model lists.
//!
//! - Bedrock lists with `ListFoundationModels` (`GET /foundation-models?byOutputModality=TEXT`
//!   on the control-plane endpoint `https://bedrock.{region}.amazonaws.com`, or the channel's
//!   base URL when set), signed with SigV4 for service `bedrock` or sent with the API key.
//! - Vertex lists Google's publisher models (`GET {base}/v1beta1/publishers/google/models`,
//!   paged), keeping the Gemini and embedding models the gateway serves. Model Garden lists no
//!   Claude models there: admins add those (`claude-sonnet-4-5@20250929`, …) by hand.
//!
//! Service accounts exchange a fresh assertion for an access token on every call: a test or a
//! model list is rare enough that no cache is kept.

use std::time::Duration;

use adapters::provider::{self, Protocol, ProviderSpec, UrlStyle};
use adapters::{bedrock, cloud, vertex};
use serde_json::Value;

use super::providers::{ProviderError, Upstream, call_json};

/// Most pages of Vertex's model list read.
const MAX_PAGES: usize = 20;
/// Models asked for per page of Vertex's list.
const PAGE_SIZE: usize = 100;

/// Whether the channel's calls are built here.
pub(super) fn is_cloud(spec: &ProviderSpec) -> bool {
    matches!(spec.url, UrlStyle::Bedrock | UrlStyle::Vertex)
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

fn invalid(e: impl std::fmt::Display) -> ProviderError {
    ProviderError::Request(e.to_string())
}

/// The Vertex key of the channel, of the kind its setting names (`vertex_key_type`).
fn vertex_key(upstream: &Upstream<'_>) -> Result<vertex::VertexKey, ProviderError> {
    let setting: Value = serde_json::from_str(upstream.setting).unwrap_or(Value::Null);
    let kind = setting
        .get("vertex_key_type")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|k| !k.is_empty());
    vertex::VertexKey::parse(upstream.key, kind).map_err(invalid)
}

/// An access token of the service account, as an `Authorization` value. A refusal of the
/// token endpoint is a `Status` error with its status.
async fn access_token(
    client: &reqwest::Client,
    sa: &vertex::ServiceAccount,
    timeout: Duration,
) -> Result<String, ProviderError> {
    let request = vertex::token_request(sa, unix_now()).map_err(invalid)?;
    let response = client
        .post(&request.url)
        .timeout(timeout)
        .header(reqwest::header::CONTENT_TYPE, vertex::FORM_CONTENT_TYPE)
        .body(request.body)
        .send()
        .await
        .map_err(|e| ProviderError::Request(e.without_url().to_string()))?;
    let status = response.status();
    let body = response
        .bytes()
        .await
        .map_err(|e| ProviderError::Request(e.without_url().to_string()))?;
    match vertex::parse_token_response(&body) {
        Ok(token) if status.is_success() => Ok(token.header().1),
        Ok(_) => Err(ProviderError::Status {
            status: status.as_u16(),
            message: "the token endpoint answered an error".to_owned(),
        }),
        Err(e @ vertex::TokenError::Refused { .. }) => Err(ProviderError::Status {
            status: if status.is_success() {
                400
            } else {
                status.as_u16()
            },
            message: e.to_string(),
        }),
        Err(e) if !status.is_success() => Err(ProviderError::Status {
            status: status.as_u16(),
            message: e.to_string(),
        }),
        Err(e) => Err(ProviderError::Body(e.to_string())),
    }
}

/// Sends a chat `body` encoded for `protocol` to the cloud channel; its JSON answer.
pub(super) async fn chat(
    client: &reqwest::Client,
    upstream: &Upstream<'_>,
    spec: &ProviderSpec,
    protocol: Protocol,
    model: &str,
    body: Vec<u8>,
    timeout: Duration,
) -> Result<Value, ProviderError> {
    let call = cloud::Call {
        protocol,
        model,
        stream: false,
        body: body.into(),
    };
    let request = match spec.url {
        UrlStyle::Bedrock => {
            let key = bedrock::parse_key(upstream.key).map_err(invalid)?;
            cloud::bedrock_request(&key, upstream.base_url, call, unix_now())
        }
        UrlStyle::Vertex => {
            let key = vertex_key(upstream)?;
            let bearer = match &key {
                vertex::VertexKey::ServiceAccount(sa) => {
                    Some(access_token(client, sa, timeout).await?)
                }
                vertex::VertexKey::ApiKey(_) => None,
            };
            cloud::vertex_request(
                &key,
                bearer.as_deref(),
                upstream.other,
                upstream.base_url,
                call,
            )
        }
        _ => return Err(ProviderError::Unsupported(upstream.channel_type)),
    }
    .map_err(invalid)?;
    // `content-type` first: Bedrock signs it with this value.
    let mut builder = client
        .post(&request.url)
        .timeout(timeout)
        .header(reqwest::header::CONTENT_TYPE, "application/json");
    for (name, value) in &request.headers {
        builder = builder.header(*name, value);
    }
    call_json(builder.body(request.body)).await
}

/// The models a cloud channel lists.
pub(super) async fn models(
    client: &reqwest::Client,
    upstream: &Upstream<'_>,
    spec: &ProviderSpec,
    timeout: Duration,
) -> Result<Vec<String>, ProviderError> {
    match spec.url {
        UrlStyle::Bedrock => bedrock_models(client, upstream, timeout).await,
        UrlStyle::Vertex => vertex_models(client, upstream, timeout).await,
        _ => Err(ProviderError::Unsupported(upstream.channel_type)),
    }
}

/// The Bedrock control-plane endpoint of `region` (the channel's base URL when set).
fn bedrock_control_base(region: &str, base_url: &str) -> String {
    let over = base_url.trim().trim_end_matches('/');
    if over.is_empty() {
        format!("https://bedrock.{region}.amazonaws.com")
    } else {
        over.to_owned()
    }
}

async fn bedrock_models(
    client: &reqwest::Client,
    upstream: &Upstream<'_>,
    timeout: Duration,
) -> Result<Vec<String>, ProviderError> {
    let key = bedrock::parse_key(upstream.key).map_err(invalid)?;
    let url = format!(
        "{}/foundation-models?byOutputModality=TEXT",
        bedrock_control_base(&key.region, upstream.base_url)
    );
    let headers =
        bedrock::auth_headers(&key, "GET", &url, &[], b"", unix_now()).map_err(invalid)?;
    let mut builder = client.get(&url).timeout(timeout);
    for (name, value) in &headers {
        builder = builder.header(*name, value);
    }
    let answer = call_json(builder).await?;
    let list = answer
        .get("modelSummaries")
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::Body("no `modelSummaries` in the answer".into()))?;
    Ok(list
        .iter()
        .filter_map(|m| m.get("modelId").and_then(Value::as_str))
        .map(str::to_owned)
        .collect())
}

/// Whether the gateway serves a Google model through Vertex (chat and embeddings).
fn served_on_vertex(id: &str) -> bool {
    id.starts_with("gemini") || id.contains("embedding")
}

async fn vertex_models(
    client: &reqwest::Client,
    upstream: &Upstream<'_>,
    timeout: Duration,
) -> Result<Vec<String>, ProviderError> {
    let key = vertex_key(upstream)?;
    let (header, value, base) = match &key {
        vertex::VertexKey::ServiceAccount(sa) => {
            let region = vertex::region_for(upstream.other, "");
            (
                "authorization",
                access_token(client, sa, timeout).await?,
                vertex::base(&region, upstream.base_url),
            )
        }
        vertex::VertexKey::ApiKey(k) => (
            vertex::API_KEY_HEADER,
            k.clone(),
            vertex::base(vertex::GLOBAL, upstream.base_url),
        ),
    };
    let mut ids = Vec::new();
    let mut token = String::new();
    for _ in 0..MAX_PAGES {
        let mut url = format!("{base}/v1beta1/publishers/google/models?pageSize={PAGE_SIZE}");
        if !token.is_empty() {
            url.push_str("&pageToken=");
            url.push_str(&provider::path_segment(&token));
        }
        let answer = call_json(client.get(&url).timeout(timeout).header(header, &value)).await?;
        let page = answer
            .get("publisherModels")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        ids.extend(
            page.iter()
                .filter_map(|m| m.get("name").and_then(Value::as_str))
                .map(|name| name.rsplit('/').next().unwrap_or(name))
                .filter(|id| served_on_vertex(id))
                .map(str::to_owned),
        );
        match answer.get("nextPageToken").and_then(Value::as_str) {
            Some(next) if !next.is_empty() && next != token => token = next.to_owned(),
            _ => break,
        }
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bedrock_lists_on_the_control_plane_endpoint() {
        assert_eq!(
            bedrock_control_base("eu-west-3", ""),
            "https://bedrock.eu-west-3.amazonaws.com"
        );
        assert_eq!(
            bedrock_control_base("eu-west-3", "http://127.0.0.1:9/s/x/"),
            "http://127.0.0.1:9/s/x"
        );
    }

    #[test]
    fn vertex_keeps_the_models_the_gateway_serves() {
        assert!(served_on_vertex("gemini-2.5-flash"));
        assert!(served_on_vertex("text-embedding-005"));
        assert!(!served_on_vertex("imagen-4.0-generate-001"));
    }
}
