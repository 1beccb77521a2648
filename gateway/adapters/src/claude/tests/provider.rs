//! Provider side: IR requests encoded as Messages bodies, answers decoded to the IR.

use serde_json::{Value, json};

use crate::ParseError;
use crate::claude::{decode_request, decode_response, error_message};

/// The encoded body as JSON, to compare.
fn encode_request(req: &crate::ir::Request, model: &str) -> Value {
    serde_json::to_value(crate::claude::encode_request(req, model)).unwrap()
}
use crate::ir::{
    ImageSource, Message, Part, Reasoning, Request, Response, Role, StopReason, Tool, ToolChoice,
    Usage,
};

fn user(text: &str) -> Message {
    Message {
        role: Role::User,
        content: vec![Part::Text(text.into())],
    }
}

#[test]
fn a_request_from_another_dialect_encodes_as_a_messages_body() {
    let req = Request {
        model: "gpt-4o".into(),
        system: vec!["Be terse.".into(), String::new(), "Use tools.".into()],
        messages: vec![
            user("Hi"),
            Message {
                role: Role::User,
                content: vec![
                    Part::Text(String::new()),
                    Part::Image(ImageSource::Url("data:image/png;base64,iVBOR".into())),
                    Part::Image(ImageSource::Url("https://x/y.jpg".into())),
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    // From an OpenAI reasoning model: unsigned, cannot be replayed.
                    Part::Thinking {
                        text: "unsigned".into(),
                        signature: None,
                    },
                    Part::Thinking {
                        text: "signed".into(),
                        signature: Some("sig".into()),
                    },
                    Part::RedactedThinking("ENC".into()),
                    Part::ToolCall {
                        id: "call_1".into(),
                        name: "get_weather".into(),
                        arguments: r#"{"city":"Paris"}"#.into(),
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
                content: vec![Part::ToolResult {
                    call_id: "call_1".into(),
                    name: Some("get_weather".into()),
                    content: vec![Part::Text("18C".into())],
                    is_error: false,
                }],
            },
            // A user turn right after the tool results (OpenAI order): merged, text after.
            Message {
                role: Role::User,
                content: vec![
                    Part::Text("and?".into()),
                    Part::ToolResult {
                        call_id: "call_2".into(),
                        name: None,
                        content: vec![
                            Part::Text("noon".into()),
                            Part::Image(ImageSource::Base64 {
                                media_type: "image/gif".into(),
                                data: "R0lG".into(),
                            }),
                            Part::ToolCall {
                                id: "x".into(),
                                name: "nested".into(),
                                arguments: "{}".into(),
                            },
                        ],
                        is_error: true,
                    },
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![Part::Text(String::new())],
            },
        ],
        tools: vec![
            Tool {
                name: "get_weather".into(),
                description: Some("Weather".into()),
                parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}})
                    .into(),
            },
            Tool {
                name: "get_time".into(),
                description: None,
                parameters: Value::Null.into(),
            },
        ],
        tool_choice: Some(ToolChoice::Required),
        max_tokens: None,
        temperature: Some(0.2),
        top_p: Some(0.5),
        top_k: Some(7),
        stop: vec!["END".into()],
        stream: true,
        reasoning: None,
        user: Some("u-1".into()),
        json_output: Some(json!({"type": "object"})),
    };
    assert_eq!(
        encode_request(&req, "claude-sonnet-4-5"),
        json!({
            "model": "claude-sonnet-4-5",
            "system": [
                {"type": "text", "text": "Be terse."},
                {"type": "text", "text": "Use tools."}
            ],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "Hi"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}},
                    {"type": "image", "source": {"type": "url", "url": "https://x/y.jpg"}}
                ]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "signed", "signature": "sig"},
                    {"type": "redacted_thinking", "data": "ENC"},
                    {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
                    {"type": "tool_use", "id": "call_2", "name": "get_time", "input": {}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": "18C"},
                    {"type": "tool_result", "tool_use_id": "call_2", "is_error": true, "content": [
                        {"type": "text", "text": "noon"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lG"}}
                    ]},
                    {"type": "text", "text": "and?"}
                ]}
            ],
            "tools": [
                {"name": "get_weather", "description": "Weather",
                 "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}},
                {"name": "get_time", "input_schema": {"type": "object", "properties": {}}}
            ],
            "tool_choice": {"type": "any"},
            "temperature": 0.2,
            "top_p": 0.5,
            "top_k": 7,
            "max_tokens": 4096,
            "stop_sequences": ["END"],
            "stream": true,
            "metadata": {"user_id": "u-1"},
            "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}
        })
    );
}

fn with_reasoning(effort: Option<&str>, budget: Option<i64>, max_tokens: Option<i64>) -> Value {
    let req = Request {
        model: "m".into(),
        system: vec!["only".into()],
        messages: vec![user("hi")],
        max_tokens,
        temperature: Some(0.7),
        top_p: Some(0.97),
        top_k: Some(5),
        reasoning: Some(Reasoning {
            effort: effort.map(str::to_owned),
            budget_tokens: budget,
            include_thoughts: false,
        }),
        ..Request::default()
    };
    encode_request(&req, "claude-x")
}

#[test]
fn reasoning_becomes_a_thinking_budget() {
    let v = with_reasoning(Some("high"), None, Some(1000));
    assert_eq!(v["system"], "only");
    assert_eq!(
        v["thinking"],
        json!({"type": "enabled", "budget_tokens": 16384})
    );
    assert_eq!(v["max_tokens"], 17384, "raised above the budget");
    assert!(v.get("temperature").is_none() && v.get("top_k").is_none());
    assert_eq!(v["top_p"], 0.97);
    assert!(v.get("stream").is_none());

    for (effort, budget) in [
        ("minimal", 1024),
        ("low", 1024),
        ("medium", 4096),
        ("xhigh", 16384),
        ("odd", 4096),
    ] {
        let v = with_reasoning(Some(effort), None, Some(32000));
        assert_eq!(v["thinking"]["budget_tokens"], budget, "{effort}");
        assert_eq!(v["max_tokens"], 32000, "{effort}: already above the budget");
    }
    // A budget wins over the effort and is raised to Anthropic's minimum.
    let v = with_reasoning(Some("high"), Some(2000), Some(8000));
    assert_eq!(v["thinking"]["budget_tokens"], 2000);
    let v = with_reasoning(None, Some(100), None);
    assert_eq!(v["thinking"]["budget_tokens"], 1024);
    assert_eq!(v["max_tokens"], 4096);
    // Gemini's dynamic budget falls back to the effort (or medium).
    assert_eq!(
        with_reasoning(None, Some(-1), None)["thinking"]["budget_tokens"],
        4096
    );
    // Off: a zero budget, effort none, or nothing asked.
    for v in [
        with_reasoning(Some("high"), Some(0), None),
        with_reasoning(Some("none"), None, None),
        with_reasoning(None, None, None),
    ] {
        assert!(v.get("thinking").is_none(), "{v}");
        assert_eq!(v["temperature"], 0.7);
        assert_eq!(v["top_k"], 5);
    }
}

#[test]
fn forced_tools_turn_thinking_off_and_choices_need_tools() {
    let mut req = Request {
        model: "m".into(),
        messages: vec![user("hi")],
        tool_choice: Some(ToolChoice::Tool("f".into())),
        reasoning: Some(Reasoning {
            effort: Some("low".into()),
            ..Reasoning::default()
        }),
        json_output: Some(Value::Null),
        ..Request::default()
    };
    let v = encode_request(&req, "m");
    assert!(v.get("tool_choice").is_none() && v.get("tools").is_none());
    assert!(
        v.get("output_config").is_none(),
        "plain JSON has no equivalent"
    );
    assert_eq!(
        v["thinking"]["budget_tokens"], 1024,
        "no tools: nothing forced"
    );
    req.tools = vec![Tool {
        name: "f".into(),
        description: None,
        parameters: json!({"type": "object"}).into(),
    }];
    let v = encode_request(&req, "m");
    assert_eq!(v["tool_choice"], json!({"type": "tool", "name": "f"}));
    assert!(v.get("thinking").is_none());
    req.tool_choice = Some(ToolChoice::None);
    let v = encode_request(&req, "m");
    assert_eq!(v["tool_choice"], json!({"type": "none"}));
    assert!(v.get("thinking").is_some());
}

#[test]
fn an_anthropic_body_survives_decode_then_encode() {
    let body = json!({
        "model": "claude-x",
        "system": "Be terse.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "tool", "signature": "s1"},
                {"type": "tool_use", "id": "toolu_1", "name": "w", "input": {"c": "P"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"},
                {"type": "text", "text": "ok"}
            ]}
        ],
        "tools": [{"name": "w", "description": "d", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "auto"},
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "max_tokens": 4000,
        "stop_sequences": ["X"],
        "stream": true,
        "metadata": {"user_id": "u"}
    });
    let ir = decode_request(body.to_string().as_bytes()).unwrap();
    assert_eq!(encode_request(&ir, "claude-x"), body);
}

#[test]
fn an_answer_decodes_to_the_ir() {
    let v = json!({
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "thinking", "thinking": "Hmm.", "signature": "sig"},
            {"type": "redacted_thinking", "data": "ENC"},
            {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}},
            {"type": "web_search_tool_result", "tool_use_id": "srv", "content": []},
            {"type": "text", "text": "Calling.", "citations": null},
            {"type": "text", "text": ""},
            {"type": "tool_use", "id": "toolu_1", "name": "w", "input": {"c": "P"}}
        ],
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "usage": {
            "input_tokens": 10,
            "cache_creation_input_tokens": 6,
            "cache_read_input_tokens": 4,
            "output_tokens": 30,
            "service_tier": "standard"
        }
    });
    assert_eq!(
        decode_response(&v).unwrap(),
        Response {
            id: "msg_01".into(),
            model: "claude-sonnet-4-5".into(),
            content: vec![
                Part::Thinking {
                    text: "Hmm.".into(),
                    signature: Some("sig".into()),
                },
                Part::RedactedThinking("ENC".into()),
                Part::Text("Calling.".into()),
                Part::ToolCall {
                    id: "toolu_1".into(),
                    name: "w".into(),
                    arguments: r#"{"c":"P"}"#.into(),
                },
            ],
            stop: StopReason::ToolUse,
            usage: Some(Usage {
                input_tokens: 20,
                output_tokens: 30,
                cache_read_tokens: 4,
                cache_creation_tokens: 6,
                reasoning_tokens: 0,
            }),
        }
    );
}

#[test]
fn stop_reasons_errors_and_odd_answers() {
    for (name, stop) in [
        ("end_turn", StopReason::EndTurn),
        ("pause_turn", StopReason::EndTurn),
        ("max_tokens", StopReason::MaxTokens),
        ("model_context_window_exceeded", StopReason::MaxTokens),
        ("stop_sequence", StopReason::StopSequence),
        ("refusal", StopReason::ContentFilter),
        ("something_new", StopReason::EndTurn),
    ] {
        let v = json!({"content": [], "stop_reason": name});
        let r = decode_response(&v).unwrap();
        assert_eq!(r.stop, stop, "{name}");
        assert_eq!(r.usage, None);
    }
    let err =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    assert_eq!(
        decode_response(&err),
        Err(ParseError::Invalid("overloaded_error: Overloaded".into()))
    );
    assert_eq!(
        error_message(&json!({"error": "plain"})).as_deref(),
        Some("plain")
    );
    assert_eq!(error_message(&json!({"content": []})), None);
    assert!(matches!(
        decode_response(&json!({"content": "text"})),
        Err(ParseError::Invalid(_))
    ));
    assert!(decode_response(&json!([1, 2])).is_err());
    // Blocks missing their fields do not panic.
    let r =
        decode_response(&json!({"content": [{"type": "tool_use"}, {"type": "thinking"}, {}, 5]}))
            .unwrap();
    assert_eq!(r.content.len(), 2);
}

/// The answer read from its bytes is the value tree's whenever the typed read settles it, and
/// the typed read settles the common shapes.
#[test]
fn an_answer_read_from_bytes_is_the_value_trees() {
    let usage = r#""usage":{"input_tokens":12,"output_tokens":5,"cache_read_input_tokens":3,"cache_creation_input_tokens":2}"#;
    let settled = [
        format!(
            r#"{{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku","content":[{{"type":"text","text":"Hello there"}}],"stop_reason":"end_turn","stop_sequence":null,{usage}}}"#
        ),
        r#" {"content":[{"type":"text","text":"line\none \u00e9 \"q\" 你好","citations":[{"x":1}]}],"stop_reason":"max_tokens"} "#.to_owned(),
        r#"{"content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"thinking","thinking":"b","signature":""},{"type":"thinking"},{"type":"text","text":"ok"}]}"#.to_owned(),
        r#"{"content":[{"type":"redacted_thinking","data":"abc"},{"type":"redacted_thinking"},{"type":"text","text":""}]}"#.to_owned(),
        r#"{"content":[{"type":"server_tool_use","id":"s1","name":"web_search","input":{"q":[1,{"a":null}]}},{"type":"web_search_tool_result","content":[{"a":1}]},{"type":"text","text":"t"}]}"#.to_owned(),
        r#"{"content":[],"usage":{"input_tokens":1.5,"output_tokens":"7","cache_read_input_tokens":-4,"cache_creation_input_tokens":18446744073709551615}}"#.to_owned(),
        r#"{"content":[],"usage":null,"error":null,"id":null,"model":null,"stop_reason":null}"#.to_owned(),
        r#"{"content":[{}],"usage":{},"stop_reason":"tool_use","unknown":{"deep":[[[]]]}}"#.to_owned(),
        r#"{"content":[{"type":null,"text":"x"}],"stop_reason":"refusal"}"#.to_owned(),
        r#"{"content":[],"stop_reason":"pause_turn","usage":{"output_tokens":9223372036854775807,"input_tokens":9223372036854775807,"cache_read_input_tokens":5}}"#.to_owned(),
    ];
    let unsettled = [
        r#"{"content":[{"type":"tool_use","id":"t","name":"f","input":{"b":1,"a":2}}]}"#,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        r#"{"content":[],"error":"plain"}"#,
        r#"{"content":[],"type":"error"}"#,
        r#"{"content":"text"}"#,
        r#"{"content":null}"#,
        r#"{"stop_reason":"end_turn"}"#,
        r#"{"content":[["text","hi"]]}"#,
        r#"{"content":[5]}"#,
        r#"{"content":[{"type":"text","text":"a"}],"content":[]}"#,
        r#"{"content":[{"type":"text","text":"a","text":"b"}]}"#,
        r#"{"content":[{"type":"text","text":5}]}"#,
        r#"{"content":[],"id":7}"#,
        r#"{"content":[],"stop_reason":1}"#,
        r#"{"content":[],"usage":[1,2]}"#,
        r#"{"content":[],"usage":3}"#,
        r#"{"content":[],"usage":{"input_tokens":1,"input_tokens":2}}"#,
        r#"[{"content":[]}]"#,
        r#"{"content":[]} x"#,
        r#"{"content":["#,
        "",
    ];
    for body in &settled {
        let typed = crate::claude::decode_response_bytes(body.as_bytes());
        let tree: Value = serde_json::from_slice(body.as_bytes()).unwrap();
        assert_eq!(
            typed.as_ref(),
            decode_response(&tree).ok().as_ref(),
            "{body}"
        );
        assert!(typed.is_some(), "the typed read settles {body}");
    }
    for body in unsettled {
        assert_eq!(
            crate::claude::decode_response_bytes(body.as_bytes()),
            None,
            "{body}"
        );
    }
    // The first answer in full.
    let r = crate::claude::decode_response_bytes(settled[0].as_bytes()).unwrap();
    assert_eq!(r.content, vec![Part::Text("Hello there".into())]);
    assert_eq!(
        r.usage
            .map(|u| (u.input_tokens, u.output_tokens, u.cache_read_tokens)),
        Some((17, 5, 3))
    );
}
