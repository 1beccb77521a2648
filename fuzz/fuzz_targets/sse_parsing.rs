//! Upstream SSE streams, cut into chunks where the fuzzer says, through the OpenAI relay and
//! every transcoder (passthrough per dialect, converting per protocol × dialect), then
//! flushed and read for usage; and each provider's event decoder fed the bytes as event
//! data. Nothing may panic.
//!
//! Input: byte 0 is `n` (mod 32), the next `n` bytes are chunk lengths, the rest is the
//! stream; what the lengths leave over is the last chunk.

#![no_main]

use adapters::convert::stream::ClientStream;
use adapters::convert::{Dialect, Transcoder};
use adapters::provider::Protocol;
use adapters::stream::{SseFramer, StreamRelay, event_data};
use adapters::{claude, gemini, ir, openai_chat};
use libfuzzer_sys::fuzz_target;

const PROTOCOLS: [Protocol; 3] = [Protocol::OpenAi, Protocol::Anthropic, Protocol::Gemini];
const DIALECTS: [Dialect; 4] = [
    Dialect::OpenAi,
    Dialect::Responses,
    Dialect::Claude,
    Dialect::Gemini,
];

fuzz_target!(|data: &[u8]| {
    let (chunks, stream) = split(data);

    for include_usage in [false, true] {
        let mut relay = StreamRelay::new("gpt-4o", include_usage, 12);
        if feed_all(&chunks, |c| relay.feed(c).is_ok()) {
            let _ = relay.flush();
        }
        let _ = (relay.events(), relay.done(), relay.running_output_tokens());
        let _ = relay.usage();
    }

    let mut transcoders: Vec<Transcoder> = DIALECTS
        .iter()
        .map(|d| Transcoder::passthrough(*d, "m", 12))
        .collect();
    for protocol in PROTOCOLS {
        for dialect in DIALECTS {
            let client = ClientStream {
                dialect,
                model: "m",
                created: 1_700_000_000,
                include_usage: true,
            };
            transcoders.push(Transcoder::converting(protocol, client, 12));
        }
    }
    for mut t in transcoders {
        if feed_all(&chunks, |c| t.feed(c).is_ok()) {
            let _ = t.flush();
            let _ = t.flush();
        }
        let _ = (t.events(), t.has_pending(), t.running_output_tokens());
        let _ = t.usage();
        let _ = t.error_event(502, "upstream broke");
    }

    // The framer alone, and each provider decoder over the event data it yields and over
    // the raw text (whole, then line by line) as if each were one event's data.
    let mut framer = SseFramer::default();
    let mut payloads: Vec<String> = Vec::new();
    for c in &chunks {
        payloads.extend(
            framer
                .push(c)
                .iter()
                .filter_map(|e| event_data(e).map(std::borrow::Cow::into_owned)),
        );
    }
    let text = String::from_utf8_lossy(stream);
    payloads.push(text.to_string());
    payloads.extend(text.lines().map(|l| {
        l.strip_prefix("data:")
            .map_or(l, str::trim_start)
            .to_owned()
    }));
    decode_all(&payloads);
});

/// Chunks as the input's header describes them, and the stream they cut.
fn split(data: &[u8]) -> (Vec<&[u8]>, &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return (Vec::new(), data);
    };
    let n = usize::from(n % 32).min(rest.len());
    let (lengths, mut stream) = rest.split_at(n);
    let whole = stream;
    let mut chunks = Vec::new();
    for &len in lengths {
        let at = usize::from(len).min(stream.len());
        let (head, tail) = stream.split_at(at);
        chunks.push(head);
        stream = tail;
    }
    chunks.push(stream);
    (chunks, whole)
}

/// Feeds chunks until one is refused (the relay gives up on a stream then); whether all went.
fn feed_all(chunks: &[&[u8]], mut feed: impl FnMut(&[u8]) -> bool) -> bool {
    chunks.iter().all(|c| feed(c))
}

/// Each provider's decoder over the payloads in order, as one stream's events.
fn decode_all(payloads: &[String]) {
    let mut out: Vec<ir::StreamEvent> = Vec::new();
    let mut openai = openai_chat::StreamDecoder::new();
    let mut claude = claude::StreamDecoder::new();
    let mut gemini = gemini::StreamDecoder::new();
    for p in payloads {
        out.clear();
        let _ = openai.decode(p, &mut out);
        let _ = claude.decode(p, &mut out);
        let _ = gemini.decode(p, &mut out);
        for ev in &out {
            let _ = ev.output_text();
        }
    }
    let _ = claude.usage();
}
