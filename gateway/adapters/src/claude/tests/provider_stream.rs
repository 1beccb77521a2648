//! Provider side: Anthropic stream payloads decoded to IR events, and the whole chain
//! (bytes → frames → IR → Anthropic SSE) fed at every byte boundary.

use super::frames;
use crate::ParseError;
use crate::claude::{StreamDecoder, StreamEncoder};
use crate::ir::{StopReason, StreamEvent, Usage};
use crate::stream::{SseFramer, event_data};

/// A recorded-style stream: thinking, text, a server tool, a client tool, cache usage.
const STREAM: &str = concat!(
    "event: message_start\n",
    r#"data: {"type":"message_start","message":{"id":"msg_01X","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000,"output_tokens":1}}}"#,
    "\n\n",
    "event: ping\n",
    r#"data: {"type": "ping"}"#,
    "\n\n",
    "event: content_block_start\n",
    r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Weather needs "}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a tool."}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAh"}}"#,
    "\n\n",
    "event: content_block_stop\n",
    r#"data: {"type":"content_block_stop","index":0}"#,
    "\n\n",
    "event: content_block_start\n",
    r#"data: {"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"x\"}"}}"#,
    "\n\n",
    "event: content_block_stop\n",
    r#"data: {"type":"content_block_stop","index":1}"#,
    "\n\n",
    "event: content_block_start\n",
    r#"data: {"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Let me check — "}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"type":"char_location"}}}"#,
    "\n\n",
    "event: content_block_stop\n",
    r#"data: {"type":"content_block_stop","index":2}"#,
    "\n\n",
    "event: content_block_start\n",
    r#"data: {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":""}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Par"}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"is\"}"}}"#,
    "\n\n",
    "event: content_block_stop\n",
    r#"data: {"type":"content_block_stop","index":3}"#,
    "\n\n",
    "event: message_delta\n",
    r#"data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}"#,
    "\n\n",
    "event: message_stop\n",
    r#"data: {"type":"message_stop"}"#,
    "\n\n",
);

fn want_events() -> Vec<StreamEvent> {
    vec![
        StreamEvent::Start {
            id: "msg_01X".into(),
            model: "claude-sonnet-4-5".into(),
        },
        StreamEvent::ThinkingDelta("Weather needs ".into()),
        StreamEvent::ThinkingDelta("a tool.".into()),
        StreamEvent::ThinkingSignature("EqQBCgIYAh".into()),
        StreamEvent::TextDelta("Let me check — ".into()),
        StreamEvent::ToolCallStart {
            index: 0,
            id: "toolu_01".into(),
            name: "get_weather".into(),
        },
        StreamEvent::ToolCallDelta {
            index: 0,
            arguments: "{\"city\": \"Par".into(),
        },
        StreamEvent::ToolCallDelta {
            index: 0,
            arguments: "is\"}".into(),
        },
        StreamEvent::Finish(StopReason::ToolUse),
        StreamEvent::Usage(Usage {
            input_tokens: 2112,
            output_tokens: 89,
            cache_read_tokens: 2000,
            cache_creation_tokens: 100,
            reasoning_tokens: 0,
        }),
    ]
}

/// Frames `bytes` fed in two pieces split at `at`, decoding each event's data.
fn decode_split(bytes: &[u8], at: usize) -> Vec<StreamEvent> {
    let mut framer = SseFramer::default();
    let mut dec = StreamDecoder::new();
    let mut events = Vec::new();
    for piece in [&bytes[..at], &bytes[at..]] {
        for frame in framer.push(piece) {
            if let Some(data) = event_data(&frame) {
                dec.decode(&data, &mut events).unwrap();
            }
        }
    }
    assert!(framer.pending().is_empty());
    events
}

#[test]
fn a_stream_decodes_to_ir_events_at_every_split() {
    let bytes = STREAM.as_bytes();
    let want = want_events();
    for at in 0..=bytes.len() {
        assert_eq!(decode_split(bytes, at), want, "split at {at}");
    }
}

#[test]
fn decoded_events_re_encode_as_an_equivalent_anthropic_stream() {
    let mut enc = StreamEncoder::new("unused");
    let mut out = Vec::new();
    for ev in want_events() {
        enc.encode(&ev, &mut out);
    }
    enc.finish(&mut out);
    let got = frames(&out);
    let names: Vec<&str> = got.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    assert_eq!(got[0].1["message"]["id"], "msg_01X");
    // Input tokens excluding the cache again, as the upstream reported them.
    assert_eq!(got[13].1["usage"]["input_tokens"], 12);
    assert_eq!(got[13].1["usage"]["cache_read_input_tokens"], 2000);
    assert_eq!(got[13].1["usage"]["output_tokens"], 89);
    assert_eq!(got[13].1["delta"]["stop_reason"], "tool_use");
}

#[test]
fn message_delta_usage_merges_over_message_start() {
    let mut dec = StreamDecoder::new();
    let mut out = Vec::new();
    for data in [
        r#"{"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":5,"output_tokens":1}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hi"}}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"f","input":{"a":1}}}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"redacted_thinking","data":"ENC"}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"input_tokens":7,"cache_read_input_tokens":3,"output_tokens":9}}"#,
        "[DONE]",
        "",
    ] {
        dec.decode(data, &mut out).unwrap();
    }
    assert_eq!(
        out[1..],
        [
            StreamEvent::TextDelta("Hi".into()),
            StreamEvent::ToolCallStart {
                index: 0,
                id: "t".into(),
                name: "f".into()
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: r#"{"a":1}"#.into()
            },
            StreamEvent::Finish(StopReason::MaxTokens),
            StreamEvent::Usage(Usage {
                input_tokens: 10,
                output_tokens: 9,
                cache_read_tokens: 3,
                cache_creation_tokens: 0,
                reasoning_tokens: 0,
            }),
        ]
    );
}

#[test]
fn errors_and_odd_payloads() {
    let mut dec = StreamDecoder::new();
    let mut out = Vec::new();
    assert_eq!(
        dec.decode(
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            &mut out
        ),
        Err(ParseError::Invalid("overloaded_error: Overloaded".into()))
    );
    assert!(matches!(
        dec.decode("{oops", &mut out),
        Err(ParseError::MalformedJson(_))
    ));
    for data in [
        "5",
        "[]",
        "null",
        r#"{"type":"message_start"}"#,
        r#"{"type":"message_start","message":7}"#,
        r#"{"type":"content_block_start"}"#,
        r#"{"type":"content_block_start","index":-1,"content_block":{"type":"text","text":5}}"#,
        r#"{"type":"content_block_delta"}"#,
        r#"{"type":"content_block_delta","index":18446744073709551615,"delta":{"type":"input_json_delta","partial_json":"x"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta"}}"#,
        r#"{"type":"message_delta"}"#,
        r#"{"type":"something_new","index":0}"#,
    ] {
        dec.decode(data, &mut out).unwrap();
    }
    // A made-up start for the bare message_start, and the usage of the bare message_delta.
    assert_eq!(
        out,
        [
            StreamEvent::Start {
                id: String::new(),
                model: String::new()
            },
            StreamEvent::Start {
                id: String::new(),
                model: String::new()
            },
            StreamEvent::Usage(Usage::default()),
        ]
    );
}

/// Payloads the typed read of common events takes, and ones it must leave to the value tree
/// (fields of other kinds, repeated fields, escapes, events it does not read).
const COMMON_AND_ODD: &[&str] = &[
    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}"#,
    r#"{"type":"content_block_start","index":2,"content_block":{"type":"server_tool_use","id":"s","name":"web_search","input":{}}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"plain"}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"esc\"aped\n\u00e9"}}"#,
    r#"{"delta":{"text":"first","type":"text_delta"},"index":0,"type":"content_block_delta"}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"repeated"}}"#,
    r#"{"type":"content_block_delta","type":"ping","index":0,"delta":{"type":"text_delta","text":"x"}}"#,
    r#"{"type":"content_block_delta","index":0.0,"delta":{"type":"text_delta","text":"float index"}}"#,
    r#"{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":"text index"}}"#,
    r#"{"type":"content_block_delta","index":-3,"delta":{"type":"text_delta","text":"negative"}}"#,
    r#"{"type":"content_block_delta","index":null,"delta":{"type":"text_delta","text":"null index"}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":7}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":["text_delta"]}"#,
    r#"{"type":"content_block_delta","index":0,"delta":"text"}"#,
    r#"{"type":"content_block_delta","index":0,"delta":null}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}"#,
    r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#,
    r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
    r#"{"type":"content_block_delta","index":9,"delta":{"type":"text_delta","text":"unstarted"}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"extra":[1,{"a":null}]}"#,
    r#"{"type":"ping"}"#,
    r#"{"type":"content_block_stop","index":0}"#,
    r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#,
    r#"{"type":"message_stop"}"#,
    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    r#"{"type":7}"#,
    r#"{"type":"content_block_delta""#,
    "not json",
];

#[test]
fn common_events_decode_as_the_value_tree_decodes_them() {
    let mut fast = StreamDecoder::new();
    let mut tree = StreamDecoder::new();
    for data in COMMON_AND_ODD {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let fast_result = fast.decode(data, &mut a);
        let tree_result = tree.decode_tree(data, &mut b);
        assert_eq!(fast_result, tree_result, "{data}");
        assert_eq!(a, b, "{data}");
    }
    assert_eq!(fast.usage(), tree.usage());
}

#[test]
fn ordinary_events_take_the_typed_read_and_odd_ones_are_left_to_the_tree() {
    let mut d = StreamDecoder::new();
    let mut out = Vec::new();
    for taken in [
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"plain"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\nb"}}"#,
        r#"{"type":"ping"}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_stop"}"#,
    ] {
        assert!(d.decode_common(taken, &mut out), "{taken}");
    }
    for left in [
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}"#,
        r#"{"type":"content_block_delta","index":0.0,"delta":{"type":"text_delta","text":"x"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":7}}"#,
        r#"{"type":"message_start","message":{"id":"m","model":"x"}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"}}"#,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        "not json",
    ] {
        let before = out.len();
        assert!(!d.decode_common(left, &mut out), "{left}");
        assert_eq!(out.len(), before, "{left}");
    }
}
