//! Client side: requests decoded, answers and errors encoded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::super::*;
use crate::ParseError;
use crate::ir::*;

fn decode(body: Value) -> Result<Request, ParseError> {
    decode_request("gemini-2.5-flash", false, body.to_string().as_bytes())
}

fn text(t: &str) -> Part {
    Part::Text(t.into())
}

#[test]
fn full_request_decodes() {
    let body = json!({
        "systemInstruction": {"parts": [{"text": "Be brief."}, {"text": "Use tools."}]},
        "contents": [
            {"role": "user", "parts": [
                {"text": "What is in this picture, and the weather in Paris?"},
                {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
                {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://example.com/a.jpg"}}
            ]},
            {"role": "model", "parts": [
                {"text": "Looking at the image…", "thought": true},
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                 "thoughtSignature": "c2lnMQ=="}
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather",
                                      "response": {"content": "18°C, cloudy"}}}
            ]}
        ],
        "generationConfig": {
            "maxOutputTokens": 1024, "temperature": 0.5, "topP": 0.9, "topK": 40,
            "stopSequences": ["END"], "candidateCount": 1,
            "thinkingConfig": {"thinkingBudget": 2048, "includeThoughts": true}
        },
        "tools": [
            {"functionDeclarations": [{
                "name": "get_weather",
                "description": "Current weather",
                "parameters": {"type": "OBJECT", "properties": {
                    "city": {"type": "STRING", "description": "City name"},
                    "days": {"type": "INTEGER", "nullable": true, "minimum": 1}
                }, "required": ["city"], "propertyOrdering": ["city", "days"]}
            }]},
            {"googleSearch": {}}
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY",
                                                 "allowedFunctionNames": ["get_weather"]}},
        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
    });
    let want = Request {
        model: "gemini-2.5-flash".into(),
        system: vec!["Be brief.".into(), "Use tools.".into()],
        messages: vec![
            Message {
                role: Role::User,
                content: vec![
                    text("What is in this picture, and the weather in Paris?"),
                    Part::Image(ImageSource::Base64 {
                        media_type: "image/png".into(),
                        data: "iVBORw0KGgo=".into(),
                    }),
                    Part::Image(ImageSource::Url("https://example.com/a.jpg".into())),
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    Part::Thinking {
                        text: "Looking at the image…".into(),
                        signature: None,
                    },
                    Part::Thinking {
                        text: String::new(),
                        signature: Some("c2lnMQ==".into()),
                    },
                    Part::ToolCall {
                        id: "call_0".into(),
                        name: "get_weather".into(),
                        arguments: r#"{"city":"Paris"}"#.into(),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![Part::ToolResult {
                    call_id: "call_0".into(),
                    name: Some("get_weather".into()),
                    content: vec![text("18°C, cloudy")],
                    is_error: false,
                }],
            },
        ],
        tools: vec![Tool {
            name: "get_weather".into(),
            description: Some("Current weather".into()),
            parameters: json!({"type": "object", "properties": {
                "city": {"type": "string", "description": "City name"},
                "days": {"type": ["integer", "null"], "minimum": 1}
            }, "required": ["city"]})
            .into(),
        }],
        tool_choice: Some(ToolChoice::Tool("get_weather".into())),
        max_tokens: Some(1024),
        temperature: Some(0.5),
        top_p: Some(0.9),
        top_k: Some(40),
        stop: vec!["END".into()],
        stream: false,
        reasoning: Some(Reasoning {
            effort: None,
            budget_tokens: Some(2048),
            include_thoughts: true,
        }),
        user: None,
        json_output: None,
    };
    assert_eq!(decode(body).unwrap(), want);
}

#[test]
fn snake_case_fields_are_accepted() {
    let body = json!({
        "system_instruction": {"parts": [{"text": "sys"}]},
        "contents": [{"role": "user", "parts": [
            {"text": "hi"},
            {"inline_data": {"mime_type": "image/webp", "data": "AAAA"}}
        ]}],
        "generation_config": {
            "max_output_tokens": "256", "top_p": 0.5, "top_k": 3, "stop_sequences": ["x"],
            "response_mime_type": "application/json",
            "thinking_config": {"thinking_level": "LOW", "include_thoughts": false}
        },
        "tools": [{"function_declarations": [{"name": "f",
            "parameters_json_schema": {"type": "object", "additionalProperties": false}}]}],
        "tool_config": {"function_calling_config": {"mode": "none"}}
    });
    let r = decode_request("m", true, body.to_string().as_bytes()).unwrap();
    assert!(r.stream);
    assert_eq!(r.system, vec!["sys".to_owned()]);
    assert_eq!(
        r.messages[0].content[1],
        Part::Image(ImageSource::Base64 {
            media_type: "image/webp".into(),
            data: "AAAA".into()
        })
    );
    assert_eq!(r.max_tokens, Some(256));
    assert_eq!(r.top_p, Some(0.5));
    assert_eq!(r.top_k, Some(3));
    assert_eq!(r.stop, vec!["x".to_owned()]);
    assert_eq!(r.json_output, Some(Value::Null));
    assert_eq!(
        r.reasoning,
        Some(Reasoning {
            effort: Some("low".into()),
            budget_tokens: None,
            include_thoughts: false
        })
    );
    assert_eq!(
        r.tools[0].parameters,
        json!({"type": "object", "additionalProperties": false}).into()
    );
    assert_eq!(r.tool_choice, Some(ToolChoice::None));
}

#[test]
fn call_ids_pair_by_name_in_order_or_by_given_id() {
    let body = json!({"contents": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [
            {"functionCall": {"name": "a", "args": {"n": 1}}},
            {"functionCall": {"name": "b"}},
            {"functionCall": {"name": "a", "args": {"n": 2}}},
            {"functionCall": {"name": "c", "args": {}, "id": "given-1"}}
        ]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "a", "response": {"result": "one"}}},
            {"functionResponse": {"name": "c", "id": "given-1", "response": {"x": 1}}},
            {"functionResponse": {"name": "a", "response": {"error": "boom"}}},
            {"functionResponse": {"name": "b", "response": {"output": "bee"}}},
            {"functionResponse": {"name": "zzz", "response": {}}}
        ]}
    ]});
    let r = decode(body).unwrap();
    let calls: Vec<(&str, &str)> = r.messages[1]
        .content
        .iter()
        .map(|p| match p {
            Part::ToolCall { id, name, .. } => (id.as_str(), name.as_str()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("call_0", "a"),
            ("call_1", "b"),
            ("call_2", "a"),
            ("given-1", "c")
        ]
    );
    let results: Vec<(&str, &Vec<Part>, bool)> = r.messages[2]
        .content
        .iter()
        .map(|p| match p {
            Part::ToolResult {
                call_id,
                content,
                is_error,
                ..
            } => (call_id.as_str(), content, *is_error),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        results,
        [
            ("call_0", &vec![text("one")], false),
            ("given-1", &vec![text(r#"{"x":1}"#)], false),
            ("call_2", &vec![text("boom")], true),
            ("call_1", &vec![text("bee")], false),
            ("call_3", &vec![text("{}")], false),
        ]
    );
}

#[test]
fn structured_output_and_thinking_variants() {
    let r = decode(json!({
        "contents": [{"parts": [{"text": "x"}]}],
        "generationConfig": {"responseMimeType": "application/json",
            "responseSchema": {"type": "ARRAY", "items": {"type": "STRING", "format": "enum",
                               "enum": ["a", "b"]}, "maxItems": "3"},
            "thinkingConfig": {"thinkingBudget": -1}}
    }))
    .unwrap();
    assert_eq!(
        r.json_output,
        Some(
            json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]},
                    "maxItems": 3})
        )
    );
    assert_eq!(r.reasoning, Some(Reasoning::default()));
    let r = decode(json!({
        "contents": [{"parts": [{"text": "x"}]}],
        "generationConfig": {"responseJsonSchema": {"type": "object", "$defs": {}},
                             "thinkingConfig": {"thinkingBudget": 0}}
    }))
    .unwrap();
    assert_eq!(r.json_output, Some(json!({"type": "object", "$defs": {}})));
    assert_eq!(r.reasoning.unwrap().budget_tokens, Some(0));
    assert_eq!(r.messages[0].role, Role::User);
}

#[test]
fn tool_choice_modes() {
    let choice = |cfg: Value| {
        decode(json!({"contents": [{"parts": [{"text": "x"}]}],
                      "toolConfig": {"functionCallingConfig": cfg}}))
        .map(|r| r.tool_choice)
    };
    assert_eq!(choice(json!({"mode": "AUTO"})), Ok(Some(ToolChoice::Auto)));
    assert_eq!(
        choice(json!({"mode": "ANY"})),
        Ok(Some(ToolChoice::Required))
    );
    assert_eq!(
        choice(json!({"mode": "ANY", "allowedFunctionNames": ["a", "b"]})),
        Ok(Some(ToolChoice::Required))
    );
    assert_eq!(choice(json!({"mode": "NONE"})), Ok(Some(ToolChoice::None)));
    assert!(matches!(
        choice(json!({"mode": "SOMETIMES"})),
        Err(ParseError::Invalid(_))
    ));
}

#[test]
fn bad_requests_are_errors() {
    let invalid = |body: &str| {
        let r = decode_request("m", false, body.as_bytes());
        assert!(matches!(r, Err(ParseError::Invalid(_))), "{body}: {r:?}");
    };
    invalid("{}");
    invalid(r#"{"contents": []}"#);
    invalid(r#"{"contents": {"parts": []}}"#);
    invalid("[1]");
    invalid(r#"{"contents": [1]}"#);
    invalid(r#"{"contents": [{"role": "user"}, {"role": "model", "parts": []}]}"#);
    invalid(r#"{"contents": [{"role": "assistant", "parts": [{"text": "x"}]}]}"#);
    invalid(r#"{"contents": [{"parts": "hi"}]}"#);
    invalid(r#"{"contents": [{"parts": ["hi"]}]}"#);
    invalid(r#"{"contents": [{"parts": [{"text": 5}]}]}"#);
    invalid(r#"{"contents": [{"parts": [{"functionCall": {"args": {}}}]}]}"#);
    invalid(r#"{"contents": [{"parts": [{"functionCall": {"name": "f", "args": [1]}}]}]}"#);
    invalid(r#"{"contents": [{"parts": [{"inlineData": {"data": "x"}}]}]}"#);
    invalid(
        r#"{"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"maxOutputTokens": "many"}}"#,
    );
    invalid(
        r#"{"contents": [{"parts": [{"text": "x"}]}], "tools": [{"functionDeclarations": [{}]}]}"#,
    );
    assert!(matches!(
        decode_request("m", false, b"{\"contents\": ["),
        Err(ParseError::MalformedJson(_))
    ));
}

#[test]
fn response_encodes() {
    let r = Response {
        id: "resp-1".into(),
        model: "gemini-2.5-pro".into(),
        content: vec![
            Part::Thinking {
                text: "Let me think".into(),
                signature: Some("sig-a".into()),
            },
            text("Calling the tool."),
            Part::RedactedThinking("opaque".into()),
            Part::Thinking {
                text: String::new(),
                signature: Some("sig-b".into()),
            },
            Part::ToolCall {
                id: "toolu_1".into(),
                name: "get_weather".into(),
                arguments: r#"{"city":"Paris"}"#.into(),
            },
            Part::ToolCall {
                id: "toolu_2".into(),
                name: "noop".into(),
                arguments: "not json".into(),
            },
        ],
        stop: StopReason::ToolUse,
        usage: Some(Usage {
            input_tokens: 100,
            output_tokens: 50,
            cache_read_tokens: 20,
            cache_creation_tokens: 0,
            reasoning_tokens: 30,
        }),
    };
    assert_eq!(
        encode_response(&r),
        json!({
            "candidates": [{
                "content": {"role": "model", "parts": [
                    {"text": "Let me think", "thought": true, "thoughtSignature": "sig-a"},
                    {"text": "Calling the tool."},
                    {"functionCall": {"name": "get_weather", "args": {"city": "Paris"},
                                      "id": "toolu_1"}, "thoughtSignature": "sig-b"},
                    {"functionCall": {"name": "noop", "args": {}, "id": "toolu_2"}}
                ]},
                "finishReason": "STOP",
                "index": 0
            }],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20,
                              "totalTokenCount": 150, "thoughtsTokenCount": 30,
                              "cachedContentTokenCount": 20},
            "modelVersion": "gemini-2.5-pro",
            "responseId": "resp-1"
        })
    );
}

#[test]
fn huge_usage_saturates() {
    // Found by fuzz/request_parsing: an upstream's counts near i64::MAX (or a negative
    // reasoning count) overflowed the total and the candidates count.
    let r = Response {
        content: vec![text("x")],
        usage: Some(Usage {
            input_tokens: i64::MAX,
            output_tokens: i64::MAX,
            reasoning_tokens: i64::MIN,
            ..Usage::default()
        }),
        ..Response::default()
    };
    let m = &encode_response(&r)["usageMetadata"];
    assert_eq!(m["totalTokenCount"], i64::MAX);
    assert_eq!(m["candidatesTokenCount"], i64::MAX);
}

#[test]
fn response_finish_reasons_and_no_usage() {
    let enc = |stop| {
        let r = Response {
            stop,
            content: vec![text("x")],
            ..Response::default()
        };
        encode_response(&r)
    };
    assert_eq!(
        enc(StopReason::MaxTokens)["candidates"][0]["finishReason"],
        "MAX_TOKENS"
    );
    assert_eq!(
        enc(StopReason::ContentFilter)["candidates"][0]["finishReason"],
        "SAFETY"
    );
    assert_eq!(
        enc(StopReason::StopSequence)["candidates"][0]["finishReason"],
        "STOP"
    );
    assert!(enc(StopReason::EndTurn).get("usageMetadata").is_none());
    // A trailing signature with nothing after it rides on an empty text part.
    let r = Response {
        content: vec![Part::Thinking {
            text: String::new(),
            signature: Some("s".into()),
        }],
        ..Response::default()
    };
    assert_eq!(
        encode_response(&r)["candidates"][0]["content"]["parts"],
        json!([{"text": "", "thoughtSignature": "s"}])
    );
}

#[test]
fn answer_round_trips_through_a_client_request() {
    // What a client stores from our answer and sends back decodes to the same parts.
    let content = vec![
        Part::Thinking {
            text: "hmm".into(),
            signature: Some("s1".into()),
        },
        Part::Thinking {
            text: String::new(),
            signature: Some("s2".into()),
        },
        Part::ToolCall {
            id: "call_x".into(),
            name: "f".into(),
            arguments: r#"{"a":1}"#.into(),
        },
    ];
    let answer = encode_response(&Response {
        content: content.clone(),
        ..Response::default()
    });
    let model_turn = answer["candidates"][0]["content"].clone();
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "q"}]}, model_turn]});
    let r = decode(body).unwrap();
    assert_eq!(r.messages[1].content, content);
}

#[test]
fn errors_use_google_status_names() {
    let cases = [
        (400, "INVALID_ARGUMENT"),
        (401, "UNAUTHENTICATED"),
        (402, "FAILED_PRECONDITION"),
        (403, "PERMISSION_DENIED"),
        (404, "NOT_FOUND"),
        (429, "RESOURCE_EXHAUSTED"),
        (500, "INTERNAL"),
        (502, "UNAVAILABLE"),
        (503, "UNAVAILABLE"),
        (504, "DEADLINE_EXCEEDED"),
    ];
    for (code, status) in cases {
        assert_eq!(
            error_body(code, "nope"),
            json!({"error": {"code": code, "message": "nope", "status": status}})
        );
    }
}

#[test]
fn model_list_shape() {
    let v = model_list(&[
        "gemini-2.5-flash".into(),
        "models/text-embedding-004".into(),
    ]);
    assert_eq!(
        v,
        json!({"models": [
            {"name": "models/gemini-2.5-flash", "displayName": "gemini-2.5-flash",
             "supportedGenerationMethods": ["generateContent", "streamGenerateContent"]},
            {"name": "models/text-embedding-004", "displayName": "text-embedding-004",
             "supportedGenerationMethods": ["embedContent", "batchEmbedContents"]}
        ]})
    );
}
