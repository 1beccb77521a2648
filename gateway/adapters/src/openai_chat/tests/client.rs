//! Client side: request decoding, answer and stream encoding, errors.

use serde_json::{Value, json};

use crate::ParseError;
use crate::ir::{
    ImageSource, Message, Part, Reasoning, Request, Response, Role, StopReason, StreamEvent, Tool,
    ToolChoice, Usage,
};
use crate::openai_chat::{
    StreamEncoder, client_wants_usage, decode_request, encode_response, error_body,
};

fn decode(v: Value) -> Result<Request, ParseError> {
    decode_request(v.to_string().as_bytes())
}

fn text(t: &str) -> Part {
    Part::Text(t.to_owned())
}

#[test]
fn decodes_a_full_conversation() {
    let body = json!({
        "model": " gpt-4o ",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "developer", "content": [{"type": "text", "text": "Use metric units."}]},
            {"role": "user", "content": [
                {"type": "text", "text": "Weather in Paris and Rome?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K", "detail": "high"}},
                {"type": "image_url", "image_url": {"url": "https://example.com/a.jpg"}},
                {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
                {"type": "file", "file": {"file_id": "file-1"}}
            ]},
            {"role": "assistant", "content": null, "reasoning_content": "Two cities.", "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}},
                {"id": "call_b", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Rome\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_a", "content": "18C"},
            {"role": "tool", "tool_call_id": "call_b", "content": [{"type": "text", "text": "24C"}]},
            {"role": "assistant", "content": "Paris 18C, Rome 24C."},
            {"role": "user", "content": "Thanks"}
        ],
        "tools": [{"type": "function", "function": {
            "name": "weather", "description": "Current weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}
        }}],
        "tool_choice": {"type": "function", "function": {"name": "weather"}},
        "max_completion_tokens": 300,
        "max_tokens": 100,
        "temperature": 0.2,
        "top_p": 0.9,
        "stop": "END",
        "stream": true,
        "stream_options": {"include_usage": true},
        "reasoning_effort": "low",
        "user": "u-42",
        "response_format": {"type": "json_schema", "json_schema": {"name": "w", "schema": {"type": "object"}}}
    });
    let want = Request {
        model: "gpt-4o".into(),
        system: vec!["You are terse.".into(), "Use metric units.".into()],
        messages: vec![
            Message {
                role: Role::User,
                content: vec![
                    text("Weather in Paris and Rome?"),
                    Part::Image(ImageSource::Base64 {
                        media_type: "image/png".into(),
                        data: "iVBORw0K".into(),
                    }),
                    Part::Image(ImageSource::Url("https://example.com/a.jpg".into())),
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    Part::Thinking {
                        text: "Two cities.".into(),
                        signature: None,
                    },
                    Part::ToolCall {
                        id: "call_a".into(),
                        name: "weather".into(),
                        arguments: r#"{"city":"Paris"}"#.into(),
                    },
                    Part::ToolCall {
                        id: "call_b".into(),
                        name: "weather".into(),
                        arguments: r#"{"city":"Rome"}"#.into(),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    Part::ToolResult {
                        call_id: "call_a".into(),
                        name: Some("weather".into()),
                        content: vec![text("18C")],
                        is_error: false,
                    },
                    Part::ToolResult {
                        call_id: "call_b".into(),
                        name: Some("weather".into()),
                        content: vec![text("24C")],
                        is_error: false,
                    },
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![text("Paris 18C, Rome 24C.")],
            },
            Message {
                role: Role::User,
                content: vec![text("Thanks")],
            },
        ],
        tools: vec![Tool {
            name: "weather".into(),
            description: Some("Current weather".into()),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}})
                .into(),
        }],
        tool_choice: Some(ToolChoice::Tool("weather".into())),
        max_tokens: Some(300),
        temperature: Some(0.2),
        top_p: Some(0.9),
        top_k: None,
        stop: vec!["END".into()],
        stream: true,
        reasoning: Some(Reasoning {
            effort: Some("low".into()),
            budget_tokens: None,
            include_thoughts: true,
        }),
        user: Some("u-42".into()),
        json_output: Some(json!({"type": "object"})),
    };
    // The gateway decodes the bytes ParsedRequest kept: the same IR.
    let parsed = crate::openai::parse_request(
        crate::openai::Endpoint::ChatCompletions,
        bytes::Bytes::from(body.to_string()),
    )
    .unwrap();
    assert_eq!(decode_request(parsed.raw()).unwrap(), want);
    assert_eq!(decode(body).unwrap(), want);
}

#[test]
fn decodes_legacy_functions_and_simple_options() {
    let body = json!({
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "function_call": {"name": "now", "arguments": ""}},
            {"role": "function", "name": "now", "content": "noon"},
            {"role": "assistant", "content": [{"type": "text", "text": "It is noon."}], "reasoning": "easy"}
        ],
        "functions": [{"name": "now"}],
        "function_call": "auto",
        "max_tokens": 50,
        "stop": ["a", "", "b"],
        "response_format": {"type": "json_object"}
    });
    let r = decode(body).unwrap();
    assert_eq!(
        r.messages[1].content,
        vec![Part::ToolCall {
            id: "call_legacy_1".into(),
            name: "now".into(),
            arguments: "{}".into()
        }]
    );
    assert_eq!(
        r.messages[2].content,
        vec![Part::ToolResult {
            call_id: "call_legacy_1".into(),
            name: Some("now".into()),
            content: vec![text("noon")],
            is_error: false
        }]
    );
    assert_eq!(
        r.messages[3].content,
        vec![
            Part::Thinking {
                text: "easy".into(),
                signature: None
            },
            text("It is noon.")
        ]
    );
    assert_eq!(
        r.tools[0].parameters,
        json!({"type": "object", "properties": {}}).into()
    );
    assert_eq!(r.tool_choice, Some(ToolChoice::Auto));
    assert_eq!(r.max_tokens, Some(50));
    assert_eq!(r.stop, vec!["a".to_owned(), "b".to_owned()]);
    assert_eq!(r.json_output, Some(Value::Null));
    assert!(!r.stream && r.reasoning.is_none() && r.system.is_empty());
    for (choice, want) in [
        (json!("none"), Some(ToolChoice::None)),
        (json!("required"), Some(ToolChoice::Required)),
        (json!("sometimes"), None),
        (json!(3), None),
    ] {
        let body = json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "tool_choice": choice});
        assert_eq!(decode(body).unwrap().tool_choice, want);
    }
}

#[test]
fn tool_schemas_pass_through_as_written() {
    let body = br#"{"model":"m","messages":[{"role":"user","content":"hi"}],
        "tools":[{"type":"function","function":{"name":"a","parameters": {"type": "object",
            "properties": {"q": {"type": "string"}}}}},
        {"type":"function","function":{"name":"b","parameters":null}},
        {"type":"function","function":{"name":"c"}}]}"#;
    let r = crate::openai_chat::decode_request(body).unwrap();
    let schema = &r.tools[0].parameters;
    assert_eq!(
        schema.text(),
        r#"{"type": "object",
            "properties": {"q": {"type": "string"}}}"#
    );
    assert_eq!(
        schema.to_value(),
        json!({"type": "object", "properties": {"q": {"type": "string"}}})
    );
    for t in &r.tools[1..] {
        assert_eq!(
            t.parameters.to_value(),
            json!({"type": "object", "properties": {}})
        );
    }
    // Written to Anthropic as the client wrote it, not re-serialised.
    let claude = String::from_utf8(
        crate::convert::encode_request(
            crate::provider::Protocol::Anthropic,
            &r,
            "claude-x",
            Default::default(),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(
        claude.contains(r#""input_schema":{"type": "object","#),
        "{claude}"
    );
}

#[test]
fn rejects_bad_requests_without_panicking() {
    assert!(matches!(
        decode_request(b"{not json"),
        Err(ParseError::MalformedJson(_))
    ));
    let user = json!([{"role": "user", "content": "x"}]);
    let cases = [
        (json!([1]), "JSON object"),
        (json!({"messages": user}), "model"),
        (json!({"model": "m"}), "messages"),
        (json!({"model": "m", "messages": []}), "messages"),
        (json!({"model": "m", "messages": [1]}), "messages[0].role"),
        (
            json!({"model": "m", "messages": [{"role": "robot", "content": "x"}]}),
            "robot",
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": 7}]}),
            "messages[0].content",
        ),
        (
            json!({"model": "m", "messages": [{"role": "tool", "content": "x"}]}),
            "tool_call_id",
        ),
        (
            json!({"model": "m", "messages": [{"role": "assistant", "tool_calls": {}}]}),
            "tool_calls",
        ),
        (
            json!({"model": "m", "messages": [{"role": "assistant", "tool_calls": [{"function": {}}]}]}),
            "tool_calls[0].function.name",
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]}),
            "url",
        ),
        (
            json!({"model": "m", "messages": user, "tools": "x"}),
            "tools",
        ),
        (
            json!({"model": "m", "messages": user, "tools": [{"type": "function"}]}),
            "tools[0]",
        ),
    ];
    for (body, needle) in cases {
        match decode(body.clone()) {
            Err(ParseError::MissingModel) => assert_eq!(needle, "model"),
            Err(ParseError::Invalid(msg)) => assert!(msg.contains(needle), "{msg} for {body}"),
            other => panic!("{body}: {other:?}"),
        }
    }
}

#[test]
fn reads_include_usage() {
    assert!(client_wants_usage(
        br#"{"stream":true,"stream_options":{"include_usage":true}}"#
    ));
    assert!(!client_wants_usage(br#"{"stream":true}"#));
    assert!(!client_wants_usage(br#"{"stream_options":null}"#));
    assert!(!client_wants_usage(b"nope"));
}

#[test]
fn encodes_an_answer() {
    let r = Response {
        id: "msg_01".into(),
        model: "claude-x".into(),
        content: vec![
            Part::Thinking {
                text: "Think.".into(),
                signature: Some("sig".into()),
            },
            text("Let me "),
            text("check."),
            Part::RedactedThinking("xx".into()),
            Part::ToolCall {
                id: "toolu_1".into(),
                name: "weather".into(),
                arguments: r#"{"city":"Paris"}"#.into(),
            },
        ],
        stop: StopReason::ToolUse,
        usage: Some(Usage {
            input_tokens: 100,
            output_tokens: 30,
            cache_read_tokens: 60,
            cache_creation_tokens: 10,
            reasoning_tokens: 12,
        }),
    };
    assert_eq!(
        encode_response(&r, 1_700_000_000),
        json!({
            "id": "chatcmpl-msg_01",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "claude-x",
            "choices": [{
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Let me check.",
                    "reasoning_content": "Think.",
                    "tool_calls": [{"id": "toolu_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}}]
                },
                "finish_reason": "tool_calls"
            }],
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 30,
                "total_tokens": 130,
                "prompt_tokens_details": {"cached_tokens": 60},
                "completion_tokens_details": {"reasoning_tokens": 12}
            }
        })
    ); // The relay's bytes are the same object.
    let bytes = crate::openai_chat::encode_response_bytes(&r, 1_700_000_000);
    let written: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(written, encode_response(&r, 1_700_000_000));
}

#[test]
fn encodes_finish_reasons_and_empty_answers() {
    let base = Response {
        id: "chatcmpl-x".into(),
        ..Response::default()
    };
    let v = encode_response(&base, 5);
    assert_eq!(v["id"], "chatcmpl-x");
    assert_eq!(
        v["choices"][0]["message"],
        json!({"role": "assistant", "content": null})
    );
    assert!(v.get("usage").is_none());
    for (stop, want) in [
        (StopReason::EndTurn, "stop"),
        (StopReason::StopSequence, "stop"),
        (StopReason::MaxTokens, "length"),
        (StopReason::ToolUse, "tool_calls"),
        (StopReason::ContentFilter, "content_filter"),
    ] {
        let r = Response {
            stop,
            ..Response::default()
        };
        let v = encode_response(&r, 5);
        assert_eq!(v["choices"][0]["finish_reason"], want);
        assert_eq!(v["id"], "chatcmpl-5");
    }
    // A plain end of turn after tool calls still tells the client to run them.
    let r = Response {
        content: vec![Part::ToolCall {
            id: String::new(),
            name: "f".into(),
            arguments: "{}".into(),
        }],
        ..Response::default()
    };
    let v = encode_response(&r, 5);
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(v["choices"][0]["message"]["tool_calls"][0]["id"], "call_0");
}

/// The JSON payloads of `data:` frames (`[DONE]` as a string), checking the framing.
fn frames(bytes: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(bytes).unwrap();
    assert!(text.ends_with("\n\n"), "{text:?}");
    text.split_terminator("\n\n")
        .map(|f| {
            let data = f.strip_prefix("data: ").unwrap();
            assert!(!data.contains('\n'));
            serde_json::from_str(data).unwrap_or_else(|_| Value::String(data.to_owned()))
        })
        .collect()
}

fn run(enc: &mut StreamEncoder, events: &[StreamEvent]) -> Vec<u8> {
    let mut out = Vec::new();
    for ev in events {
        enc.encode(ev, &mut out);
    }
    enc.finish(&mut out);
    out
}

#[test]
fn streams_text_exactly() {
    let mut enc = StreamEncoder::new(false, 7);
    let out = run(
        &mut enc,
        &[
            StreamEvent::Start {
                id: "abc".into(),
                model: "m".into(),
            },
            StreamEvent::TextDelta("Hi".into()),
            StreamEvent::Finish(StopReason::EndTurn),
            StreamEvent::Usage(Usage::default()),
        ],
    );
    let head = r#"data: {"id":"chatcmpl-abc","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":"#;
    let want = format!(
        "{head}{{\"role\":\"assistant\",\"content\":\"\"}},\"finish_reason\":null}}]}}\n\n\
         {head}{{\"content\":\"Hi\"}},\"finish_reason\":null}}]}}\n\n\
         {head}{{}},\"finish_reason\":\"stop\"}}]}}\n\n\
         data: [DONE]\n\n"
    );
    assert_eq!(String::from_utf8(out).unwrap(), want);
}

#[test]
fn streams_thinking_tools_and_usage() {
    let usage = Usage {
        input_tokens: 10,
        output_tokens: 5,
        cache_read_tokens: 2,
        cache_creation_tokens: 0,
        reasoning_tokens: 1,
    };
    let mut enc = StreamEncoder::new(true, 9);
    let out = run(
        &mut enc,
        &[
            StreamEvent::Start {
                id: "chatcmpl-1".into(),
                model: "m".into(),
            },
            StreamEvent::ThinkingDelta("hmm".into()),
            StreamEvent::ThinkingSignature("sig".into()),
            StreamEvent::TextDelta(String::new()),
            StreamEvent::ToolCallStart {
                index: 0,
                id: "call_1".into(),
                name: "f".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: "{\"a\":".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: "1}".into(),
            },
            StreamEvent::Usage(Usage::default()),
            StreamEvent::Finish(StopReason::EndTurn),
            StreamEvent::Finish(StopReason::EndTurn),
            StreamEvent::Usage(usage),
        ],
    );
    let f = frames(&out);
    let deltas: Vec<&Value> = f.iter().map(|c| &c["choices"][0]["delta"]).collect();
    assert_eq!(f.len(), 8, "{f:#?}");
    assert!(f[..7].iter().all(|c| c["id"] == "chatcmpl-1"
        && c["object"] == "chat.completion.chunk"
        && c["created"] == 9
        && c["model"] == "m"));
    assert_eq!(*deltas[0], json!({"role": "assistant", "content": ""}));
    assert_eq!(*deltas[1], json!({"reasoning_content": "hmm"}));
    assert_eq!(
        *deltas[2],
        json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}]})
    );
    assert_eq!(
        *deltas[3],
        json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\":"}}]})
    );
    assert_eq!(
        *deltas[4],
        json!({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]})
    );
    assert_eq!(f[5]["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(f[6]["choices"], json!([]));
    assert_eq!(
        f[6]["usage"],
        json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
               "prompt_tokens_details": {"cached_tokens": 2},
               "completion_tokens_details": {"reasoning_tokens": 1}})
    );
    assert_eq!(f[7], json!("[DONE]"));
}

#[test]
fn stream_without_start_or_finish_still_closes() {
    let mut enc = StreamEncoder::new(true, 3);
    let out = run(&mut enc, &[StreamEvent::TextDelta("partial".into())]);
    let f = frames(&out);
    assert_eq!(f.len(), 3);
    assert_eq!(f[0]["id"], "chatcmpl-3");
    assert_eq!(f[0]["choices"][0]["delta"]["role"], "assistant");
    assert_eq!(f[1]["choices"][0]["delta"]["content"], "partial");
    assert_eq!(f[2], json!("[DONE]"));
    // finish is idempotent and later events are ignored.
    let mut more = Vec::new();
    enc.encode(&StreamEvent::TextDelta("late".into()), &mut more);
    enc.finish(&mut more);
    assert!(more.is_empty());

    let mut empty = StreamEncoder::new(false, 3);
    assert_eq!(run(&mut empty, &[]), b"data: [DONE]\n\n");

    let mut usage_only = StreamEncoder::new(true, 3);
    let f = frames(&run(
        &mut usage_only,
        &[StreamEvent::Usage(Usage {
            input_tokens: 4,
            ..Usage::default()
        })],
    ));
    assert_eq!(f.len(), 3);
    assert_eq!(f[1]["usage"]["prompt_tokens"], 4);
}

#[test]
fn stream_escapes_strings() {
    let mut enc = StreamEncoder::new(false, 1);
    let out = run(
        &mut enc,
        &[
            StreamEvent::Start {
                id: "a\"b".into(),
                model: "m\n".into(),
            },
            StreamEvent::TextDelta("line\n\"q\"\u{2028}".into()),
        ],
    );
    let f = frames(&out);
    assert_eq!(f[0]["id"], "chatcmpl-a\"b");
    assert_eq!(f[0]["model"], "m\n");
    assert_eq!(
        f[1]["choices"][0]["delta"]["content"],
        "line\n\"q\"\u{2028}"
    );
}

#[test]
fn error_bodies() {
    assert_eq!(
        error_body(400, "bad"),
        json!({"error": {"message": "bad", "type": "invalid_request_error", "param": null, "code": null}})
    );
    assert_eq!(
        error_body(429, "x")["error"]["type"],
        "invalid_request_error"
    );
    assert_eq!(error_body(502, "x")["error"]["type"], "upstream_error");
    assert_eq!(error_body(500, "x")["error"]["type"], "api_error");
}

#[test]
fn a_drawn_image_becomes_a_markdown_image_in_the_text() {
    let r = Response {
        id: "resp".into(),
        model: "gemini-img".into(),
        content: vec![
            text("Here it is:"),
            Part::Image(crate::ir::ImageSource::Base64 {
                media_type: "image/png".into(),
                data: "iVBORw0KGgo=".into(),
            }),
        ],
        stop: StopReason::EndTurn,
        usage: None,
    };
    assert_eq!(
        encode_response(&r, 1)["choices"][0]["message"]["content"],
        "Here it is:\n\n![image](data:image/png;base64,iVBORw0KGgo=)"
    );
}

/// The usage object written from a struct is, byte for byte, the value tree it replaced.
#[test]
fn usage_is_written_as_the_value_tree_wrote_it() {
    for (input, output, cached, reasoning) in [
        (0, 0, 0, 0),
        (12, 5, 3, 2),
        (-1, 7, 0, 9),
        (i64::MAX, 1, i64::MIN, i64::MAX),
    ] {
        let u = crate::ir::Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_tokens: cached,
            cache_creation_tokens: 4,
            reasoning_tokens: reasoning,
        };
        let tree = serde_json::json!({
            "prompt_tokens": input,
            "completion_tokens": output,
            "total_tokens": input.saturating_add(output),
            "prompt_tokens_details": {"cached_tokens": cached},
            "completion_tokens_details": {"reasoning_tokens": reasoning},
        });
        let written = serde_json::to_string(&crate::openai_chat::wire::usage_json(&u)).unwrap();
        assert_eq!(written, tree.to_string());
    }
}

#[test]
fn text_chunks_are_written_as_serde_json_writes_their_delta() {
    let texts = [
        "plain",
        "quote \" back \\ slash",
        "line\nfeed\r\ttab",
        "\u{1}\u{1f}ctl",
        "é 中文 🙂",
    ];
    for (event, key) in [
        (
            StreamEvent::TextDelta as fn(String) -> StreamEvent,
            "content",
        ),
        (StreamEvent::ThinkingDelta, "reasoning_content"),
    ] {
        for t in texts {
            let mut enc = StreamEncoder::new(false, 1);
            let mut out = Vec::new();
            enc.encode(&event(t.to_owned()), &mut out);
            let text = String::from_utf8(out).unwrap();
            let delta = serde_json::json!({ key: t }).to_string();
            let want = format!(r#""delta":{delta},"finish_reason":null}}]}}"#);
            assert!(text.trim_end().ends_with(&want), "{text}");
        }
    }
}
