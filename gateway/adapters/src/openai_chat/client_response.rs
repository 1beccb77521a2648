//! Client side: an IR answer encoded as a `chat.completion` object.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::wire::{UsageOut, completion_id, finish_reason, usage_json};
use crate::ir::{Part, Response};

/// Encodes a complete answer. The crate has no clock, so `created` (Unix seconds) is the
/// caller's. The id gets a `chatcmpl-` prefix when it has none. Text parts are joined into
/// `content` (`null` without text), thinking into `reasoning_content` (omitted without
/// thinking), tool calls into `tool_calls`; redacted thinking is dropped. `usage` is
/// omitted when the answer has none (the caller fills in a local count first).
pub fn encode_response(r: &Response, created: i64) -> Value {
    serde_json::to_value(completion(r, created)).unwrap_or(Value::Null)
}

/// [`encode_response`] written straight to bytes (what the relay sends: no tree is built).
pub fn encode_response_bytes(r: &Response, created: i64) -> Vec<u8> {
    // Plain structs of strings and numbers: serialising them cannot fail.
    serde_json::to_vec(&completion(r, created)).unwrap_or_default()
}

fn completion(r: &Response, created: i64) -> Completion<'_> {
    let mut text: Option<Cow<'_, str>> = None;
    let mut thinking: Option<Cow<'_, str>> = None;
    let mut tool_calls = Vec::new();
    for p in &r.content {
        match p {
            Part::Text(t) => append(&mut text, t),
            Part::Thinking { text: t, .. } => append(&mut thinking, t),
            Part::ToolCall {
                id,
                name,
                arguments,
            } => {
                let id = if id.is_empty() {
                    Cow::Owned(format!("call_{}", tool_calls.len()))
                } else {
                    Cow::Borrowed(id.as_str())
                };
                tool_calls.push(CallOut {
                    id,
                    kind: "function",
                    function: FunctionOut { name, arguments },
                });
            }
            // A drawing model's picture: OpenAI chat has no image output, so it goes into the
            // text as a Markdown image (a data URL), as chat front-ends render it.
            Part::Image(src) => {
                let markdown = match src {
                    crate::ir::ImageSource::Base64 { media_type, data } => {
                        format!("![image](data:{media_type};base64,{data})")
                    }
                    crate::ir::ImageSource::Url(url) => format!("![image]({url})"),
                };
                let joined = match text.take() {
                    Some(before) if !before.is_empty() => format!("{before}\n\n{markdown}"),
                    _ => markdown,
                };
                text = Some(Cow::Owned(joined));
            }
            Part::RedactedThinking(_) | Part::ToolResult { .. } => {}
        }
    }
    let finish_reason = finish_reason(r.stop, !tool_calls.is_empty());
    Completion {
        id: completion_id(&r.id, created),
        object: "chat.completion",
        created,
        model: &r.model,
        choices: [Choice {
            index: 0,
            message: MessageOut {
                role: "assistant",
                content: text,
                reasoning_content: thinking,
                tool_calls,
            },
            finish_reason,
        }],
        usage: r.usage.as_ref().map(usage_json),
    }
}

/// Adds `t` to the text so far (borrowed while there is one piece).
fn append<'a>(to: &mut Option<Cow<'a, str>>, t: &'a str) {
    match to {
        None => *to = Some(Cow::Borrowed(t)),
        Some(have) => have.to_mut().push_str(t),
    }
}

/// A `chat.completion` object, borrowing the answer it was made of.
#[derive(Serialize)]
struct Completion<'a> {
    id: String,
    object: &'static str,
    created: i64,
    model: &'a str,
    choices: [Choice<'a>; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<UsageOut>,
}

#[derive(Serialize)]
struct Choice<'a> {
    index: u32,
    message: MessageOut<'a>,
    finish_reason: &'static str,
}

#[derive(Serialize)]
struct MessageOut<'a> {
    role: &'static str,
    content: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<CallOut<'a>>,
}

#[derive(Serialize)]
struct CallOut<'a> {
    id: Cow<'a, str>,
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionOut<'a>,
}

#[derive(Serialize)]
struct FunctionOut<'a> {
    name: &'a str,
    arguments: &'a str,
}
