//! Relaying an SSE answer: hold bytes until the first complete event (so a bad start can
//! still fail over), then forward chunk by chunk; a mid-stream failure ends the stream with
//! an error event; a client that leaves stops the upstream (its body is dropped). What is
//! forwarded comes from a [`StreamFilter`]: the OpenAI passthrough relay, or a transcoder
//! between dialects.

use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use futures_util::FutureExt;
use pingora::proxy::Session;

use super::Trace;
use super::answer_check::CheckedStream;
use super::cork::Cork;
use super::post::{Answer, AttemptError, Outcome, client_left};
use super::respond;
use crate::billing::StreamBudget;
use crate::config::Options;
use crate::error::{BillingError, GatewayError, UpstreamError};
use crate::upstream::UpstreamBody;
use adapters::bedrock::EventStreamToSse;
use adapters::convert::Transcoder;
use adapters::ollama::NdjsonToSse;
use adapters::openai::Usage;
use adapters::stream::{FirstEventFault, StreamRelay, error_event};

/// Turns upstream SSE bytes into what the client gets, and keeps the usage.
pub trait StreamFilter {
    /// Feeds upstream bytes; returns what to forward. A bad first event is a fault.
    fn feed(&mut self, chunk: &[u8]) -> Result<Bytes, FirstEventFault>;
    /// Complete upstream events seen so far.
    fn events(&self) -> usize;
    /// Whether bytes of an unterminated event are held.
    fn has_pending(&self) -> bool;
    /// What ends the stream cleanly (a pending event, closing frames).
    fn flush(&mut self) -> Bytes;
    /// Usage for billing and whether it was counted locally.
    fn usage(&self) -> (Usage, bool);
    /// Output tokens so far, cheaply estimated (for the stream's budget).
    fn running_output_tokens(&self) -> i64;
    /// The event ending a stream that failed after bytes were sent.
    fn error_event(&self, err: &GatewayError, request_id: &str) -> Bytes;
    /// Why the stream must end now although the upstream goes on (an answer with sensitive
    /// words); taken once.
    fn refused(&mut self) -> Option<GatewayError> {
        None
    }
}

impl StreamFilter for StreamRelay {
    fn feed(&mut self, chunk: &[u8]) -> Result<Bytes, FirstEventFault> {
        StreamRelay::feed(self, chunk)
    }
    fn events(&self) -> usize {
        StreamRelay::events(self)
    }
    fn has_pending(&self) -> bool {
        StreamRelay::has_pending(self)
    }
    fn flush(&mut self) -> Bytes {
        StreamRelay::flush(self)
    }
    fn usage(&self) -> (Usage, bool) {
        StreamRelay::usage(self)
    }
    fn running_output_tokens(&self) -> i64 {
        StreamRelay::running_output_tokens(self)
    }
    fn error_event(&self, err: &GatewayError, request_id: &str) -> Bytes {
        error_event(&err.to_openai(request_id))
    }
}

impl StreamFilter for Transcoder {
    fn feed(&mut self, chunk: &[u8]) -> Result<Bytes, FirstEventFault> {
        Transcoder::feed(self, chunk)
    }
    fn events(&self) -> usize {
        Transcoder::events(self)
    }
    fn has_pending(&self) -> bool {
        Transcoder::has_pending(self)
    }
    fn flush(&mut self) -> Bytes {
        Transcoder::flush(self)
    }
    fn usage(&self) -> (Usage, bool) {
        Transcoder::usage(self)
    }
    fn running_output_tokens(&self) -> i64 {
        Transcoder::running_output_tokens(self)
    }
    fn error_event(&self, err: &GatewayError, request_id: &str) -> Bytes {
        Transcoder::error_event(self, err.status(), &err.client_message(request_id))
    }
}

/// A stream framing that is not SSE, turned into SSE before the protocol's decoder reads it.
pub enum PreFramer {
    /// AWS event-stream messages (Bedrock).
    EventStream(EventStreamToSse),
    /// Newline-delimited JSON (Ollama).
    Ndjson(NdjsonToSse),
}

impl PreFramer {
    fn push(&mut self, chunk: &[u8]) -> Result<Bytes, ()> {
        match self {
            PreFramer::EventStream(f) => f.feed(chunk).map_err(|_| ()),
            PreFramer::Ndjson(f) => f.push(chunk).map_err(|_| ()),
        }
    }

    /// What a clean end leaves (a last NDJSON line without its newline).
    fn finish(&mut self) -> Bytes {
        match self {
            PreFramer::EventStream(_) => Bytes::new(),
            PreFramer::Ndjson(f) => f.finish(),
        }
    }

    fn has_pending(&self) -> bool {
        match self {
            PreFramer::EventStream(f) => f.has_pending(),
            PreFramer::Ndjson(_) => false,
        }
    }
}

/// A [`StreamFilter`] behind a [`PreFramer`]. A framing error before the first event is a
/// fault (another channel may be tried); later, the rest of the stream is dropped and the
/// stream ends as a broken one.
pub struct FramedFilter<F> {
    pre: PreFramer,
    inner: F,
    broken: bool,
}

impl<F> FramedFilter<F> {
    pub fn new(pre: PreFramer, inner: F) -> Self {
        FramedFilter {
            pre,
            inner,
            broken: false,
        }
    }
}

impl<F: StreamFilter> StreamFilter for FramedFilter<F> {
    fn feed(&mut self, chunk: &[u8]) -> Result<Bytes, FirstEventFault> {
        if self.broken {
            return Ok(Bytes::new());
        }
        match self.pre.push(chunk) {
            Ok(sse) => self.inner.feed(&sse),
            Err(()) => {
                self.broken = true;
                if self.inner.events() == 0 {
                    Err(FirstEventFault::Malformed)
                } else {
                    Ok(Bytes::new())
                }
            }
        }
    }
    fn events(&self) -> usize {
        self.inner.events()
    }
    fn has_pending(&self) -> bool {
        self.broken || self.pre.has_pending() || self.inner.has_pending()
    }
    fn flush(&mut self) -> Bytes {
        let rest = self.pre.finish();
        let mut out = BytesMut::new();
        if !rest.is_empty()
            && let Ok(b) = self.inner.feed(&rest)
        {
            out.extend_from_slice(&b);
        }
        out.extend_from_slice(&self.inner.flush());
        out.freeze()
    }
    fn usage(&self) -> (Usage, bool) {
        self.inner.usage()
    }
    fn running_output_tokens(&self) -> i64 {
        self.inner.running_output_tokens()
    }
    fn error_event(&self, err: &GatewayError, request_id: &str) -> Bytes {
        self.inner.error_event(err, request_id)
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Feeds the pieces the upstream connection can hand over without waiting into `relay`,
/// appending what to forward to `out`, so they reach the client in one write (one chunk, one
/// send) instead of one write per SSE event. hyper passes body frames one at a time from its
/// connection task, so there, after an empty poll, the task yields once to let that task
/// decode what it already holds; nothing waits for bytes that have not arrived.
/// `Some` when the body ended: cleanly (`None`) or with an error.
async fn drain_ready(
    body: &mut UpstreamBody,
    relay: &mut impl StreamFilter,
    out: &mut BytesMut,
) -> Option<Option<UpstreamError>> {
    let mut yielded = !body.decoded_elsewhere();
    loop {
        match body.chunk().now_or_never() {
            None if yielded => return None,
            None => {
                tokio::task::yield_now().await;
                yielded = true;
            }
            Some(None) => return Some(None),
            Some(Some(Err(e))) => return Some(Some(e)),
            Some(Some(Ok(data))) => {
                yielded = !body.decoded_elsewhere();
                out.extend_from_slice(&relay.feed(&data).unwrap_or_default());
            }
        }
    }
}

/// `first` followed by `more`, copied only when there is more (the usual case is one
/// upstream piece per wake-up, forwarded as the filter returned it).
fn joined(first: Bytes, more: BytesMut) -> Bytes {
    if more.is_empty() {
        return first;
    }
    if first.is_empty() {
        return more.freeze();
    }
    let mut out = BytesMut::with_capacity(first.len() + more.len());
    out.extend_from_slice(&first);
    out.extend_from_slice(&more);
    out.freeze()
}

/// The keep-alive a silent stream sends (an SSE comment: every client ignores it).
const PING: &[u8] = b": PING\n\n";

/// Relays one stream; errors returned here happened before any byte reached the client.
/// With answers checked for sensitive words, the output goes through a [`CheckedStream`].
pub async fn relay_stream<F: StreamFilter>(
    session: &mut Session,
    upstream: Answer,
    relay: F,
    budget: &mut StreamBudget<'_>,
    trace: &mut Trace,
    opts: &Options,
) -> Result<Outcome, AttemptError> {
    if opts.sensitive_check_completion || opts.log_chat_content {
        let mut checked = CheckedStream::new(
            relay,
            opts.sensitive_words.clone(),
            opts.sensitive_stop,
            opts.stream_cache_queue,
        );
        if opts.log_chat_content {
            checked = checked.recording(opts.sensitive_check_completion);
        }
        let done = relay_filtered(session, upstream, &mut checked, budget, trace, opts).await;
        trace.chat_answer = checked.transcript();
        return done;
    }
    let mut relay = relay;
    relay_filtered(session, upstream, &mut relay, budget, trace, opts).await
}

async fn relay_filtered<F: StreamFilter>(
    session: &mut Session,
    upstream: Answer,
    relay: &mut F,
    budget: &mut StreamBudget<'_>,
    trace: &mut Trace,
    opts: &Options,
) -> Result<Outcome, AttemptError> {
    let Answer {
        mut body,
        started,
        deadline,
        ..
    } = upstream;
    let mut pending = BytesMut::new();
    // The upstream closed right after its first (unterminated) event.
    let mut ended = false;
    while relay.events() == 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        let next = tokio::select! {
            next = tokio::time::timeout(left, body.chunk()) => next,
            e = client_left(session) => return Err(AttemptError::ClientGone(e)),
        };
        let data = match next {
            Err(_) => return Err(UpstreamError::Timeout(ms(opts.first_byte_timeout)).into()),
            Ok(None) if relay.has_pending() => {
                ended = true;
                Bytes::from_static(b"\n\n")
            }
            Ok(None) => {
                return Err(
                    UpstreamError::Broken("stream ended before its first event".into()).into(),
                );
            }
            Ok(Some(Err(e))) => return Err(e.into()),
            Ok(Some(Ok(data))) => data,
        };
        match relay.feed(&data) {
            Ok(out) => pending.extend_from_slice(&out),
            Err(FirstEventFault::Malformed) => {
                return Err(UpstreamError::Broken("first event is not valid JSON".into()).into());
            }
            Err(FirstEventFault::Error(e)) => {
                return Err(UpstreamError::Broken(format!("first event is an error: {e}")).into());
            }
        }
        if ended && relay.events() == 0 {
            return Err(UpstreamError::Broken("stream ended before its first event".into()).into());
        }
    }
    trace.frt_ms = Some(ms(started.elapsed()));
    if let Some(err) = relay.refused() {
        return Err(AttemptError::Gateway(err));
    }
    let outcome = |relay: &F| {
        let (usage, local_count) = relay.usage();
        Outcome { usage, local_count }
    };
    let gone = |trace: &mut Trace, e: Box<pingora::Error>| {
        trace.client_gone = true;
        trace.error = Some(format!("client disconnected: {e}"));
    };
    // The head and the first event leave together (or the head and the error event below).
    let cork = Cork::hold(session);
    if let Err(e) = respond::start_stream(session, trace).await {
        gone(trace, e);
        return Ok(outcome(relay));
    }
    let over_budget = !budget.cover(relay.running_output_tokens());
    if !over_budget
        && !pending.is_empty()
        && let Err(e) = session
            .write_response_body(Some(pending.freeze()), false)
            .await
    {
        gone(trace, e);
        return Ok(outcome(relay));
    }
    if !over_budget {
        drop(cork);
    }
    let failure: Option<GatewayError> = if over_budget {
        Some(BillingError::StreamOverBudget.into())
    } else if ended {
        None
    } else {
        // One timer for the whole stream: data moves its deadline later, which tokio does
        // without touching its wheel (the entry is re-filed only when the old deadline
        // comes); a fresh timeout per event would file and remove an entry every time.
        let ping = opts.stream_ping;
        let wake_at = |now: Instant, idle_until: Instant| {
            ping.map_or(idle_until, |p| (now + p).min(idle_until))
        };
        let now = Instant::now();
        let mut idle_until = now + opts.stream_idle_timeout;
        let timer = tokio::time::sleep_until(wake_at(now, idle_until).into());
        tokio::pin!(timer);
        loop {
            let next = tokio::select! {
                biased;
                next = body.chunk() => Some(next),
                e = client_left(session) => {
                    // Dropping `body` on return closes the upstream connection.
                    gone(trace, e);
                    return Ok(outcome(relay));
                }
                () = &mut timer => None,
            };
            let now = Instant::now();
            let Some(next) = next else {
                if now >= idle_until {
                    break Some(UpstreamError::Timeout(ms(opts.stream_idle_timeout)).into());
                }
                // With pings on, a silent upstream is interrupted for a `: PING` to the client.
                if ping.is_some()
                    && let Err(e) = session
                        .write_response_body(Some(Bytes::from_static(PING)), false)
                        .await
                {
                    gone(trace, e);
                    return Ok(outcome(relay));
                }
                timer.as_mut().reset(wake_at(now, idle_until).into());
                continue;
            };
            idle_until = now + opts.stream_idle_timeout;
            timer.as_mut().reset(wake_at(now, idle_until).into());
            let data = match next {
                None => break None,
                Some(Err(e)) => break Some(e.into()),
                Some(Ok(data)) => data,
            };
            let first = relay.feed(&data).unwrap_or_default();
            let mut more = BytesMut::new();
            let end = drain_ready(&mut body, relay, &mut more).await;
            if let Some(err) = relay.refused() {
                break Some(err);
            }
            // Nothing goes out that the caller cannot pay for.
            if !budget.cover(relay.running_output_tokens()) {
                break Some(BillingError::StreamOverBudget.into());
            }
            let out = joined(first, more);
            if !out.is_empty()
                && let Err(e) = session.write_response_body(Some(out), false).await
            {
                // Dropping `body` on return closes the upstream connection.
                gone(trace, e);
                return Ok(outcome(relay));
            }
            if let Some(end) = end {
                break end.map(GatewayError::from);
            }
        }
    };
    if let Some(err) = failure {
        let (code, message) = (err.code(), err.to_string());
        let event = relay.error_event(&err, &trace.request_id);
        trace.error = Some(message);
        trace.error_code = Some(code);
        if let Err(e) = session.write_response_body(Some(event), true).await {
            gone(trace, e);
        }
        return Ok(outcome(relay));
    }
    let tail = relay.flush();
    if let Some(err) = relay.refused() {
        let event = relay.error_event(&err, &trace.request_id);
        trace.error = Some(err.to_string());
        trace.error_code = Some(err.code());
        if let Err(e) = session.write_response_body(Some(event), true).await {
            gone(trace, e);
        }
        return Ok(outcome(relay));
    }
    let tail = if tail.is_empty() { None } else { Some(tail) };
    if let Err(e) = session.write_response_body(tail, true).await {
        gone(trace, e);
    }
    Ok(outcome(relay))
}
