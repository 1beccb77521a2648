//! Micro-benchmarks of the per-request hot code: parsing a chat request, rewriting its body
//! for the upstream, framing and relaying an SSE answer event by event (the budget is
//! microseconds per event) and reading usage from a complete answer.

// The gateway binary's allocator (gateway/src/main.rs), so the figures are the relay's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;

use adapters::openai::{Endpoint, answer_usage, parse_request};
use adapters::stream::{SseFramer, StreamRelay};
use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// An SSE answer, one element per event.
fn sse_answer(events: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for i in 0..events {
        out.push(format!(
            "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"word{i} \"}},\"finish_reason\":null}}]}}\n\n"
        ).into_bytes());
    }
    out.push(b"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":20,\"total_tokens\":32}}\n\n".to_vec());
    out.push(b"data: [DONE]\n\n".to_vec());
    out
}

fn bench(c: &mut Criterion) {
    let answer = sse_answer(20);
    let events = answer.len() as u64;
    let mut g = c.benchmark_group("stream_relay");
    g.throughput(Throughput::Elements(events));
    g.bench_function("20 content events + usage, one chunk per event", |b| {
        b.iter(|| {
            let mut relay = StreamRelay::new("gpt-4o-mini", false, 12);
            for c in &answer {
                black_box(relay.feed(c).ok());
            }
            black_box(relay.usage())
        })
    });
    // The same answer as one body cut into 1 KiB reads, so events straddle reads.
    let whole = answer.concat();
    g.bench_function("20 content events + usage, 1 KiB reads", |b| {
        b.iter(|| {
            let mut relay = StreamRelay::new("gpt-4o-mini", false, 12);
            for c in whole.chunks(1024) {
                black_box(relay.feed(c).ok());
            }
            black_box(relay.usage())
        })
    });
    g.bench_function("framing only (SseFramer), 1 KiB reads", |b| {
        b.iter(|| {
            let mut framer = SseFramer::default();
            let mut n = 0;
            for c in whole.chunks(1024) {
                n += framer.push(c).len();
            }
            black_box(n)
        })
    });
    g.finish();
    let body = Bytes::from_static(
        br#"{"model":"gpt-4o-mini","stream":true,"max_tokens":256,"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"hello there, how are you today?"}]}"#,
    );
    c.bench_function("parse_request (small chat, tiktoken estimate)", |b| {
        b.iter(|| black_box(parse_request(Endpoint::ChatCompletions, body.clone()).ok()))
    });
    if let Ok(parsed) = parse_request(Endpoint::ChatCompletions, body.clone()) {
        c.bench_function("upstream_body (model remapped, usage forced)", |b| {
            b.iter(|| black_box(parsed.upstream_body("gpt-4o-mini-2024-07-18", true).ok()))
        });
        let answer: serde_json::Value = serde_json::json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "word ".repeat(20)}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 20, "total_tokens": 32},
        });
        let raw = answer.to_string();
        c.bench_function("non-stream answer: parse JSON + usage", |b| {
            b.iter(|| {
                let v: serde_json::Value =
                    serde_json::from_str(black_box(&raw)).unwrap_or_default();
                black_box(answer_usage(&parsed, &v))
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
