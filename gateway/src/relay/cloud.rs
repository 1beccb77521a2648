//! Calls to cloud channels (AWS Bedrock, Google Vertex AI): the request comes from
//! [`adapters::cloud`], given the parsed key and, for a Vertex service account, an access
//! token from [`crate::credentials`].

use bytes::Bytes;

use crate::config::{ChannelEntry, KeyChoice};
use crate::error::UpstreamError;
use crate::state::GatewayState;
use adapters::bedrock::{self, StreamKind};
use adapters::cloud::{self as requests, CloudRequest};
use adapters::provider::{Protocol, UrlStyle};
use adapters::vertex::VertexKey;

/// How the channel's stream answers are framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Server-sent events, as the protocol's own decoder reads them.
    Sse,
    /// AWS event-stream messages, turned into SSE before decoding.
    EventStream(StreamKind),
    /// Newline-delimited JSON (Ollama), turned into SSE before decoding.
    Ndjson,
}

impl Framing {
    pub fn of(call: &CloudRequest) -> Framing {
        call.event_stream.map_or(Framing::Sse, Framing::EventStream)
    }
}

/// Whether the channel is one whose calls are made here.
pub fn is_cloud(channel: &ChannelEntry) -> bool {
    matches!(channel.spec.url, UrlStyle::Bedrock | UrlStyle::Vertex)
}

fn build(channel: &ChannelEntry, what: impl std::fmt::Display) -> UpstreamError {
    UpstreamError::Build(format!("channel {}: {what}", channel.id))
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The call of `body` (in `protocol`, for upstream `model`) on a cloud channel.
pub async fn prepare(
    state: &GatewayState,
    channel: &ChannelEntry,
    key: KeyChoice,
    protocol: Protocol,
    model: &str,
    stream: bool,
    body: Bytes,
) -> Result<CloudRequest, UpstreamError> {
    let secret = &channel.keys.secret(key.slot).0;
    let call = requests::Call {
        protocol,
        model,
        stream,
        body,
    };
    match channel.spec.url {
        UrlStyle::Bedrock => {
            let parsed = bedrock::parse_key(secret).map_err(|e| build(channel, e))?;
            requests::bedrock_request(&parsed, &channel.base_url, call, unix_now())
                .map_err(|e| build(channel, e))
        }
        UrlStyle::Vertex => {
            let key_type = channel.setting.vertex_key_type.as_str();
            let parsed = state
                .vertex_tokens
                .key(channel.id, key.index, secret, key_type)?;
            let bearer = match parsed.as_ref() {
                VertexKey::ServiceAccount(_) => Some(
                    state
                        .vertex_tokens
                        .bearer(
                            &state.upstream,
                            channel.id,
                            key.index,
                            secret,
                            key_type,
                            channel.setting.proxy.as_deref(),
                        )
                        .await?,
                ),
                VertexKey::ApiKey(_) => None,
            };
            requests::vertex_request(
                &parsed,
                bearer.as_deref(),
                &channel.other,
                &channel.base_url,
                call,
            )
            .map_err(|e| build(channel, e))
        }
        _ => Err(build(channel, "not a cloud channel")),
    }
}
