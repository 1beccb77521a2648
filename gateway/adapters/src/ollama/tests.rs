//! Golden tests of the Ollama codec: request bodies, answers, stream lines, the NDJSON
//! framer at every byte split, embeddings and tags.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::*;
use crate::ParseError;
use crate::ir::{
    ImageSource, Message, Part, Reasoning, Request, Role, SchemaText, StopReason, StreamEvent,
    Tool, ToolChoice, Usage,
};
use crate::stream::{SseFramer, event_data};

fn body(req: &Request, model: &str) -> Value {
    serde_json::to_value(encode_request(req, model).unwrap()).unwrap()
}

fn history() -> Request {
    Request {
        model: "client-name".into(),
        system: vec!["Be brief.".into(), "Use metric units.".into()],
        messages: vec![
            Message {
                role: Role::User,
                content: vec![
                    Part::Text("Weather here?".into()),
                    Part::Image(ImageSource::Base64 {
                        media_type: "image/png".into(),
                        data: "iVBORw0KGgo=".into(),
                    }),
                    Part::Image(ImageSource::Url("data:image/jpeg;base64,/9j/4AAQ".into())),
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    Part::Thinking {
                        text: "Need the tool.".into(),
                        signature: Some("sig".into()),
                    },
                    Part::ToolCall {
                        id: "call_1".into(),
                        name: "get_weather".into(),
                        arguments: r#"{"city": "Paris"}"#.into(),
                    },
                    Part::ToolCall {
                        id: "call_2".into(),
                        name: "get_time".into(),
                        arguments: String::new(),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    Part::ToolResult {
                        call_id: "call_1".into(),
                        name: None,
                        content: vec![Part::Text("18C".into())],
                        is_error: false,
                    },
                    Part::ToolResult {
                        call_id: "call_2".into(),
                        name: Some("get_time".into()),
                        content: vec![Part::Text("noon".into())],
                        is_error: false,
                    },
                    Part::Text("Thanks".into()),
                ],
            },
        ],
        tools: vec![Tool {
            name: "get_weather".into(),
            description: Some("Weather of a city".into()),
            parameters: SchemaText::from(
                json!({"type": "object", "properties": {"city": {"type": "string"}}}),
            ),
        }],
        tool_choice: Some(ToolChoice::Auto),
        max_tokens: Some(100),
        temperature: Some(0.5),
        top_p: Some(0.9),
        top_k: Some(40),
        stop: vec!["END".into()],
        stream: true,
        reasoning: Some(Reasoning {
            effort: Some("high".into()),
            ..Reasoning::default()
        }),
        user: Some("u1".into()),
        json_output: None,
    }
}

#[test]
fn request_golden() {
    let got = body(&history(), "qwen3:8b");
    let want = json!({
        "model": "qwen3:8b",
        "messages": [
            {"role": "system", "content": "Be brief.\n\nUse metric units."},
            {"role": "user", "content": "Weather here?", "images": ["iVBORw0KGgo=", "/9j/4AAQ"]},
            {"role": "assistant", "content": "", "thinking": "Need the tool.", "tool_calls": [
                {"id": "call_1", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                {"id": "call_2", "function": {"name": "get_time", "arguments": {}}},
            ]},
            {"role": "tool", "content": "18C", "tool_name": "get_weather", "tool_call_id": "call_1"},
            {"role": "tool", "content": "noon", "tool_name": "get_time", "tool_call_id": "call_2"},
            {"role": "user", "content": "Thanks"},
        ],
        "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
        "stream": true,
        "think": true,
        "options": {"temperature": 0.5, "top_p": 0.9, "top_k": 40, "num_predict": 100, "stop": ["END"]},
    });
    assert_eq!(got, want);
}

#[test]
fn request_think_format_and_tool_choice() {
    let mut req = history();
    req.stream = false;
    req.tool_choice = Some(ToolChoice::None);
    req.json_output = Some(Value::Null);
    let got = body(&req, "gpt-oss:20b");
    assert_eq!(
        got["stream"], false,
        "always sent: Ollama streams by default"
    );
    assert_eq!(got["think"], "high");
    assert_eq!(got["format"], "json");
    assert!(got.get("tools").is_none());

    req.json_output = Some(json!({"type": "object"}));
    req.reasoning = Some(Reasoning {
        effort: Some("none".into()),
        ..Reasoning::default()
    });
    let got = body(&req, "gpt-oss:20b");
    assert_eq!(got["format"], json!({"type": "object"}));
    assert_eq!(got["think"], false);

    req.reasoning = None;
    req.temperature = None;
    req.top_p = None;
    req.top_k = None;
    req.max_tokens = None;
    req.stop.clear();
    let got = body(&req, "m");
    assert!(got.get("think").is_none() && got.get("options").is_none());
}

#[test]
fn remote_image_urls_are_refused() {
    let req = Request {
        messages: vec![Message {
            role: Role::User,
            content: vec![Part::Image(ImageSource::Url("https://x/y.png".into()))],
        }],
        ..Request::default()
    };
    assert!(matches!(
        encode_request(&req, "m"),
        Err(ParseError::Invalid(_))
    ));
}

#[test]
fn response_golden() {
    let v = json!({
        "model": "qwen3:8b",
        "created_at": "2025-05-01T10:00:00.5Z",
        "message": {"role": "assistant", "content": "Calling.", "thinking": "hmm",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
        "done": true,
        "done_reason": "stop",
        "total_duration": 5,
        "prompt_eval_count": 26,
        "eval_count": 12
    });
    let r = decode_response(&v).unwrap();
    assert_eq!(r.model, "qwen3:8b");
    assert_eq!(
        r.content,
        vec![
            Part::Thinking {
                text: "hmm".into(),
                signature: None
            },
            Part::Text("Calling.".into()),
            Part::ToolCall {
                id: "call_202505011000005_0".into(),
                name: "get_weather".into(),
                arguments: r#"{"city":"Paris"}"#.into()
            },
        ]
    );
    assert_eq!(r.stop, StopReason::ToolUse);
    assert_eq!(
        r.usage,
        Some(Usage {
            input_tokens: 26,
            output_tokens: 12,
            ..Usage::default()
        })
    );
    let cut = json!({"model": "m", "message": {"role": "assistant", "content": "x"}, "done": true, "done_reason": "length"});
    let r = decode_response(&cut).unwrap();
    assert_eq!((r.stop, r.usage), (StopReason::MaxTokens, None));
    assert_eq!(
        decode_response(&json!({"error": "model \"x\" not found, try pulling it first"})),
        Err(ParseError::Invalid(
            "model \"x\" not found, try pulling it first".into()
        ))
    );
}

const STREAM: [&str; 5] = [
    r#"{"model":"qwen3:8b","created_at":"2025-05-01T10:00:00Z","message":{"role":"assistant","content":"","thinking":"Let me"},"done":false}"#,
    r#"{"model":"qwen3:8b","created_at":"2025-05-01T10:00:01Z","message":{"role":"assistant","content":"Hello"},"done":false}"#,
    r#"{"model":"qwen3:8b","created_at":"2025-05-01T10:00:02Z","message":{"role":"assistant","content":" there"},"done":false}"#,
    r#"{"model":"qwen3:8b","created_at":"2025-05-01T10:00:03Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_x","function":{"index":0,"name":"get_weather","arguments":{"city":"Paris"}}},{"function":{"name":"get_time","arguments":{}}}]},"done":false}"#,
    r#"{"model":"qwen3:8b","created_at":"2025-05-01T10:00:04Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":1,"prompt_eval_count":30,"eval_count":9}"#,
];

fn stream_events() -> Vec<Vec<StreamEvent>> {
    vec![
        vec![
            StreamEvent::Start {
                id: String::new(),
                model: "qwen3:8b".into(),
            },
            StreamEvent::ThinkingDelta("Let me".into()),
        ],
        vec![StreamEvent::TextDelta("Hello".into())],
        vec![StreamEvent::TextDelta(" there".into())],
        vec![
            StreamEvent::ToolCallStart {
                index: 0,
                id: "call_x".into(),
                name: "get_weather".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: r#"{"city":"Paris"}"#.into(),
            },
            StreamEvent::ToolCallStart {
                index: 1,
                id: "call_20250501100000_1".into(),
                name: "get_time".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 1,
                arguments: "{}".into(),
            },
        ],
        vec![
            StreamEvent::Finish(StopReason::ToolUse),
            StreamEvent::Usage(Usage {
                input_tokens: 30,
                output_tokens: 9,
                ..Usage::default()
            }),
        ],
    ]
}

#[test]
fn stream_line_by_line() {
    let mut dec = StreamDecoder::new();
    for (line, want) in STREAM.iter().zip(stream_events()) {
        let mut out = Vec::new();
        dec.decode(line, &mut out).unwrap();
        assert_eq!(out, want, "{line}");
    }
    let mut out = Vec::new();
    dec.decode("  ", &mut out).unwrap();
    assert!(out.is_empty());
    let err = StreamDecoder::new().decode(r#"{"error":"out of memory"}"#, &mut out);
    assert_eq!(err, Err(ParseError::Invalid("out of memory".into())));
    assert!(matches!(
        StreamDecoder::new().decode("{broken", &mut out),
        Err(ParseError::MalformedJson(_))
    ));
}

/// NDJSON bytes → SSE frames → data payloads → IR events, equal at every byte split.
#[test]
fn ndjson_framer_at_every_split() {
    let mut all = String::new();
    for (i, line) in STREAM.iter().enumerate() {
        all.push_str(line);
        all.push_str(if i == 1 { "\r\n\n" } else { "\n" });
    }
    let want: Vec<StreamEvent> = stream_events().into_iter().flatten().collect();
    for split in 0..=all.len() {
        let mut framer = NdjsonToSse::default();
        let mut sse = framer.push(&all.as_bytes()[..split]).unwrap().to_vec();
        sse.extend_from_slice(&framer.push(&all.as_bytes()[split..]).unwrap());
        assert!(!framer.has_pending());
        let mut sse_framer = SseFramer::default();
        let mut dec = StreamDecoder::new();
        let mut got = Vec::new();
        for event in sse_framer.push(&sse) {
            dec.decode(&event_data(&event).unwrap(), &mut got).unwrap();
        }
        assert_eq!(got, want, "split at {split}");
    }
}

#[test]
fn ndjson_framer_flushes_and_bounds() {
    let mut f = NdjsonToSse::new(64);
    assert_eq!(
        &f.push(b"{\"a\":1}\n{\"b\"").unwrap()[..],
        b"data: {\"a\":1}\n\n"
    );
    assert!(f.has_pending());
    assert_eq!(&f.push(b":2}").unwrap()[..], b"");
    assert_eq!(&f.finish()[..], b"data: {\"b\":2}\n\n");
    assert!(f.finish().is_empty());
    assert_eq!(f.push(&[b'x'; 65]), Err(NdjsonError::LineTooLong(64)));
    // Long streams of short lines hold nothing.
    let mut f = NdjsonToSse::new(16);
    for _ in 0..100 {
        assert_eq!(
            &f.push(b"{\"k\":12345}\n").unwrap()[..],
            b"data: {\"k\":12345}\n\n"
        );
    }
}

#[test]
fn embeddings_both_ways() {
    let req = json!({"model": "text-embedding-3-small", "input": ["a", "b"], "dimensions": 2, "encoding_format": "float"});
    assert_eq!(
        openai_embeddings_to_ollama(&req, "nomic-embed-text").unwrap(),
        json!({"model": "nomic-embed-text", "input": ["a", "b"], "dimensions": 2})
    );
    let one = json!({"model": "m", "input": "hi"});
    assert_eq!(
        openai_embeddings_to_ollama(&one, "e").unwrap()["input"],
        json!(["hi"])
    );
    assert!(openai_embeddings_to_ollama(&json!({"input": [[1, 2]]}), "e").is_err());
    assert!(openai_embeddings_to_ollama(&json!({"input": []}), "e").is_err());

    let answer = json!({"model": "nomic-embed-text", "embeddings": [[0.5, -1.0], [0.25, 2.0]],
        "total_duration": 1, "prompt_eval_count": 8});
    assert_eq!(
        ollama_embed_to_openai(&answer, "text-embedding-3-small", false).unwrap(),
        json!({"object": "list", "model": "text-embedding-3-small",
            "data": [{"object": "embedding", "index": 0, "embedding": [0.5, -1.0]},
                     {"object": "embedding", "index": 1, "embedding": [0.25, 2.0]}],
            "usage": {"prompt_tokens": 8, "total_tokens": 8}})
    );
    let b64 = ollama_embed_to_openai(&answer, "m", true).unwrap();
    // 0.5f32 = 00 00 00 3f, -1.0f32 = 00 00 80 bf (little-endian).
    assert_eq!(b64["data"][0]["embedding"], "AAAAPwAAgL8=");
    assert!(ollama_embed_to_openai(&json!({"error": "x"}), "m", false).is_err());
}

#[test]
fn tags_list_ids() {
    let v = json!({"models": [
        {"name": "llama3.2:latest", "model": "llama3.2:latest", "size": 1},
        {"model": "qwen3:8b"},
        {"name": ""}
    ]});
    assert_eq!(tag_ids(&v).unwrap(), vec!["llama3.2:latest", "qwen3:8b"]);
    assert!(tag_ids(&json!({})).is_err());
}
