//! Golden tests: requests decoded to the IR, answers and streams encoded from it, checked
//! the way the official SDK reads them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::{StreamEncoder, decode_request, encode_response, error_body};
use crate::ParseError;
use crate::ir::{
    ImageSource, Message, Part, Reasoning, Request, Response, Role, StopReason, StreamEvent, Tool,
    ToolChoice, Usage,
};

fn decode(v: Value) -> Result<Request, ParseError> {
    decode_request(v.to_string().as_bytes())
}

fn text(t: &str) -> Part {
    Part::Text(t.to_owned())
}

#[test]
fn string_input_is_one_user_message() {
    let r = decode(json!({"model": "gpt-5", "input": "Hi"})).unwrap();
    assert_eq!(
        r,
        Request {
            model: "gpt-5".into(),
            messages: vec![Message {
                role: Role::User,
                content: vec![text("Hi")],
            }],
            ..Request::default()
        }
    );
}

#[test]
fn codex_style_conversation_decodes() {
    let body = json!({
        "model": "gpt-5-codex",
        "instructions": "You are Codex.",
        "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Sandbox: on"}]},
            {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "Fix the bug"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0K", "detail": "auto"},
                {"type": "input_image", "image_url": "https://x.test/a.png"},
                {"type": "input_image", "file_id": "file_1"},
                {"type": "input_file", "file_id": "file_2"},
            ]},
            {"role": "user", "content": "More context"},
            {"type": "reasoning", "id": "rs_1", "summary": [
                {"type": "summary_text", "text": "Look at main."},
                {"type": "summary_text", "text": "Then test."},
            ], "encrypted_content": "sig=="},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Reading.", "annotations": []}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "shell", "arguments": "{\"cmd\":[\"ls\"]}"},
            {"type": "function_call", "call_id": "call_b", "name": "read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_a", "output": "main.rs"},
            {"type": "function_call_output", "call_id": "call_b", "output": [{"type": "input_text", "text": "fn main() {}"}]},
            {"type": "function_call_output", "call_id": "call_unknown", "output": "?"},
            {"type": "item_reference", "id": "msg_old"},
            {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "opaque"},
            {"type": "reasoning", "id": "rs_3", "summary": []},
            {"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "No."}]},
            {"type": "message", "role": "system", "content": "Be brief."},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go on"}]},
        ],
        "tools": [
            {"type": "function", "name": "shell", "description": "Runs a command", "strict": false,
             "parameters": {"type": "object", "properties": {"cmd": {"type": "array"}}}},
            {"type": "web_search"},
            {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}},
            {"type": "function", "name": "read"},
        ],
        "tool_choice": "auto",
        "parallel_tool_calls": false,
        "reasoning": {"effort": "high", "summary": "auto"},
        "store": false,
        "stream": true,
        "include": ["reasoning.encrypted_content"],
        "max_output_tokens": 4096,
        "temperature": 0.5,
        "top_p": 0.9,
        "user": "u-1",
        "text": {"format": {"type": "json_schema", "name": "x", "schema": {"type": "object"}}},
    });
    let r = decode(body).unwrap();
    let expected = Request {
        model: "gpt-5-codex".into(),
        system: vec![
            "You are Codex.".into(),
            "Sandbox: on".into(),
            "Be brief.".into(),
        ],
        messages: vec![
            Message {
                role: Role::User,
                content: vec![
                    text("Fix the bug"),
                    Part::Image(ImageSource::Base64 {
                        media_type: "image/png".into(),
                        data: "iVBORw0K".into(),
                    }),
                    Part::Image(ImageSource::Url("https://x.test/a.png".into())),
                    text("More context"),
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    Part::Thinking {
                        text: "Look at main.\n\nThen test.".into(),
                        signature: Some("sig==".into()),
                    },
                    text("Reading."),
                    Part::ToolCall {
                        id: "call_a".into(),
                        name: "shell".into(),
                        arguments: "{\"cmd\":[\"ls\"]}".into(),
                    },
                    Part::ToolCall {
                        id: "call_b".into(),
                        name: "read".into(),
                        arguments: "{}".into(),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    Part::ToolResult {
                        call_id: "call_a".into(),
                        name: Some("shell".into()),
                        content: vec![text("main.rs")],
                        is_error: false,
                    },
                    Part::ToolResult {
                        call_id: "call_b".into(),
                        name: Some("read".into()),
                        content: vec![text("fn main() {}")],
                        is_error: false,
                    },
                    Part::ToolResult {
                        call_id: "call_unknown".into(),
                        name: None,
                        content: vec![text("?")],
                        is_error: false,
                    },
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![Part::RedactedThinking("opaque".into()), text("No.")],
            },
            Message {
                role: Role::User,
                content: vec![text("Go on")],
            },
        ],
        tools: vec![
            Tool {
                name: "shell".into(),
                description: Some("Runs a command".into()),
                parameters: json!({"type": "object", "properties": {"cmd": {"type": "array"}}})
                    .into(),
            },
            Tool {
                name: "read".into(),
                description: None,
                parameters: json!({"type": "object", "properties": {}}).into(),
            },
        ],
        tool_choice: Some(ToolChoice::Auto),
        max_tokens: Some(4096),
        temperature: Some(0.5),
        top_p: Some(0.9),
        top_k: None,
        stop: vec![],
        stream: true,
        reasoning: Some(Reasoning {
            effort: Some("high".into()),
            budget_tokens: None,
            include_thoughts: true,
        }),
        user: Some("u-1".into()),
        json_output: Some(json!({"type": "object"})),
    };
    assert_eq!(r, expected);
}

#[test]
fn options_decode() {
    let base = |extra: Value| {
        let mut v = json!({"model": "m", "input": "x"});
        for (k, val) in extra.as_object().unwrap() {
            v[k] = val.clone();
        }
        decode(v).unwrap()
    };
    let choice = |c: Value| base(json!({ "tool_choice": c })).tool_choice;
    assert_eq!(choice(json!("none")), Some(ToolChoice::None));
    assert_eq!(choice(json!("required")), Some(ToolChoice::Required));
    assert_eq!(
        choice(json!({"type": "function", "name": "f"})),
        Some(ToolChoice::Tool("f".into()))
    );
    assert_eq!(
        choice(json!({"type": "allowed_tools", "mode": "required", "tools": []})),
        Some(ToolChoice::Required)
    );
    assert_eq!(choice(json!({"type": "web_search_preview"})), None);

    let format = |f: Value| base(json!({"text": {"format": f}})).json_output;
    assert_eq!(format(json!({"type": "json_object"})), Some(Value::Null));
    assert_eq!(format(json!({"type": "text"})), None);
    assert_eq!(
        base(json!({"text": {"verbosity": "low"}})).json_output,
        None
    );

    let reasoning = |r: Value| base(json!({ "reasoning": r })).reasoning;
    assert_eq!(
        reasoning(json!({"effort": "low"})),
        Some(Reasoning {
            effort: Some("low".into()),
            ..Reasoning::default()
        })
    );
    assert_eq!(reasoning(json!({"effort": "none"})), None);
    assert_eq!(reasoning(json!({"effort": null, "summary": null})), None);
    assert_eq!(
        reasoning(json!({"summary": "detailed"})),
        Some(Reasoning {
            include_thoughts: true,
            ..Reasoning::default()
        })
    );
    // Chat Completions tool shape tolerated.
    let r = base(
        json!({"tools": [{"type": "function", "function": {"name": "g", "parameters": {"type": "object"}}}]}),
    );
    assert_eq!(r.tools[0].name, "g");
    assert!(!base(json!({"stream": null})).stream);
}

#[test]
fn bad_requests_are_errors() {
    assert!(matches!(
        decode_request(b"{not json"),
        Err(ParseError::MalformedJson(_))
    ));
    assert!(matches!(
        decode_request(b"[1]"),
        Err(ParseError::Invalid(_))
    ));
    assert_eq!(decode(json!({"input": "x"})), Err(ParseError::MissingModel));
    assert_eq!(
        decode(json!({"model": " ", "input": "x"})),
        Err(ParseError::MissingModel)
    );
    let Err(ParseError::Invalid(msg)) =
        decode(json!({"model": "m", "input": "x", "previous_response_id": "resp_1"}))
    else {
        panic!("previous_response_id accepted")
    };
    assert!(msg.contains("previous_response_id"), "{msg}");
    for body in [
        json!({"model": "m"}),
        json!({"model": "m", "input": 3}),
        json!({"model": "m", "input": [1]}),
        json!({"model": "m", "input": [{"role": "tool", "content": "x"}]}),
        json!({"model": "m", "input": [{"content": "x"}]}),
        json!({"model": "m", "input": [{"role": "user", "content": 5}]}),
        json!({"model": "m", "input": [{"role": "system"}]}),
        json!({"model": "m", "input": [{"type": "function_call", "name": "f"}]}),
        json!({"model": "m", "input": [{"type": "function_call_output", "call_id": "c", "output": 1}]}),
        json!({"model": "m", "input": "x", "tools": {}}),
        json!({"model": "m", "input": "x", "tools": [{"type": "function"}]}),
        json!({"model": "m", "input": "x", "tool_choice": "any"}),
        json!({"model": "m", "input": "x", "tool_choice": {"type": "function"}}),
        json!({"model": "m", "input": "x", "stream": "yes"}),
        json!({"model": "m", "input": "x", "max_output_tokens": "10"}),
        json!({"model": "m", "input": "x", "temperature": "hot"}),
        json!({"model": "m", "input": "x", "reasoning": "high"}),
        json!({"model": "m", "input": "x", "text": {"format": {"type": "json_schema"}}}),
        json!({"model": "m", "input": "x", "text": {"format": {"type": "xml"}}}),
        json!({"model": "m", "input": "x", "instructions": 1}),
        json!({"model": "m", "input": "x", "conversation": "conv_1"}),
    ] {
        assert!(
            matches!(decode(body.clone()), Err(ParseError::Invalid(_))),
            "{body}"
        );
    }
}

#[test]
fn odd_inputs_do_not_panic() {
    for body in [
        json!({"model": "m", "input": []}),
        json!({"model": "m", "input": [{"type": "message", "role": "user", "content": [1, null, {"type": "input_text"}, {"type": "input_image"}, {"type": "input_image", "image_url": "data:,x"}]}]}),
        json!({"model": "m", "input": [{"type": "reasoning", "summary": "x", "encrypted_content": 3}]}),
        json!({"model": "m", "input": [{"type": "reasoning", "summary": [1, {"text": 2}]}]}),
        json!({"model": "m", "input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {"a": 1}}]}),
        json!({"model": "m", "input": [{"type": 7, "role": "user", "content": "x"}]}),
        json!({"model": "m", "input": "x", "tools": [1, {"type": "function", "name": "f", "function": 3}]}),
        json!({"model": "m", "input": "x", "text": null, "reasoning": {"effort": 3}}),
    ] {
        let _ = decode(body);
    }
    let r = decode(json!({"model": "m", "input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {"a": 1}}]})).unwrap();
    assert_eq!(
        r.messages[0].content[0],
        Part::ToolCall {
            id: "c".into(),
            name: "f".into(),
            arguments: "{\"a\":1}".into()
        }
    );
    let r = decode(json!({"model": "m", "input": [{"role": "user", "content": [{"type": "input_image", "image_url": "data:image/png,raw"}]}]})).unwrap();
    assert_eq!(
        r.messages[0].content[0],
        Part::Image(ImageSource::Url("data:image/png,raw".into()))
    );
}

fn answer() -> Response {
    Response {
        id: "chatcmpl-9".into(),
        model: "claude-x".into(),
        content: vec![
            Part::Thinking {
                text: "Hmm.".into(),
                signature: Some("sig".into()),
            },
            text("Hello"),
            text(" world"),
            Part::ToolCall {
                id: "toolu_1".into(),
                name: "get".into(),
                arguments: "{\"q\":1}".into(),
            },
            Part::Image(ImageSource::Url("https://x.test".into())),
        ],
        stop: StopReason::ToolUse,
        usage: Some(Usage {
            input_tokens: 100,
            output_tokens: 20,
            cache_read_tokens: 40,
            cache_creation_tokens: 5,
            reasoning_tokens: 7,
        }),
    }
}

#[test]
fn response_encodes() {
    let v = encode_response(&answer(), 1_700_000_000);
    assert_eq!(v["id"], "resp_chatcmpl-9");
    assert_eq!(v["object"], "response");
    assert_eq!(v["created_at"], 1_700_000_000);
    assert_eq!(v["status"], "completed");
    assert_eq!(v["model"], "claude-x");
    assert_eq!(v["incomplete_details"], Value::Null);
    assert_eq!(v["error"], Value::Null);
    // Fields the SDK's Response model requires.
    assert_eq!(v["parallel_tool_calls"], true);
    assert_eq!(v["tool_choice"], "auto");
    assert_eq!(v["tools"], json!([]));
    assert!(v.get("output_text").is_none());
    assert_eq!(
        v["output"],
        json!([
            {"id": "rs_chatcmpl-9_0", "type": "reasoning",
             "summary": [{"type": "summary_text", "text": "Hmm."}], "encrypted_content": "sig"},
            {"id": "msg_chatcmpl-9_1", "type": "message", "role": "assistant", "status": "completed",
             "content": [
                {"type": "output_text", "text": "Hello", "annotations": [], "logprobs": []},
                {"type": "output_text", "text": " world", "annotations": [], "logprobs": []},
             ]},
            {"id": "fc_chatcmpl-9_2", "type": "function_call", "call_id": "toolu_1", "name": "get",
             "arguments": "{\"q\":1}", "status": "completed"},
        ])
    );
    assert_eq!(
        v["usage"],
        json!({
            "input_tokens": 100, "input_tokens_details": {"cached_tokens": 40},
            "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 7},
            "total_tokens": 120,
        })
    );
}

#[test]
fn huge_usage_total_saturates() {
    // Found by fuzz/request_parsing: input + output overflowed (a panic in debug builds).
    let r = Response {
        usage: Some(Usage {
            input_tokens: i64::MAX,
            output_tokens: 1,
            ..Usage::default()
        }),
        ..Response::default()
    };
    assert_eq!(encode_response(&r, 0)["usage"]["total_tokens"], i64::MAX);
}

#[test]
fn truncated_response_is_incomplete() {
    let r = Response {
        id: "resp_abc".into(),
        model: "m".into(),
        content: vec![Part::RedactedThinking("blob".into()), text("Hal")],
        stop: StopReason::MaxTokens,
        usage: None,
    };
    let v = encode_response(&r, 5);
    assert_eq!(v["id"], "resp_abc");
    assert_eq!(v["status"], "incomplete");
    assert_eq!(
        v["incomplete_details"],
        json!({"reason": "max_output_tokens"})
    );
    assert_eq!(v["usage"], Value::Null);
    assert_eq!(
        v["output"][0],
        json!({"id": "rs_abc_0", "type": "reasoning", "summary": [], "encrypted_content": "blob"})
    );
    assert_eq!(v["output"][1]["id"], "msg_abc_1");
    assert_eq!(v["output"][1]["status"], "incomplete");

    let empty = Response::default();
    let v = encode_response(&empty, 9);
    assert_eq!(v["id"], "resp_9");
    assert_eq!(v["output"], json!([]));
}

#[test]
fn encoded_output_decodes_back_to_the_same_turn() {
    let v = encode_response(&answer(), 1);
    let mut input = v["output"].as_array().unwrap().clone();
    input.push(json!({"type": "function_call_output", "call_id": "toolu_1", "output": "42"}));
    let r = decode(json!({"model": "m", "input": input})).unwrap();
    let mut expected = answer().content;
    expected.pop(); // the image has no Responses form
    assert_eq!(r.messages[0].role, Role::Assistant);
    assert_eq!(r.messages[0].content, expected);
    assert_eq!(
        r.messages[1].content,
        vec![Part::ToolResult {
            call_id: "toolu_1".into(),
            name: Some("get".into()),
            content: vec![text("42")],
            is_error: false,
        }]
    );
}

#[test]
fn error_body_has_openai_shape() {
    assert_eq!(
        error_body(400, "bad"),
        json!({"error": {"message": "bad", "type": "invalid_request_error", "param": null, "code": null}})
    );
    assert_eq!(error_body(429, "slow")["error"]["type"], "rate_limit_error");
    assert_eq!(error_body(502, "down")["error"]["type"], "server_error");
}

// ---------- streams ----------

/// Splits encoder output into `(event name, data)`, checking the framing, that the name
/// matches `data.type` and that sequence numbers count from 0.
fn frames(out: &[u8]) -> Vec<(String, Value)> {
    let text = std::str::from_utf8(out).unwrap();
    assert!(text.is_empty() || text.ends_with("\n\n"), "{text:?}");
    let mut result = Vec::new();
    for block in text.split_terminator("\n\n") {
        let (event, data) = block.split_once('\n').unwrap();
        let name = event.strip_prefix("event: ").unwrap();
        let data: Value = serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap();
        assert_eq!(data["type"], name);
        assert_eq!(data["sequence_number"], result.len() as u64, "{data}");
        result.push((name.to_owned(), data));
    }
    result
}

fn run(events: &[StreamEvent], finish: bool) -> Vec<(String, Value)> {
    let mut enc = StreamEncoder::new(1_700_000_000, "client-model");
    let mut out = Vec::new();
    for ev in events {
        enc.encode(ev, &mut out);
    }
    if finish {
        enc.finish(&mut out);
    }
    frames(&out)
}

fn names(f: &[(String, Value)]) -> Vec<&str> {
    f.iter().map(|(n, _)| n.as_str()).collect()
}

/// Replays events the way the SDK's `ResponseStreamState` accumulates them and checks
/// each `output_item.done` and the final response against the accumulated snapshot.
fn replay(f: &[(String, Value)]) -> Value {
    let mut output: Vec<Value> = Vec::new();
    let mut last = Value::Null;
    assert_eq!(f.first().unwrap().0, "response.created");
    for (name, d) in f {
        let idx = |d: &Value| d["output_index"].as_u64().unwrap() as usize;
        match name.as_str() {
            "response.created" | "response.in_progress" => {
                assert_eq!(d["response"]["status"], "in_progress");
                assert_eq!(d["response"]["output"], json!([]));
            }
            "response.output_item.added" => {
                assert_eq!(idx(d), output.len());
                output.push(d["item"].clone());
            }
            "response.content_part.added" => {
                let item = &mut output[idx(d)];
                assert_eq!(item["id"], d["item_id"]);
                item["content"]
                    .as_array_mut()
                    .unwrap()
                    .push(d["part"].clone());
            }
            "response.output_text.delta" => {
                let item = &mut output[idx(d)];
                assert_eq!(item["type"], "message");
                let c = d["content_index"].as_u64().unwrap() as usize;
                let t = format!(
                    "{}{}",
                    item["content"][c]["text"].as_str().unwrap(),
                    d["delta"].as_str().unwrap()
                );
                item["content"][c]["text"] = Value::String(t);
            }
            "response.reasoning_summary_part.added" => {
                let item = &mut output[idx(d)];
                assert_eq!(item["type"], "reasoning");
                item["summary"]
                    .as_array_mut()
                    .unwrap()
                    .push(d["part"].clone());
            }
            "response.reasoning_summary_text.delta" => {
                let item = &mut output[idx(d)];
                let s = d["summary_index"].as_u64().unwrap() as usize;
                let t = format!(
                    "{}{}",
                    item["summary"][s]["text"].as_str().unwrap(),
                    d["delta"].as_str().unwrap()
                );
                item["summary"][s]["text"] = Value::String(t);
            }
            "response.function_call_arguments.delta" => {
                let item = &mut output[idx(d)];
                assert_eq!(item["type"], "function_call");
                assert_eq!(item["id"], d["item_id"]);
                let t = format!(
                    "{}{}",
                    item["arguments"].as_str().unwrap(),
                    d["delta"].as_str().unwrap()
                );
                item["arguments"] = Value::String(t);
            }
            "response.output_text.done" => {
                let item = &output[idx(d)];
                assert_eq!(item["content"][0]["text"], d["text"]);
            }
            "response.reasoning_summary_text.done" => {
                assert_eq!(output[idx(d)]["summary"][0]["text"], d["text"]);
            }
            "response.function_call_arguments.done" => {
                assert_eq!(output[idx(d)]["arguments"], d["arguments"]);
            }
            "response.content_part.done" | "response.reasoning_summary_part.done" => {}
            "response.output_item.done" => {
                let item = &mut output[idx(d)];
                for key in [
                    "id",
                    "type",
                    "content",
                    "summary",
                    "arguments",
                    "call_id",
                    "name",
                ] {
                    assert_eq!(item.get(key), d["item"].get(key), "{key} of {d}");
                }
                *item = d["item"].clone();
            }
            "response.completed" | "response.incomplete" => {
                assert_eq!(d["response"]["output"], Value::Array(output.clone()));
                last = d["response"].clone();
            }
            other => panic!("unexpected event {other}"),
        }
    }
    last
}

#[test]
fn text_stream_matches_golden_events() {
    let f = run(
        &[
            StreamEvent::Start {
                id: "chatcmpl-1".into(),
                model: "up-model".into(),
            },
            StreamEvent::TextDelta("Hel".into()),
            StreamEvent::TextDelta("lo".into()),
            StreamEvent::Finish(StopReason::EndTurn),
            StreamEvent::Usage(Usage {
                input_tokens: 10,
                output_tokens: 2,
                ..Usage::default()
            }),
        ],
        false,
    );
    let data: Vec<Value> = f
        .iter()
        .map(|(_, d)| {
            let mut d = d.clone();
            if let Some(r) = d.get_mut("response") {
                // Only the parts of the response that change; the rest is checked below.
                *r = json!({"status": r["status"], "output": r["output"], "usage": r["usage"]});
            }
            d
        })
        .collect();
    let item = json!({"id": "msg_chatcmpl-1_0", "type": "message", "role": "assistant"});
    let with = |extra: Value| {
        let mut v = item.clone();
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    let part =
        |t: &str| json!({"type": "output_text", "text": t, "annotations": [], "logprobs": []});
    let ids = |seq: u64| json!({"item_id": "msg_chatcmpl-1_0", "output_index": 0, "content_index": 0, "sequence_number": seq});
    let ext = |mut base: Value, extra: Value| {
        for (k, x) in extra.as_object().unwrap() {
            base[k] = x.clone();
        }
        base
    };
    let done_item = with(json!({"status": "completed", "content": [part("Hello")]}));
    let expected = vec![
        json!({"type": "response.created", "sequence_number": 0, "response": {"status": "in_progress", "output": [], "usage": null}}),
        json!({"type": "response.in_progress", "sequence_number": 1, "response": {"status": "in_progress", "output": [], "usage": null}}),
        json!({"type": "response.output_item.added", "sequence_number": 2, "output_index": 0,
               "item": with(json!({"status": "in_progress", "content": []}))}),
        ext(
            ids(3),
            json!({"type": "response.content_part.added", "part": part("")}),
        ),
        ext(
            ids(4),
            json!({"type": "response.output_text.delta", "delta": "Hel", "logprobs": []}),
        ),
        ext(
            ids(5),
            json!({"type": "response.output_text.delta", "delta": "lo", "logprobs": []}),
        ),
        ext(
            ids(6),
            json!({"type": "response.output_text.done", "text": "Hello", "logprobs": []}),
        ),
        ext(
            ids(7),
            json!({"type": "response.content_part.done", "part": part("Hello")}),
        ),
        json!({"type": "response.output_item.done", "sequence_number": 8, "output_index": 0, "item": done_item}),
        json!({"type": "response.completed", "sequence_number": 9, "response": {
            "status": "completed", "output": [done_item],
            "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 2,
                      "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 12}}}),
    ];
    assert_eq!(data, expected);
    let last = replay(&f);
    assert_eq!(last["id"], "resp_chatcmpl-1");
    assert_eq!(last["model"], "up-model");
    assert_eq!(last["created_at"], 1_700_000_000);
    assert_eq!(last["parallel_tool_calls"], true);
    assert_eq!(f[0].1["response"]["id"], "resp_chatcmpl-1");
}

#[test]
fn frames_are_plain_sse() {
    let mut enc = StreamEncoder::new(1, "m");
    let mut out = Vec::new();
    enc.encode(
        &StreamEvent::Start {
            id: "resp_x".into(),
            model: "m".into(),
        },
        &mut out,
    );
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("event: response.created\ndata: {"),
        "{text}"
    );
    assert_eq!(text.matches("\n\n").count(), 2);
    assert!(text.contains("\n\nevent: response.in_progress\ndata: {"));
}

#[test]
fn thinking_text_and_tool_calls_stream() {
    let f = run(
        &[
            StreamEvent::Start {
                id: "msg_01".into(),
                model: String::new(),
            },
            StreamEvent::ThinkingDelta("Let me ".into()),
            StreamEvent::ThinkingDelta("think.".into()),
            StreamEvent::ThinkingSignature("EqSig".into()),
            StreamEvent::TextDelta("Calling.".into()),
            StreamEvent::ToolCallStart {
                index: 0,
                id: "toolu_a".into(),
                name: "get".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: "{\"q\":".into(),
            },
            StreamEvent::ToolCallStart {
                index: 1,
                id: "toolu_b".into(),
                name: "put".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: "1}".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 1,
                arguments: "{}".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 9,
                arguments: "ignored".into(),
            },
            StreamEvent::Usage(Usage {
                input_tokens: 5,
                output_tokens: 1,
                ..Usage::default()
            }),
            StreamEvent::Finish(StopReason::ToolUse),
            StreamEvent::Usage(Usage {
                input_tokens: 50,
                output_tokens: 30,
                cache_read_tokens: 10,
                reasoning_tokens: 12,
                ..Usage::default()
            }),
            // After completion nothing more is sent.
            StreamEvent::TextDelta("late".into()),
        ],
        true,
    );
    assert_eq!(
        names(&f),
        vec![
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.reasoning_summary_part.added",
            "response.reasoning_summary_text.delta",
            "response.reasoning_summary_text.delta",
            "response.reasoning_summary_text.done",
            "response.reasoning_summary_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    let last = replay(&f);
    assert_eq!(last["model"], "client-model");
    assert_eq!(last["status"], "completed");
    assert_eq!(
        last["output"],
        json!([
            {"id": "rs_msg_01_0", "type": "reasoning", "encrypted_content": "EqSig",
             "summary": [{"type": "summary_text", "text": "Let me think."}]},
            {"id": "msg_msg_01_1", "type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "Calling.", "annotations": [], "logprobs": []}]},
            {"id": "fc_msg_01_2", "type": "function_call", "call_id": "toolu_a", "name": "get",
             "arguments": "{\"q\":1}", "status": "completed"},
            {"id": "fc_msg_01_3", "type": "function_call", "call_id": "toolu_b", "name": "put",
             "arguments": "{}", "status": "completed"},
        ])
    );
    assert_eq!(last["usage"]["input_tokens"], 50);
    assert_eq!(last["usage"]["input_tokens_details"]["cached_tokens"], 10);
    assert_eq!(
        last["usage"]["output_tokens_details"]["reasoning_tokens"],
        12
    );
    assert_eq!(last["usage"]["total_tokens"], 80);
    // The item added for a function call has empty arguments.
    let added = &f[15].1;
    assert_eq!(added["item"]["arguments"], "");
    assert_eq!(added["item"]["status"], "in_progress");
}

#[test]
fn completion_waits_for_usage_or_finish() {
    // Usage before the stop only: the completion comes with finish(), last usage wins.
    let events = [
        StreamEvent::TextDelta("a".into()),
        StreamEvent::Usage(Usage {
            input_tokens: 1,
            output_tokens: 1,
            ..Usage::default()
        }),
        StreamEvent::Usage(Usage {
            input_tokens: 3,
            output_tokens: 4,
            ..Usage::default()
        }),
        StreamEvent::Finish(StopReason::EndTurn),
    ];
    let f = run(&events, false);
    assert_eq!(f.last().unwrap().0, "response.output_item.done");
    let f = run(&events, true);
    let last = replay(&f);
    assert_eq!(last["status"], "completed");
    assert_eq!(last["usage"]["total_tokens"], 7);
    // No Start: one is synthesized.
    assert_eq!(last["id"], "resp_1700000000");
    assert_eq!(last["output"][0]["id"], "msg_1700000000_0");

    // Finish and no usage at all: completed with usage null.
    let f = run(
        &[
            StreamEvent::TextDelta("a".into()),
            StreamEvent::Finish(StopReason::StopSequence),
        ],
        true,
    );
    let last = replay(&f);
    assert_eq!(last["status"], "completed");
    assert_eq!(last["usage"], Value::Null);
}

#[test]
fn max_tokens_stream_is_incomplete() {
    let f = run(
        &[
            StreamEvent::Start {
                id: "r".into(),
                model: "m".into(),
            },
            StreamEvent::ThinkingDelta("x".into()),
            StreamEvent::TextDelta("cut".into()),
            StreamEvent::Finish(StopReason::MaxTokens),
        ],
        true,
    );
    assert_eq!(f.last().unwrap().0, "response.incomplete");
    let last = replay(&f);
    assert_eq!(last["status"], "incomplete");
    assert_eq!(
        last["incomplete_details"],
        json!({"reason": "max_output_tokens"})
    );
    assert_eq!(last["output"][1]["status"], "incomplete");
}

#[test]
fn broken_stream_is_closed_as_incomplete() {
    let f = run(
        &[
            StreamEvent::TextDelta("par".into()),
            StreamEvent::ToolCallStart {
                index: 0,
                id: String::new(),
                name: "f".into(),
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: "{\"a".into(),
            },
        ],
        true,
    );
    let last = replay(&f);
    assert_eq!(f.last().unwrap().0, "response.incomplete");
    assert_eq!(last["incomplete_details"], Value::Null);
    assert_eq!(last["output"][0]["status"], "completed");
    assert_eq!(last["output"][1]["status"], "incomplete");
    assert_eq!(last["output"][1]["arguments"], "{\"a");
    assert_eq!(last["output"][1]["call_id"], "call_1700000000_1");

    // Nothing at all, and finish() twice.
    let mut enc = StreamEncoder::new(2, "m");
    let mut out = Vec::new();
    enc.finish(&mut out);
    enc.finish(&mut out);
    enc.encode(&StreamEvent::TextDelta("x".into()), &mut out);
    let f = frames(&out);
    assert_eq!(
        names(&f),
        vec![
            "response.created",
            "response.in_progress",
            "response.incomplete"
        ]
    );
    assert_eq!(replay(&f)["model"], "m");
}

#[test]
fn signature_without_thinking_text_is_an_encrypted_reasoning_item() {
    let f = run(
        &[
            StreamEvent::ThinkingSignature("s".into()),
            StreamEvent::TextDelta("".into()),
            StreamEvent::TextDelta("t".into()),
            StreamEvent::Finish(StopReason::EndTurn),
        ],
        true,
    );
    let last = replay(&f);
    assert_eq!(
        last["output"][0],
        json!({"id": "rs_1700000000_0", "type": "reasoning", "summary": [], "encrypted_content": "s"})
    );
    assert!(!names(&f).contains(&"response.reasoning_summary_part.added"));
}
