//! Event streams to SSE, read back by the Claude and Converse decoders, split anywhere.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use base64::Engine as _;
use serde_json::{Value, json};

use super::*;
use crate::bedrock::eventstream::encode;
use crate::ir::{StopReason, StreamEvent, Usage};
use crate::stream::{SseFramer, event_data};

fn chunk(anthropic_event: &Value) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(anthropic_event.to_string());
    encode(
        &[
            (":event-type", "chunk"),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        json!({"bytes": b64, "p": "abcd"}).to_string().as_bytes(),
    )
}

fn converse(event_type: &str, payload: &Value) -> Vec<u8> {
    encode(
        &[
            (":event-type", event_type),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload.to_string().as_bytes(),
    )
}

fn exception(kind: &str, message: &str) -> Vec<u8> {
    encode(
        &[
            (":exception-type", kind),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        json!({ "message": message }).to_string().as_bytes(),
    )
}

fn invoke_stream() -> Vec<u8> {
    [
        chunk(&json!({"type": "message_start", "message": {"id": "msg_1", "model": "claude",
            "usage": {"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 4}}})),
        chunk(&json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        chunk(&json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hé"}})),
        chunk(&json!({"type": "content_block_stop", "index": 0})),
        chunk(&json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}})),
        chunk(&json!({"type": "message_stop", "amazon-bedrock-invocationMetrics": {"inputTokenCount": 10}})),
    ]
    .concat()
}

/// Feeds `bytes` split at `split`, frames the SSE and returns each event's name and data.
fn to_sse(kind: StreamKind, bytes: &[u8], split: usize) -> Vec<(Option<String>, String)> {
    let mut conv = EventStreamToSse::new(kind);
    let mut framer = SseFramer::default();
    let mut events = framer.push(&conv.feed(&bytes[..split]).unwrap());
    events.extend(framer.push(&conv.feed(&bytes[split..]).unwrap()));
    assert!(!conv.has_pending() && framer.pending().is_empty());
    events
        .iter()
        .map(|e| {
            let text = std::str::from_utf8(e).unwrap();
            let name = text
                .lines()
                .find_map(|l| l.strip_prefix("event: "))
                .map(str::to_owned);
            (name, event_data(e).unwrap().into_owned())
        })
        .collect()
}

#[test]
fn invoke_chunks_become_anthropic_sse_at_any_split() {
    let bytes = invoke_stream();
    let whole = to_sse(StreamKind::Invoke, &bytes, 0);
    let names: Vec<_> = whole.iter().map(|(n, _)| n.clone().unwrap()).collect();
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
    for split in 1..=bytes.len() {
        assert_eq!(
            to_sse(StreamKind::Invoke, &bytes, split),
            whole,
            "split at {split}"
        );
    }
    let mut d = crate::claude::StreamDecoder::new();
    let mut out = Vec::new();
    for (_, data) in &whole {
        d.decode(data, &mut out).unwrap();
    }
    assert_eq!(
        out,
        vec![
            StreamEvent::Start {
                id: "msg_1".into(),
                model: "claude".into()
            },
            StreamEvent::TextDelta("Hé".into()),
            StreamEvent::Finish(StopReason::EndTurn),
            StreamEvent::Usage(Usage {
                input_tokens: 14,
                output_tokens: 3,
                cache_read_tokens: 4,
                cache_creation_tokens: 0,
                reasoning_tokens: 0,
            }),
        ]
    );
}

#[test]
fn invoke_exceptions_become_anthropic_errors() {
    let mut bytes = chunk(&json!({"type": "message_start", "message": {"id": "m"}}));
    bytes.extend(exception("throttlingException", "Too many tokens"));
    let events = to_sse(StreamKind::Invoke, &bytes, 7);
    assert_eq!(events[1].0.as_deref(), Some("error"));
    assert_eq!(
        serde_json::from_str::<Value>(&events[1].1).unwrap(),
        json!({"type": "error", "error": {"type": "throttlingException", "message": "Too many tokens"}})
    );
    let mut d = crate::claude::StreamDecoder::new();
    let mut out = Vec::new();
    d.decode(&events[0].1, &mut out).unwrap();
    let err = d.decode(&events[1].1, &mut out).unwrap_err();
    assert!(err.to_string().contains("Too many tokens"), "{err}");
    // A chunk that is not base64 JSON is an error event too.
    let bad = encode(
        &[(":event-type", "chunk"), (":message-type", "event")],
        br#"{"bytes":"!!"}"#,
    );
    let events = to_sse(StreamKind::Invoke, &bad, 0);
    assert_eq!(events[0].0.as_deref(), Some("error"));
}

#[test]
fn converse_events_are_wrapped_by_type_at_any_split() {
    let bytes = [
        converse("messageStart", &json!({"role": "assistant"})),
        converse(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 0, "delta": {"text": "Hi"}}),
        ),
        converse("contentBlockStop", &json!({"contentBlockIndex": 0})),
        converse("messageStop", &json!({"stopReason": "end_turn"})),
        converse(
            "metadata",
            &json!({"usage": {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4}}),
        ),
    ]
    .concat();
    let whole = to_sse(StreamKind::Converse, &bytes, 0);
    assert_eq!(
        serde_json::from_str::<Value>(&whole[1].1).unwrap(),
        json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hi"}}})
    );
    assert!(whole.iter().all(|(name, _)| name.is_none()));
    for split in 1..=bytes.len() {
        assert_eq!(
            to_sse(StreamKind::Converse, &bytes, split),
            whole,
            "split at {split}"
        );
    }
    let mut d = crate::bedrock::StreamDecoder::new();
    let mut out = Vec::new();
    for (_, data) in &whole {
        d.decode(data, &mut out).unwrap();
    }
    assert_eq!(out.len(), 4);
    assert_eq!(
        out[3],
        StreamEvent::Usage(Usage {
            input_tokens: 3,
            output_tokens: 1,
            ..Usage::default()
        })
    );
}

#[test]
fn converse_exceptions_and_error_messages_are_decoder_errors() {
    let bytes = [
        converse("messageStart", &json!({"role": "assistant"})),
        exception("modelStreamErrorException", "upstream broke"),
        encode(
            &[
                (":message-type", "error"),
                (":error-code", "InternalFailure"),
                (":error-message", "oops"),
            ],
            b"",
        ),
    ]
    .concat();
    let events = to_sse(StreamKind::Converse, &bytes, 0);
    let mut d = crate::bedrock::StreamDecoder::new();
    let mut out = Vec::new();
    d.decode(&events[0].1, &mut out).unwrap();
    assert_eq!(
        d.decode(&events[1].1, &mut out).unwrap_err().to_string(),
        "modelStreamErrorException: upstream broke"
    );
    assert_eq!(
        d.decode(&events[2].1, &mut out).unwrap_err().to_string(),
        "InternalFailureException: oops"
    );
}

#[test]
fn framing_errors_stop_the_stream() {
    let mut bytes = converse("messageStart", &json!({}));
    let n = bytes.len();
    bytes[n - 1] ^= 0xff;
    let mut conv = EventStreamToSse::new(StreamKind::Converse);
    assert!(conv.feed(&bytes).is_err());
    assert!(conv.feed(&converse("messageStart", &json!({}))).is_err());
}
