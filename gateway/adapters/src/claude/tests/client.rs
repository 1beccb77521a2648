//! Client side: request decoding, answer encoding, errors, token counts, the model list.

use serde_json::{Value, json};

use crate::ParseError;
use crate::claude::{
    anthropic_model_list, count_tokens_body, decode_count_tokens, decode_request, encode_response,
    error_body,
};
use crate::ir::{
    ImageSource, Message, Part, Reasoning, Request, Response, Role, StopReason, Tool, ToolChoice,
    Usage,
};

fn decode(v: &Value) -> Result<Request, ParseError> {
    decode_request(v.to_string().as_bytes())
}

#[test]
fn a_full_request_decodes_to_the_ir() {
    let body = json!({
        "model": " claude-sonnet-4-5 ",
        "max_tokens": 2048,
        "system": [
            {"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": ""},
            {"type": "text", "text": "Answer in French."}
        ],
        "messages": [
            {"role": "user", "content": "What is the weather in Paris?"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Need the tool.", "signature": "sig-1"},
                {"type": "redacted_thinking", "data": "ENC"},
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                    {"type": "text", "text": "18C"},
                    {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}
                ], "is_error": false},
                {"type": "tool_result", "tool_use_id": "toolu_9", "content": "boom", "is_error": true},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}},
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}},
                {"type": "text", "text": "", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "Thanks"}
            ]},
            {"role": "assistant", "content": ""}
        ],
        "tools": [
            {"name": "get_weather", "description": "Weather of a city",
             "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}},
            {"type": "custom", "name": "noop", "input_schema": {"type": "object"}},
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
            {"type": "bash_20250124", "name": "bash"}
        ],
        "tool_choice": {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": true},
        "temperature": 0.5,
        "top_p": 0.9,
        "top_k": 40,
        "stop_sequences": ["END"],
        "stream": true,
        "thinking": {"type": "enabled", "budget_tokens": 2000},
        "metadata": {"user_id": "user-42"}
    });
    let want = Request {
        model: "claude-sonnet-4-5".into(),
        system: vec!["You are terse.".into(), "Answer in French.".into()],
        messages: vec![
            Message {
                role: Role::User,
                content: vec![Part::Text("What is the weather in Paris?".into())],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    Part::Thinking {
                        text: "Need the tool.".into(),
                        signature: Some("sig-1".into()),
                    },
                    Part::RedactedThinking("ENC".into()),
                    Part::Text("Let me check.".into()),
                    Part::ToolCall {
                        id: "toolu_1".into(),
                        name: "get_weather".into(),
                        arguments: r#"{"city":"Paris"}"#.into(),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    Part::ToolResult {
                        call_id: "toolu_1".into(),
                        name: Some("get_weather".into()),
                        content: vec![
                            Part::Text("18C".into()),
                            Part::Image(ImageSource::Url("https://x/y.png".into())),
                        ],
                        is_error: false,
                    },
                    Part::ToolResult {
                        call_id: "toolu_9".into(),
                        name: None,
                        content: vec![Part::Text("boom".into())],
                        is_error: true,
                    },
                    Part::Image(ImageSource::Base64 {
                        media_type: "image/png".into(),
                        data: "iVBOR".into(),
                    }),
                    Part::Text("notes".into()),
                    Part::Text("Thanks".into()),
                ],
            },
        ],
        tools: vec![
            Tool {
                name: "get_weather".into(),
                description: Some("Weather of a city".into()),
                parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}})
                    .into(),
            },
            Tool {
                name: "noop".into(),
                description: None,
                parameters: json!({"type": "object"}).into(),
            },
        ],
        tool_choice: Some(ToolChoice::Tool("get_weather".into())),
        max_tokens: Some(2048),
        temperature: Some(0.5),
        top_p: Some(0.9),
        top_k: Some(40),
        stop: vec!["END".into()],
        stream: true,
        reasoning: Some(Reasoning {
            effort: None,
            budget_tokens: Some(2000),
            include_thoughts: true,
        }),
        user: Some("user-42".into()),
        json_output: None,
    };
    assert_eq!(decode(&body).unwrap(), want);
}

#[test]
fn system_string_choices_adaptive_thinking_and_output_format() {
    let body = json!({
        "model": "m", "max_tokens": 10, "system": "Be brief.",
        "messages": [{"role": "user", "content": "hi"}],
        "tool_choice": {"type": "any"},
        "thinking": {"type": "adaptive"},
        "output_config": {"effort": "max", "format": {"type": "json_schema", "schema": {"type": "object"}}}
    });
    let r = decode(&body).unwrap();
    assert_eq!(r.system, vec!["Be brief.".to_owned()]);
    assert_eq!(r.tool_choice, Some(ToolChoice::Required));
    assert_eq!(
        r.reasoning,
        Some(Reasoning {
            effort: Some("high".into()),
            budget_tokens: None,
            include_thoughts: true
        })
    );
    assert_eq!(r.json_output, Some(json!({"type": "object"})));
    assert!(!r.stream);

    let mut body = body;
    body["tool_choice"] = json!({"type": "none"});
    body["thinking"] = json!({"type": "disabled"});
    body["output_config"] = Value::Null;
    body["output_format"] = json!({"type": "json_schema", "schema": {"type": "array"}});
    let r = decode(&body).unwrap();
    assert_eq!(r.tool_choice, Some(ToolChoice::None));
    assert_eq!(r.reasoning, None);
    assert_eq!(r.json_output, Some(json!({"type": "array"})));
    body["tool_choice"] = json!({"type": "auto"});
    assert_eq!(decode(&body).unwrap().tool_choice, Some(ToolChoice::Auto));
}

#[test]
fn max_tokens_is_required_except_for_counting() {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    assert!(matches!(decode(&body), Err(ParseError::Invalid(m)) if m.contains("max_tokens")));
    let r = decode_count_tokens(body.to_string().as_bytes()).unwrap();
    assert_eq!(r.max_tokens, None);
    assert_eq!(r.messages.len(), 1);
    let mut zero = body.clone();
    zero["max_tokens"] = json!(0);
    assert!(matches!(decode(&zero), Err(ParseError::Invalid(m)) if m.contains("max_tokens")));
    zero["max_tokens"] = json!("100");
    assert!(decode(&zero).is_err());
}

#[test]
fn bad_requests_are_errors_not_panics() {
    assert!(matches!(
        decode_request(b"{not json"),
        Err(ParseError::MalformedJson(_))
    ));
    assert!(matches!(
        decode_request(b"[1]"),
        Err(ParseError::Invalid(_))
    ));
    let base =
        json!({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]});
    let mut no_model = base.clone();
    no_model["model"] = json!("  ");
    assert_eq!(decode(&no_model), Err(ParseError::MissingModel));
    let cases = [
        ("messages", json!([])),
        ("messages", json!("hi")),
        ("messages", json!([{"role": "system", "content": "x"}])),
        ("messages", json!([{"content": "x"}])),
        ("messages", json!([{"role": "user", "content": 3}])),
        (
            "messages",
            json!([{"role": "user", "content": [{"text": "no type"}]}]),
        ),
        (
            "messages",
            json!([{"role": "user", "content": [{"type": "text"}]}]),
        ),
        (
            "messages",
            json!([{"role": "user", "content": [{"type": "image", "source": {"type": "file", "file_id": "f"}}]}]),
        ),
        (
            "messages",
            json!([{"role": "user", "content": [{"type": "image"}]}]),
        ),
        (
            "messages",
            json!([{"role": "user", "content": [{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBER"}}]}]),
        ),
        (
            "messages",
            json!([{"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]}]),
        ),
        (
            "messages",
            json!([{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}]),
        ),
        (
            "messages",
            json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": 5}]}]),
        ),
        (
            "messages",
            json!([{"role": "assistant", "content": [{"type": "thinking", "signature": "s"}]}]),
        ),
        ("system", json!(5)),
        ("system", json!([{"type": "image"}])),
        ("tools", json!({"name": "f"})),
        (
            "tools",
            json!([{"description": "no name", "input_schema": {}}]),
        ),
        ("tools", json!([{"name": "f", "input_schema": "object"}])),
        ("tool_choice", json!({"type": "sometimes"})),
        ("tool_choice", json!({"type": "tool"})),
        ("stop_sequences", json!("END")),
        ("stop_sequences", json!([1])),
    ];
    for (field, value) in cases {
        let mut body = base.clone();
        body[field] = value.clone();
        let err = decode(&body);
        assert!(
            matches!(err, Err(ParseError::Invalid(_))),
            "{field} = {value}: {err:?}"
        );
    }
}

#[test]
fn an_answer_encodes_as_a_message() {
    let r = Response {
        id: "chatcmpl-7".into(),
        model: "gpt-4o".into(),
        content: vec![
            Part::Thinking {
                text: "hmm".into(),
                signature: None,
            },
            Part::RedactedThinking("ENC".into()),
            Part::Text(String::new()),
            Part::Text("Checking.".into()),
            Part::ToolCall {
                id: "call_1".into(),
                name: "get_weather".into(),
                arguments: r#"{"city":"Paris"}"#.into(),
            },
            Part::ToolCall {
                id: "call_2".into(),
                name: "broken".into(),
                arguments: r#"{"city":"#.into(),
            },
        ],
        stop: StopReason::EndTurn,
        usage: Some(Usage {
            input_tokens: 100,
            output_tokens: 20,
            cache_read_tokens: 30,
            cache_creation_tokens: 10,
            reasoning_tokens: 5,
        }),
    };
    assert_eq!(
        encode_response(&r),
        json!({
            "id": "msg_chatcmpl-7",
            "type": "message",
            "role": "assistant",
            "model": "gpt-4o",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": ""},
                {"type": "redacted_thinking", "data": "ENC"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "call_2", "name": "broken", "input": {}}
            ],
            // Tools were called: Anthropic clients expect `tool_use`.
            "stop_reason": "tool_use",
            "stop_sequence": null,
            "usage": {
                "input_tokens": 60,
                "output_tokens": 20,
                "cache_read_input_tokens": 30,
                "cache_creation_input_tokens": 10
            }
        })
    );
}

#[test]
fn answer_ids_stop_reasons_and_missing_usage() {
    let mut r = Response {
        id: "msg_01abc".into(),
        model: "m".into(),
        content: vec![Part::Text("no".into())],
        stop: StopReason::ContentFilter,
        usage: None,
    };
    let v = encode_response(&r);
    assert_eq!(v["id"], "msg_01abc");
    assert_eq!(v["stop_reason"], "refusal");
    assert_eq!(v["usage"]["input_tokens"], 0);
    assert_eq!(v["usage"]["output_tokens"], 0);
    for (stop, name) in [
        (StopReason::EndTurn, "end_turn"),
        (StopReason::MaxTokens, "max_tokens"),
        (StopReason::StopSequence, "stop_sequence"),
        (StopReason::ToolUse, "tool_use"),
    ] {
        r.stop = stop;
        assert_eq!(encode_response(&r)["stop_reason"], name);
    }
    r.id = String::new();
    let id = encode_response(&r)["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("msg_") && id.len() > 4, "{id}");
    assert_eq!(encode_response(&r)["id"], id.as_str(), "stable");
}

#[test]
fn error_bodies_follow_anthropic_types() {
    for (status, kind) in [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (402, "billing_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (413, "request_too_large"),
        (422, "invalid_request_error"),
        (429, "rate_limit_error"),
        (500, "api_error"),
        (502, "api_error"),
        (504, "timeout_error"),
        (529, "overloaded_error"),
    ] {
        assert_eq!(
            error_body(status, "nope"),
            json!({"type": "error", "error": {"type": kind, "message": "nope"}}),
            "{status}"
        );
    }
}

#[test]
fn token_counts_and_model_list() {
    assert_eq!(count_tokens_body(42), json!({"input_tokens": 42}));
    assert_eq!(
        anthropic_model_list(&["claude-a".into(), "gpt-b".into()]),
        json!({
            "data": [
                {"type": "model", "id": "claude-a", "display_name": "claude-a", "created_at": "2024-01-01T00:00:00Z"},
                {"type": "model", "id": "gpt-b", "display_name": "gpt-b", "created_at": "2024-01-01T00:00:00Z"}
            ],
            "has_more": false,
            "first_id": "claude-a",
            "last_id": "gpt-b"
        })
    );
    assert_eq!(
        anthropic_model_list(&[]),
        json!({"data": [], "has_more": false, "first_id": null, "last_id": null})
    );
}
