//! Relaying one POST (chat/completions/embeddings): edge checks, reservation, the failover
//! loop over channels (decided before any byte reaches the client), settlement.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use pingora::proxy::Session;

use super::{Failure, Relay, Trace, respond, sse};
use crate::billing;
use crate::config::{ChannelEntry, Snapshot};
use crate::edge;
use crate::error::{GatewayError, RequestError, RouteError, UpstreamError};
use crate::routing;
use crate::upstream;
use adapters::openai::{self, Endpoint, ParsedRequest, Usage};
use adapters::provider;

/// Largest upstream answer read whole (non-stream JSON or an error body).
const MAX_ANSWER_BYTES: usize = 64 << 20;

/// Result of a relayed request that reached the client (fully or partly).
pub struct Outcome {
    pub usage: Usage,
    pub local_count: bool,
}

/// How one attempt failed.
pub enum AttemptError {
    /// The upstream failed before anything was sent: maybe try another channel.
    Upstream(UpstreamError),
    /// A gateway-side problem with this channel (not retried).
    Gateway(GatewayError),
    /// The client went away while the upstream was still thinking (nothing was produced).
    ClientGone(Box<pingora::Error>),
}

/// Resolves when the client closes its connection (or sends something it should not)
/// while the gateway waits on the upstream; pingora's own idle watch.
pub async fn client_left(session: &mut Session) -> Box<pingora::Error> {
    match session.read_body_or_idle(true).await {
        Err(e) => e,
        Ok(_) => pingora::Error::explain(
            pingora::ErrorType::ConnectionClosed,
            "client sent data while waiting",
        ),
    }
}

impl From<UpstreamError> for AttemptError {
    fn from(e: UpstreamError) -> Self {
        AttemptError::Upstream(e)
    }
}

fn endpoint_label(e: Endpoint) -> &'static str {
    match e {
        Endpoint::ChatCompletions => "chat_completions",
        Endpoint::Completions => "completions",
        Endpoint::Embeddings => "embeddings",
    }
}

async fn read_body(session: &mut Session, cap: usize) -> Result<Bytes, RequestError> {
    let declared = session
        .req_header()
        .headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<usize>().ok());
    if declared.is_some_and(|n| n > cap) {
        return Err(RequestError::BodyTooLarge { limit: cap });
    }
    let expects_continue = session
        .req_header()
        .headers
        .get(http::header::EXPECT)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    if expects_continue {
        // curl and others wait for this before sending a large body.
        session
            .write_continue_response()
            .await
            .map_err(|e| RequestError::ReadBody(e.to_string()))?;
    }
    let mut buf = BytesMut::with_capacity(declared.unwrap_or(0).min(cap));
    while let Some(chunk) = session
        .read_request_body()
        .await
        .map_err(|e| RequestError::ReadBody(e.to_string()))?
    {
        if buf.len() + chunk.len() > cap {
            return Err(RequestError::BodyTooLarge { limit: cap });
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

/// Reads a whole upstream body, at most `cap` bytes, each frame within `idle`.
pub async fn read_upstream(
    body: &mut Incoming,
    cap: usize,
    idle: Duration,
) -> Result<Bytes, UpstreamError> {
    let mut buf = BytesMut::new();
    loop {
        let frame = match tokio::time::timeout(idle, body.frame()).await {
            Err(_) => {
                return Err(UpstreamError::Timeout(
                    u64::try_from(idle.as_millis()).unwrap_or(u64::MAX),
                ));
            }
            Ok(None) => return Ok(buf.freeze()),
            Ok(Some(Err(e))) => return Err(UpstreamError::Broken(e.to_string())),
            Ok(Some(Ok(f))) => f,
        };
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > cap {
                return Err(UpstreamError::BadBody(format!(
                    "answer larger than {cap} bytes"
                )));
            }
            buf.extend_from_slice(&data);
        }
    }
}

/// The whole POST flow.
pub async fn relay(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    trace: &mut Trace,
    endpoint: Endpoint,
) -> Result<(), Failure> {
    trace.endpoint = endpoint_label(endpoint);
    let caller = r.authenticate(session, snap, trace)?;
    let ctype = session
        .req_header()
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    openai::check_content_type(ctype)?;
    let body = read_body(session, snap.options.max_body_bytes).await?;
    trace.body_read = true;
    let parsed = openai::parse_request(endpoint, body)?;
    trace.model = parsed.model.clone();
    trace.stream = parsed.stream;
    edge::check_model(&caller, &parsed.model)?;
    match caller.pinned_channel {
        Some(id) if !snap.channels.get(&id).is_some_and(|c| c.enabled) => {
            return Err(RouteError::PinnedUnavailable(id).into());
        }
        None if snap.tiers(&caller.group, &parsed.model).is_empty() => {
            return Err(RouteError::NoChannel {
                model: parsed.model.clone(),
                group: caller.group.clone(),
            }
            .into());
        }
        _ => {}
    }
    let price = billing::price_for(
        &snap.pricing,
        &parsed.model,
        &caller.user.group,
        &caller.group,
    )?;
    trace.price = Some(price);
    let opts = &snap.options;
    let pre = billing::pre_quota(
        &price,
        parsed.prompt_estimate,
        parsed.max_tokens,
        opts.pre_consumed_tokens,
        opts.quota_per_unit,
    );
    let reservation = match &r.state.carry {
        Some(carry) => billing::reserve_carried(&caller.user, &caller.token, pre, carry)?,
        None => billing::reserve(&caller.user, &caller.token, pre)?,
    };
    match attempts(r, session, snap, &caller, &parsed, trace).await {
        Ok(outcome) => {
            let q = billing::quota(&price, &outcome.usage, opts.quota_per_unit);
            reservation.settle(q);
            trace.quota = q;
            trace.usage = outcome.usage;
            trace.local_count = outcome.local_count;
            Ok(())
        }
        Err(failure) => {
            reservation.refund();
            Err(failure)
        }
    }
}

async fn attempts(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    caller: &edge::Caller,
    parsed: &ParsedRequest,
    trace: &mut Trace,
) -> Result<Outcome, Failure> {
    let max_attempts = if caller.pinned_channel.is_some() {
        1
    } else {
        snap.options.retry_times.saturating_add(1)
    };
    let mut tried = HashSet::new();
    let mut last: Option<UpstreamError> = None;
    for _ in 0..max_attempts {
        let channel = match caller.pinned_channel {
            Some(id) => snap.channels.get(&id).cloned(),
            None => {
                routing::next_channel(snap, &caller.group, &parsed.model, &tried, &mut rand::rng())
            }
        };
        let Some(channel) = channel else { break };
        tried.insert(channel.id);
        trace.tried.push(channel.id);
        trace.channel = Some(channel.clone());
        match attempt(r, session, snap, &channel, parsed, trace).await {
            Ok(outcome) => return Ok(outcome),
            Err(AttemptError::Gateway(e)) => return Err(Failure::Gateway(e)),
            Err(AttemptError::ClientGone(e)) => return Err(Failure::Client(e)),
            Err(AttemptError::Upstream(e)) => {
                let label = e.code();
                r.state
                    .metrics
                    .upstream_errors
                    .with_label_values(&[&channel.id.to_string(), label])
                    .inc();
                tracing::warn!(request_id = trace.request_id, channel_id = channel.id, code = label, error = %e, "upstream attempt failed");
                let retry = e.retryable(|s| snap.options.retryable.contains(s));
                last = Some(e);
                if !retry {
                    break;
                }
            }
        }
    }
    Err(match last {
        Some(e) => Failure::Gateway(e.into()),
        None => RouteError::NoChannel {
            model: parsed.model.clone(),
            group: caller.group.clone(),
        }
        .into(),
    })
}

async fn attempt(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    channel: &Arc<ChannelEntry>,
    parsed: &ParsedRequest,
    trace: &mut Trace,
) -> Result<Outcome, AttemptError> {
    let opts = &snap.options;
    let upstream_model =
        routing::map_model(channel, &parsed.model).map_err(|e| AttemptError::Gateway(e.into()))?;
    trace.upstream_model = upstream_model.clone();
    let url = provider::upstream_url(
        channel.spec,
        &channel.base_url,
        parsed.endpoint.path(),
        &upstream_model,
    );
    let force_usage = opts.force_stream_usage && channel.spec.stream_usage;
    let body = parsed
        .upstream_body(&upstream_model, force_usage)
        .map_err(|e| AttemptError::Gateway(e.into()))?;
    let request = upstream::build_request(channel, &url, body, parsed.stream)?;
    let started = Instant::now();
    let deadline = started + opts.first_byte_timeout;
    let response = tokio::select! {
        response = r.state.upstream.send(request, opts.first_byte_timeout) => response?,
        e = client_left(session) => return Err(AttemptError::ClientGone(e)),
    };
    let status = response.status().as_u16();
    let is_sse = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json")
        .to_owned();
    let mut body = response.into_body();
    if !(200..300).contains(&status) {
        let left = deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(100));
        let text = read_upstream(&mut body, 1 << 20, left)
            .await
            .unwrap_or_default();
        return Err(UpstreamError::Status { status, body: text }.into());
    }
    if parsed.stream && is_sse {
        return sse::relay_stream(session, body, parsed, trace, opts, started, deadline).await;
    }
    let answer = tokio::select! {
        answer = read_upstream(&mut body, MAX_ANSWER_BYTES, opts.stream_idle_timeout) => answer?,
        e = client_left(session) => return Err(AttemptError::ClientGone(e)),
    };
    trace.frt_ms = Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
    let value: serde_json::Value = serde_json::from_slice(&answer)
        .map_err(|e| UpstreamError::BadBody(format!("not JSON: {e}")))?;
    let (usage, local_count) = openai::answer_usage(parsed, &value);
    trace.status = status;
    if let Err(e) =
        respond::send_full(session, status, &content_type, &trace.request_id, answer).await
    {
        // The upstream did the work: bill it even though the client left.
        trace.client_gone = true;
        trace.error = Some(format!("client connection failed: {e}"));
    }
    Ok(Outcome { usage, local_count })
}
