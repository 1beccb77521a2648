//! Client side: IR stream events encoded as Gemini SSE chunks.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::super::StreamEncoder;
use super::frames;
use crate::ir::{StopReason, StreamEvent, Usage};

fn encode(enc: &mut StreamEncoder, events: &[StreamEvent]) -> Vec<u8> {
    let mut out = Vec::new();
    for ev in events {
        enc.encode(ev, &mut out);
    }
    out
}

fn usage() -> Usage {
    Usage {
        input_tokens: 12,
        output_tokens: 40,
        cache_read_tokens: 0,
        cache_creation_tokens: 0,
        reasoning_tokens: 10,
    }
}

#[test]
fn full_stream_encodes_chunk_by_chunk() {
    let mut enc = StreamEncoder::new("gemini-2.5-flash");
    let events = [
        StreamEvent::Start {
            id: "r1".into(),
            model: "claude-sonnet".into(),
        },
        StreamEvent::ThinkingDelta("Think".into()),
        StreamEvent::ThinkingSignature("sig".into()),
        StreamEvent::TextDelta("Hel\"lo".into()),
        StreamEvent::ToolCallStart {
            index: 0,
            id: "call_a".into(),
            name: "f".into(),
        },
        StreamEvent::ToolCallDelta {
            index: 0,
            arguments: "{\"x\":".into(),
        },
        StreamEvent::ToolCallStart {
            index: 1,
            id: "call_b".into(),
            name: "g".into(),
        },
        StreamEvent::ToolCallDelta {
            index: 0,
            arguments: "1}".into(),
        },
        StreamEvent::Usage(Usage {
            output_tokens: 1,
            ..usage()
        }),
        StreamEvent::Finish(StopReason::ToolUse),
    ];
    let mut out = encode(&mut enc, &events);
    let before_usage = out.len();
    enc.encode(&StreamEvent::Usage(usage()), &mut out);
    assert!(
        out.len() > before_usage,
        "usage after Finish closes the stream"
    );
    let closed = out.len();
    enc.finish(&mut out);
    enc.encode(&StreamEvent::TextDelta("late".into()), &mut out);
    assert_eq!(out.len(), closed, "nothing after the last chunk");

    let tail = json!({"modelVersion": "gemini-2.5-flash", "responseId": "r1"});
    let chunk = |parts: serde_json::Value| {
        let mut c = json!({"candidates": [{"content": {"role": "model", "parts": parts},
                                           "index": 0}]});
        c.as_object_mut()
            .unwrap()
            .extend(tail.as_object().unwrap().clone());
        c
    };
    let mut last = json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": ""}]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 30,
                          "totalTokenCount": 52, "thoughtsTokenCount": 10}
    });
    last.as_object_mut()
        .unwrap()
        .extend(tail.as_object().unwrap().clone());
    assert_eq!(
        frames(&out),
        vec![
            chunk(json!([{"text": "Think", "thought": true}])),
            chunk(json!([{"text": "Hel\"lo", "thoughtSignature": "sig"}])),
            chunk(json!([
                {"functionCall": {"name": "f", "args": {"x": 1}, "id": "call_a"}},
                {"functionCall": {"name": "g", "args": {}, "id": "call_b"}}
            ])),
            last,
        ]
    );
}

#[test]
fn broken_stream_without_start_closes_with_what_is_known() {
    let mut enc = StreamEncoder::new("");
    let mut out = encode(
        &mut enc,
        &[
            StreamEvent::TextDelta("partial".into()),
            StreamEvent::ToolCallStart {
                index: 0,
                id: "c".into(),
                name: "f".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: "{\"a\":".into(),
            },
        ],
    );
    enc.finish(&mut out);
    let f = frames(&out);
    assert_eq!(f.len(), 3);
    assert_eq!(
        f[0]["candidates"][0]["content"]["parts"],
        json!([{"text": "partial"}])
    );
    assert_eq!(f[0]["modelVersion"], "");
    assert_eq!(
        f[1]["candidates"][0]["content"]["parts"],
        json!([{"functionCall": {"name": "f", "args": {}, "id": "c"}}])
    );
    assert!(f[2]["candidates"][0].get("finishReason").is_none());
    assert!(f[2].get("usageMetadata").is_none());
    // finish() twice sends nothing more.
    let n = out.len();
    enc.finish(&mut out);
    assert_eq!(out.len(), n);
}

#[test]
fn finish_without_later_usage_waits_for_finish_call() {
    let mut enc = StreamEncoder::new("m");
    let mut out = encode(
        &mut enc,
        &[
            StreamEvent::Usage(usage()),
            StreamEvent::TextDelta("hi".into()),
            StreamEvent::Finish(StopReason::MaxTokens),
        ],
    );
    assert_eq!(frames(&out).len(), 1);
    enc.encode(&StreamEvent::ThinkingSignature("tail-sig".into()), &mut out);
    enc.finish(&mut out);
    let f = frames(&out);
    assert_eq!(f.len(), 2);
    assert_eq!(f[1]["candidates"][0]["finishReason"], "MAX_TOKENS");
    assert_eq!(
        f[1]["candidates"][0]["content"]["parts"],
        json!([{"text": "", "thoughtSignature": "tail-sig"}])
    );
    assert_eq!(f[1]["usageMetadata"]["totalTokenCount"], 52);
    assert_eq!(f[1]["responseId"], "");
}

#[test]
fn empty_stream_still_ends_properly() {
    let mut enc = StreamEncoder::new("m");
    let mut out = Vec::new();
    enc.finish(&mut out);
    let f = frames(&out);
    assert_eq!(f.len(), 1);
    assert_eq!(
        f[0]["candidates"][0]["content"]["parts"],
        json!([{"text": ""}])
    );
}
