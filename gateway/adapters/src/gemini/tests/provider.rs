//! Provider side: IR requests encoded for Gemini, Gemini answers decoded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::super::*;
use crate::ParseError;
use crate::ir::*;

/// The encoded body as JSON, to compare (shadows the glob import).
fn encode_request(req: &Request, model: &str) -> Value {
    serde_json::to_value(super::super::encode_request(req, model)).unwrap()
}

fn encode_request_with(req: &Request, model: &str, opts: EncodeOptions<'_>) -> Value {
    serde_json::to_value(super::super::encode_request_with(req, model, opts)).unwrap()
}

fn text(t: &str) -> Part {
    Part::Text(t.into())
}

fn msg(role: Role, content: Vec<Part>) -> Message {
    Message { role, content }
}

fn sample_request() -> Request {
    Request {
        model: "gpt-4o".into(),
        system: vec!["You are terse.".into()],
        messages: vec![
            msg(
                Role::User,
                vec![
                    text("Weather in Paris and Rome?"),
                    Part::Image(ImageSource::Url("data:image/png;base64,iVBORw==".into())),
                    Part::Image(ImageSource::Url("https://x.test/cat.PNG?s=1".into())),
                    Part::Image(ImageSource::Base64 {
                        media_type: "image/gif".into(),
                        data: "R0lG".into(),
                    }),
                ],
            ),
            msg(
                Role::Assistant,
                vec![
                    Part::Thinking {
                        text: "Two cities.".into(),
                        signature: None,
                    },
                    Part::Thinking {
                        text: String::new(),
                        signature: Some("gsig".into()),
                    },
                    text(""),
                    Part::ToolCall {
                        id: "call_1".into(),
                        name: "weather".into(),
                        arguments: r#"{"city":"Paris"}"#.into(),
                    },
                    Part::ToolCall {
                        id: "call_2".into(),
                        name: "weather".into(),
                        arguments: r#"{"city":"Rome"}"#.into(),
                    },
                ],
            ),
            // Parallel results as separate messages (OpenAI style) merge into one turn.
            msg(
                Role::User,
                vec![Part::ToolResult {
                    call_id: "call_1".into(),
                    name: None,
                    content: vec![text("18C")],
                    is_error: false,
                }],
            ),
            msg(
                Role::User,
                vec![Part::ToolResult {
                    call_id: "call_2".into(),
                    name: Some("weather".into()),
                    content: vec![
                        text(r#"{"temp": 25}"#),
                        Part::Image(ImageSource::Base64 {
                            media_type: "image/png".into(),
                            data: "AAA".into(),
                        }),
                    ],
                    is_error: false,
                }],
            ),
            msg(Role::Assistant, vec![]),
            msg(
                Role::User,
                vec![Part::ToolResult {
                    call_id: "call_9".into(),
                    name: None,
                    content: vec![text("no such city")],
                    is_error: true,
                }],
            ),
        ],
        tools: vec![
            Tool {
                name: "weather".into(),
                description: Some("Weather by city".into()),
                parameters: json!({
                    "$schema": "http://json-schema.org/draft-07/schema#",
                    "type": "object",
                    "properties": {"city": {"type": "string", "format": "uri"}},
                    "required": ["city", "ghost"],
                    "additionalProperties": false
                })
                .into(),
            },
            Tool {
                name: "now".into(),
                description: None,
                parameters: json!({"type": "object", "properties": {}}).into(),
            },
        ],
        tool_choice: Some(ToolChoice::Tool("weather".into())),
        max_tokens: Some(500),
        temperature: Some(0.2),
        top_p: Some(0.8),
        top_k: Some(20),
        stop: (1..=6).map(|i| format!("s{i}")).collect(),
        stream: true,
        reasoning: Some(Reasoning {
            effort: Some("medium".into()),
            budget_tokens: None,
            include_thoughts: true,
        }),
        user: Some("u-1".into()),
        json_output: None,
    }
}

#[test]
fn full_request_encodes() {
    let opts = EncodeOptions {
        safety_threshold: Some("BLOCK_NONE"),
    };
    let body = encode_request_with(&sample_request(), "gemini-2.5-flash", opts);
    let safety: Vec<Value> = [
        "HARM_CATEGORY_HARASSMENT",
        "HARM_CATEGORY_HATE_SPEECH",
        "HARM_CATEGORY_SEXUALLY_EXPLICIT",
        "HARM_CATEGORY_DANGEROUS_CONTENT",
        "HARM_CATEGORY_CIVIC_INTEGRITY",
    ]
    .iter()
    .map(|c| json!({"category": c, "threshold": "BLOCK_NONE"}))
    .collect();
    assert_eq!(
        body,
        json!({
            "systemInstruction": {"parts": [{"text": "You are terse."}]},
            "contents": [
                {"role": "user", "parts": [
                    {"text": "Weather in Paris and Rome?"},
                    {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}},
                    {"fileData": {"mimeType": "image/png",
                                  "fileUri": "https://x.test/cat.PNG?s=1"}},
                    {"inlineData": {"mimeType": "image/gif", "data": "R0lG"}}
                ]},
                {"role": "model", "parts": [
                    {"text": "Two cities.", "thought": true},
                    {"functionCall": {"name": "weather", "args": {"city": "Paris"}},
                     "thoughtSignature": "gsig"},
                    {"functionCall": {"name": "weather", "args": {"city": "Rome"}}}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "weather", "response": {"content": "18C"}}},
                    {"functionResponse": {"name": "weather", "response": {"temp": 25}}},
                    {"inlineData": {"mimeType": "image/png", "data": "AAA"}},
                    {"functionResponse": {"name": "call_9",
                                          "response": {"error": "no such city"}}}
                ]}
            ],
            "tools": [{"functionDeclarations": [
                {"name": "weather", "description": "Weather by city",
                 "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                "required": ["city"]}},
                {"name": "now"}
            ]}],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY",
                                                     "allowedFunctionNames": ["weather"]}},
            "generationConfig": {
                "maxOutputTokens": 500, "temperature": 0.2, "topP": 0.8, "topK": 20,
                "stopSequences": ["s1", "s2", "s3", "s4", "s5"],
                "thinkingConfig": {"thinkingBudget": 8192, "includeThoughts": true}
            },
            "safetySettings": safety
        })
    );
    // Default options send no safety settings.
    assert!(
        encode_request(&sample_request(), "gemini-2.5-flash")
            .get("safetySettings")
            .is_none()
    );
}

#[test]
fn gemini_3_gets_a_placeholder_signature_on_unsigned_calls() {
    let req = Request {
        messages: vec![
            msg(Role::User, vec![text("go")]),
            msg(
                Role::Assistant,
                vec![
                    Part::ToolCall {
                        id: "toolu_1".into(),
                        name: "a".into(),
                        arguments: "{}".into(),
                    },
                    Part::ToolCall {
                        id: "toolu_2".into(),
                        name: "b".into(),
                        arguments: "{}".into(),
                    },
                ],
            ),
        ],
        ..Request::default()
    };
    let parts = |model: &str| encode_request(&req, model)["contents"][1]["parts"].clone();
    assert_eq!(
        parts("gemini-3-pro-preview"),
        json!([
            {"functionCall": {"name": "a", "args": {}},
             "thoughtSignature": "skip_thought_signature_validator"},
            {"functionCall": {"name": "b", "args": {}}}
        ])
    );
    assert_eq!(
        parts("models/gemini-3.1-flash")[0]["thoughtSignature"],
        "skip_thought_signature_validator"
    );
    assert!(parts("gemini-2.5-pro")[0].get("thoughtSignature").is_none());
    assert!(parts("gemma-3-27b-it")[0].get("thoughtSignature").is_none());
}

#[test]
fn reasoning_structured_output_and_tool_choices() {
    let base = Request {
        messages: vec![msg(Role::User, vec![text("x")])],
        tools: vec![Tool {
            name: "f".into(),
            description: None,
            parameters: json!({"type": "object", "properties": {"a": {"type": "integer"}}}).into(),
        }],
        ..Request::default()
    };
    let thinking = |r: Reasoning| {
        let req = Request {
            reasoning: Some(r),
            ..base.clone()
        };
        encode_request(&req, "gemini-2.5-pro")["generationConfig"]["thinkingConfig"].clone()
    };
    let effort = |e: &str| Reasoning {
        effort: Some(e.into()),
        ..Reasoning::default()
    };
    assert_eq!(thinking(effort("low")), json!({"thinkingBudget": 1024}));
    assert_eq!(thinking(effort("minimal")), json!({"thinkingBudget": 512}));
    assert_eq!(thinking(effort("high")), json!({"thinkingBudget": 24576}));
    assert_eq!(
        thinking(Reasoning {
            effort: Some("low".into()),
            budget_tokens: Some(3000),
            include_thoughts: false
        }),
        json!({"thinkingBudget": 3000})
    );
    assert_eq!(thinking(Reasoning::default()), Value::Null);

    let json_mode = |j: Value| {
        let req = Request {
            json_output: Some(j),
            ..base.clone()
        };
        encode_request(&req, "m")["generationConfig"].clone()
    };
    assert_eq!(
        json_mode(Value::Null),
        json!({"responseMimeType": "application/json"})
    );
    assert_eq!(
        json_mode(
            json!({"type": "object", "properties": {"n": {"type": "number"}},
                         "additionalProperties": false, "required": ["n"]})
        ),
        json!({"responseMimeType": "application/json",
               "responseSchema": {"type": "object", "properties": {"n": {"type": "number"}},
                                  "required": ["n"]}})
    );

    let choice = |c: ToolChoice| {
        let req = Request {
            tool_choice: Some(c),
            ..base.clone()
        };
        encode_request(&req, "m")["toolConfig"].clone()
    };
    assert_eq!(
        choice(ToolChoice::Auto),
        json!({"functionCallingConfig": {"mode": "AUTO"}})
    );
    assert_eq!(
        choice(ToolChoice::None),
        json!({"functionCallingConfig": {"mode": "NONE"}})
    );
    assert_eq!(
        choice(ToolChoice::Required),
        json!({"functionCallingConfig": {"mode": "ANY"}})
    );
    let no_tools = Request {
        tools: vec![],
        tool_choice: Some(ToolChoice::Required),
        ..base.clone()
    };
    assert!(encode_request(&no_tools, "m").get("toolConfig").is_none());
}

#[test]
fn gemini_request_round_trips_through_the_ir() {
    // A Gemini client's body, decoded and re-encoded for a Gemini upstream, keeps its
    // turns, signatures and function pairing (minus the ids Google refuses).
    let body = json!({
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model", "parts": [
                {"text": "plan", "thought": true, "thoughtSignature": "t1"},
                {"functionCall": {"name": "f", "args": {"q": "x"}}, "thoughtSignature": "t2"},
                {"functionCall": {"name": "g", "args": {}}}
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "f", "response": {"content": "ok"}}},
                {"functionResponse": {"name": "g", "response": {"rows": [1, 2]}}}
            ]},
            {"role": "model", "parts": [{"text": "done", "thoughtSignature": "t3"}]}
        ],
        "generationConfig": {"maxOutputTokens": 100}
    });
    let ir = decode_request("gemini-3-flash", false, body.to_string().as_bytes()).unwrap();
    let out = encode_request(&ir, "gemini-3-flash");
    assert_eq!(out["contents"], body["contents"]);
    assert_eq!(out["generationConfig"], body["generationConfig"]);
}

#[test]
fn answer_decodes() {
    let v = json!({
        "candidates": [{
            "content": {"role": "model", "parts": [
                {"text": "**Checking**", "thought": true},
                {"text": "Let me look."},
                {"functionCall": {"name": "weather", "args": {"city": "Paris"}},
                 "thoughtSignature": "CiQB"},
                {"functionCall": {"name": "weather", "args": {"city": "Rome"}}}
            ]},
            "finishReason": "STOP",
            "index": 0,
            "safetyRatings": []
        }],
        "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 30,
                          "totalTokenCount": 195, "thoughtsTokenCount": 45,
                          "cachedContentTokenCount": 100,
                          "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 120}]},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "Ab+c/d"
    });
    assert_eq!(
        decode_response(&v).unwrap(),
        Response {
            id: "Ab+c/d".into(),
            model: "gemini-2.5-flash".into(),
            content: vec![
                Part::Thinking {
                    text: "**Checking**".into(),
                    signature: None
                },
                text("Let me look."),
                Part::Thinking {
                    text: String::new(),
                    signature: Some("CiQB".into())
                },
                Part::ToolCall {
                    id: "call_Abcd_0".into(),
                    name: "weather".into(),
                    arguments: r#"{"city":"Paris"}"#.into()
                },
                Part::ToolCall {
                    id: "call_Abcd_1".into(),
                    name: "weather".into(),
                    arguments: r#"{"city":"Rome"}"#.into()
                },
            ],
            stop: StopReason::ToolUse,
            usage: Some(Usage {
                input_tokens: 120,
                output_tokens: 75,
                cache_read_tokens: 100,
                cache_creation_tokens: 0,
                reasoning_tokens: 45
            }),
        }
    );
}

#[test]
fn answer_stop_reasons_and_blocks() {
    let stop = |reason: &str| {
        let v = json!({"candidates": [{"content": {"parts": [{"text": "x"}]},
                                        "finishReason": reason}]});
        decode_response(&v).unwrap().stop
    };
    assert_eq!(stop("STOP"), StopReason::EndTurn);
    assert_eq!(stop("MAX_TOKENS"), StopReason::MaxTokens);
    assert_eq!(stop("SAFETY"), StopReason::ContentFilter);
    assert_eq!(stop("RECITATION"), StopReason::ContentFilter);
    assert_eq!(stop("PROHIBITED_CONTENT"), StopReason::ContentFilter);
    assert_eq!(stop("MALFORMED_FUNCTION_CALL"), StopReason::EndTurn);
    assert_eq!(stop("OTHER"), StopReason::EndTurn);
    // Gemini 3 sends call ids; the answer still stops for tool use.
    let v = json!({"candidates": [{"content": {"parts": [
        {"functionCall": {"name": "f", "args": {}, "id": "abc"}}]}, "finishReason": "STOP"}]});
    let r = decode_response(&v).unwrap();
    assert_eq!(r.stop, StopReason::ToolUse);
    assert!(matches!(&r.content[0], Part::ToolCall { id, .. } if id == "abc"));

    let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"},
                         "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7}});
    let r = decode_response(&blocked).unwrap();
    assert_eq!(r.stop, StopReason::ContentFilter);
    assert!(r.content.is_empty());
    assert_eq!(r.usage.unwrap().input_tokens, 7);
    // A cut-off answer (no parts) is empty, not an error.
    let r = decode_response(&json!({"candidates": [{"content": {"role": "model"},
                                                     "finishReason": "MAX_TOKENS"}]}))
    .unwrap();
    assert_eq!(r.stop, StopReason::MaxTokens);
    assert!(r.usage.is_none());
}

#[test]
fn bad_answers_are_errors() {
    let err = json!({"error": {"code": 429, "message": "Resource has been exhausted",
                               "status": "RESOURCE_EXHAUSTED"}});
    assert_eq!(
        decode_response(&err),
        Err(ParseError::Invalid("Resource has been exhausted".into()))
    );
    for bad in [
        json!("text"),
        json!({"candidates": {"content": 1}}),
        json!({"candidates": [{"content": {"parts": [7]}}]}),
        json!({"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}),
    ] {
        assert!(
            matches!(decode_response(&bad), Err(ParseError::Invalid(_))),
            "{bad}"
        );
    }
}

#[test]
fn usage_counts_tool_use_prompt_as_input() {
    let v = json!({"candidates": [], "usageMetadata": {"promptTokenCount": "10",
                  "toolUsePromptTokenCount": 5, "candidatesTokenCount": 3}});
    let u = decode_response(&v).unwrap().usage.unwrap();
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.reasoning_tokens),
        (15, 3, 0)
    );
}

#[test]
fn huge_usage_counts_saturate() {
    // Found by fuzz/request_parsing: the sums overflowed (a panic in debug builds).
    let v = json!({"candidates": [], "usageMetadata": {"promptTokenCount": i64::MAX,
                  "toolUsePromptTokenCount": 5, "candidatesTokenCount": i64::MAX,
                  "thoughtsTokenCount": 7}});
    let u = decode_response(&v).unwrap().usage.unwrap();
    assert_eq!((u.input_tokens, u.output_tokens), (i64::MAX, i64::MAX));
}

#[test]
fn thinking_signature_moves_to_the_call_after_it() {
    // A Claude client replaying a Gemini 3 turn: the signature Gemini put on the call
    // travelled on the thinking block before it.
    let req = Request {
        messages: vec![
            msg(Role::User, vec![text("go")]),
            msg(
                Role::Assistant,
                vec![
                    Part::Thinking {
                        text: "I should call f.".into(),
                        signature: Some("gemini-sig".into()),
                    },
                    Part::ToolCall {
                        id: "toolu_1".into(),
                        name: "f".into(),
                        arguments: "{}".into(),
                    },
                ],
            ),
            msg(
                Role::Assistant,
                vec![Part::Thinking {
                    text: "alone".into(),
                    signature: Some("s2".into()),
                }],
            ),
        ],
        ..Request::default()
    };
    let body = encode_request(&req, "gemini-3-pro-preview");
    assert_eq!(
        body["contents"][1]["parts"],
        json!([
            {"text": "I should call f.", "thought": true},
            {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": "gemini-sig"},
            {"text": "alone", "thought": true, "thoughtSignature": "s2"}
        ])
    );
}
