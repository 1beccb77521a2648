//! Relaying one POST (chat/completions/embeddings): edge checks, reservation, the failover
//! loop over channels (decided before any byte reaches the client), settlement.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use pingora::proxy::Session;

use super::dialect::Call;
use super::job::Job;
use super::{Failure, Relay, Trace, admission, body, convert, overrides, respond, sse};
use crate::billing::{self, StreamBudget};
use crate::config::{ChannelEntry, Options, Snapshot};
use crate::edge;
use crate::error::{BillingError, GatewayError, RouteError, UpstreamError};
use crate::routing;
use crate::upstream::{self, UpstreamBody};
use adapters::openai::{self, ParsedRequest, Usage};
use adapters::provider::{self, Protocol};
use adapters::raw_json;
use adapters::shaping::{BodyDialect, HeaderEdits};
use adapters::stream::StreamRelay;

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

/// Reads a whole upstream body, at most `cap` bytes, each frame within `idle`. A body that
/// arrives in one piece is that piece, not a copy of it.
pub async fn read_upstream(
    body: &mut UpstreamBody,
    cap: usize,
    idle: Duration,
) -> Result<Bytes, UpstreamError> {
    let mut first: Option<Bytes> = None;
    let mut joined = BytesMut::new();
    loop {
        let data = match tokio::time::timeout(idle, body.chunk()).await {
            Err(_) => {
                return Err(UpstreamError::Timeout(
                    u64::try_from(idle.as_millis()).unwrap_or(u64::MAX),
                ));
            }
            Ok(None) => return Ok(first.unwrap_or_else(|| joined.freeze())),
            Ok(Some(piece)) => piece?,
        };
        let held = first.as_ref().map_or(joined.len(), Bytes::len);
        if held + data.len() > cap {
            return Err(UpstreamError::BadBody(format!(
                "answer larger than {cap} bytes"
            )));
        }
        match first.take() {
            None if joined.is_empty() => first = Some(data),
            None => joined.extend_from_slice(&data),
            Some(earlier) => {
                joined.reserve(earlier.len() + data.len());
                joined.extend_from_slice(&earlier);
                joined.extend_from_slice(&data);
            }
        }
    }
}

/// Reads the body of `call`: the content type must be JSON, the size (as sent and decoded)
/// within the cap, the JSON's shape within [`raw_json::check_limits`] before any parser
/// sees it.
pub async fn read_json_body(
    session: &mut Session,
    snap: &Snapshot,
    trace: &mut Trace,
) -> Result<Bytes, Failure> {
    let ctype = session
        .req_header()
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    openai::check_content_type(ctype)?;
    let body = body::read(session, snap.options.max_body_bytes).await?;
    trace.body_read = true;
    raw_json::check_limits(&body)?;
    Ok(body)
}

/// The whole POST flow.
pub async fn relay(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    trace: &mut Trace,
    call: &Call,
) -> Result<(), Failure> {
    if snap.options.block_browser_extension
        && edge::from_browser_extension(&session.req_header().headers)
    {
        return Err(GatewayError::from(crate::error::AuthError::BrowserExtension).into());
    }
    let (caller, body) = if trace.playground {
        let user = r.playground_user(session, trace).await?;
        let body = read_json_body(session, snap, trace).await?;
        let group = edge::playground::requested_group(&body);
        let caller =
            edge::playground::caller(snap, user, group.as_deref()).map_err(GatewayError::from)?;
        trace.caller = Some(caller.clone());
        (caller, body)
    } else {
        let caller = r.authenticate(session, snap, trace)?;
        (caller, read_json_body(session, snap, trace).await?)
    };
    edge::content::check_prompt(
        snap.options.sensitive_check_prompt,
        &snap.options.sensitive_words,
        &body,
    )?;
    if snap.options.log_chat_content {
        trace.chat_prompt = Some(edge::content::request_text(
            &body,
            super::record::CHAT_LOG_MAX,
        ));
    }
    let job = Job::decode(call, &session.req_header().headers, body)?;
    let model = job.model().to_owned();
    trace.model = model.clone();
    trace.stream = job.stream();
    edge::check_model(&caller, &model)?;
    admission::check_routable(snap, &caller, &model)?;
    let price = admission::price(snap, &caller, &model)?;
    trace.price = Some(price);
    let opts = &snap.options;
    // Held until the answer is done; a failure below takes back the provisional success.
    let admitted = admission::admit(r, snap, &caller, &model, trace).await?;
    // Without max_tokens, the model's completion allowance is reserved.
    let completion = job
        .max_tokens()
        .unwrap_or_else(|| opts.completion_allowance(&model));
    let mut reservation = reserve(r, snap, &caller, &job, &price, completion, trace).await?;
    let result = {
        let mut budget = StreamBudget::new(&mut reservation, price, opts.quota_per_unit, &job);
        attempts(r, session, snap, &caller, &job, trace, &mut budget).await
    };
    match result {
        Ok(outcome) => {
            let used = outcome.usage.prompt_tokens + outcome.usage.completion_tokens;
            admitted
                .admission
                .succeeded_with_tokens(u64::try_from(used).unwrap_or(0));
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

/// Holds the request's cost before it is sent: at least `pre_consumed_tokens` of prompt, plus
/// the completion. A longer prompt is first bounded by its length, which counts nothing (no
/// text has more tokens than bytes). A caller who can afford that bound has it held until the
/// answer's usage settles the cost. Only a caller who cannot has the prompt counted, and is
/// refused only when the counted cost does not fit either. So a long prompt goes through the
/// tokenizer only near the end of a balance, and who is admitted is the same as if every prompt
/// were counted.
async fn reserve(
    r: &Relay,
    snap: &Snapshot,
    caller: &edge::Caller,
    job: &Job,
    price: &billing::Price,
    completion: i64,
    trace: &Trace,
) -> Result<billing::Reservation, Failure> {
    let opts = &snap.options;
    let floor = opts.pre_consumed_tokens;
    // `pre_quota` takes at least `floor` of prompt itself.
    let pre = |prompt: i64| {
        billing::pre_quota(price, prompt, Some(completion), floor, opts.quota_per_unit)
    };
    let bound = pre(job.prompt_at_most());
    let held = admission::reserve(r, snap, caller, bound, trace).await;
    let short = matches!(
        held,
        Err(Failure::Gateway(GatewayError::Billing(
            BillingError::UserQuotaShort { .. } | BillingError::TokenQuotaShort { .. }
        )))
    );
    if !short {
        return held;
    }
    let counted = pre(job.prompt_estimate_at_least(floor));
    if counted < bound {
        admission::reserve(r, snap, caller, counted, trace).await
    } else {
        held
    }
}

async fn attempts(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    caller: &edge::Caller,
    job: &Job,
    trace: &mut Trace,
    budget: &mut StreamBudget<'_>,
) -> Result<Outcome, Failure> {
    let max_attempts = if caller.pinned_channel.is_some() {
        1
    } else {
        snap.options.retry_times.saturating_add(1)
    };
    let mut tried = HashSet::new();
    let mut last: Option<UpstreamError> = None;
    // Channels skipped because they were at their concurrency limit (no attempt spent).
    let mut busy = 0;
    // Channels skipped because the prompt is longer than they accept (no attempt spent).
    let mut too_long = 0;
    let mut attempts_made = 0;
    let breakers = &r.state.breakers;
    while attempts_made < max_attempts {
        let now = Instant::now();
        let channel = match caller.pinned_channel {
            Some(id) if tried.is_empty() => snap.channels.get(&id).cloned(),
            Some(_) => None,
            None => routing::next_channel(
                snap,
                &caller.group,
                job.model(),
                &tried,
                |c| c.keys.indexes().any(|k| breakers.allows(c.id, k, now)),
                &mut rand::rng(),
            ),
        };
        let Some(channel) = channel else { break };
        tried.insert(channel.id);
        if routing::input_too_long(&channel, || job.prompt_estimate()) {
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
        let result = match (job, channel.spec.protocol) {
            (Job::OpenAi(parsed), Protocol::OpenAi) => {
                attempt(r, session, snap, &channel, parsed, trace, budget).await
            }
            // Boxed: converting is the less common path, and its future would set the size
            // of every request's.
            _ => {
                Box::pin(convert::attempt(
                    r, session, snap, &channel, job, trace, budget,
                ))
                .await
            }
        };
        end_attempt_span(trace, &result);
        breaker_outcome(&r.state, &channel, trace.key.index, &result);
        match result {
            Ok(outcome) => return Ok(outcome),
            Err(AttemptError::Gateway(e)) => return Err(Failure::Gateway(e)),
            Err(AttemptError::ClientGone(e)) => return Err(Failure::Client(e)),
            Err(AttemptError::Upstream(e)) => {
                let retry = note_upstream_failure(r, snap, trace, &channel, &e);
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
            model: job.model().to_owned(),
        }
        .into(),
        None if too_long > 0 => RouteError::InputTooLong {
            model: job.model().to_owned(),
            tokens: job.prompt_estimate(),
        }
        .into(),
        None => RouteError::NoChannel {
            model: job.model().to_owned(),
            group: caller.group.clone(),
        }
        .into(),
    })
}

/// Ends the attempt's span (while traces are exported) with its failure, if any.
pub(super) fn end_attempt_span(trace: &mut Trace, result: &Result<Outcome, AttemptError>) {
    let Some(span) = trace.span.as_mut() else {
        return;
    };
    let failure = match result {
        Ok(_) => None,
        Err(AttemptError::Upstream(e)) => Some((
            e.code(),
            match e {
                UpstreamError::Status { status, .. } => Some(*status),
                _ => None,
            },
        )),
        Err(AttemptError::Gateway(e)) => Some((e.code(), None)),
        Err(AttemptError::ClientGone(_)) => Some(("client_gone", None)),
    };
    span.end_attempt(&trace.upstream_model, failure);
}

/// Counts and logs a failed upstream attempt and keeps it for the control plane's automatic
/// disabling; whether another channel may be tried.
pub(super) fn note_upstream_failure(
    r: &Relay,
    snap: &Snapshot,
    trace: &mut Trace,
    channel: &ChannelEntry,
    e: &UpstreamError,
) -> bool {
    let label = e.code();
    r.state
        .metrics
        .upstream_errors
        .with_label_values(&[&channel.id.to_string(), label])
        .inc();
    tracing::warn!(request_id = trace.request_id, channel_id = channel.id, code = label, error = %e, "upstream attempt failed");
    if let Some((status, message)) = e.channel_failure(crate::usage::ChannelFailure::MAX_MESSAGE) {
        trace.channel_failures.push(crate::usage::ChannelFailure {
            channel_id: channel.id,
            key_index: trace.key.index,
            status,
            message,
        });
    }
    e.retryable(|s| snap.options.retryable.contains(s))
}

/// Tells the key's circuit breaker how the attempt went: an answer closes it, a failure of
/// the channel's (no answer, 5xx, a refused key, too many requests) counts towards opening it.
pub(super) fn breaker_outcome<T>(
    state: &crate::state::GatewayState,
    channel: &ChannelEntry,
    key: u32,
    result: &Result<T, AttemptError>,
) {
    let breakers = &state.breakers;
    let changed = match result {
        Ok(_) => breakers.succeeded(channel.id, key),
        Err(AttemptError::Upstream(e)) if e.trips_breaker() => {
            let opened = breakers.failed(channel.id, key, Instant::now());
            if opened {
                tracing::warn!(
                    channel_id = channel.id,
                    key_index = key,
                    "circuit breaker opened: the key is kept out of routing for a cool-down"
                );
                state
                    .metrics
                    .breaker_opened
                    .with_label_values(&[&channel.id.to_string()])
                    .inc();
            }
            opened
        }
        Err(_) => false,
    };
    if changed {
        let open = breakers.open_count();
        state
            .metrics
            .breakers_open
            .set(i64::try_from(open).unwrap_or(i64::MAX));
    }
}

/// An upstream answer whose head has arrived with a 2xx status.
pub struct Answer {
    pub status: u16,
    pub is_sse: bool,
    pub content_type: String,
    pub body: UpstreamBody,
    pub started: Instant,
    pub deadline: Instant,
}

/// Sends one attempt; a non-2xx answer becomes `UpstreamError::Status` with its body.
pub async fn send(
    r: &Relay,
    session: &mut Session,
    opts: &Options,
    mut request: http::Request<upstream::Chunks>,
    trace: &Trace,
) -> Result<Answer, AttemptError> {
    if let Some(span) = &trace.span {
        span.inject(request.headers_mut());
    }
    let started = Instant::now();
    let deadline = started + opts.first_byte_timeout;
    let proxy = trace
        .channel
        .as_ref()
        .and_then(|c| c.setting.proxy.as_deref());
    let response = tokio::select! {
        response = r.state.upstream.send_via(proxy, request, opts.first_byte_timeout) => response?,
        e = client_left(session) => return Err(AttemptError::ClientGone(e)),
    };
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json")
        .to_owned();
    let is_sse = content_type.starts_with("text/event-stream");
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
    Ok(Answer {
        status,
        is_sse,
        content_type,
        body,
        started,
        deadline,
    })
}

/// Reads a whole (non-stream) answer, giving up if the client leaves meanwhile; notes the
/// first-response time.
pub async fn read_answer(
    session: &mut Session,
    answer: &mut Answer,
    opts: &Options,
    trace: &mut Trace,
) -> Result<Bytes, AttemptError> {
    let bytes = tokio::select! {
        bytes = read_upstream(&mut answer.body, MAX_ANSWER_BYTES, opts.stream_idle_timeout) => bytes?,
        e = client_left(session) => return Err(AttemptError::ClientGone(e)),
    };
    trace.frt_ms = Some(u64::try_from(answer.started.elapsed().as_millis()).unwrap_or(u64::MAX));
    trace.status = answer.status;
    Ok(bytes)
}

/// Sends a complete answer; a client that left is noted (the upstream did the work, so it is
/// billed all the same).
pub async fn deliver(
    session: &mut Session,
    trace: &mut Trace,
    status: u16,
    content_type: &str,
    body: Bytes,
) {
    if let Err(e) = respond::send_full(session, status, content_type, trace, body).await {
        trace.client_gone = true;
        trace.error = Some(format!("client connection failed: {e}"));
    }
}

/// An OpenAI request to an OpenAI-compatible channel: the passthrough fast path.
async fn attempt(
    r: &Relay,
    session: &mut Session,
    snap: &Snapshot,
    channel: &Arc<ChannelEntry>,
    parsed: &ParsedRequest,
    trace: &mut Trace,
    budget: &mut StreamBudget<'_>,
) -> Result<Outcome, AttemptError> {
    let opts = &snap.options;
    let upstream_model =
        routing::map_model(channel, &parsed.model).map_err(|e| AttemptError::Gateway(e.into()))?;
    trace.upstream_model = upstream_model.clone();
    let mut url = provider::upstream_url(&channel.site(), parsed.endpoint.path(), &upstream_model);
    let force_usage = opts.force_stream_usage && channel.spec.stream_usage;
    // Slices of the client's bytes around a replaced model: no copy of the body. Passed
    // through, the client's bytes as they are (a stream without usage is counted locally).
    let pass_through = opts.pass_through_request || channel.setting.pass_through_body;
    let mut body = if pass_through {
        vec![parsed.raw().clone()]
    } else {
        parsed
            .upstream_chunks(&upstream_model, force_usage)
            .map_err(|e| AttemptError::Gateway(e.into()))?
    };
    let mut header_edits = HeaderEdits::default();
    let dialect = match parsed.endpoint {
        openai::Endpoint::ChatCompletions => BodyDialect::OpenAiChat,
        _ => BodyDialect::Other,
    };
    let out = overrides::Outgoing {
        dialect,
        original_model: &parsed.model,
        upstream_model: &upstream_model,
        body: &body,
        probe: parsed.raw(),
    };
    if !pass_through && let Some(shaped) = overrides::shape(session, trace, channel, out)? {
        if let Some(model) = shaped.upstream_model {
            url = provider::upstream_url(&channel.site(), parsed.endpoint.path(), &model);
            trace.upstream_model = model;
        }
        body = vec![shaped.body];
        header_edits = shaped.header_edits;
    }
    let mut request = upstream::build_request(channel, trace.key, &url, body, parsed.stream, &[])?;
    let client = &session.req_header().headers;
    upstream::apply_header_rules(
        &mut request,
        channel,
        trace.key,
        &header_edits,
        Some(client),
    )?;
    let mut answer = send(r, session, opts, request, trace).await?;
    if parsed.stream && answer.is_sse {
        let relay = StreamRelay::counting(
            &parsed.model,
            parsed.client_include_usage,
            parsed.prompt_count(),
        );
        // Boxed: a stream's relay state would otherwise set the size of every request's
        // future (one allocation per stream, against a copy of it per request).
        return Box::pin(sse::relay_stream(
            session, answer, relay, budget, trace, opts,
        ))
        .await;
    }
    let bytes = read_answer(session, &mut answer, opts, trace).await?;
    let (usage, local_count) = openai::answer_usage_of(parsed, &bytes)
        .map_err(|e| UpstreamError::BadBody(format!("not JSON: {e}")))?;
    let bytes = super::answer_check::checked(opts, trace, bytes)?;
    deliver(session, trace, answer.status, &answer.content_type, bytes).await;
    Ok(Outcome { usage, local_count })
}
