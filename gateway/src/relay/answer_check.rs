//! Sensitive words in answers (`CheckSensitiveOnCompletionEnabled`). A complete answer's text
//! is checked before it is sent; a stream's events are held back `StreamCacheQueueLength`
//! events deep, so a word split between events is still seen (and masked) before it leaves.
//! Found words are masked as `**###**`; with `StopOnSensitiveEnabled` the answer is refused
//! instead, and a stream ends with an error event. Only the text of the answer is searched
//! (content, text and delta fields in any dialect), never ids, models or tool schemas. The
//! same text is what `LogChatContentEnabled` keeps of the answer for the log row.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use serde_json::Value;

use super::sse::StreamFilter;
use crate::edge::content::SensitiveWords;
use crate::error::{GatewayError, RequestError};
use adapters::openai::Usage;
use adapters::stream::FirstEventFault;

/// What replaces a sensitive word.
pub const MASK: &str = "**###**";
/// Keys whose string values are answer text, in every dialect's answers and stream events.
const ANSWER_KEYS: &[&str] = &[
    "content",
    "text",
    "delta",
    "reasoning_content",
    "thinking",
    "refusal",
];
/// Text already sent that is kept to find a word continuing into the next events.
const TAIL_BYTES: usize = 256;
/// Most events a stream holds back.
pub const MAX_DEPTH: usize = 64;

/// The answer's text fields, in a fixed order (the same for the same JSON).
fn text_fields<'a>(v: &'a mut Value, is_text: bool, out: &mut Vec<&'a mut String>) {
    match v {
        Value::String(s) if is_text => out.push(s),
        Value::Array(items) => {
            for item in items.iter_mut() {
                text_fields(item, is_text, out);
            }
        }
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                text_fields(child, ANSWER_KEYS.contains(&k.as_str()), out);
            }
        }
        _ => {}
    }
}

/// `text` with `ranges` (sorted, disjoint) replaced by [`MASK`].
fn masked(text: &str, ranges: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in ranges {
        out.push_str(text.get(at..r.start).unwrap_or_default());
        out.push_str(MASK);
        at = r.end;
    }
    out.push_str(text.get(at..).unwrap_or_default());
    out
}

/// Checks a complete JSON answer: `Ok(None)` when it is clean, `Ok(Some(body))` with the
/// words masked, or `Err` with what was found when answers with sensitive words are refused.
pub fn check_answer(
    words: &SensitiveWords,
    stop: bool,
    body: &[u8],
) -> Result<Option<Bytes>, RequestError> {
    let Ok(mut v) = serde_json::from_slice::<Value>(body) else {
        return Ok(None);
    };
    let mut found = false;
    let mut changed = false;
    let mut texts = Vec::new();
    text_fields(&mut v, false, &mut texts);
    for text in texts {
        let ranges = words.match_ranges(text);
        if ranges.is_empty() {
            continue;
        }
        if stop {
            found = true;
        } else {
            *text = masked(text, &ranges);
            changed = true;
        }
    }
    if found {
        return Err(RequestError::SensitiveAnswer);
    }
    if !changed {
        return Ok(None);
    }
    serde_json::to_vec(&v)
        .map(|b| Some(Bytes::from(b)))
        .map_err(|_| RequestError::SensitiveAnswer)
}

/// A complete answer as it may be sent: checked when answers are, masked or refused; its
/// text kept in `trace` when chat content is logged.
pub fn checked(
    opts: &crate::config::Options,
    trace: &mut super::Trace,
    body: Bytes,
) -> Result<Bytes, super::post::AttemptError> {
    let body = if opts.sensitive_check_completion {
        match check_answer(&opts.sensitive_words, opts.sensitive_stop, &body) {
            Ok(None) => body,
            Ok(Some(masked)) => masked,
            Err(refused) => {
                return Err(super::post::AttemptError::Gateway(GatewayError::Request(
                    refused,
                )));
            }
        }
    } else {
        body
    };
    if opts.log_chat_content {
        trace.chat_answer = Some(answer_text(&body));
    }
    Ok(body)
}

/// The text of a complete JSON answer, capped for the log row.
fn answer_text(body: &[u8]) -> String {
    let mut out = String::new();
    if let Ok(mut v) = serde_json::from_slice::<Value>(body) {
        let mut texts = Vec::new();
        text_fields(&mut v, false, &mut texts);
        for t in texts {
            out.push_str(t);
            if out.len() >= LOG_MAX {
                break;
            }
        }
    }
    crate::edge::content::truncate_at_char(&mut out, LOG_MAX);
    out
}

/// Most answer text kept for the log row.
const LOG_MAX: usize = super::record::CHAT_LOG_MAX;

/// One SSE event of the client's stream, held back until it is checked.
struct Held {
    /// The event as the inner filter wrote it.
    raw: Bytes,
    /// Lines before the `data:` line (`event: …`), kept when the event is rewritten.
    head: String,
    /// The `data:` JSON, when the event has one.
    json: Option<Value>,
    /// Its text fields (edited copies while held).
    texts: Vec<String>,
    dirty: bool,
}

impl Held {
    fn parse(raw: Bytes) -> Held {
        let mut held = Held {
            raw,
            head: String::new(),
            json: None,
            texts: Vec::new(),
            dirty: false,
        };
        let Ok(event) = std::str::from_utf8(&held.raw) else {
            return held;
        };
        let mut data = None;
        for line in event.lines() {
            match line.strip_prefix("data:") {
                Some(d) if data.is_none() => data = Some(d.trim_start()),
                // Several data lines: left as they are.
                Some(_) => return held,
                None if line.is_empty() => {}
                None => {
                    held.head.push_str(line);
                    held.head.push('\n');
                }
            }
        }
        let Some(mut json) = data.and_then(|d| serde_json::from_str::<Value>(d).ok()) else {
            return held;
        };
        let mut fields = Vec::new();
        text_fields(&mut json, false, &mut fields);
        held.texts = fields.into_iter().map(|t| t.clone()).collect();
        held.json = Some(json);
        held
    }

    /// What goes to the client: the event as written, or rewritten with masked text.
    fn into_bytes(self) -> Bytes {
        let Some(mut json) = self.json.filter(|_| self.dirty) else {
            return self.raw;
        };
        let mut fields = Vec::new();
        text_fields(&mut json, false, &mut fields);
        for (field, text) in fields.into_iter().zip(self.texts) {
            *field = text;
        }
        Bytes::from(format!("{}data: {json}\n\n", self.head))
    }
}

/// A [`StreamFilter`] checking the text of another's output before it is forwarded.
pub struct CheckedStream<F> {
    inner: F,
    words: Arc<SensitiveWords>,
    /// Whether the text is searched at all (else it is only recorded).
    check: bool,
    stop: bool,
    /// The forwarded text, when chat content is logged (capped).
    transcript: Option<String>,
    depth: usize,
    /// Output of `inner` not yet split into events.
    buf: BytesMut,
    held: VecDeque<Held>,
    /// The end of the text already forwarded.
    tail: String,
    /// Found, until the relay takes it.
    refused: bool,
    /// Refused: nothing more goes out.
    stopped: bool,
}

impl<F: StreamFilter> CheckedStream<F> {
    /// Checks `inner`'s output, holding back `depth` events (at most [`MAX_DEPTH`]).
    pub fn new(inner: F, words: Arc<SensitiveWords>, stop: bool, depth: usize) -> Self {
        CheckedStream {
            inner,
            words,
            check: true,
            stop,
            transcript: None,
            depth: depth.min(MAX_DEPTH),
            buf: BytesMut::new(),
            held: VecDeque::new(),
            tail: String::new(),
            refused: false,
            stopped: false,
        }
    }

    /// Also keeps the forwarded text (`LogChatContentEnabled`); `check: false` only keeps it.
    pub fn recording(mut self, check: bool) -> Self {
        self.check = check;
        if !check {
            self.depth = 0;
        }
        self.transcript = Some(String::new());
        self
    }

    /// The text forwarded so far (empty unless recording), capped for the log row.
    pub fn transcript(&mut self) -> Option<String> {
        self.transcript.take()
    }

    /// Splits complete events off the buffer and checks them; returns what may be forwarded.
    fn take_events(&mut self, out: Bytes, at_end: bool) -> Bytes {
        self.buf.extend_from_slice(&out);
        while let Some(end) = find(&self.buf, b"\n\n") {
            let raw = self.buf.split_to(end + 2).freeze();
            self.held.push_back(Held::parse(raw));
            self.check();
            if self.stopped {
                self.held.clear();
                self.buf.clear();
                return Bytes::new();
            }
        }
        let keep = if at_end { 0 } else { self.depth };
        let mut emit = BytesMut::new();
        while self.held.len() > keep {
            let Some(held) = self.held.pop_front() else {
                break;
            };
            for t in &held.texts {
                self.tail.push_str(t);
                if let Some(kept) = self.transcript.as_mut()
                    && kept.len() < LOG_MAX
                {
                    kept.push_str(t);
                    crate::edge::content::truncate_at_char(kept, LOG_MAX);
                }
            }
            emit.extend_from_slice(&held.into_bytes());
        }
        if self.tail.len() > TAIL_BYTES {
            let mut cut = self.tail.len() - TAIL_BYTES;
            while !self.tail.is_char_boundary(cut) {
                cut += 1;
            }
            self.tail.drain(..cut);
        }
        if at_end {
            emit.extend_from_slice(&self.buf.split());
        }
        emit.freeze()
    }

    /// Searches the forwarded tail and the held events together; masks what is found in the
    /// held events, or marks the stream refused.
    fn check(&mut self) {
        if !self.check {
            return;
        }
        let mut text = self.tail.clone();
        // (held event, text field, where it starts in `text`)
        let mut segments = Vec::new();
        for (i, held) in self.held.iter().enumerate() {
            for (j, t) in held.texts.iter().enumerate() {
                segments.push((i, j, text.len()));
                text.push_str(t);
            }
        }
        let sent = self.tail.len();
        let ranges: Vec<Range<usize>> = self
            .words
            .match_ranges(&text)
            .into_iter()
            .filter(|r| r.end > sent)
            .collect();
        if ranges.is_empty() {
            return;
        }
        if self.stop {
            self.refused = true;
            self.stopped = true;
            return;
        }
        // From the last match back, so earlier offsets stay valid. The first piece of a word
        // split between fields carries the mask; its other pieces are removed.
        for r in ranges.iter().rev() {
            let overlaps = |&(i, j, start): &(usize, usize, usize)| {
                let len = self.held[i].texts[j].len();
                r.start.max(start) < r.end.min(start + len)
            };
            let Some(first) = segments.iter().position(overlaps) else {
                continue;
            };
            for (k, &(i, j, start)) in segments.iter().enumerate().rev() {
                let len = self.held[i].texts[j].len();
                let (from, to) = (r.start.max(start), r.end.min(start + len));
                if from >= to {
                    continue;
                }
                let replacement = if k == first { MASK } else { "" };
                let held = &mut self.held[i];
                if let Some(t) = held.texts.get_mut(j) {
                    t.replace_range(from - start..to - start, replacement);
                }
                held.dirty = true;
            }
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

impl<F: StreamFilter> StreamFilter for CheckedStream<F> {
    fn feed(&mut self, chunk: &[u8]) -> Result<Bytes, FirstEventFault> {
        let out = self.inner.feed(chunk)?;
        if self.stopped {
            return Ok(Bytes::new());
        }
        Ok(self.take_events(out, false))
    }
    fn events(&self) -> usize {
        self.inner.events()
    }
    fn has_pending(&self) -> bool {
        self.inner.has_pending()
    }
    fn flush(&mut self) -> Bytes {
        let rest = self.inner.flush();
        if self.stopped {
            return Bytes::new();
        }
        self.take_events(rest, true)
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
    fn refused(&mut self) -> Option<GatewayError> {
        std::mem::take(&mut self.refused)
            .then_some(GatewayError::Request(RequestError::SensitiveAnswer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Forwards what it is fed.
    struct Echo;

    impl StreamFilter for Echo {
        fn feed(&mut self, chunk: &[u8]) -> Result<Bytes, FirstEventFault> {
            Ok(Bytes::copy_from_slice(chunk))
        }
        fn events(&self) -> usize {
            1
        }
        fn has_pending(&self) -> bool {
            false
        }
        fn flush(&mut self) -> Bytes {
            Bytes::new()
        }
        fn usage(&self) -> (Usage, bool) {
            (Usage::default(), true)
        }
        fn running_output_tokens(&self) -> i64 {
            0
        }
        fn error_event(&self, _: &GatewayError, _: &str) -> Bytes {
            Bytes::new()
        }
    }

    fn words(lines: &[&str]) -> Arc<SensitiveWords> {
        Arc::new(SensitiveWords::compile(
            &lines.iter().map(|l| l.to_string()).collect::<Vec<_>>(),
        ))
    }

    fn event(text: &str) -> String {
        format!(
            "event: content_block_delta\ndata: {}\n\n",
            serde_json::json!({"delta": {"type": "text_delta", "text": text}})
        )
    }

    fn texts(out: &str) -> String {
        out.split("\n\n")
            .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data: ")))
            .filter_map(|d| serde_json::from_str::<Value>(d).ok())
            .filter_map(|v| v["delta"]["text"].as_str().map(str::to_owned))
            .collect()
    }

    #[test]
    fn words_split_between_held_events_are_masked_in_place() {
        let mut s = CheckedStream::new(Echo, words(&["违禁词", "bad word"]), false, 3);
        let mut out = String::new();
        for piece in ["含有违", "禁词的", " a BA", "D wo", "rd!", " [DONE]"] {
            let fed = s.feed(event(piece).as_bytes()).unwrap_or_default();
            out.push_str(std::str::from_utf8(&fed).unwrap_or_default());
        }
        out.push_str(std::str::from_utf8(&s.flush()).unwrap_or_default());
        assert_eq!(texts(&out), "含有**###**的 a **###**! [DONE]");
        // The rewritten events keep their `event:` line.
        assert_eq!(out.matches("event: content_block_delta").count(), 6);
        assert!(s.refused().is_none());
    }

    #[test]
    fn with_no_queue_a_word_across_events_still_stops_the_stream() {
        let mut s = CheckedStream::new(Echo, words(&["bad word"]), true, 0);
        let first = s.feed(event("a bad").as_bytes()).unwrap_or_default();
        assert_eq!(
            texts(std::str::from_utf8(&first).unwrap_or_default()),
            "a bad"
        );
        let second = s.feed(event(" word").as_bytes()).unwrap_or_default();
        assert!(second.is_empty());
        assert!(s.refused().is_some());
        assert!(s.refused().is_none(), "taken once");
        assert!(
            s.feed(event("more").as_bytes())
                .unwrap_or_default()
                .is_empty()
        );
    }

    #[test]
    fn complete_answers_are_masked_or_refused() {
        let w = words(&["secret", "regex:\\d{4}-\\d{4}"]);
        let body = serde_json::json!({"id": "secret-id", "choices": [{"message":
            {"content": "the SECRET is 1234-5678"}}]});
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        let masked = check_answer(&w, false, &bytes)
            .ok()
            .flatten()
            .unwrap_or_default();
        let v: Value = serde_json::from_slice(&masked).unwrap_or_default();
        assert_eq!(
            v["choices"][0]["message"]["content"],
            "the **###** is **###**"
        );
        assert_eq!(v["id"], "secret-id", "ids are not answer text");
        assert!(matches!(
            check_answer(&w, true, &bytes),
            Err(RequestError::SensitiveAnswer)
        ));
        let clean = serde_json::to_vec(&serde_json::json!({"content": "fine"})).unwrap_or_default();
        assert!(matches!(check_answer(&w, true, &clean), Ok(None)));
    }
}
