//! Provider side: request encoding, answer and stream decoding, and the round trip through
//! the client side.

use serde_json::{Value, json};

use crate::ParseError;
use crate::ir::{
    ImageSource, Message, Part, Reasoning, Request, Response, Role, StopReason, StreamEvent, Tool,
    ToolChoice, Usage,
};
use crate::openai_chat::{StreamDecoder, StreamEncoder, decode_request, decode_response};

/// The encoded body as JSON, to compare.
fn encode_request(req: &crate::ir::Request, model: &str) -> Value {
    serde_json::to_value(crate::openai_chat::encode_request(req, model)).unwrap()
}

fn text(t: &str) -> Part {
    Part::Text(t.to_owned())
}

fn sample_request() -> Request {
    Request {
        model: "client-model".into(),
        system: vec!["Be brief.".into(), "Answer in French.".into()],
        messages: vec![
            Message {
                role: Role::User,
                content: vec![
                    text("What is this?"),
                    Part::Image(ImageSource::Base64 {
                        media_type: "image/jpeg".into(),
                        data: "/9j/4AAQ".into(),
                    }),
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    Part::Thinking {
                        text: "Looks like a cat.".into(),
                        signature: Some("sig".into()),
                    },
                    Part::RedactedThinking("enc".into()),
                    text("Let me look it up."),
                    Part::ToolCall {
                        id: "toolu_1".into(),
                        name: "search".into(),
                        arguments: r#"{"q":"cat"}"#.into(),
                    },
                    Part::ToolCall {
                        id: "toolu_2".into(),
                        name: "now".into(),
                        arguments: String::new(),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    Part::ToolResult {
                        call_id: "toolu_1".into(),
                        name: None,
                        content: vec![text("A cat"), text("(felis)")],
                        is_error: false,
                    },
                    Part::ToolResult {
                        call_id: "toolu_2".into(),
                        name: Some("now".into()),
                        content: vec![],
                        is_error: true,
                    },
                    text("And now?"),
                    text("Quickly."),
                ],
            },
        ],
        tools: vec![
            Tool {
                name: "search".into(),
                description: Some("Web search".into()),
                parameters: json!({"type": "object", "properties": {"q": {"type": "string"}}})
                    .into(),
            },
            Tool {
                name: "now".into(),
                description: None,
                parameters: Value::Null.into(),
            },
        ],
        tool_choice: Some(ToolChoice::Required),
        max_tokens: Some(1024),
        temperature: Some(0.5),
        top_p: Some(1.0),
        top_k: Some(40),
        stop: vec!["###".into()],
        stream: true,
        reasoning: Some(Reasoning {
            effort: Some("medium".into()),
            budget_tokens: None,
            include_thoughts: true,
        }),
        user: Some("u1".into()),
        json_output: Some(json!({"type": "object"})),
    }
}

#[test]
fn encodes_a_request() {
    let v = encode_request(&sample_request(), "gpt-4o");
    assert_eq!(
        v,
        json!({
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "Be brief.\nAnswer in French."},
                {"role": "user", "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/4AAQ"}}
                ]},
                {"role": "assistant", "content": "Let me look it up.", "tool_calls": [
                    {"id": "toolu_1", "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"cat\"}"}},
                    {"id": "toolu_2", "type": "function", "function": {"name": "now", "arguments": "{}"}}
                ]},
                {"role": "tool", "tool_call_id": "toolu_1", "content": "A cat\n(felis)"},
                {"role": "tool", "tool_call_id": "toolu_2", "content": ""},
                {"role": "user", "content": "And now?\nQuickly."}
            ],
            "tools": [
                {"type": "function", "function": {"name": "search", "description": "Web search",
                    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}},
                {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}}
            ],
            "tool_choice": "required",
            "max_tokens": 1024,
            "temperature": 0.5,
            "top_p": 1.0,
            "stop": ["###"],
            "stream": true,
            "stream_options": {"include_usage": true},
            "reasoning_effort": "medium",
            "user": "u1",
            "response_format": {"type": "json_schema", "json_schema": {"name": "response", "schema": {"type": "object"}}}
        })
    );
}

#[test]
fn follows_reasoning_model_rules() {
    let mut req = Request {
        model: "m".into(),
        messages: vec![Message {
            role: Role::User,
            content: vec![text("hi")],
        }],
        max_tokens: Some(100),
        temperature: Some(0.3),
        top_p: Some(0.8),
        tool_choice: Some(ToolChoice::Tool("f".into())),
        json_output: Some(Value::Null),
        reasoning: Some(Reasoning {
            effort: None,
            budget_tokens: Some(4096),
            include_thoughts: false,
        }),
        ..Request::default()
    };
    let v = encode_request(&req, "o3-mini");
    assert_eq!(v["max_completion_tokens"], 100);
    assert!(v.get("max_tokens").is_none() && v.get("temperature").is_none());
    assert_eq!(v["top_p"], 0.8);
    assert_eq!(v["reasoning_effort"], "medium");
    assert!(v.get("tool_choice").is_none(), "no tools, no tool_choice");
    assert!(v.get("stream").is_none() && v.get("stream_options").is_none());
    assert_eq!(v["response_format"], json!({"type": "json_object"}));
    assert_eq!(v["messages"], json!([{"role": "user", "content": "hi"}]));
    req.messages.push(Message {
        role: Role::Assistant,
        content: vec![Part::Thinking {
            text: "only thoughts".into(),
            signature: None,
        }],
    });
    let v = encode_request(&req, "o3-mini");
    assert_eq!(v["messages"].as_array().unwrap().len(), 1);

    let v = encode_request(&req, "openai/GPT-5-mini");
    assert!(v.get("top_p").is_none() && v.get("temperature").is_none());
    assert_eq!(v["max_completion_tokens"], 100);

    let v = encode_request(&req, "gpt-5-chat-latest");
    assert_eq!(v["max_tokens"], 100);
    assert_eq!(v["temperature"], 0.3);
    assert!(
        v.get("reasoning_effort").is_none(),
        "budget alone: only for reasoning models"
    );

    for (budget, effort) in [(1024, "low"), (2048, "medium"), (10_000, "high")] {
        req.reasoning = Some(Reasoning {
            effort: None,
            budget_tokens: Some(budget),
            include_thoughts: true,
        });
        assert_eq!(encode_request(&req, "o4-mini")["reasoning_effort"], effort);
    }
    req.reasoning = Some(Reasoning {
        budget_tokens: Some(0),
        ..Reasoning::default()
    });
    assert!(encode_request(&req, "o1").get("reasoning_effort").is_none());
}

#[test]
fn chat_request_survives_the_round_trip() {
    let body = json!({
        "model": "a",
        "messages": [
            {"role": "system", "content": "S"},
            {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "user", "content": "next"}
        ],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
        "tool_choice": "auto",
        "max_tokens": 9,
        "stop": ["x", "y"],
        "stream": false,
        "user": "u"
    });
    let ir = decode_request(body.to_string().as_bytes()).unwrap();
    let mut want = body.clone();
    want["messages"][1]["content"][1]["image_url"] = json!({"url": "https://x/y.png"});
    want.as_object_mut().unwrap().remove("stream");
    assert_eq!(encode_request(&ir, "a"), want);
}

#[test]
fn decodes_an_answer() {
    let v = json!({
        "id": "chatcmpl-9",
        "object": "chat.completion",
        "created": 1,
        "model": "deepseek-reasoner",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Calling.",
                "reasoning_content": "I should call f.",
                "tool_calls": [
                    {"id": "call_x", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}},
                    {"type": "function", "function": {"name": "g", "arguments": {"b": 2}}}
                ]
            },
            "finish_reason": "tool_calls"
        }],
        "usage": {
            "prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70,
            "prompt_tokens_details": {"cached_tokens": 32},
            "completion_tokens_details": {"reasoning_tokens": 8}
        }
    });
    assert_eq!(
        decode_response(&v).unwrap(),
        Response {
            id: "chatcmpl-9".into(),
            model: "deepseek-reasoner".into(),
            content: vec![
                Part::Thinking {
                    text: "I should call f.".into(),
                    signature: None
                },
                text("Calling."),
                Part::ToolCall {
                    id: "call_x".into(),
                    name: "f".into(),
                    arguments: r#"{"a":1}"#.into()
                },
                Part::ToolCall {
                    id: "call_1".into(),
                    name: "g".into(),
                    arguments: r#"{"b":2}"#.into()
                },
            ],
            stop: StopReason::ToolUse,
            usage: Some(Usage {
                input_tokens: 50,
                output_tokens: 20,
                cache_read_tokens: 32,
                cache_creation_tokens: 0,
                reasoning_tokens: 8
            }),
        }
    );
}

#[test]
fn decodes_answer_variants() {
    // DeepSeek cache fields, `reasoning`, array content, tool calls with finish "stop".
    let v = json!({
        "id": "x", "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "reasoning": "r",
            "tool_calls": [{"id": "c", "function": {"name": "f"}}]
        }}],
        "usage": {"prompt_tokens": 10, "total_tokens": 15, "prompt_cache_hit_tokens": 4, "prompt_cache_miss_tokens": 6}
    });
    let r = decode_response(&v).unwrap();
    assert_eq!(r.stop, StopReason::ToolUse);
    assert_eq!(r.content[1], text("ab"));
    assert_eq!(
        r.content[2],
        Part::ToolCall {
            id: "c".into(),
            name: "f".into(),
            arguments: "{}".into()
        }
    );
    assert_eq!(
        r.usage,
        Some(Usage {
            input_tokens: 10,
            output_tokens: 5,
            cache_read_tokens: 4,
            ..Usage::default()
        })
    );
    for (reason, want) in [
        ("stop", StopReason::EndTurn),
        ("length", StopReason::MaxTokens),
        ("content_filter", StopReason::ContentFilter),
        ("function_call", StopReason::ToolUse),
        ("eos", StopReason::EndTurn),
    ] {
        let v = json!({"choices": [{"finish_reason": reason, "message": {"content": "x"}}]});
        let r = decode_response(&v).unwrap();
        assert_eq!(r.stop, want);
        assert_eq!(r.usage, None);
    }
    let refusal = json!({"choices": [{"message": {"content": null, "refusal": "No."}}]});
    assert_eq!(
        decode_response(&refusal).unwrap().content,
        vec![text("No.")]
    );
    let legacy =
        json!({"choices": [{"message": {"function_call": {"name": "f", "arguments": "{}"}}}]});
    assert!(matches!(
        decode_response(&legacy).unwrap().content[0],
        Part::ToolCall { ref name, .. } if name == "f"
    ));
    let empty = json!({"choices": []});
    assert_eq!(decode_response(&empty).unwrap().content, vec![]);
}

#[test]
fn bad_answers_are_errors() {
    let err = json!({"error": {"message": "quota exceeded", "type": "insufficient_quota"}});
    assert_eq!(
        decode_response(&err),
        Err(ParseError::Invalid("quota exceeded".into()))
    );
    for v in [json!({}), json!([]), json!("x"), json!({"choices": {}})] {
        assert!(
            matches!(decode_response(&v), Err(ParseError::Invalid(_))),
            "{v}"
        );
    }
    let weird = json!({"choices": [1, {"message": 2}], "usage": "x", "id": 5});
    assert!(decode_response(&weird).is_ok());
}

fn decode_all(payloads: &[&str]) -> Vec<StreamEvent> {
    let mut d = StreamDecoder::new();
    let mut out = Vec::new();
    for p in payloads {
        d.decode(p, &mut out).unwrap();
    }
    out
}

const OPENAI_TOOL_STREAM: &[&str] = &[
    r#"{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}"#,
    r#"{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"Checking."},"finish_reason":null}],"usage":null}"#,
    r#"{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_p","type":"function","function":{"name":"weather","arguments":""}}]},"finish_reason":null}],"usage":null}"#,
    r#"{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}],"usage":null}"#,
    r#"{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_r","type":"function","function":{"name":"weather","arguments":""}}]},"finish_reason":null}],"usage":null}"#,
    r#"{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":\"Rome\"}"}}]},"finish_reason":null}],"usage":null}"#,
    r#"{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}],"usage":null}"#,
    r#"{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}"#,
    r#"{"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[],"usage":{"prompt_tokens":80,"completion_tokens":40,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0}}}"#,
    "[DONE]",
];

fn tool_stream_events() -> Vec<StreamEvent> {
    vec![
        StreamEvent::Start {
            id: "chatcmpl-A1".into(),
            model: "gpt-4o-2024-08-06".into(),
        },
        StreamEvent::TextDelta("Checking.".into()),
        StreamEvent::ToolCallStart {
            index: 0,
            id: "call_p".into(),
            name: "weather".into(),
        },
        StreamEvent::ToolCallDelta {
            index: 0,
            arguments: "{\"city\":".into(),
        },
        StreamEvent::ToolCallStart {
            index: 1,
            id: "call_r".into(),
            name: "weather".into(),
        },
        StreamEvent::ToolCallDelta {
            index: 1,
            arguments: "{\"city\":\"Rome\"}".into(),
        },
        StreamEvent::ToolCallDelta {
            index: 0,
            arguments: "\"Paris\"}".into(),
        },
        StreamEvent::Finish(StopReason::ToolUse),
        StreamEvent::Usage(Usage {
            input_tokens: 80,
            output_tokens: 40,
            ..Usage::default()
        }),
    ]
}

#[test]
fn decodes_an_openai_tool_stream() {
    assert_eq!(decode_all(OPENAI_TOOL_STREAM), tool_stream_events());
}

#[test]
fn decodes_a_reasoning_stream() {
    let events = decode_all(&[
        r#"{"id":"d1","object":"chat.completion.chunk","model":"deepseek-reasoner","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"finish_reason":null}]}"#,
        r#"{"id":"d1","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"Let me"},"finish_reason":null}]}"#,
        r#"{"id":"d1","choices":[{"index":0,"delta":{"reasoning":" think."}}]}"#,
        r#"{"id":"d1","choices":[{"index":0,"delta":{"content":"42","reasoning_content":null}}]}"#,
        r#"{"id":"d1","choices":[{"index":0,"delta":{"content":""},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":9,"total_tokens":14,"prompt_cache_hit_tokens":3,"completion_tokens_details":{"reasoning_tokens":7}}}"#,
        r#"{"id":"d1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        "",
        " [DONE] ",
    ]);
    assert_eq!(
        events,
        vec![
            StreamEvent::Start {
                id: "d1".into(),
                model: "deepseek-reasoner".into()
            },
            StreamEvent::ThinkingDelta("Let me".into()),
            StreamEvent::ThinkingDelta(" think.".into()),
            StreamEvent::TextDelta("42".into()),
            StreamEvent::Finish(StopReason::MaxTokens),
            StreamEvent::Usage(Usage {
                input_tokens: 5,
                output_tokens: 9,
                cache_read_tokens: 3,
                cache_creation_tokens: 0,
                reasoning_tokens: 7
            }),
        ]
    );
}

#[test]
fn decodes_provider_quirks() {
    // Moonshot's usage on the choice; calls all at index 0 with new ids; no index at all;
    // complete arguments in the first delta; finish "stop" after tool calls.
    let events = decode_all(&[
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\"x\""}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"arguments":":1}"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c","function":{"name":"h"}},{"id":"d","function":{"name":"k"}}]}}]}"#,
        r#"{"choices":[{"index":1,"delta":{"content":"other choice"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}]}"#,
    ]);
    let start = |index: usize, id: &str, name: &str| StreamEvent::ToolCallStart {
        index,
        id: id.into(),
        name: name.into(),
    };
    let delta = |index: usize, a: &str| StreamEvent::ToolCallDelta {
        index,
        arguments: a.into(),
    };
    assert_eq!(
        events,
        vec![
            StreamEvent::Start {
                id: String::new(),
                model: String::new()
            },
            start(0, "a", "f"),
            delta(0, "{}"),
            start(1, "b", "g"),
            delta(1, "{\"x\""),
            delta(1, ":1}"),
            start(2, "c", "h"),
            start(3, "d", "k"),
            StreamEvent::Finish(StopReason::ToolUse),
            StreamEvent::Usage(Usage {
                input_tokens: 1,
                output_tokens: 2,
                ..Usage::default()
            }),
        ]
    );
}

#[test]
fn stream_errors_are_errors() {
    let mut d = StreamDecoder::new();
    let mut out = Vec::new();
    assert_eq!(
        d.decode(r#"{"error":{"message":"overloaded","code":503}}"#, &mut out),
        Err(ParseError::Invalid("overloaded".into()))
    );
    assert_eq!(
        d.decode(r#"{"error":"plain"}"#, &mut out),
        Err(ParseError::Invalid("plain".into()))
    );
    assert!(matches!(
        d.decode("{broken", &mut out),
        Err(ParseError::MalformedJson(_))
    ));
    assert!(matches!(
        d.decode("[1,2]", &mut out),
        Err(ParseError::Invalid(_))
    ));
    assert!(out.is_empty());
    // Odd shapes never panic.
    for p in [
        r#"{"choices":null}"#,
        r#"{"choices":[null,1,"x"]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[null,{"index":-5},{"index":"x","function":7}]}}]}"#,
        r#"{"choices":[{"delta":"x","finish_reason":5}],"usage":[]}"#,
        r#"{"error":null,"choices":[]}"#,
    ] {
        d.decode(p, &mut out).unwrap();
    }
    assert_eq!(
        out,
        vec![StreamEvent::Start {
            id: String::new(),
            model: String::new()
        }]
    );
}

#[test]
fn decoded_stream_reencodes_for_a_chat_client() {
    let mut enc = StreamEncoder::new(true, 1);
    let mut bytes = Vec::new();
    for ev in decode_all(OPENAI_TOOL_STREAM) {
        enc.encode(&ev, &mut bytes);
    }
    enc.finish(&mut bytes);
    let text = String::from_utf8(bytes).unwrap();
    let mut d = StreamDecoder::new();
    let mut again = Vec::new();
    for frame in text.split_terminator("\n\n") {
        d.decode(frame.strip_prefix("data: ").unwrap(), &mut again)
            .unwrap();
    }
    assert_eq!(again, tool_stream_events());
    assert!(text.ends_with("data: [DONE]\n\n"));
}

/// Chunks the typed read of common chunks takes, and ones it must leave to the value tree
/// (fields of other kinds, repeated fields, escapes, usage, tool calls, errors).
const COMMON_AND_ODD: &[&str] = &[
    r#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}"#,
    r#"{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"plain"},"finish_reason":null}]}"#,
    r#"{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"esc\"aped\n\u00e9"}}]}"#,
    r#"{"choices":[{"delta":{"content":"a","content":"repeated"}}]}"#,
    r#"{"choices":[{"index":1,"delta":{"content":"other choice"}},{"index":0,"delta":{"content":"first"}}]}"#,
    r#"{"choices":[{"index":1.0,"delta":{"content":"float index"}}]}"#,
    r#"{"choices":[{"index":null,"delta":{"content":"null index"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":7}}]}"#,
    r#"{"choices":[{"index":0,"delta":"text"}]}"#,
    r#"{"choices":[{"index":0,"delta":null,"finish_reason":5}]}"#,
    r#"{"choices":[7,{"index":0,"delta":{"content":"after a number"}}]}"#,
    r#"{"choices":{"index":0}}"#,
    r#"{"choices":[{"index":0,"delta":{"reasoning_content":"think","content":"say"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"reasoning_content":null,"reasoning":"other think"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"reasoning_content":3,"reasoning":"odd"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":null,"content":"null calls"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":"x"},"usage":{"prompt_tokens":3,"completion_tokens":1}}]}"#,
    r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
    r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
    r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}"#,
    r#"{"choices":[],"usage":null}"#,
    r#"{"error":{"message":"overloaded","type":"server_error"}}"#,
    r#"{"error":null,"choices":[{"index":0,"delta":{"content":"null error"}}]}"#,
    r#"[1,2]"#,
    r#"{"choices":[{"index":0,"delta":{"content":"x"}}"#,
    "not json",
];

#[test]
fn common_chunks_decode_as_the_value_tree_decodes_them() {
    // Every chunk after the first, and every chunk as the first one.
    let mut fast = StreamDecoder::new();
    let mut tree = StreamDecoder::new();
    for data in COMMON_AND_ODD {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        assert_eq!(
            fast.decode(data, &mut a),
            tree.decode_tree(data, &mut b),
            "{data}"
        );
        assert_eq!(a, b, "{data}");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let first = StreamDecoder::new().decode(data, &mut a);
        assert_eq!(
            first,
            StreamDecoder::new().decode_tree(data, &mut b),
            "{data}"
        );
        assert_eq!(a, b, "{data}");
    }
}

#[test]
fn ordinary_chunks_take_the_typed_read_and_odd_ones_are_left_to_the_tree() {
    let mut d = StreamDecoder::new();
    let mut out = Vec::new();
    for taken in [
        r#"{"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}"#,
        r#"{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"a\nb"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
    ] {
        assert!(d.decode_common(taken, &mut out), "{taken}");
    }
    for left in [
        r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t"}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"x"},"usage":{"prompt_tokens":1}}]}"#,
        r#"{"choices":[{"delta":{"content":"a","content":"b"}}]}"#,
        r#"{"error":{"message":"overloaded"}}"#,
        "[1]",
    ] {
        let before = out.len();
        assert!(!d.decode_common(left, &mut out), "{left}");
        assert_eq!(out.len(), before, "{left}");
    }
}
