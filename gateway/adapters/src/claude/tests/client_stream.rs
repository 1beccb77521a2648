//! Client side: IR stream events encoded as Anthropic SSE.

use serde_json::{Value, json};

use super::frames;
use crate::claude::StreamEncoder;
use crate::ir::{StopReason, StreamEvent, Usage};

fn encode(events: &[StreamEvent], finish: bool) -> Vec<(String, Value)> {
    let mut enc = StreamEncoder::new("fallback-model");
    let mut out = Vec::new();
    for ev in events {
        enc.encode(ev, &mut out);
    }
    if finish {
        enc.finish(&mut out);
        // A second finish adds nothing.
        let len = out.len();
        enc.finish(&mut out);
        assert_eq!(out.len(), len);
    }
    let frames = frames(&out);
    check_sequence(&frames);
    frames
}

/// What an Anthropic SDK relies on: `message_start` first, then blocks opened, fed and
/// closed with contiguous indices (one open at a time), `message_delta`, `message_stop`.
fn check_sequence(frames: &[(String, Value)]) {
    let mut open: Option<u64> = None;
    let mut next = 0;
    let mut kinds: Vec<String> = Vec::new();
    for (i, (event, v)) in frames.iter().enumerate() {
        match event.as_str() {
            "message_start" => assert_eq!(i, 0),
            "content_block_start" => {
                assert!(open.is_none(), "block opened while another is open");
                assert_eq!(v["index"], next);
                kinds.push(v["content_block"]["type"].as_str().unwrap().to_owned());
                open = Some(next);
                next += 1;
            }
            "content_block_delta" => {
                let index = v["index"].as_u64().unwrap();
                assert!(index < next, "delta before its block");
                let kind = kinds[usize::try_from(index).unwrap()].as_str();
                let delta = v["delta"]["type"].as_str().unwrap();
                let ok = matches!(
                    (kind, delta),
                    ("text", "text_delta")
                        | ("thinking", "thinking_delta" | "signature_delta")
                        | ("tool_use", "input_json_delta")
                );
                assert!(ok, "{delta} in a {kind} block");
            }
            "content_block_stop" => {
                assert_eq!(Some(v["index"].as_u64().unwrap()), open.take());
            }
            "message_delta" => {
                assert!(open.is_none());
                assert_eq!(i + 2, frames.len());
            }
            "message_stop" => assert_eq!(i + 1, frames.len()),
            other => panic!("unexpected event {other}"),
        }
    }
}

fn usage() -> Usage {
    Usage {
        input_tokens: 50,
        output_tokens: 12,
        cache_read_tokens: 20,
        cache_creation_tokens: 5,
        reasoning_tokens: 3,
    }
}

#[test]
fn a_full_answer_streams_as_anthropic_events() {
    let events = [
        StreamEvent::Start {
            id: "chatcmpl-1".into(),
            model: "gpt-4o".into(),
        },
        StreamEvent::ThinkingDelta("Let me ".into()),
        StreamEvent::ThinkingDelta("think.".into()),
        StreamEvent::ThinkingSignature("sig".into()),
        StreamEvent::TextDelta(String::new()),
        StreamEvent::TextDelta("Checking \"Paris\".".into()),
        StreamEvent::ToolCallStart {
            index: 0,
            id: "call_1".into(),
            name: "get_weather".into(),
        },
        StreamEvent::ToolCallDelta {
            index: 0,
            arguments: "{\"city\":".into(),
        },
        StreamEvent::ToolCallDelta {
            index: 0,
            arguments: "\"Paris\"}".into(),
        },
        StreamEvent::Finish(StopReason::ToolUse),
        StreamEvent::Usage(usage()),
        // After the end: ignored.
        StreamEvent::TextDelta("late".into()),
    ];
    let want = vec![
        (
            "message_start",
            json!({"type": "message_start", "message": {
                "id": "msg_chatcmpl-1", "type": "message", "role": "assistant", "model": "gpt-4o",
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
            }}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me "}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "think."}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Checking \"Paris\"."}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"city\":"}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "\"Paris\"}"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 2}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": null},
            "usage": {"input_tokens": 25, "output_tokens": 12, "cache_read_input_tokens": 20, "cache_creation_input_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    let got = encode(&events, true);
    let want: Vec<(String, Value)> = want.into_iter().map(|(e, v)| (e.to_owned(), v)).collect();
    assert_eq!(got, want);
}

#[test]
fn the_closing_frames_wait_for_usage_after_finish() {
    let mut enc = StreamEncoder::new("m");
    let mut out = Vec::new();
    enc.encode(&StreamEvent::TextDelta("hi".into()), &mut out);
    // Usage before the stop (Gemini sends it on every chunk) is remembered, not final.
    enc.encode(
        &StreamEvent::Usage(Usage {
            output_tokens: 1,
            ..usage()
        }),
        &mut out,
    );
    enc.encode(&StreamEvent::Finish(StopReason::MaxTokens), &mut out);
    let f = frames(&out);
    assert_eq!(
        f.last().unwrap().0,
        "content_block_stop",
        "held until usage"
    );
    enc.encode(&StreamEvent::Usage(usage()), &mut out);
    let f = frames(&out);
    check_sequence(&f);
    let names: Vec<&str> = f.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    // No Start: one is made up with the fallback model and a msg_ id.
    assert_eq!(f[0].1["message"]["model"], "m");
    assert!(
        f[0].1["message"]["id"]
            .as_str()
            .unwrap()
            .starts_with("msg_")
    );
    assert_eq!(f[4].1["delta"]["stop_reason"], "max_tokens");
    assert_eq!(f[4].1["usage"]["output_tokens"], 12);
    let len = out.len();
    enc.encode(&StreamEvent::Usage(usage()), &mut out);
    enc.finish(&mut out);
    assert_eq!(out.len(), len, "nothing after message_stop");
}

#[test]
fn finish_closes_with_what_is_known() {
    // Usage before Finish and nothing after: sent at finish() with the last usage.
    let f = encode(
        &[
            StreamEvent::Usage(usage()),
            StreamEvent::TextDelta("a".into()),
            StreamEvent::Finish(StopReason::EndTurn),
        ],
        true,
    );
    // Usage known before the start goes into message_start.
    assert_eq!(f[0].1["message"]["usage"]["input_tokens"], 25);
    let delta = &f[f.len() - 2].1;
    assert_eq!(delta["delta"]["stop_reason"], "end_turn");
    assert_eq!(delta["usage"]["output_tokens"], 12);

    // An upstream that broke off mid-text: the block is closed, the message ended.
    let f = encode(&[StreamEvent::TextDelta("a".into())], true);
    let delta = &f[f.len() - 2].1;
    assert_eq!(delta["delta"]["stop_reason"], "end_turn");
    assert_eq!(delta["usage"], json!({"output_tokens": 0}));

    // Nothing at all.
    let f = encode(&[], true);
    let names: Vec<&str> = f.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(names, ["message_start", "message_delta", "message_stop"]);
}

#[test]
fn tool_calls_without_start_and_interleaved_kinds() {
    let f = encode(
        &[
            StreamEvent::Start {
                id: "msg_9".into(),
                model: String::new(),
            },
            StreamEvent::Start {
                id: "ignored".into(),
                model: "ignored".into(),
            },
            StreamEvent::TextDelta("a".into()),
            StreamEvent::ThinkingSignature("s".into()),
            StreamEvent::TextDelta("b".into()),
            StreamEvent::ToolCallDelta {
                index: 3,
                arguments: "{}".into(),
            },
            StreamEvent::ToolCallStart {
                index: 4,
                id: "c4".into(),
                name: "g".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 4,
                arguments: "{\"x\":1}".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 4,
                arguments: String::new(),
            },
            // The stop says end_turn although tools were called.
            StreamEvent::Finish(StopReason::EndTurn),
        ],
        true,
    );
    assert_eq!(f[0].1["message"]["id"], "msg_9");
    assert_eq!(f[0].1["message"]["model"], "fallback-model");
    let starts: Vec<&Value> = f
        .iter()
        .filter(|(e, _)| e == "content_block_start")
        .map(|(_, v)| &v["content_block"])
        .collect();
    assert_eq!(
        starts,
        [
            &json!({"type": "text", "text": ""}),
            &json!({"type": "thinking", "thinking": "", "signature": ""}),
            &json!({"type": "text", "text": ""}),
            &json!({"type": "tool_use", "id": "toolu_3", "name": "", "input": {}}),
            &json!({"type": "tool_use", "id": "c4", "name": "g", "input": {}}),
        ]
    );
    assert_eq!(f[f.len() - 2].1["delta"]["stop_reason"], "tool_use");
}

#[test]
fn a_delta_for_an_earlier_tool_goes_to_its_block() {
    let mut enc = StreamEncoder::new("m");
    let mut out = Vec::new();
    for ev in [
        StreamEvent::ToolCallStart {
            index: 0,
            id: "a".into(),
            name: "f".into(),
        },
        StreamEvent::ToolCallStart {
            index: 1,
            id: "b".into(),
            name: "g".into(),
        },
        StreamEvent::ToolCallDelta {
            index: 0,
            arguments: "{}".into(),
        },
    ] {
        enc.encode(&ev, &mut out);
    }
    let f = frames(&out);
    let last = &f.last().unwrap().1;
    assert_eq!(last["type"], "content_block_delta");
    assert_eq!(last["index"], 0);
}
