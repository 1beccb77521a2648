//! Incremental SSE relay for OpenAI-compatible streams: frames events across arbitrary
//! chunk boundaries, captures usage, hides the usage chunk from clients that did not ask for
//! it, and keeps the generated text (not the event bytes) so it can be counted once at the
//! end when the upstream sends no usage. A synchronous state machine: it never blocks.

use std::borrow::Cow;

use bytes::{Bytes, BytesMut};
use serde_json::{Value, json};

use crate::openai::{ChunkView, Usage, chunk_usage_of, push_output_text};
use crate::tokens;

/// Splits a byte stream into complete SSE events (each with its blank-line terminator).
#[derive(Debug, Default)]
pub struct SseFramer {
    buf: BytesMut,
    scanned: usize,
}

impl SseFramer {
    /// Adds bytes and returns the events completed by them.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Bytes> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        let mut i = self.scanned;
        while i < self.buf.len() {
            if self.buf[i] == b'\n' {
                let end = match (self.buf.get(i + 1), self.buf.get(i + 2)) {
                    (Some(b'\n'), _) => Some(i + 2),
                    (Some(b'\r'), Some(b'\n')) => Some(i + 3),
                    (None, _) | (Some(b'\r'), None) => break,
                    _ => None,
                };
                if let Some(end) = end {
                    out.push(self.buf.split_to(end).freeze());
                    i = 0;
                    continue;
                }
            }
            i += 1;
        }
        self.scanned = i.min(self.buf.len());
        out
    }

    /// Bytes of an unfinished event.
    pub fn pending(&self) -> &[u8] {
        &self.buf
    }
}

/// The `data:` payload of an event (multi-line data joined by `\n`), if any.
/// Borrowed from the event when it has one `data:` line (the usual case).
pub fn event_data(event: &[u8]) -> Option<Cow<'_, str>> {
    let text = std::str::from_utf8(event).ok()?;
    let mut data: Option<Cow<'_, str>> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("data:") {
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            match &mut data {
                Some(d) => {
                    let d = d.to_mut();
                    d.push('\n');
                    d.push_str(rest);
                }
                None => data = Some(Cow::Borrowed(rest)),
            }
        }
    }
    data
}

/// Why a stream is refused at its first event (so another channel may be tried).
#[derive(Debug, Clone, PartialEq)]
pub enum FirstEventFault {
    /// The first event is not valid JSON.
    Malformed,
    /// The first event is an error object.
    Error(Value),
}

/// Per-request stream state.
#[derive(Debug)]
pub struct StreamRelay {
    framer: SseFramer,
    client_include_usage: bool,
    model: String,
    prompt: tokens::PromptCount,
    usage: Option<Usage>,
    /// Generated text, counted only if the upstream sends no usage.
    text: String,
    events: usize,
    done: bool,
}

/// What becomes of one upstream event.
enum Relayed {
    AsIs,
    Dropped,
    Replaced(Bytes),
}

/// The event of a chunk whose `usage` was taken out.
fn without_usage(chunk: Value) -> Bytes {
    Bytes::from(format!("data: {chunk}\n\n"))
}

impl StreamRelay {
    /// `client_include_usage`: whether the client asked for the usage chunk.
    pub fn new(model: &str, client_include_usage: bool, prompt_estimate: i64) -> Self {
        Self::counting(
            model,
            client_include_usage,
            tokens::PromptCount::known(prompt_estimate),
        )
    }

    /// [`StreamRelay::new`] with a prompt counted only if the upstream sends no usage.
    pub fn counting(model: &str, client_include_usage: bool, prompt: tokens::PromptCount) -> Self {
        StreamRelay {
            framer: SseFramer::default(),
            client_include_usage,
            model: model.to_owned(),
            prompt,
            usage: None,
            text: String::new(),
            events: 0,
            done: false,
        }
    }

    /// Complete events seen so far.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Whether `[DONE]` was seen.
    pub fn done(&self) -> bool {
        self.done
    }

    /// Feeds upstream bytes; returns what to forward to the client. The first event is
    /// checked: malformed JSON or an error object yields a fault instead.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Bytes, FirstEventFault> {
        let mut out = BytesMut::new();
        for event in self.framer.push(chunk) {
            match self.relay_event(&event)? {
                Relayed::AsIs => out.extend_from_slice(&event),
                Relayed::Dropped => {}
                Relayed::Replaced(b) => out.extend_from_slice(&b),
            }
        }
        Ok(out.freeze())
    }

    fn relay_event(&mut self, event: &[u8]) -> Result<Relayed, FirstEventFault> {
        let first = self.events == 0;
        self.events += 1;
        let Some(data) = event_data(event) else {
            return Ok(Relayed::AsIs);
        };
        if data.trim() == "[DONE]" {
            self.done = true;
            if self.client_include_usage && self.usage.is_none() {
                let mut out = BytesMut::from(&self.synthesized_usage_event()[..]);
                out.extend_from_slice(event);
                return Ok(Relayed::Replaced(out.freeze()));
            }
            return Ok(Relayed::AsIs);
        }
        self.relay_chunk(&data, first)
    }

    /// Relays one JSON event: keeps its text and usage, and hides the usage from a client
    /// that did not ask for it. Read through [`ChunkView`]; a chunk it does not fit is read
    /// as a value tree, with the same result.
    fn relay_chunk(&mut self, data: &str, first: bool) -> Result<Relayed, FirstEventFault> {
        let Some(view) = ChunkView::read(data) else {
            return self.relay_chunk_tree(data, first);
        };
        if first && let Some(err) = view.error {
            let err = serde_json::from_str(err.get()).unwrap_or(Value::Null);
            return Err(FirstEventFault::Error(err));
        }
        if self.usage.is_none() {
            view.push_output_text(&mut self.text);
        }
        let usage = view
            .usage()
            .filter(|u| u.prompt_tokens > 0 || u.completion_tokens > 0);
        if let Some(u) = usage {
            self.usage = Some(u);
        }
        Ok(match usage {
            Some(_) if !self.client_include_usage && view.has_no_choices() => Relayed::Dropped,
            Some(_) if !self.client_include_usage => match serde_json::from_str(data) {
                Ok(Value::Object(mut chunk)) => {
                    chunk.remove("usage");
                    Relayed::Replaced(without_usage(Value::Object(chunk)))
                }
                _ => Relayed::AsIs,
            },
            _ => Relayed::AsIs,
        })
    }

    /// [`StreamRelay::relay_chunk`] for a chunk read as a value tree.
    fn relay_chunk_tree(&mut self, data: &str, first: bool) -> Result<Relayed, FirstEventFault> {
        let value: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(_) if first => return Err(FirstEventFault::Malformed),
            Err(_) => return Ok(Relayed::AsIs),
        };
        if first && let Some(err) = value.get("error") {
            return Err(FirstEventFault::Error(err.clone()));
        }
        if self.usage.is_none() {
            push_output_text(&value, &mut self.text);
        }
        let usage =
            chunk_usage_of(&value).filter(|u| u.prompt_tokens > 0 || u.completion_tokens > 0);
        if let Some(u) = usage {
            self.usage = Some(u);
        }
        if usage.is_some() && !self.client_include_usage {
            let no_choices = value
                .get("choices")
                .and_then(Value::as_array)
                .is_none_or(|c| c.is_empty());
            if no_choices {
                return Ok(Relayed::Dropped);
            }
            let mut stripped = value;
            if let Some(o) = stripped.as_object_mut() {
                o.remove("usage");
            }
            return Ok(Relayed::Replaced(without_usage(stripped)));
        }
        Ok(Relayed::AsIs)
    }

    /// Completes an event left unterminated when the upstream closed (some servers end
    /// with `data: [DONE]\n` and no blank line); returns what to forward.
    pub fn flush(&mut self) -> Bytes {
        if !self.has_pending() {
            return Bytes::new();
        }
        self.feed(b"\n\n").unwrap_or_default()
    }

    /// Whether bytes of an unterminated event are held.
    pub fn has_pending(&self) -> bool {
        !self
            .framer
            .pending()
            .iter()
            .all(|b| b.is_ascii_whitespace())
    }

    /// Output tokens so far, cheaply: the upstream's count once it sent one, else the output's
    /// bytes / 3 (at least the token count for English and CJK text alike).
    pub fn running_output_tokens(&self) -> i64 {
        match self.usage {
            Some(u) => u.completion_tokens,
            None => self.text.len().div_ceil(3) as i64,
        }
    }

    /// Usage for billing: the upstream's, or local counts, and whether it was counted locally.
    pub fn usage(&self) -> (Usage, bool) {
        match self.usage {
            Some(u) => (u, false),
            None => (
                Usage {
                    prompt_tokens: self.prompt.get(&self.model),
                    completion_tokens: tokens::estimate(&self.model, &self.text),
                    cached_tokens: 0,
                    cache_creation_tokens: 0,
                },
                true,
            ),
        }
    }

    fn synthesized_usage_event(&self) -> Bytes {
        let (u, _) = self.usage();
        let v = json!({
            "id": "chatcmpl-usage", "object": "chat.completion.chunk", "model": self.model, "choices": [],
            "usage": {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                      "total_tokens": u.prompt_tokens.saturating_add(u.completion_tokens)},
        });
        Bytes::from(format!("data: {v}\n\n"))
    }
}

/// The SSE event that ends a stream broken after bytes were sent.
pub fn error_event(error: &Value) -> Bytes {
    Bytes::from(format!("data: {}\n\n", json!({ "error": error })))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const CHUNK: &str = r#"data: {"choices":[{"delta":{"content":"hello world"}}]}"#;
    const USAGE: &str = r#"data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#;

    fn stream_text() -> String {
        format!("{CHUNK}\n\n{USAGE}\r\n\r\ndata: [DONE]\n\n")
    }

    #[test]
    fn frames_across_any_split() {
        let all = stream_text();
        for split in 0..all.len() {
            let mut f = SseFramer::default();
            let mut events = f.push(&all.as_bytes()[..split]);
            events.extend(f.push(&all.as_bytes()[split..]));
            assert_eq!(events.len(), 3, "split at {split}");
            assert!(f.pending().is_empty());
        }
    }

    #[test]
    fn hides_usage_unless_asked_and_keeps_it_for_billing() {
        let mut r = StreamRelay::new("m", false, 9);
        let out = r.feed(stream_text().as_bytes()).unwrap();
        let text = std::str::from_utf8(&out).unwrap();
        assert!(
            text.contains("hello world")
                && !text.contains("usage")
                && text.ends_with("data: [DONE]\n\n")
        );
        assert_eq!(
            r.usage(),
            (
                Usage {
                    prompt_tokens: 5,
                    completion_tokens: 2,
                    cached_tokens: 0,
                    cache_creation_tokens: 0,
                },
                false
            )
        );
        let mut r = StreamRelay::new("m", true, 9);
        let out = r.feed(stream_text().as_bytes()).unwrap();
        assert!(std::str::from_utf8(&out).unwrap().contains("\"usage\""));
    }

    #[test]
    fn counts_locally_and_synthesizes_usage_when_upstream_has_none() {
        let mut r = StreamRelay::new("m", true, 9);
        let out = r
            .feed(format!("{CHUNK}\n\ndata: [DONE]\n\n").as_bytes())
            .unwrap();
        let (u, local) = r.usage();
        assert!(local && u.prompt_tokens == 9 && u.completion_tokens == 4);
        let text = std::str::from_utf8(&out).unwrap();
        assert!(text.contains("\"completion_tokens\":4") && r.done());
    }

    #[test]
    fn flushes_an_unterminated_last_event() {
        let mut r = StreamRelay::new("m", false, 0);
        let out = r
            .feed(format!("{CHUNK}\n\ndata: [DONE]\n").as_bytes())
            .unwrap();
        assert!(!r.done() && !out.is_empty());
        assert_eq!(&r.flush()[..], b"data: [DONE]\n\n");
        assert!(r.done());
        assert!(r.flush().is_empty());
    }

    #[test]
    fn first_event_faults() {
        let mut r = StreamRelay::new("m", false, 0);
        assert_eq!(
            r.feed(b"data: {broken\n\n"),
            Err(FirstEventFault::Malformed)
        );
        let mut r = StreamRelay::new("m", false, 0);
        assert!(matches!(
            r.feed(b"data: {\"error\":{\"message\":\"x\"}}\n\n"),
            Err(FirstEventFault::Error(_))
        ));
        assert_eq!(event_data(b"data: a\ndata: b\n\n").unwrap(), "a\nb");
    }
}
