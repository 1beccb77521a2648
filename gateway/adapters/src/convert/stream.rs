//! Streams of dialects other than OpenAI chat passthrough: upstream SSE bytes are framed,
//! each event decoded by the channel protocol's decoder into IR events (usage and text for
//! billing), and either forwarded as they came (same dialect) or re-encoded in the client's
//! dialect. A synchronous state machine like [`crate::stream::StreamRelay`]: it never blocks.

use bytes::Bytes;
use serde_json::json;

use super::Dialect;
use super::tap::ResponsesTap;
use crate::ir::{StreamEvent, Usage};
use crate::openai;
use crate::provider::Protocol;
use crate::stream::{FirstEventFault, SseFramer, event_data};
use crate::{ParseError, bedrock, claude, cohere, gemini, ollama, openai_chat, responses, tokens};

/// Reads a channel's stream events into IR.
#[derive(Debug)]
enum Decoder {
    OpenAi(openai_chat::StreamDecoder),
    Claude(claude::StreamDecoder),
    Gemini(gemini::StreamDecoder),
    Converse(bedrock::StreamDecoder),
    Ollama(ollama::StreamDecoder),
    Cohere(cohere::StreamDecoder),
    Responses(ResponsesTap),
}

impl Decoder {
    fn for_protocol(p: Protocol) -> Decoder {
        match p {
            Protocol::OpenAi => Decoder::OpenAi(openai_chat::StreamDecoder::new()),
            Protocol::Anthropic => Decoder::Claude(claude::StreamDecoder::new()),
            Protocol::Gemini => Decoder::Gemini(gemini::StreamDecoder::new()),
            Protocol::Converse => Decoder::Converse(bedrock::StreamDecoder::new()),
            Protocol::Ollama => Decoder::Ollama(ollama::StreamDecoder::new()),
            Protocol::Cohere => Decoder::Cohere(cohere::StreamDecoder::new()),
            // Never reached: a task channel takes no chat (`encode_request` refuses it).
            Protocol::Task => Decoder::OpenAi(openai_chat::StreamDecoder::new()),
        }
    }

    fn decode(&mut self, data: &str, out: &mut Vec<StreamEvent>) -> Result<(), ParseError> {
        match self {
            Decoder::OpenAi(d) => d.decode(data, out),
            Decoder::Claude(d) => d.decode(data, out),
            Decoder::Gemini(d) => d.decode(data, out),
            Decoder::Converse(d) => d.decode(data, out),
            Decoder::Ollama(d) => d.decode(data, out),
            Decoder::Cohere(d) => d.decode(data, out),
            Decoder::Responses(d) => d.decode(data, out),
        }
    }
}

/// Writes IR events in the client's dialect.
#[derive(Debug)]
enum Encoder {
    OpenAi(openai_chat::StreamEncoder),
    Responses(responses::StreamEncoder),
    Claude(claude::StreamEncoder),
    Gemini(gemini::StreamEncoder),
}

impl Encoder {
    fn encode(&mut self, ev: &StreamEvent, out: &mut Vec<u8>) {
        match self {
            Encoder::OpenAi(e) => e.encode(ev, out),
            Encoder::Responses(e) => e.encode(ev, out),
            Encoder::Claude(e) => e.encode(ev, out),
            Encoder::Gemini(e) => e.encode(ev, out),
        }
    }

    fn finish(&mut self, out: &mut Vec<u8>) {
        match self {
            Encoder::OpenAi(e) => e.finish(out),
            Encoder::Responses(e) => e.finish(out),
            Encoder::Claude(e) => e.finish(out),
            Encoder::Gemini(e) => e.finish(out),
        }
    }
}

/// What the client asked for that shapes the converted stream.
#[derive(Debug, Clone, Copy)]
pub struct ClientStream<'a> {
    pub dialect: Dialect,
    /// The model name the client asked for (echoed in answers).
    pub model: &'a str,
    /// Unix seconds, for dialects whose events carry a creation time.
    pub created: i64,
    /// OpenAI chat: whether the client asked for the usage chunk.
    pub include_usage: bool,
}

/// Per-request state of one stream.
#[derive(Debug)]
pub struct Transcoder {
    framer: SseFramer,
    decoder: Decoder,
    /// `None`: same dialect, upstream events go to the client untouched.
    encoder: Option<Encoder>,
    /// The client's dialect, for a mid-stream error event.
    dialect: Dialect,
    scratch: Vec<StreamEvent>,
    usage: Option<Usage>,
    /// Generated text, counted only if the upstream sends no usage.
    text: String,
    model: String,
    prompt: tokens::PromptCount,
    events: usize,
    /// An upstream error ended the stream (converted streams only).
    failed: bool,
    finished: bool,
}

impl Transcoder {
    fn new(
        decoder: Decoder,
        encoder: Option<Encoder>,
        dialect: Dialect,
        model: &str,
        prompt: tokens::PromptCount,
    ) -> Self {
        Transcoder {
            framer: SseFramer::default(),
            decoder,
            encoder,
            dialect,
            scratch: Vec::new(),
            usage: None,
            text: String::new(),
            model: model.to_owned(),
            prompt,
            events: 0,
            failed: false,
            finished: false,
        }
    }

    /// A same-dialect stream (Claude to Anthropic, Gemini to Gemini, Responses to OpenAI):
    /// forwarded untouched, read for usage.
    pub fn passthrough(dialect: Dialect, model: &str, prompt_estimate: i64) -> Self {
        Self::passthrough_counting(dialect, model, tokens::PromptCount::known(prompt_estimate))
    }

    /// [`Transcoder::passthrough`] with a prompt counted only if the upstream sends no usage.
    pub fn passthrough_counting(
        dialect: Dialect,
        model: &str,
        prompt: tokens::PromptCount,
    ) -> Self {
        let decoder = match dialect {
            Dialect::Responses => Decoder::Responses(ResponsesTap),
            d => Decoder::for_protocol(d.native_protocol()),
        };
        Transcoder::new(decoder, None, dialect, model, prompt)
    }

    /// A stream of a channel speaking `protocol`, converted for the client.
    pub fn converting(protocol: Protocol, client: ClientStream<'_>, prompt_estimate: i64) -> Self {
        Self::converting_counting(
            protocol,
            client,
            tokens::PromptCount::known(prompt_estimate),
        )
    }

    /// [`Transcoder::converting`] with a prompt counted only if the upstream sends no usage.
    pub fn converting_counting(
        protocol: Protocol,
        client: ClientStream<'_>,
        prompt: tokens::PromptCount,
    ) -> Self {
        let encoder = match client.dialect {
            Dialect::OpenAi => Encoder::OpenAi(openai_chat::StreamEncoder::new(
                client.include_usage,
                client.created,
            )),
            Dialect::Responses => {
                Encoder::Responses(responses::StreamEncoder::new(client.created, client.model))
            }
            Dialect::Claude => Encoder::Claude(claude::StreamEncoder::new(client.model)),
            Dialect::Gemini => Encoder::Gemini(gemini::StreamEncoder::new(client.model)),
        };
        Transcoder::new(
            Decoder::for_protocol(protocol),
            Some(encoder),
            client.dialect,
            client.model,
            prompt,
        )
    }

    /// Complete upstream events seen so far.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Feeds upstream bytes; returns what to send to the client. The first event is checked:
    /// malformed JSON or an error yields a fault instead (so another channel may be tried).
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Bytes, FirstEventFault> {
        // Room for what a converted event usually becomes (its text, in a frame of another
        // dialect), so the frames written grow the buffer once, not three times.
        let mut out = Vec::with_capacity(chunk.len() + 128);
        for event in self.framer.push(chunk) {
            let first = self.events == 0;
            self.events += 1;
            if self.failed || self.finished {
                continue;
            }
            let data = event_data(&event);
            let Some(data) = data.filter(|d| d.trim() != "[DONE]") else {
                if self.encoder.is_none() {
                    out.extend_from_slice(&event);
                }
                continue;
            };
            self.scratch.clear();
            if let Err(err) = self.decoder.decode(&data, &mut self.scratch) {
                if first {
                    return Err(match err {
                        ParseError::MalformedJson(_) => FirstEventFault::Malformed,
                        other => FirstEventFault::Error(json!({"message": other.to_string()})),
                    });
                }
                match &self.encoder {
                    // The provider's own error event, in the client's own dialect.
                    None => out.extend_from_slice(&event),
                    Some(_) if matches!(err, ParseError::MalformedJson(_)) => continue,
                    Some(_) => {
                        out.extend_from_slice(&self.dialect.error_event(502, &err.to_string()));
                        self.failed = true;
                    }
                }
                continue;
            }
            if self.encoder.is_none() {
                out.extend_from_slice(&event);
            }
            for ev in &self.scratch {
                match ev {
                    StreamEvent::Usage(u) => self.usage = Some(*u),
                    other if self.usage.is_none() => {
                        if let Some(t) = other.output_text() {
                            self.text.push_str(t);
                        }
                    }
                    _ => {}
                }
                if let Some(enc) = &mut self.encoder {
                    enc.encode(ev, &mut out);
                }
            }
        }
        Ok(Bytes::from(out))
    }

    /// Ends the stream: completes an event left unterminated, then (converted streams) the
    /// frames that close the client's stream. Returns what to send; empty once done.
    pub fn flush(&mut self) -> Bytes {
        let mut out = Vec::new();
        if self.has_pending() {
            out.extend_from_slice(&self.feed(b"\n\n").unwrap_or_default());
        }
        if !self.finished && !self.failed {
            self.finished = true;
            if let Some(enc) = &mut self.encoder {
                enc.finish(&mut out);
            }
        }
        Bytes::from(out)
    }

    /// Whether bytes of an unterminated event are held.
    pub fn has_pending(&self) -> bool {
        !self
            .framer
            .pending()
            .iter()
            .all(|b| b.is_ascii_whitespace())
    }

    /// Output tokens so far, cheaply: the upstream's running count when it sends one, else
    /// the output's bytes / 3 (at least the token count for English and CJK text alike).
    pub fn running_output_tokens(&self) -> i64 {
        match self.usage {
            Some(u) => u.output_tokens,
            None => self.text.len().div_ceil(3) as i64,
        }
    }

    /// Usage for billing: the upstream's, or local counts, and whether it was counted locally.
    pub fn usage(&self) -> (openai::Usage, bool) {
        match self.usage {
            Some(u) => (u.into(), false),
            None => (
                openai::Usage {
                    prompt_tokens: self.prompt.get(&self.model),
                    completion_tokens: tokens::estimate(&self.model, &self.text),
                    cached_tokens: 0,
                    cache_creation_tokens: 0,
                },
                true,
            ),
        }
    }

    /// The event that ends this stream after a failure on our side, in the client's dialect.
    pub fn error_event(&self, status: u16, message: &str) -> Bytes {
        Bytes::from(self.dialect.error_event(status, message))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const CLAUDE_STREAM: &str = concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1,\"cache_read_input_tokens\":4,\"cache_creation_input_tokens\":6}}}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\n",
        "event: message_stop\n",
        "data: {\"type\":\"message_stop\"}\n\n",
    );

    fn client(dialect: Dialect) -> ClientStream<'static> {
        ClientStream {
            dialect,
            model: "claude-x",
            created: 1_700_000_000,
            include_usage: true,
        }
    }

    #[test]
    fn claude_passthrough_is_untouched_and_billed_with_cache_tokens() {
        let mut t = Transcoder::passthrough(Dialect::Claude, "claude-x", 3);
        let mut out = Vec::new();
        // Arbitrary chunk boundaries.
        for piece in CLAUDE_STREAM.as_bytes().chunks(7) {
            out.extend_from_slice(&t.feed(piece).unwrap());
        }
        out.extend_from_slice(&t.flush());
        assert_eq!(String::from_utf8(out).unwrap(), CLAUDE_STREAM);
        let (u, local) = t.usage();
        assert!(!local);
        assert_eq!(u.prompt_tokens, 20);
        assert_eq!(u.cached_tokens, 4);
        assert_eq!(u.cache_creation_tokens, 6);
        assert_eq!(u.completion_tokens, 5);
    }

    #[test]
    fn claude_to_openai_chat_ends_with_usage_and_done() {
        let mut t = Transcoder::converting(Protocol::Anthropic, client(Dialect::OpenAi), 3);
        let mut out = t.feed(CLAUDE_STREAM.as_bytes()).unwrap().to_vec();
        out.extend_from_slice(&t.flush());
        assert!(t.flush().is_empty());
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\"content\":\"Hello\""), "{text}");
        assert!(text.contains("\"finish_reason\":\"stop\""), "{text}");
        assert!(text.contains("\"prompt_tokens\":20"), "{text}");
        assert!(text.ends_with("data: [DONE]\n\n"), "{text}");
    }

    #[test]
    fn a_bad_first_event_is_a_fault_and_a_later_error_ends_the_stream() {
        let mut t = Transcoder::converting(Protocol::Anthropic, client(Dialect::OpenAi), 3);
        assert!(matches!(
            t.feed(b"data: {oops\n\n"),
            Err(FirstEventFault::Malformed)
        ));
        let mut t = Transcoder::converting(Protocol::Anthropic, client(Dialect::Gemini), 3);
        let err = b"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
        assert!(matches!(t.feed(err), Err(FirstEventFault::Error(_))));
        let mut t = Transcoder::converting(Protocol::Anthropic, client(Dialect::OpenAi), 3);
        let start = CLAUDE_STREAM
            .split("event: content_block_start")
            .next()
            .unwrap();
        t.feed(start.as_bytes()).unwrap();
        let tail = String::from_utf8(t.feed(err).unwrap().to_vec()).unwrap();
        assert!(tail.contains("Overloaded"), "{tail}");
        // Nothing more after the error, not even the closing frames.
        assert!(
            t.feed(b"data: {\"type\":\"message_stop\"}\n\n")
                .unwrap()
                .is_empty()
        );
        assert!(t.flush().is_empty());
    }

    #[test]
    fn usage_missing_is_counted_locally() {
        let mut t = Transcoder::passthrough(Dialect::Responses, "gpt-4o", 9);
        t.feed(b"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"one two three\"}\n\n")
            .unwrap();
        let (u, local) = t.usage();
        assert!(local);
        assert_eq!(u.prompt_tokens, 9);
        assert!(u.completion_tokens > 0);
    }
}
