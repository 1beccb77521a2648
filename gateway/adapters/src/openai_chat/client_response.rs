//! Client side: an IR answer encoded as a `chat.completion` object.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::wire::{UsageOut, completion_id, finish_reason, usage_json};
use crate::ir::{Part, Response};
use crate::json_out::string;

/// Encodes a complete answer. The crate has no clock, so `created` (Unix seconds) is the
/// caller's. The id gets a `chatcmpl-` prefix when it has none. Text parts are joined into
/// `content` (`null` without text), thinking into `reasoning_content` (omitted without
/// thinking), tool calls into `tool_calls`; redacted thinking is dropped. `usage` is
/// omitted when the answer has none (the caller fills in a local count first).
pub fn encode_response(r: &Response, created: i64) -> Value {
    serde_json::to_value(completion(r, created)).unwrap_or(Value::Null)
}

/// [`encode_response`] written straight to bytes (what the relay sends: no tree is built),
/// by hand: byte for byte what `serde_json` writes of the same object, with strings escaped
/// eight bytes at a time.
pub fn encode_response_bytes(r: &Response, created: i64) -> Vec<u8> {
    let c = completion(r, created);
    let text = |s: &Option<Cow<'_, str>>| s.as_deref().map_or(0, str::len);
    let mut out = Vec::with_capacity(
        256 + c.id.len()
            + c.model.len()
            + text(&c.choices[0].message.content)
            + text(&c.choices[0].message.reasoning_content),
    );
    c.write(&mut out);
    out
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

impl Completion<'_> {
    /// The object as `serde_json` writes it (fields in declaration order, `None` as `null`
    /// or left out as the attributes say).
    fn write(&self, out: &mut Vec<u8>) {
        let [choice] = &self.choices;
        let message = &choice.message;
        out.extend_from_slice(br#"{"id":"#);
        string(&self.id, out);
        out.extend_from_slice(br#","object":"#);
        string(self.object, out);
        out.extend_from_slice(br#","created":"#);
        integer(self.created, out);
        out.extend_from_slice(br#","model":"#);
        string(self.model, out);
        out.extend_from_slice(br#","choices":[{"index":"#);
        integer(i64::from(choice.index), out);
        out.extend_from_slice(br#","message":{"role":"#);
        string(message.role, out);
        out.extend_from_slice(br#","content":"#);
        match &message.content {
            Some(text) => string(text, out),
            None => out.extend_from_slice(b"null"),
        }
        if let Some(thinking) = &message.reasoning_content {
            out.extend_from_slice(br#","reasoning_content":"#);
            string(thinking, out);
        }
        if !message.tool_calls.is_empty() {
            out.extend_from_slice(br#","tool_calls":["#);
            for (i, call) in message.tool_calls.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(br#"{"id":"#);
                string(&call.id, out);
                out.extend_from_slice(br#","type":"#);
                string(call.kind, out);
                out.extend_from_slice(br#","function":{"name":"#);
                string(call.function.name, out);
                out.extend_from_slice(br#","arguments":"#);
                string(call.function.arguments, out);
                out.extend_from_slice(b"}}");
            }
            out.push(b']');
        }
        out.extend_from_slice(br#"},"finish_reason":"#);
        string(choice.finish_reason, out);
        out.extend_from_slice(b"}]");
        if let Some(u) = &self.usage {
            out.extend_from_slice(br#","usage":"#);
            u.write(out);
        }
        out.push(b'}');
    }
}

/// An integer as `serde_json` writes it.
fn integer(n: i64, out: &mut Vec<u8>) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::ir::{ImageSource, StopReason, Usage};

    /// Every answer below, written by hand, is byte for byte what serde writes of it.
    #[test]
    fn the_answer_written_by_hand_is_what_serde_writes() {
        let texts = [
            "",
            "word0 word1 word2",
            "line\nbreak \"quoted\" back\\slash \t tab \u{1} \u{7f} é 你好 😀",
            "\u{0}\u{8}\u{c}\r/</script>",
        ];
        let parts = |i: usize| -> Vec<Part> {
            let t = texts[i % texts.len()].to_owned();
            match i % 7 {
                0 => vec![],
                1 => vec![Part::Text(t)],
                2 => vec![Part::Text(t.clone()), Part::Text(t)],
                3 => vec![
                    Part::Thinking {
                        text: t.clone(),
                        signature: None,
                    },
                    Part::Text(t),
                ],
                4 => vec![
                    Part::ToolCall {
                        id: String::new(),
                        name: "get \"weather\"".into(),
                        arguments: r#"{"city":"Paris\n"}"#.into(),
                    },
                    Part::ToolCall {
                        id: "call_9".into(),
                        name: t,
                        arguments: "{}".into(),
                    },
                ],
                5 => vec![
                    Part::Text(t),
                    Part::Image(ImageSource::Url("http://x/a\"b.png".into())),
                    Part::RedactedThinking("r".into()),
                ],
                _ => vec![Part::Image(ImageSource::Base64 {
                    media_type: "image/png".into(),
                    data: "AAAA".into(),
                })],
            }
        };
        let stops = [
            StopReason::EndTurn,
            StopReason::MaxTokens,
            StopReason::StopSequence,
            StopReason::ToolUse,
            StopReason::ContentFilter,
        ];
        let usages = [
            None,
            Some(Usage::default()),
            Some(Usage {
                input_tokens: 12,
                output_tokens: 5,
                cache_read_tokens: 3,
                cache_creation_tokens: 2,
                reasoning_tokens: 1,
            }),
            Some(Usage {
                input_tokens: i64::MAX,
                output_tokens: i64::MAX,
                cache_read_tokens: i64::MIN,
                cache_creation_tokens: 0,
                reasoning_tokens: -1,
            }),
        ];
        let ids = ["", "chatcmpl-1", "msg_01\"x"];
        let mut cases = 0;
        for i in 0..(7 * texts.len()) {
            for (s, stop) in stops.iter().enumerate() {
                for (u, usage) in usages.iter().enumerate() {
                    let r = Response {
                        id: ids[(i + s + u) % ids.len()].into(),
                        model: texts[(i + u) % texts.len()].into(),
                        content: parts(i),
                        stop: *stop,
                        usage: *usage,
                    };
                    let created = [0, 1_732_470_000, -5, i64::MAX][(i + s) % 4];
                    let ours = encode_response_bytes(&r, created);
                    let theirs = serde_json::to_vec(&completion(&r, created)).unwrap();
                    assert_eq!(
                        String::from_utf8_lossy(&ours),
                        String::from_utf8_lossy(&theirs),
                        "{r:?}"
                    );
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 7 * 4 * 5 * 4);
    }
}
