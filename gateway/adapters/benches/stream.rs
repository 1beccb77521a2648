//! Micro-benchmarks of the per-request hot code: parsing a chat request and relaying an SSE
//! answer event by event (the budget is microseconds per event).

use std::hint::black_box;

use adapters::openai::{Endpoint, parse_request};
use adapters::stream::StreamRelay;
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
    g.finish();
    let body = Bytes::from_static(
        br#"{"model":"gpt-4o-mini","stream":true,"max_tokens":256,"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"hello there, how are you today?"}]}"#,
    );
    c.bench_function("parse_request (small chat, tiktoken estimate)", |b| {
        b.iter(|| black_box(parse_request(Endpoint::ChatCompletions, body.clone()).ok()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
