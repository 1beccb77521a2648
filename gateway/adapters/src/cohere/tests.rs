//! Golden tests of the Cohere v2 codec: request bodies, answers, stream events one by one,
//! the SSE stream at every byte split, rerank both ways.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::*;
use crate::ParseError;
use crate::ir::{
    ImageSource, Message, Part, Reasoning, Request, Role, SchemaText, StopReason, StreamEvent,
    Tool, ToolChoice, Usage,
};
use crate::stream::{SseFramer, event_data};

fn body(req: &Request) -> Value {
    serde_json::to_value(encode_request(req, "command-a-03-2025")).unwrap()
}

fn tool(name: &str) -> Tool {
    Tool {
        name: name.into(),
        description: Some(format!("{name} tool")),
        parameters: SchemaText::from(
            json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        ),
    }
}

fn history() -> Request {
    Request {
        model: "client".into(),
        system: vec!["Be brief.".into()],
        messages: vec![
            Message {
                role: Role::User,
                content: vec![Part::Text("Weather in Paris?".into())],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    Part::Thinking {
                        text: "I will look it up.".into(),
                        signature: None,
                    },
                    Part::ToolCall {
                        id: "get_weather_abc".into(),
                        name: "get_weather".into(),
                        arguments: r#"{"city":"Paris"}"#.into(),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    Part::ToolResult {
                        call_id: "get_weather_abc".into(),
                        name: None,
                        content: vec![Part::Text("18C".into())],
                        is_error: false,
                    },
                    Part::Text("And this?".into()),
                    Part::Image(ImageSource::Base64 {
                        media_type: "image/png".into(),
                        data: "iVBOR".into(),
                    }),
                ],
            },
        ],
        tools: vec![tool("get_weather"), tool("get_time")],
        tool_choice: Some(ToolChoice::Auto),
        max_tokens: Some(200),
        temperature: Some(0.3),
        top_p: Some(0.8),
        top_k: Some(10),
        stop: vec!["END".into()],
        stream: true,
        reasoning: None,
        user: Some("u".into()),
        json_output: None,
    }
}

#[test]
fn request_golden() {
    let want = json!({
        "model": "command-a-03-2025",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "tool_plan": "I will look it up.", "tool_calls": [
                {"id": "get_weather_abc", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "get_weather_abc", "content": "18C"},
            {"role": "user", "content": [
                {"type": "text", "text": "And this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR"}}
            ]},
        ],
        "tools": [
            {"type": "function", "function": {"name": "get_weather", "description": "get_weather tool",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
            {"type": "function", "function": {"name": "get_time", "description": "get_time tool",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
        ],
        "stream": true,
        "max_tokens": 200,
        "temperature": 0.3,
        "p": 0.8,
        "k": 10,
        "stop_sequences": ["END"],
    });
    assert_eq!(body(&history()), want);
}

#[test]
fn request_choice_format_thinking() {
    let mut req = history();
    req.stream = false;
    req.tool_choice = Some(ToolChoice::Tool("get_time".into()));
    req.json_output = Some(json!({"type": "object"}));
    req.reasoning = Some(Reasoning {
        budget_tokens: Some(1024),
        ..Reasoning::default()
    });
    let got = body(&req);
    assert_eq!(got["stream"], false);
    assert_eq!(got["tool_choice"], "REQUIRED");
    assert_eq!(got["tools"].as_array().unwrap().len(), 1);
    assert_eq!(got["tools"][0]["function"]["name"], "get_time");
    assert_eq!(
        got["response_format"],
        json!({"type": "json_object", "json_schema": {"type": "object"}})
    );
    assert_eq!(
        got["thinking"],
        json!({"type": "enabled", "token_budget": 1024})
    );

    req.tool_choice = Some(ToolChoice::None);
    req.json_output = Some(Value::Null);
    req.reasoning = Some(Reasoning {
        effort: Some("none".into()),
        ..Reasoning::default()
    });
    let got = body(&req);
    assert_eq!(got["tool_choice"], "NONE");
    assert_eq!(got["response_format"], json!({"type": "json_object"}));
    assert_eq!(got["thinking"], json!({"type": "disabled"}));
    req.tool_choice = Some(ToolChoice::Required);
    req.tools.clear();
    assert!(
        body(&req).get("tool_choice").is_none(),
        "no tools, no choice"
    );
}

#[test]
fn response_golden() {
    let v = json!({
        "id": "c14c80c3-18eb-4519-9460-6c92edd8cfb4",
        "finish_reason": "TOOL_CALL",
        "message": {
            "role": "assistant",
            "tool_plan": "I will call get_weather.",
            "tool_calls": [{"id": "get_weather_1byjy32y4hvq", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]
        },
        "usage": {"billed_units": {"input_tokens": 37, "output_tokens": 19},
                  "tokens": {"input_tokens": 1100, "output_tokens": 55}}
    });
    let r = decode_response(&v).unwrap();
    assert_eq!(r.id, "c14c80c3-18eb-4519-9460-6c92edd8cfb4");
    assert_eq!(
        r.content,
        vec![
            Part::Thinking {
                text: "I will call get_weather.".into(),
                signature: None
            },
            Part::ToolCall {
                id: "get_weather_1byjy32y4hvq".into(),
                name: "get_weather".into(),
                arguments: r#"{"city":"Paris"}"#.into()
            },
        ]
    );
    assert_eq!(r.stop, StopReason::ToolUse);
    assert_eq!(
        r.usage,
        Some(Usage {
            input_tokens: 37,
            output_tokens: 19,
            ..Usage::default()
        })
    );

    let text = json!({
        "id": "x", "finish_reason": "MAX_TOKENS",
        "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "Hello"}]},
        "usage": {"tokens": {"input_tokens": 9, "output_tokens": 2}, "cached_tokens": 4}
    });
    let r = decode_response(&text).unwrap();
    assert_eq!(r.stop, StopReason::MaxTokens);
    assert_eq!(r.content[1], Part::Text("Hello".into()));
    assert_eq!(
        r.usage,
        Some(Usage {
            input_tokens: 9,
            output_tokens: 2,
            cache_read_tokens: 4,
            ..Usage::default()
        })
    );
    assert_eq!(
        decode_response(&json!({"id": "e", "message": "invalid request: model 'x' not found"})),
        Err(ParseError::Invalid(
            "invalid request: model 'x' not found".into()
        ))
    );
    for (reason, stop) in [
        ("COMPLETE", StopReason::EndTurn),
        ("STOP_SEQUENCE", StopReason::StopSequence),
        ("ERROR", StopReason::EndTurn),
    ] {
        assert_eq!(stop_reason(reason, false), stop);
    }
}

/// A recorded-shape v2 stream: thinking, text, then a tool call in fragments.
const STREAM: [(&str, &str); 12] = [
    (
        "message-start",
        r#"{"id":"29f14a5a-11de-4cae-9800-25e4747408ea","type":"message-start","delta":{"message":{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}"#,
    ),
    (
        "content-start",
        r#"{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}"#,
    ),
    (
        "content-delta",
        r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Hello"}}},"logprobs":null}"#,
    ),
    (
        "content-delta",
        r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":" world"}}}}"#,
    ),
    ("content-end", r#"{"type":"content-end","index":0}"#),
    (
        "tool-plan-delta",
        r#"{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"I will check."}}}"#,
    ),
    (
        "tool-call-start",
        r#"{"type":"tool-call-start","index":0,"delta":{"message":{"tool_calls":{"id":"get_weather_nsz5zm3w56q3","type":"function","function":{"name":"get_weather","arguments":""}}}}}"#,
    ),
    (
        "tool-call-delta",
        r#"{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"{\"city\""}}}}}"#,
    ),
    (
        "tool-call-delta",
        r#"{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":":\"Paris\"}"}}}}}"#,
    ),
    ("tool-call-end", r#"{"type":"tool-call-end","index":0}"#),
    (
        "message-end",
        r#"{"type":"message-end","delta":{"finish_reason":"TOOL_CALL","usage":{"billed_units":{"input_tokens":20,"output_tokens":15},"tokens":{"input_tokens":900,"output_tokens":40}}}}"#,
    ),
    ("debug", r#"{"type":"debug"}"#),
];

fn stream_events() -> Vec<Vec<StreamEvent>> {
    vec![
        vec![StreamEvent::Start {
            id: "29f14a5a-11de-4cae-9800-25e4747408ea".into(),
            model: String::new(),
        }],
        vec![],
        vec![StreamEvent::TextDelta("Hello".into())],
        vec![StreamEvent::TextDelta(" world".into())],
        vec![],
        vec![StreamEvent::ThinkingDelta("I will check.".into())],
        vec![StreamEvent::ToolCallStart {
            index: 0,
            id: "get_weather_nsz5zm3w56q3".into(),
            name: "get_weather".into(),
        }],
        vec![StreamEvent::ToolCallDelta {
            index: 0,
            arguments: "{\"city\"".into(),
        }],
        vec![StreamEvent::ToolCallDelta {
            index: 0,
            arguments: ":\"Paris\"}".into(),
        }],
        vec![],
        vec![
            StreamEvent::Finish(StopReason::ToolUse),
            StreamEvent::Usage(Usage {
                input_tokens: 20,
                output_tokens: 15,
                ..Usage::default()
            }),
        ],
        vec![],
    ]
}

#[test]
fn stream_event_by_event() {
    let mut dec = StreamDecoder::new();
    for ((name, data), want) in STREAM.iter().zip(stream_events()) {
        let mut out = Vec::new();
        dec.decode(data, &mut out).unwrap();
        assert_eq!(out, want, "{name}");
    }
    let mut out = Vec::new();
    assert_eq!(
        StreamDecoder::new().decode(r#"{"message":"internal server error"}"#, &mut out),
        Err(ParseError::Invalid("internal server error".into()))
    );
    let thinking = r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"step 1"}}}}"#;
    StreamDecoder::new().decode(thinking, &mut out).unwrap();
    assert_eq!(out, vec![StreamEvent::ThinkingDelta("step 1".into())]);
}

#[test]
fn sse_stream_at_every_split() {
    let all: String = STREAM
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect();
    let want: Vec<StreamEvent> = stream_events().into_iter().flatten().collect();
    for split in (0..=all.len()).filter(|i| all.is_char_boundary(*i)) {
        let mut framer = SseFramer::default();
        let mut events = framer.push(&all.as_bytes()[..split]);
        events.extend(framer.push(&all.as_bytes()[split..]));
        let mut dec = StreamDecoder::new();
        let mut got = Vec::new();
        for e in events {
            dec.decode(&event_data(&e).unwrap(), &mut got).unwrap();
        }
        assert_eq!(got, want, "split at {split}");
    }
}

#[test]
fn rerank_both_ways() {
    let req = json!({"model": "rerank-v3.5", "query": "capital of the US?",
        "documents": ["Carson City is in Nevada.", {"text": "Washington, D.C. is the capital."}, {"title": "x"}],
        "top_n": 2, "return_documents": true});
    assert_eq!(
        jina_rerank_to_cohere(&req, "rerank-v3.5").unwrap(),
        json!({"model": "rerank-v3.5", "query": "capital of the US?", "top_n": 2,
            "documents": ["Carson City is in Nevada.", "Washington, D.C. is the capital.", "{\"title\":\"x\"}"]})
    );
    assert!(jina_rerank_to_cohere(&json!({"query": "q", "documents": []}), "m").is_err());
    assert!(jina_rerank_to_cohere(&json!({"documents": ["a"]}), "m").is_err());

    let answer = json!({"id": "r1", "results": [
        {"index": 1, "relevance_score": 0.98}, {"index": 0, "relevance_score": 0.07}],
        "meta": {"api_version": {"version": "2"}, "billed_units": {"search_units": 1}}});
    assert_eq!(
        cohere_rerank_to_jina(&answer, &req, "rerank-v3.5").unwrap(),
        json!({"model": "rerank-v3.5", "usage": {"total_tokens": 1}, "results": [
            {"index": 1, "relevance_score": 0.98, "document": {"text": "Washington, D.C. is the capital."}},
            {"index": 0, "relevance_score": 0.07, "document": {"text": "Carson City is in Nevada."}}]})
    );
    let mut no_docs = req.clone();
    no_docs["return_documents"] = json!(false);
    let got = cohere_rerank_to_jina(&answer, &no_docs, "m").unwrap();
    assert!(got["results"][0].get("document").is_none());
    assert_eq!(
        rerank_usage(&answer),
        RerankUsage {
            search_units: 1,
            input_tokens: 0
        }
    );
    assert!(cohere_rerank_to_jina(&json!({"message": "invalid api token"}), &req, "m").is_err());
}
