//! The OpenAI media endpoints: images (generations, edits), audio (speech, transcriptions,
//! translations), rerank and moderations. Each goes through the chat path's edge checks, rate
//! limits, reservation, failover over OpenAI-protocol channels (Azure included), settlement
//! and usage record; the body is read once (the gateway's size cap) and sent upstream as
//! slices of that one buffer. Billing is in [`price`]. Also the OpenAI paths answered 501.

mod answer;
mod duration;
mod multipart;
mod price;
mod request;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use pingora::proxy::Session;
use serde_json::Value;

use super::post::{self, AttemptError, Outcome};
use super::{Failure, Relay, Trace, admission, body, overrides, respond};
use crate::billing;
use crate::config::{ChannelEntry, Snapshot};
use crate::edge;
use crate::error::{GatewayError, RequestError, RouteError, UpstreamError};
use crate::routing;
use crate::upstream;
use adapters::provider::{self, Protocol};
use adapters::shaping::{BodyDialect, HeaderEdits};
use price::Measure;
use request::MediaJob;

/// A media endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    ImageGenerations,
    ImageEdits,
    Speech,
    Transcriptions,
    Translations,
    Rerank,
    Moderations,
}

impl MediaKind {
    /// The endpoint of a POST path.
    pub fn from_path(path: &str) -> Option<MediaKind> {
        Some(match path {
            "/v1/images/generations" => MediaKind::ImageGenerations,
            "/v1/images/edits" => MediaKind::ImageEdits,
            "/v1/audio/speech" => MediaKind::Speech,
            "/v1/audio/transcriptions" => MediaKind::Transcriptions,
            "/v1/audio/translations" => MediaKind::Translations,
            "/v1/rerank" => MediaKind::Rerank,
            "/v1/moderations" => MediaKind::Moderations,
            _ => return None,
        })
    }

    /// The upstream path (mapped to Azure's deployment paths by `provider::upstream_url`).
    pub fn path(self) -> &'static str {
        match self {
            MediaKind::ImageGenerations => "/v1/images/generations",
            MediaKind::ImageEdits => "/v1/images/edits",
            MediaKind::Speech => "/v1/audio/speech",
            MediaKind::Transcriptions => "/v1/audio/transcriptions",
            MediaKind::Translations => "/v1/audio/translations",
            MediaKind::Rerank => "/v1/rerank",
            MediaKind::Moderations => "/v1/moderations",
        }
    }

    /// The metrics and log label.
    pub fn label(self) -> &'static str {
        match self {
            MediaKind::ImageGenerations => "image_generations",
            MediaKind::ImageEdits => "image_edits",
            MediaKind::Speech => "audio_speech",
            MediaKind::Transcriptions => "audio_transcriptions",
            MediaKind::Translations => "audio_translations",
            MediaKind::Rerank => "rerank",
            MediaKind::Moderations => "moderations",
        }
    }

    /// The model used when the request names none (reference §1.1, §2 step 4).
    pub fn default_model(self) -> Option<&'static str> {
        match self {
            MediaKind::ImageGenerations | MediaKind::ImageEdits => Some("dall-e"),
            MediaKind::Speech => Some("tts-1"),
            MediaKind::Transcriptions | MediaKind::Translations => Some("whisper-1"),
            MediaKind::Moderations => Some("text-moderation-stable"),
            MediaKind::Rerank => None,
        }
    }

    /// Whether the endpoint takes `multipart/form-data` (image edits take JSON too).
    fn takes_form(self) -> bool {
        matches!(
            self,
            MediaKind::Transcriptions | MediaKind::Translations | MediaKind::ImageEdits
        )
    }
}

/// OpenAI paths new-api registers but does not implement (reference §1.1): they answer 501.
pub fn not_implemented(method: &http::Method, path: &str) -> bool {
    let under = |prefix: &str| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    (*method == http::Method::POST && path == "/v1/images/variations")
        || under("/v1/files")
        || under("/v1/fine-tunes")
        || (*method == http::Method::DELETE && path.starts_with("/v1/models/"))
}

/// new-api's answer to an unimplemented path.
const NOT_IMPLEMENTED_BODY: &str = r#"{"error":{"message":"API not implemented","type":"new_api_error","code":"api_not_implemented"}}"#;

/// Answers 501 (after the token checks, as new-api does).
pub async fn answer_not_implemented(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    trace: &mut Trace,
) -> Result<(), Failure> {
    r.authenticate(session, snap, trace)?;
    // Nothing of the body is needed: a small one is drained, a larger one closes the
    // connection after the answer.
    let small = session
        .req_header()
        .headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<usize>().ok())
        .is_some_and(|n| n <= 64 << 10);
    let bodiless = !session
        .req_header()
        .headers
        .contains_key(http::header::TRANSFER_ENCODING)
        && !session
            .req_header()
            .headers
            .contains_key(http::header::CONTENT_LENGTH);
    if bodiless || (small && session.drain_request_body().await.is_ok()) {
        trace.body_read = true;
    } else {
        session.set_keepalive(None);
    }
    trace.status = 501;
    trace.error_code = Some("api_not_implemented");
    respond::send_full(
        session,
        501,
        "application/json",
        trace,
        Bytes::from_static(NOT_IMPLEMENTED_BODY.as_bytes()),
    )
    .await
    .map_err(Failure::Client)
}

/// Reads and decodes the body of a `kind` request: multipart where the endpoint takes it,
/// JSON otherwise (with the JSON shape limits).
async fn read_job(
    session: &mut Session,
    snap: &Snapshot,
    trace: &mut Trace,
    kind: MediaKind,
) -> Result<MediaJob, Failure> {
    let ctype = session
        .req_header()
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    if let Some(boundary) = multipart::boundary(&ctype).filter(|_| kind.takes_form()) {
        let body = body::read(session, snap.options.max_body_bytes).await?;
        trace.body_read = true;
        return Ok(MediaJob::from_form(kind, body, &boundary)?);
    }
    if matches!(kind, MediaKind::Transcriptions | MediaKind::Translations) {
        return Err(RequestError::InvalidRequest(format!(
            "unsupported content type {ctype:?}, expected multipart/form-data"
        ))
        .into());
    }
    let body = post::read_json_body(session, snap, trace).await?;
    Ok(MediaJob::from_json(kind, body)?)
}

/// The whole flow of a media request.
pub async fn relay(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    trace: &mut Trace,
    kind: MediaKind,
) -> Result<(), Failure> {
    if snap.options.block_browser_extension
        && edge::from_browser_extension(&session.req_header().headers)
    {
        return Err(GatewayError::from(crate::error::AuthError::BrowserExtension).into());
    }
    let caller = r.authenticate(session, snap, trace)?;
    let job = read_job(session, snap, trace, kind).await?;
    if let request::Body::Json(raw) = &job.body {
        edge::content::check_prompt(
            snap.options.sensitive_check_prompt,
            &snap.options.sensitive_words,
            raw,
        )?;
    }
    let model = job.model.clone();
    trace.model = model.clone();
    edge::check_model(&caller, &model)?;
    admission::check_routable(snap, &caller, &model)?;
    let price = admission::price(snap, &caller, &model)?;
    trace.price = Some(price);
    let opts = &snap.options;
    let admitted = admission::admit(r, snap, &caller, &model, trace).await?;
    let pre = pre_quota(&price, &job, opts.pre_consumed_tokens, opts.quota_per_unit);
    let reservation = admission::reserve(r, snap, &caller, pre, trace).await?;
    let mut measure = job.estimate;
    match attempts(r, session, snap, &caller, &job, trace, &mut measure).await {
        Ok(outcome) => {
            let used = outcome.usage.prompt_tokens + outcome.usage.completion_tokens;
            admitted
                .admission
                .succeeded_with_tokens(u64::try_from(used).unwrap_or(0));
            let q = price::quota(&price, &measure, opts.quota_per_unit);
            reservation.settle(q);
            trace.quota = q;
            trace.usage = outcome.usage;
            Ok(())
        }
        Err(failure) => {
            reservation.refund();
            Err(failure)
        }
    }
}

/// The reservation: images, speech and audio at the formula's own figure (the request says
/// everything); ratio-priced images whose answer will carry token usage (and rerank and
/// moderations) as chat does, `max(estimate, PreConsumedTokens) × ratio`, or the fixed price.
fn pre_quota(price: &billing::Price, job: &MediaJob, pre_tokens: i64, qpu: i64) -> i64 {
    match (job.kind, price) {
        (MediaKind::Speech | MediaKind::Transcriptions | MediaKind::Translations, _)
        | (MediaKind::ImageGenerations | MediaKind::ImageEdits, billing::Price::Fixed { .. }) => {
            price::quota(price, &job.estimate, qpu)
        }
        _ => billing::pre_quota(price, job.prompt_estimate, None, pre_tokens, qpu),
    }
}

/// The failover loop over the OpenAI-protocol channels of the model (chat's rules: the
/// pinned channel alone, `RetryTimes + 1` attempts, busy and too-long channels skipped
/// without spending one); channels of other protocols are passed over.
async fn attempts(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    caller: &edge::Caller,
    job: &MediaJob,
    trace: &mut Trace,
    measure: &mut Measure,
) -> Result<Outcome, Failure> {
    let max_attempts = if caller.pinned_channel.is_some() {
        1
    } else {
        snap.options.retry_times.saturating_add(1)
    };
    let mut tried = HashSet::new();
    let mut last: Option<UpstreamError> = None;
    let (mut busy, mut too_long, mut other_protocol, mut attempts_made) = (0, 0, 0, 0);
    let breakers = &r.state.breakers;
    while attempts_made < max_attempts {
        let now = Instant::now();
        let channel = match caller.pinned_channel {
            Some(id) if tried.is_empty() => snap.channels.get(&id).cloned(),
            Some(_) => None,
            None => routing::next_channel(
                snap,
                &caller.group,
                &job.model,
                &tried,
                |c| {
                    serves(job.kind, c.spec.protocol)
                        && c.keys.indexes().any(|k| breakers.allows(c.id, k, now))
                },
                &mut rand::rng(),
            ),
        };
        let Some(channel) = channel else { break };
        tried.insert(channel.id);
        if !serves(job.kind, channel.spec.protocol) {
            other_protocol += 1;
            continue;
        }
        if routing::input_too_long(&channel, || job.prompt_estimate) {
            too_long += 1;
            continue;
        }
        let Some(_slot) = r
            .state
            .limits
            .channel_slot(channel.id, channel.max_concurrency, &trace.request_id)
            .await
        else {
            busy += 1;
            continue;
        };
        attempts_made += 1;
        trace.tried.push(channel.id);
        trace.key = channel.keys.pick(|k| breakers.allows(channel.id, k, now));
        breakers.begin(channel.id, trace.key.index, now);
        trace.channel = Some(channel.clone());
        if let Some(span) = trace.span.as_mut() {
            span.begin_attempt(&channel, trace.endpoint);
        }
        let result = attempt(r, session, snap, &channel, job, trace, measure).await;
        post::end_attempt_span(trace, &result);
        post::breaker_outcome(&r.state, &channel, trace.key.index, &result);
        match result {
            Ok(outcome) => return Ok(outcome),
            Err(AttemptError::Gateway(e)) => return Err(Failure::Gateway(e)),
            Err(AttemptError::ClientGone(e)) => return Err(Failure::Client(e)),
            Err(AttemptError::Upstream(e)) => {
                let retry = post::note_upstream_failure(r, snap, trace, &channel, &e);
                last = Some(e);
                if !retry {
                    break;
                }
            }
        }
    }
    Err(match last {
        Some(e) => Failure::Gateway(e.into()),
        None if busy > 0 => RouteError::ChannelsBusy {
            model: job.model.clone(),
        }
        .into(),
        None if too_long > 0 => RouteError::InputTooLong {
            model: job.model.clone(),
            tokens: job.prompt_estimate,
        }
        .into(),
        None if other_protocol > 0 => {
            GatewayError::from(UpstreamError::Unsupported(job.kind.label())).into()
        }
        None => RouteError::NoChannel {
            model: job.model.clone(),
            group: caller.group.clone(),
        }
        .into(),
    })
}

/// Whether channels of `protocol` serve `kind`: OpenAI-compatible ones every kind, Cohere's
/// rerank (converted from and to the Jina/OpenAI-style shape).
fn serves(kind: MediaKind, protocol: Protocol) -> bool {
    protocol == Protocol::OpenAi || (kind == MediaKind::Rerank && protocol == Protocol::Cohere)
}

/// A rerank request in Cohere's v2 shape, from the client's body.
fn cohere_rerank(
    chunks: &[Bytes],
    upstream_model: &str,
) -> Result<(Value, Vec<Bytes>), AttemptError> {
    let client: Value = serde_json::from_slice(&chunks.concat()).map_err(|e| {
        AttemptError::Gateway(adapters::ParseError::MalformedJson(e.to_string()).into())
    })?;
    let body = adapters::cohere::jina_rerank_to_cohere(&client, upstream_model)
        .map_err(|e| AttemptError::Gateway(e.into()))?;
    Ok((client, vec![Bytes::from(body.to_string())]))
}

/// One attempt on an OpenAI-protocol channel (or a Cohere one, for rerank): the client's body with the mapped model, the
/// answer passed back as it came (JSON, text or audio), its cost figures read.
async fn attempt(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    channel: &Arc<ChannelEntry>,
    job: &MediaJob,
    trace: &mut Trace,
    measure: &mut Measure,
) -> Result<Outcome, AttemptError> {
    let opts = &snap.options;
    let upstream_model =
        routing::map_model(channel, &job.model).map_err(|e| AttemptError::Gateway(e.into()))?;
    trace.upstream_model = upstream_model.clone();
    let cohere = channel.spec.protocol == Protocol::Cohere;
    let path = if cohere {
        adapters::cohere::RERANK_PATH
    } else {
        job.kind.path()
    };
    let url = provider::upstream_url(&channel.site(), path, &upstream_model);
    let (mut chunks, content_type) = job
        .upstream_body(&upstream_model)
        .map_err(|e| AttemptError::Gateway(e.into()))?;
    let mut client_body = None;
    if cohere {
        let (client, body) = cohere_rerank(&chunks, &upstream_model)?;
        client_body = Some(client);
        chunks = body;
    }
    // JSON bodies take the channel's param override (multipart uploads go as they came).
    let mut header_edits = HeaderEdits::default();
    let pass_through = opts.pass_through_request || channel.setting.pass_through_body;
    if !pass_through && content_type.starts_with("application/json") {
        let out = overrides::Outgoing {
            dialect: BodyDialect::Other,
            original_model: &job.model,
            upstream_model: &upstream_model,
            body: &chunks,
            probe: &[],
        };
        if let Some(shaped) = overrides::shape(session, trace, channel, out)? {
            chunks = vec![shaped.body];
            header_edits = shaped.header_edits;
        }
    }
    let mut request = upstream::build_request(channel, trace.key, &url, chunks, false, &[])?;
    let bad = |_| UpstreamError::Build("invalid content type".to_owned());
    request.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_str(&content_type).map_err(bad)?,
    );
    let client = &session.req_header().headers;
    upstream::apply_header_rules(
        &mut request,
        channel,
        trace.key,
        &header_edits,
        Some(client),
    )?;
    if job.kind == MediaKind::Speech {
        request
            .headers_mut()
            .insert(http::header::ACCEPT, http::HeaderValue::from_static("*/*"));
    }
    let mut answer = post::send(r, session, opts, request, trace).await?;
    let mut bytes = post::read_answer(session, &mut answer, opts, trace).await?;
    if let Some(client) = &client_body {
        let v: Value = serde_json::from_slice(&bytes)
            .map_err(|e| UpstreamError::BadBody(format!("not JSON: {e}")))?;
        let jina = adapters::cohere::cohere_rerank_to_jina(&v, client, &job.model)
            .map_err(|e| UpstreamError::BadBody(e.to_string()))?;
        bytes = Bytes::from(jina.to_string());
    }
    let json_answer = answer.content_type.starts_with("application/json");
    let parsed = if job.kind == MediaKind::Speech {
        None
    } else if json_answer {
        Some(
            serde_json::from_slice::<serde_json::Value>(&bytes)
                .map_err(|e| UpstreamError::BadBody(format!("not JSON: {e}")))?,
        )
    } else if matches!(
        job.kind,
        MediaKind::Transcriptions | MediaKind::Translations
    ) {
        // text, srt and vtt answers: billed by the measured duration.
        None
    } else {
        return Err(UpstreamError::BadBody(format!(
            "unexpected content type {:?}",
            answer.content_type
        ))
        .into());
    };
    *measure = answer::measure(job.kind, job.estimate, parsed.as_ref());
    post::deliver(session, trace, answer.status, &answer.content_type, bytes).await;
    Ok(Outcome {
        usage: price::record_usage(measure),
        local_count: false,
    })
}
