//! The Converse codec: IR requests to bodies, answers and stream events to the IR.

use serde_json::{Value, json};

use crate::ParseError;
use crate::bedrock::{StreamDecoder, decode_response, encode_request, error_message};
use crate::ir::{
    ImageSource, Message, Part, Reasoning, Request, Response, Role, StopReason, StreamEvent, Tool,
    ToolChoice, Usage,
};

const CLAUDE: &str = "us.anthropic.claude-sonnet-4-20250514-v1:0";

fn encode(req: &Request, model: &str) -> Value {
    serde_json::to_value(encode_request(req, model).unwrap()).unwrap()
}

fn msg(role: Role, content: Vec<Part>) -> Message {
    Message { role, content }
}

fn tool_conversation() -> Request {
    Request {
        model: "x".into(),
        system: vec!["Be terse.".into(), String::new()],
        messages: vec![
            msg(Role::User, vec![Part::Text("Weather?".into())]),
            msg(
                Role::User,
                vec![Part::Image(ImageSource::Url(
                    "data:image/png;base64,iVBORw0KGgo=".into(),
                ))],
            ),
            msg(
                Role::Assistant,
                vec![
                    Part::Thinking {
                        text: "hmm".into(),
                        signature: Some("sig".into()),
                    },
                    Part::Thinking {
                        text: "unsigned".into(),
                        signature: None,
                    },
                    Part::Text(String::new()),
                    Part::ToolCall {
                        id: "t1".into(),
                        name: "weather".into(),
                        arguments: r#"{"city":"Paris"}"#.into(),
                    },
                ],
            ),
            msg(
                Role::User,
                vec![
                    Part::Text("and?".into()),
                    Part::ToolResult {
                        call_id: "t1".into(),
                        name: None,
                        content: vec![Part::Text("sunny".into())],
                        is_error: false,
                    },
                    Part::ToolResult {
                        call_id: "t2".into(),
                        name: None,
                        content: vec![],
                        is_error: true,
                    },
                ],
            ),
        ],
        tools: vec![Tool {
            name: "weather".into(),
            description: Some("Weather of a city".into()),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}})
                .into(),
        }],
        tool_choice: Some(ToolChoice::Tool("weather".into())),
        max_tokens: Some(300),
        temperature: Some(0.2),
        top_p: Some(0.9),
        top_k: Some(5),
        stop: vec!["END".into()],
        ..Request::default()
    }
}

#[test]
fn encodes_a_tool_conversation() {
    assert_eq!(
        encode(&tool_conversation(), "amazon.nova-pro-v1:0"),
        json!({
            "system": [{"text": "Be terse."}],
            "messages": [
                {"role": "user", "content": [
                    {"text": "Weather?"},
                    {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}},
                ]},
                {"role": "assistant", "content": [
                    {"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "sig"}}},
                    {"toolUse": {"toolUseId": "t1", "name": "weather", "input": {"city": "Paris"}}},
                ]},
                {"role": "user", "content": [
                    {"toolResult": {"toolUseId": "t1", "content": [{"text": "sunny"}]}},
                    {"toolResult": {"toolUseId": "t2", "content": [], "status": "error"}},
                    {"text": "and?"},
                ]},
            ],
            "inferenceConfig": {"maxTokens": 300, "temperature": 0.2, "topP": 0.9, "stopSequences": ["END"]},
            "toolConfig": {
                "tools": [{"toolSpec": {
                    "name": "weather",
                    "description": "Weather of a city",
                    "inputSchema": {"json": {"type": "object", "properties": {"city": {"type": "string"}}}},
                }}],
                "toolChoice": {"tool": {"name": "weather"}},
            },
        })
    );
    // Claude gets top_k through additionalModelRequestFields.
    let v = encode(&tool_conversation(), CLAUDE);
    assert_eq!(v["additionalModelRequestFields"], json!({"top_k": 5}));
}

#[test]
fn tool_choices() {
    let mut req = tool_conversation();
    let choice = |req: &Request| encode(req, CLAUDE)["toolConfig"].get("toolChoice").cloned();
    req.tool_choice = Some(ToolChoice::Auto);
    assert_eq!(choice(&req), Some(json!({"auto": {}})));
    req.tool_choice = Some(ToolChoice::Required);
    assert_eq!(choice(&req), Some(json!({"any": {}})));
    req.tool_choice = Some(ToolChoice::None);
    assert_eq!(choice(&req), None);
    req.tools.clear();
    assert!(encode(&req, CLAUDE).get("toolConfig").is_none());
}

#[test]
fn reasoning_becomes_claude_thinking_only_for_claude() {
    let req = Request {
        messages: vec![msg(Role::User, vec![Part::Text("hi".into())])],
        max_tokens: Some(1000),
        temperature: Some(0.5),
        top_p: Some(0.5),
        top_k: Some(3),
        reasoning: Some(Reasoning {
            effort: Some("medium".into()),
            ..Reasoning::default()
        }),
        ..Request::default()
    };
    let v = encode(&req, CLAUDE);
    assert_eq!(
        v["additionalModelRequestFields"],
        json!({"thinking": {"type": "enabled", "budget_tokens": 4096}})
    );
    assert_eq!(v["inferenceConfig"], json!({"maxTokens": 5096}));
    let v = encode(&req, "meta.llama3-70b-instruct-v1:0");
    assert!(v.get("additionalModelRequestFields").is_none());
    assert_eq!(
        v["inferenceConfig"],
        json!({"maxTokens": 1000, "temperature": 0.5, "topP": 0.5})
    );
    // No max_tokens: the default, raised above the budget.
    let req = Request {
        max_tokens: None,
        reasoning: Some(Reasoning {
            budget_tokens: Some(8000),
            ..Reasoning::default()
        }),
        ..req
    };
    assert_eq!(
        encode(&req, CLAUDE)["inferenceConfig"],
        json!({"maxTokens": 8000 + 4096})
    );
}

#[test]
fn refuses_images_converse_cannot_take() {
    let with = |src: ImageSource| Request {
        messages: vec![msg(Role::User, vec![Part::Image(src)])],
        ..Request::default()
    };
    let err = |r: &Request| match encode_request(r, CLAUDE) {
        Err(ParseError::Invalid(m)) => m,
        other => panic!("{other:?}"),
    };
    assert!(err(&with(ImageSource::Url("https://x/y.png".into()))).contains("image URLs"));
    let bmp = ImageSource::Base64 {
        media_type: "image/bmp".into(),
        data: "Qk0=".into(),
    };
    assert!(err(&with(bmp)).contains("image/bmp"));
    let jpg = ImageSource::Base64 {
        media_type: "image/jpg".into(),
        data: "/9j/".into(),
    };
    assert_eq!(
        encode(&with(jpg), CLAUDE)["messages"][0]["content"][0],
        json!({"image": {"format": "jpeg", "source": {"bytes": "/9j/"}}})
    );
}

#[test]
fn decodes_an_answer_with_usage_and_cache_counts() {
    let v = json!({
        "output": {"message": {"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText": {"text": "think", "signature": "s1"}}},
            {"reasoningContent": {"redactedContent": "cmVk"}},
            {"text": "Calling."},
            {"toolUse": {"toolUseId": "tooluse_1", "name": "weather", "input": {"city": "Paris"}}},
        ]}},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 10, "outputTokens": 7, "totalTokens": 47,
                  "cacheReadInputTokens": 20, "cacheWriteInputTokens": 10},
        "metrics": {"latencyMs": 100},
    });
    assert_eq!(
        decode_response(&v).unwrap(),
        Response {
            id: String::new(),
            model: String::new(),
            content: vec![
                Part::Thinking {
                    text: "think".into(),
                    signature: Some("s1".into())
                },
                Part::RedactedThinking("cmVk".into()),
                Part::Text("Calling.".into()),
                Part::ToolCall {
                    id: "tooluse_1".into(),
                    name: "weather".into(),
                    arguments: r#"{"city":"Paris"}"#.into(),
                },
            ],
            stop: StopReason::ToolUse,
            usage: Some(Usage {
                input_tokens: 40,
                output_tokens: 7,
                cache_read_tokens: 20,
                cache_creation_tokens: 10,
                reasoning_tokens: 0,
            }),
        }
    );
    for (reason, stop) in [
        ("end_turn", StopReason::EndTurn),
        ("max_tokens", StopReason::MaxTokens),
        ("model_context_window_exceeded", StopReason::MaxTokens),
        ("stop_sequence", StopReason::StopSequence),
        ("guardrail_intervened", StopReason::ContentFilter),
        ("content_filtered", StopReason::ContentFilter),
    ] {
        let v = json!({"output": {"message": {"content": []}}, "stopReason": reason});
        assert_eq!(decode_response(&v).unwrap().stop, stop, "{reason}");
    }
}

#[test]
fn error_bodies_are_errors() {
    let v = json!({"message": "The provided model identifier is invalid."});
    assert_eq!(
        decode_response(&v),
        Err(ParseError::Invalid(
            "The provided model identifier is invalid.".into()
        ))
    );
    let v = json!({"__type": "com.amazon.coral.validate#ValidationException", "Message": "bad"});
    assert_eq!(
        error_message(&v).as_deref(),
        Some("ValidationException: bad")
    );
    assert_eq!(error_message(&json!({"output": {}})), None);
}

fn decode_all(payloads: &[Value]) -> Result<Vec<StreamEvent>, ParseError> {
    let mut d = StreamDecoder::new();
    let mut out = Vec::new();
    for p in payloads {
        d.decode(&p.to_string(), &mut out)?;
    }
    Ok(out)
}

#[test]
fn decodes_a_converse_stream() {
    let events = decode_all(&[
        json!({"messageStart": {"role": "assistant"}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "hmm"}}}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "sig"}}}}),
        json!({"contentBlockStop": {"contentBlockIndex": 0}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": "Hi"}}}),
        json!({"contentBlockStart": {"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "tu1", "name": "weather"}}}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"toolUse": {"input": "{\"city\""}}}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"toolUse": {"input": ":\"Paris\"}"}}}}),
        json!({"contentBlockStop": {"contentBlockIndex": 2}}),
        json!({"messageStop": {"stopReason": "tool_use"}}),
        json!({"metadata": {"usage": {"inputTokens": 5, "outputTokens": 9, "totalTokens": 17,
               "cacheReadInputTokens": 2, "cacheWriteInputTokens": 1}, "metrics": {"latencyMs": 1}}}),
    ])
    .unwrap();
    assert_eq!(
        events,
        vec![
            StreamEvent::Start {
                id: String::new(),
                model: String::new()
            },
            StreamEvent::ThinkingDelta("hmm".into()),
            StreamEvent::ThinkingSignature("sig".into()),
            StreamEvent::TextDelta("Hi".into()),
            StreamEvent::ToolCallStart {
                index: 0,
                id: "tu1".into(),
                name: "weather".into()
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: "{\"city\"".into()
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: ":\"Paris\"}".into()
            },
            StreamEvent::Finish(StopReason::ToolUse),
            StreamEvent::Usage(Usage {
                input_tokens: 8,
                output_tokens: 9,
                cache_read_tokens: 2,
                cache_creation_tokens: 1,
                reasoning_tokens: 0,
            }),
        ]
    );
}

#[test]
fn stream_exceptions_and_garbage_are_errors() {
    let e = decode_all(&[
        json!({"messageStart": {"role": "assistant"}}),
        json!({"throttlingException": {"message": "Too many requests"}}),
    ]);
    assert_eq!(
        e,
        Err(ParseError::Invalid(
            "throttlingException: Too many requests".into()
        ))
    );
    assert!(matches!(
        StreamDecoder::new().decode("{broken", &mut Vec::new()),
        Err(ParseError::MalformedJson(_))
    ));
    assert!(StreamDecoder::new().decode("[1]", &mut Vec::new()).is_err());
    let mut out = Vec::new();
    StreamDecoder::new().decode("  ", &mut out).unwrap();
    assert!(out.is_empty());
}
