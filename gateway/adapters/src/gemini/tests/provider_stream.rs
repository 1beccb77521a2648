//! Provider side: Gemini SSE payloads decoded to IR events, chunk by chunk.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::super::{StreamDecoder, StreamEncoder};
use super::frames;
use crate::ParseError;
use crate::ir::{StopReason, StreamEvent, Usage};

fn feed(dec: &mut StreamDecoder, data: &str) -> Vec<StreamEvent> {
    let mut out = Vec::new();
    dec.decode(data, &mut out).unwrap();
    out
}

const THINKING_AND_CALLS: [&str; 4] = [
    r#"{"candidates": [{"content": {"parts": [{"text": "**Planning**\n","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 50,"totalTokenCount": 80,"thoughtsTokenCount": 30},"modelVersion": "gemini-2.5-flash","responseId": "rid42"}"#,
    r#"{"candidates": [{"content": {"parts": [{"text": "Sure, "}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 50,"totalTokenCount": 80,"thoughtsTokenCount": 30},"modelVersion": "gemini-2.5-flash","responseId": "rid42"}"#,
    r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "weather","args": {"city": "Paris"}},"thoughtSignature": "CsMB"},{"functionCall": {"name": "time","args": {}}}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 50,"candidatesTokenCount": 12,"totalTokenCount": 92,"thoughtsTokenCount": 30},"modelVersion": "gemini-2.5-flash","responseId": "rid42"}"#,
    r#"{"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 50,"candidatesTokenCount": 12,"totalTokenCount": 92,"thoughtsTokenCount": 30,"cachedContentTokenCount": 8},"modelVersion": "gemini-2.5-flash","responseId": "rid42"}"#,
];

#[test]
fn thinking_text_and_calls_decode_chunk_by_chunk() {
    let mut dec = StreamDecoder::new();
    let early = Usage {
        input_tokens: 50,
        output_tokens: 30,
        cache_read_tokens: 0,
        cache_creation_tokens: 0,
        reasoning_tokens: 30,
    };
    assert_eq!(
        feed(&mut dec, THINKING_AND_CALLS[0]),
        vec![
            StreamEvent::Start {
                id: "rid42".into(),
                model: "gemini-2.5-flash".into()
            },
            StreamEvent::ThinkingDelta("**Planning**\n".into()),
            StreamEvent::Usage(early),
        ]
    );
    // Same usage again: no new Usage event.
    assert_eq!(
        feed(&mut dec, THINKING_AND_CALLS[1]),
        vec![StreamEvent::TextDelta("Sure, ".into())]
    );
    let later = Usage {
        output_tokens: 42,
        ..early
    };
    assert_eq!(
        feed(&mut dec, THINKING_AND_CALLS[2]),
        vec![
            StreamEvent::ThinkingSignature("CsMB".into()),
            StreamEvent::ToolCallStart {
                index: 0,
                id: "call_rid42_0".into(),
                name: "weather".into()
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: r#"{"city":"Paris"}"#.into()
            },
            StreamEvent::ToolCallStart {
                index: 1,
                id: "call_rid42_1".into(),
                name: "time".into()
            },
            StreamEvent::ToolCallDelta {
                index: 1,
                arguments: "{}".into()
            },
            StreamEvent::Usage(later),
        ]
    );
    assert_eq!(
        feed(&mut dec, THINKING_AND_CALLS[3]),
        vec![
            StreamEvent::Finish(StopReason::ToolUse),
            StreamEvent::Usage(Usage {
                cache_read_tokens: 8,
                ..later
            }),
        ]
    );
    assert!(feed(&mut dec, "[DONE]").is_empty());
    assert!(feed(&mut dec, "  ").is_empty());
}

#[test]
fn finish_usage_is_sent_even_when_unchanged_and_finish_only_once() {
    let mut dec = StreamDecoder::new();
    let u = r#""usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1}"#;
    let first =
        format!(r#"{{"candidates": [{{"content": {{"parts": [{{"text": "a"}}]}}}}], {u}}}"#);
    let last = format!(
        r#"{{"candidates": [{{"content": {{"parts": [{{"text": "b"}}]}}, "finishReason": "MAX_TOKENS"}}], {u}}}"#
    );
    let usage = StreamEvent::Usage(Usage {
        input_tokens: 3,
        output_tokens: 1,
        ..Usage::default()
    });
    assert_eq!(
        feed(&mut dec, &first),
        vec![
            StreamEvent::Start {
                id: String::new(),
                model: String::new()
            },
            StreamEvent::TextDelta("a".into()),
            usage.clone(),
        ]
    );
    assert_eq!(
        feed(&mut dec, &last),
        vec![
            StreamEvent::TextDelta("b".into()),
            StreamEvent::Finish(StopReason::MaxTokens),
            usage,
        ]
    );
    // A repeated finishReason does not finish twice.
    assert!(feed(&mut dec, &last).contains(&StreamEvent::TextDelta("b".into())));
    assert!(
        !feed(&mut dec, &last)
            .iter()
            .any(|e| matches!(e, StreamEvent::Finish(_)))
    );
}

#[test]
fn blocked_prompt_finishes_with_content_filter() {
    let mut dec = StreamDecoder::new();
    let out = feed(
        &mut dec,
        r#"{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}, "modelVersion": "gemini-2.5-pro", "responseId": "b1"}"#,
    );
    assert_eq!(
        out,
        vec![
            StreamEvent::Start {
                id: "b1".into(),
                model: "gemini-2.5-pro".into()
            },
            StreamEvent::Finish(StopReason::ContentFilter),
            StreamEvent::Usage(Usage {
                input_tokens: 9,
                ..Usage::default()
            }),
        ]
    );
}

#[test]
fn thought_signature_on_thought_part_follows_it() {
    let mut dec = StreamDecoder::new();
    let out = feed(
        &mut dec,
        r#"{"candidates": [{"content": {"parts": [{"text": "hmm", "thought": true, "thoughtSignature": "S"}, {"text": "", "thoughtSignature": "T"}]}}]}"#,
    );
    assert_eq!(
        out[1..],
        [
            StreamEvent::ThinkingDelta("hmm".into()),
            StreamEvent::ThinkingSignature("S".into()),
            StreamEvent::ThinkingSignature("T".into()),
        ]
    );
}

#[test]
fn errors_and_garbage_are_errors() {
    let mut dec = StreamDecoder::new();
    let mut out = Vec::new();
    assert_eq!(
        dec.decode(
            r#"{"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}"#,
            &mut out
        ),
        Err(ParseError::Invalid("The model is overloaded.".into()))
    );
    assert!(matches!(
        dec.decode("{\"candidates\": [", &mut out),
        Err(ParseError::MalformedJson(_))
    ));
    assert!(matches!(
        dec.decode("42", &mut out),
        Err(ParseError::Invalid(_))
    ));
    assert!(matches!(
        dec.decode(
            r#"{"candidates": [{"content": {"parts": {"text": 1}}}]}"#,
            &mut out
        ),
        Err(ParseError::Invalid(_))
    ));
    assert!(out.is_empty());
}

#[test]
fn gemini_stream_relays_to_a_gemini_client() {
    // Provider decoder → client encoder: what a Gemini client sees of a Gemini upstream.
    let mut dec = StreamDecoder::new();
    let mut enc = StreamEncoder::new("gemini-2.5-flash");
    let mut bytes = Vec::new();
    for chunk in THINKING_AND_CALLS {
        for ev in feed(&mut dec, chunk) {
            enc.encode(&ev, &mut bytes);
        }
    }
    enc.finish(&mut bytes);
    let f = frames(&bytes);
    assert_eq!(f.len(), 4);
    assert_eq!(
        f[0]["candidates"][0]["content"]["parts"],
        serde_json::json!([{"text": "**Planning**\n", "thought": true}])
    );
    assert_eq!(
        f[2]["candidates"][0]["content"]["parts"],
        serde_json::json!([
            {"functionCall": {"name": "weather", "args": {"city": "Paris"}, "id": "call_rid42_0"},
             "thoughtSignature": "CsMB"},
            {"functionCall": {"name": "time", "args": {}, "id": "call_rid42_1"}}
        ])
    );
    assert_eq!(f[3]["candidates"][0]["finishReason"], "STOP");
    assert_eq!(
        f[3]["usageMetadata"],
        serde_json::json!({"promptTokenCount": 50, "candidatesTokenCount": 12,
                           "totalTokenCount": 92, "thoughtsTokenCount": 30,
                           "cachedContentTokenCount": 8})
    );
    assert_eq!(f[3]["responseId"], "rid42");
}

#[test]
fn recorded_sse_body_decodes_whatever_the_chunking() {
    // Google frames events with `\r\n\r\n`; the gateway's framer splits them.
    let body: String = THINKING_AND_CALLS
        .iter()
        .map(|c| format!("data: {c}\r\n\r\n"))
        .collect();
    let run = |pieces: &[&[u8]]| {
        let mut framer = crate::stream::SseFramer::default();
        let mut dec = StreamDecoder::new();
        let mut events = Vec::new();
        for piece in pieces {
            for ev in framer.push(piece) {
                let data = crate::stream::event_data(&ev).unwrap();
                dec.decode(&data, &mut events).unwrap();
            }
        }
        assert!(framer.pending().is_empty());
        events
    };
    let whole = run(&[body.as_bytes()]);
    assert_eq!(whole.len(), 12);
    let bytes = body.as_bytes();
    for cut in 1..bytes.len() {
        assert_eq!(
            run(&[&bytes[..cut], &bytes[cut..]]),
            whole,
            "split at {cut}"
        );
    }
}
