//! Micro-benchmarks of conversion against the same-dialect fast path, on realistic bodies
//! (a chat request of 10 messages with a system prompt and 2 tools; answers of about 300
//! tokens; streams of 50 events): what a converted request, answer and stream event cost
//! more than a passthrough one. Each converted case does what the gateway's relay does for
//! it (`gateway/src/relay/{post,convert,job}.rs`), serialisation included.
//!
//! Measured in CPU time of the benchmarking thread, not wall time: the machines are shared,
//! and time spent descheduled is not the code's cost. Streams are reported per event.

use std::collections::HashMap;
use std::hint::black_box;

use adapters::convert::stream::ClientStream;
use adapters::convert::{self, Dialect, EncodeOptions, Transcoder};
use adapters::openai::{Endpoint, answer_usage, parse_request};
use adapters::provider::Protocol;
use adapters::stream::StreamRelay;
use adapters::{claude, ir, openai_chat, tokens};
use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

// The gateway binary's allocator (gateway/src/main.rs): allocation is a large part of
// decoding and encoding, so the figures are the relay's only with the same one.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cpu_time;
use cpu_time::ThreadCpu;

/// Generated text of about `n` tokens (one common English word each).
fn words(n: usize, seed: usize) -> Vec<&'static str> {
    const W: [&str; 32] = [
        "the", "weather", "in", "Paris", "is", "mild", "today", "with", "light", "rain",
        "expected", "after", "noon", "and", "a", "high", "of", "eighteen", "degrees", "so",
        "bring", "an", "umbrella", "if", "you", "plan", "to", "walk", "along", "river", "this",
        "evening",
    ];
    (0..n).map(|i| W[(i * 7 + seed) % W.len()]).collect()
}

fn text(n: usize, seed: usize) -> String {
    words(n, seed).join(" ")
}

/// `total` tokens of text cut into `pieces` stream deltas (each with its leading space).
fn deltas(total: usize, pieces: usize) -> Vec<String> {
    let w = words(total, 3);
    (0..pieces)
        .map(|i| {
            let mut s = String::new();
            for word in &w[i * total / pieces..(i + 1) * total / pieces] {
                s.push(' ');
                s.push_str(word);
            }
            s
        })
        .collect()
}

fn tools_openai() -> Value {
    json!([
        {"type": "function", "function": {
            "name": "get_weather",
            "description": "Current weather and a short forecast for a city.",
            "parameters": {"type": "object", "properties": {
                "city": {"type": "string", "description": "City name, e.g. Paris"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 7}
            }, "required": ["city"]}
        }},
        {"type": "function", "function": {
            "name": "search_web",
            "description": "Searches the web and returns the top results.",
            "parameters": {"type": "object", "properties": {
                "query": {"type": "string"},
                "max_results": {"type": "integer", "default": 5}
            }, "required": ["query"]}
        }}
    ])
}

/// A chat request of ~10 messages: system prompt, turns, one tool call and its result.
fn openai_request(model: &str, stream: bool) -> Vec<u8> {
    let body = json!({
        "model": model,
        "stream": stream,
        "max_tokens": 1024,
        "temperature": 0.7,
        "messages": [
            {"role": "system", "content": format!("You are a helpful travel assistant. {}", text(60, 1))},
            {"role": "user", "content": text(25, 2)},
            {"role": "assistant", "content": text(40, 3)},
            {"role": "user", "content": text(20, 4)},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_abc123", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\",\"unit\":\"celsius\"}"}}]},
            {"role": "tool", "tool_call_id": "call_abc123", "content": "{\"temp\":18,\"conditions\":\"light rain\"}"},
            {"role": "assistant", "content": text(45, 5)},
            {"role": "user", "content": text(15, 6)},
            {"role": "assistant", "content": text(35, 7)},
            {"role": "user", "content": [{"type": "text", "text": text(30, 8)}]}
        ],
        "tools": tools_openai(),
        "tool_choice": "auto",
    });
    body.to_string().into_bytes()
}

/// The same conversation as an Anthropic Messages request.
fn claude_request(model: &str) -> Vec<u8> {
    let tools: Vec<Value> = tools_openai()
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let f = &t["function"];
            json!({"name": f["name"], "description": f["description"], "input_schema": f["parameters"]})
        })
        .collect();
    let body = json!({
        "model": model,
        "max_tokens": 1024,
        "temperature": 0.7,
        "system": format!("You are a helpful travel assistant. {}", text(60, 1)),
        "messages": [
            {"role": "user", "content": text(25, 2)},
            {"role": "assistant", "content": text(40, 3)},
            {"role": "user", "content": text(20, 4)},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_abc123", "name": "get_weather",
                "input": {"city": "Paris", "unit": "celsius"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_abc123",
                "content": "{\"temp\":18,\"conditions\":\"light rain\"}"}]},
            {"role": "assistant", "content": text(45, 5)},
            {"role": "user", "content": text(15, 6)},
            {"role": "assistant", "content": text(35, 7)},
            {"role": "user", "content": [{"type": "text", "text": text(30, 8)}]}
        ],
        "tools": tools,
        "tool_choice": {"type": "auto"},
    });
    body.to_string().into_bytes()
}

/// A non-stream chat.completion of ~300 tokens.
fn openai_answer() -> Vec<u8> {
    json!({
        "id": "chatcmpl-AbCdEf0123456789", "object": "chat.completion", "created": 1_732_470_000,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text(300, 9),
            "refusal": null, "annotations": []}, "logprobs": null, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 412, "completion_tokens": 300, "total_tokens": 712,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}},
        "service_tier": "default", "system_fingerprint": "fp_0ba0d124f1"
    })
    .to_string()
    .into_bytes()
}

/// The same answer from Anthropic.
fn claude_answer() -> Vec<u8> {
    json!({
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": text(300, 9)}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 412, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0, "output_tokens": 300, "service_tier": "standard"}
    })
    .to_string()
    .into_bytes()
}

/// The same answer from Gemini.
fn gemini_answer() -> Vec<u8> {
    json!({
        "candidates": [{"content": {"parts": [{"text": text(300, 9)}], "role": "model"},
            "finishReason": "STOP", "avgLogprobs": -0.21, "index": 0}],
        "usageMetadata": {"promptTokenCount": 412, "candidatesTokenCount": 300, "totalTokenCount": 712,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 412}]},
        "modelVersion": "gemini-2.0-flash", "responseId": "mZ9DaO2yBYGz1MkPq4yRwAk"
    })
    .to_string()
    .into_bytes()
}

/// Events in each stream (one `feed` call per event, as they arrive from a provider).
const EVENTS: usize = 50;

/// An OpenAI stream with usage: role chunk, 46 content chunks, finish, usage, `[DONE]`.
fn openai_stream() -> Vec<Vec<u8>> {
    let head = r#""id":"chatcmpl-AbCdEf0123456789","object":"chat.completion.chunk","created":1732470000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1""#;
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {{{head},\"choices\":[{{\"index\":0,\"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}],\"usage\":null}}\n\n"
        )
        .into_bytes()
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": "", "refusal": null}),
        Value::Null,
    )];
    for d in deltas(300, EVENTS - 4) {
        out.push(chunk(json!({ "content": d }), Value::Null));
    }
    out.push(chunk(json!({}), json!("stop")));
    out.push(format!(
        "data: {{{head},\"choices\":[],\"usage\":{{\"prompt_tokens\":412,\"completion_tokens\":300,\"total_tokens\":712,\"prompt_tokens_details\":{{\"cached_tokens\":0,\"audio_tokens\":0}},\"completion_tokens_details\":{{\"reasoning_tokens\":0,\"audio_tokens\":0,\"accepted_prediction_tokens\":0,\"rejected_prediction_tokens\":0}}}}}}\n\n"
    ).into_bytes());
    out.push(b"data: [DONE]\n\n".to_vec());
    out
}

/// An Anthropic stream: message_start, block start, ping, 44 text deltas, block stop,
/// message_delta, message_stop.
fn claude_stream() -> Vec<Vec<u8>> {
    let ev = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n").into_bytes();
    let mut out = vec![
        ev(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_01XFDUDYJgAACzvnptvVoYEL",
            "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 412, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0, "output_tokens": 1, "service_tier": "standard"}}}),
        ),
        ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        ev("ping", json!({"type": "ping"})),
    ];
    for d in deltas(300, EVENTS - 6) {
        out.push(ev(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": d}}),
        ));
    }
    out.push(ev(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    out.push(ev(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
            "usage": {"output_tokens": 300}}),
    ));
    out.push(ev("message_stop", json!({"type": "message_stop"})));
    out
}

/// A Gemini `alt=sse` stream: 50 chunks, each with its usage so far, the last finishing.
fn gemini_stream() -> Vec<Vec<u8>> {
    let pieces = deltas(300, EVENTS);
    let n = pieces.len();
    let mut done = 0;
    pieces
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            done += d.split_whitespace().count();
            let mut candidate =
                json!({"content": {"parts": [{"text": d}], "role": "model"}, "index": 0});
            if i + 1 == n {
                candidate["finishReason"] = json!("STOP");
            }
            let chunk = json!({
                "candidates": [candidate],
                "usageMetadata": {"promptTokenCount": 412, "candidatesTokenCount": done,
                    "totalTokenCount": 412 + done},
                "modelVersion": "gemini-2.0-flash", "responseId": "mZ9DaO2yBYGz1MkPq4yRwAk"
            });
            format!("data: {chunk}\r\n\r\n").into_bytes()
        })
        .collect()
}

fn requests(c: &mut Criterion<ThreadCpu>) {
    let mut g = c.benchmark_group("request");
    let openai = Bytes::from(openai_request("gpt-4o-mini", false));
    let no_safety = HashMap::new();
    let safety = EncodeOptions {
        gemini_safety: Some(&no_safety),
        gemini_image_output: false,
    };
    g.bench_function("same-dialect openai: parse_request + upstream_body", |b| {
        b.iter(|| {
            let p = parse_request(Endpoint::ChatCompletions, black_box(openai.clone())).ok()?;
            p.upstream_body("gpt-4o-mini", true).ok()
        })
    });
    g.bench_function(
        "same-dialect openai, model remapped: parse_request + upstream_body",
        |b| {
            b.iter(|| {
                let p = parse_request(Endpoint::ChatCompletions, black_box(openai.clone())).ok()?;
                p.upstream_body("gpt-4o-mini-2024-07-18", true).ok()
            })
        },
    );
    // What relay/job.rs and relay/convert.rs do: the body scanned (parse_request builds no
    // tree), decoded to IR for this attempt, encoded.
    let converted = |body: &Bytes, protocol: Protocol| {
        let p = parse_request(Endpoint::ChatCompletions, black_box(body.clone())).ok()?;
        // Decoded per attempt, so relay/convert.rs shapes it without a copy.
        let req = openai_chat::decode_request(p.raw()).ok()?;
        convert::encode_request(protocol, &req, "upstream-model", safety)
            .ok()
            .map(Bytes::from)
    };
    for (name, protocol) in [
        ("anthropic", Protocol::Anthropic),
        ("gemini", Protocol::Gemini),
    ] {
        g.bench_function(
            format!("converted openai -> {name}: parse_request + decode_request + encode_request"),
            |b| b.iter(|| converted(&openai, protocol)),
        );
    }
    // The usual converted request names the provider's own model: its prompt is estimated by
    // the heuristic, not tiktoken (whose tables, read just before, leave the caches cold for
    // the conversion above). Compared with the same body passed through.
    for (name, protocol, model) in [
        ("anthropic", Protocol::Anthropic, "claude-sonnet-4-5"),
        ("gemini", Protocol::Gemini, "gemini-2.5-flash"),
    ] {
        let body = Bytes::from(openai_request(model, false));
        g.bench_function(format!("same-dialect openai, model {model}"), |b| {
            b.iter(|| {
                let p = parse_request(Endpoint::ChatCompletions, black_box(body.clone())).ok()?;
                p.upstream_body(model, true).ok()
            })
        });
        g.bench_function(format!("converted openai -> {name}, model {model}"), |b| {
            b.iter(|| converted(&body, protocol))
        });
    }
    let claude_body = Bytes::from(claude_request("claude-sonnet-4-5"));
    // relay/job.rs: a Claude request is decoded to IR and its prompt estimated either way.
    let claude_job = |raw: &Bytes| {
        let ir = claude::decode_request(raw).ok()?;
        let framing = 3 * (ir.messages.len() as i64 + 1) + 8 * ir.tools.len() as i64;
        let estimate = tokens::estimate(&ir.model, &ir.prompt_text()) + framing;
        Some((ir, estimate))
    };
    g.bench_function(
        "same-dialect claude: decode_request + estimate (raw body forwarded)",
        |b| {
            b.iter(|| {
                let (ir, estimate) = claude_job(black_box(&claude_body))?;
                Some((claude_body.clone(), ir.stream, estimate))
            })
        },
    );
    g.bench_function(
        "converted claude -> openai: decode_request + estimate + encode_request",
        |b| {
            b.iter(|| {
                let (ir, estimate) = claude_job(black_box(&claude_body))?;
                // The job keeps its IR for other attempts: each attempt shapes a copy.
                let req = ir.clone();
                let body = convert::encode_request(Protocol::OpenAi, &req, "gpt-4o-mini", safety);
                Some((body.ok().map(Bytes::from)?, estimate))
            })
        },
    );
    g.finish();
    // The converted request step by step, to see where its cost is.
    let mut g = c.benchmark_group("request steps");
    let raw = openai.clone();
    g.bench_function(
        "openai parse_request (one pass, no tree + tiktoken estimate)",
        |b| b.iter(|| parse_request(Endpoint::ChatCompletions, black_box(raw.clone())).ok()),
    );
    // The scan alone: a model without a tiktoken tokenizer is estimated by the heuristic.
    let raw_other = Bytes::from(openai_request("claude-sonnet-4-5", false));
    g.bench_function(
        "openai parse_request, non-OpenAI model (scan + heuristic estimate)",
        |b| b.iter(|| parse_request(Endpoint::ChatCompletions, black_box(raw_other.clone())).ok()),
    );
    g.bench_function(
        "openai_chat::decode_request (borrowed tree, then IR)",
        |b| b.iter(|| openai_chat::decode_request(black_box(&raw)).ok()),
    );
    g.bench_function("serde_json::Value of the body (for comparison)", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(&raw)).ok())
    });
    g.bench_function("json_tree::Json of the body", |b| {
        b.iter(|| adapters::json_tree::Json::parse(black_box(&raw)).ok())
    });
    if let Ok(p) = parse_request(Endpoint::ChatCompletions, raw.clone()) {
        g.bench_function("upstream_body, same model (passthrough)", |b| {
            b.iter(|| black_box(&p).upstream_body("gpt-4o-mini", true).ok())
        });
    }
    g.bench_function(
        "conversion alone, openai -> anthropic (decode_request + encode_request)",
        |b| {
            b.iter(|| {
                let req = openai_chat::decode_request(black_box(&raw)).ok()?;
                convert::encode_request(Protocol::Anthropic, &req, "m", safety)
                    .ok()
                    .map(Bytes::from)
            })
        },
    );
    if let Ok(ir) = openai_chat::decode_request(&raw) {
        g.bench_function("ir::Request clone", |b| b.iter(|| black_box(&ir).clone()));
        for (name, protocol) in [
            ("anthropic", Protocol::Anthropic),
            ("gemini", Protocol::Gemini),
        ] {
            g.bench_function(format!("encode_request {name} (to bytes)"), |b| {
                b.iter(|| convert::encode_request(protocol, black_box(&ir), "m", safety).ok())
            });
        }
    }
    g.finish();
}

fn answers(c: &mut Criterion<ThreadCpu>) {
    let mut g = c.benchmark_group("answer");
    let parsed = match parse_request(
        Endpoint::ChatCompletions,
        Bytes::from(openai_request("gpt-4o-mini", false)),
    ) {
        Ok(p) => p,
        Err(e) => panic!("the bench request does not parse: {e}"),
    };
    let openai = openai_answer();
    g.bench_function("passthrough openai: parse JSON + answer_usage", |b| {
        b.iter(|| {
            let v: Value = serde_json::from_slice(black_box(&openai)).ok()?;
            Some(answer_usage(&parsed, &v))
        })
    });
    // What relay/convert.rs does with a converted answer.
    let convert_answer = |protocol: Protocol, raw: &[u8]| {
        let v: Value = serde_json::from_slice(raw).ok()?;
        let mut r: ir::Response = convert::decode_response(protocol, &v).ok()?;
        r.model = "gpt-4o-mini".to_owned();
        let usage = r.usage;
        let body = Dialect::OpenAi.encode_response_bytes(&r, 1_732_470_000);
        Some((Bytes::from(body), usage))
    };
    for (name, protocol, raw) in [
        ("anthropic", Protocol::Anthropic, claude_answer()),
        ("gemini", Protocol::Gemini, gemini_answer()),
    ] {
        g.bench_function(
            format!(
                "converted {name} -> openai: parse JSON + decode_response + encode_response_bytes"
            ),
            |b| b.iter(|| convert_answer(protocol, black_box(&raw))),
        );
    }
    // The same for an Anthropic answer read straight from its bytes (the relay's first try).
    let raw = claude_answer();
    g.bench_function(
        "converted anthropic -> openai: decode_response_bytes + encode_response_bytes",
        |b| {
            b.iter(|| {
                let mut r = claude::decode_response_bytes(black_box(&raw))?;
                r.model = "gpt-4o-mini".to_owned();
                let usage = r.usage;
                let body = Dialect::OpenAi.encode_response_bytes(&r, 1_732_470_000);
                Some((Bytes::from(body), usage))
            })
        },
    );
    g.finish();
}

fn client(dialect: Dialect, model: &str) -> ClientStream<'_> {
    ClientStream {
        dialect,
        model,
        created: 1_732_470_000,
        include_usage: true,
    }
}

fn streams(c: &mut Criterion<ThreadCpu>) {
    let mut g = c.benchmark_group("stream (per event)");
    let openai = openai_stream();
    let claude = claude_stream();
    let gemini = gemini_stream();
    for s in [&openai, &claude, &gemini] {
        assert_eq!(s.len(), EVENTS);
    }
    g.throughput(Throughput::Elements(EVENTS as u64));
    g.bench_function("passthrough openai: StreamRelay", |b| {
        b.iter(|| {
            let mut relay = StreamRelay::new("gpt-4o-mini", true, 412);
            let mut n = 0;
            for e in &openai {
                n += relay.feed(black_box(e)).map_or(0, |o| o.len());
            }
            n += relay.flush().len();
            (n, relay.usage())
        })
    });
    for (name, dialect, events) in [
        ("claude", Dialect::Claude, &claude),
        ("gemini", Dialect::Gemini, &gemini),
    ] {
        g.bench_function(
            format!("passthrough {name}: Transcoder::passthrough"),
            |b| {
                b.iter(|| {
                    let mut t = Transcoder::passthrough(dialect, "model-x", 412);
                    let mut n = 0;
                    for e in events {
                        n += t.feed(black_box(e)).map_or(0, |o| o.len());
                    }
                    n += t.flush().len();
                    (n, t.usage())
                })
            },
        );
    }
    let cases = [
        (
            "converted anthropic -> openai client",
            Protocol::Anthropic,
            Dialect::OpenAi,
            &claude,
        ),
        (
            "converted openai -> claude client",
            Protocol::OpenAi,
            Dialect::Claude,
            &openai,
        ),
        (
            "converted gemini -> openai client",
            Protocol::Gemini,
            Dialect::OpenAi,
            &gemini,
        ),
    ];
    for (name, protocol, dialect, events) in cases {
        g.bench_function(format!("{name}: Transcoder::converting"), |b| {
            b.iter(|| {
                let mut t = Transcoder::converting(protocol, client(dialect, "model-x"), 412);
                let mut n = 0;
                for e in events {
                    n += t.feed(black_box(e)).map_or(0, |o| o.len());
                }
                n += t.flush().len();
                (n, t.usage())
            })
        });
    }
    g.finish();
}

/// The converted streams must come out whole: checked once before measuring.
fn check_streams() {
    let feed_all = |mut t: Transcoder, events: &[Vec<u8>]| {
        let mut out = Vec::new();
        for e in events {
            match t.feed(e) {
                Ok(b) => out.extend_from_slice(&b),
                Err(err) => panic!("stream refused: {err:?}"),
            }
        }
        out.extend_from_slice(&t.flush());
        (String::from_utf8_lossy(&out).into_owned(), t.usage())
    };
    let (text, (usage, local)) = feed_all(
        Transcoder::converting(Protocol::Anthropic, client(Dialect::OpenAi, "m"), 1),
        &claude_stream(),
    );
    assert!(text.ends_with("data: [DONE]\n\n") && !local && usage.completion_tokens == 300);
    let (text, (usage, local)) = feed_all(
        Transcoder::converting(Protocol::OpenAi, client(Dialect::Claude, "m"), 1),
        &openai_stream(),
    );
    assert!(text.contains("message_stop") && !local && usage.completion_tokens == 300);
    let (text, (usage, local)) = feed_all(
        Transcoder::converting(Protocol::Gemini, client(Dialect::OpenAi, "m"), 1),
        &gemini_stream(),
    );
    assert!(text.ends_with("data: [DONE]\n\n") && !local && usage.completion_tokens == 300);
}

/// Every measured request and answer path must succeed (the benches drop errors silently).
fn check_requests_and_answers() {
    let openai = Bytes::from(openai_request("gpt-4o-mini", false));
    let parsed = parse_request(Endpoint::ChatCompletions, openai);
    let ir = parsed
        .as_ref()
        .ok()
        .and_then(|p| openai_chat::decode_request(p.raw()).ok());
    let claude_ir = claude::decode_request(&claude_request("claude-sonnet-4-5")).ok();
    let (Some(ir), Some(claude_ir)) = (ir, claude_ir) else {
        panic!("a bench request does not decode");
    };
    // System prompt apart: 9 turns (the tool result as a user turn) and 2 tools, both dialects.
    assert_eq!((ir.messages.len(), ir.tools.len()), (9, 2));
    assert_eq!((claude_ir.messages.len(), claude_ir.tools.len()), (9, 2));
    for (protocol, raw) in [
        (Protocol::Anthropic, claude_answer()),
        (Protocol::Gemini, gemini_answer()),
    ] {
        let answer = serde_json::from_slice(&raw)
            .ok()
            .and_then(|v: Value| convert::decode_response(protocol, &v).ok());
        assert!(answer.is_some_and(|a| a.usage.is_some_and(|u| u.output_tokens == 300)));
    }
}

fn bench(c: &mut Criterion<ThreadCpu>) {
    check_requests_and_answers();
    check_streams();
    requests(c);
    answers(c);
    streams(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpu);
    targets = bench
}
criterion_main!(benches);
