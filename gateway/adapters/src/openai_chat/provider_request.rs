//! Provider side: an IR request encoded as a Chat Completions body for OpenAI-compatible
//! channels.
//!
//! The body is a tree of borrowed, serialisable structs written straight to bytes: no
//! `serde_json::Value` is built on this hot path (see `benches/convert.rs`).

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::wire::image_url;
use crate::ir::{ImageSource, Message, Part, Request, Role, SchemaText, ToolChoice};

/// Encodes `req` for `upstream_model`.
///
/// - System blocks become one leading `system` message (blocks joined by `\n`).
/// - User text becomes a string (parts joined by `\n`), or an array of `text` and
///   `image_url` parts when there are images (base64 images as `data:` URLs).
/// - Tool results become `tool` messages (one per result, placed before the rest of their
///   user message; text joined by `\n`; images in results and `is_error` are dropped).
/// - Assistant text is joined into `content` (`null` beside tool calls), tool calls into
///   `tool_calls` (empty arguments sent as `{}`); thinking is dropped (OpenAI refuses
///   `reasoning_content` in history), and a turn left empty is left out.
/// - Reasoning models (names starting `o1`, `o3`, `o4` or `gpt-5`, except `gpt-5-chat…`)
///   get `max_completion_tokens` instead of `max_tokens`, and no `temperature` (nor
///   `top_p` for `gpt-5`), which they refuse.
/// - Reasoning: the effort as `reasoning_effort`; a token budget alone is turned into an
///   effort for reasoning models only (< 2048 low, < 8192 medium, else high).
/// - `tool_choice` is sent only with tools; `top_k` is dropped (OpenAI refuses it).
/// - Streams ask for usage (`stream_options.include_usage`); the gateway removes it for
///   channels that do not honour it.
pub fn encode_request<'a>(req: &'a Request, upstream_model: &'a str) -> Body<'a> {
    let family = family(upstream_model);
    let tools: Vec<ToolOut<'a>> = req
        .tools
        .iter()
        .map(|t| ToolOut {
            kind: "function",
            function: FunctionOut {
                name: &t.name,
                description: t.description.as_deref(),
                parameters: if t.parameters.is_null() {
                    Cow::Owned(SchemaText::empty_object())
                } else {
                    Cow::Borrowed(&t.parameters)
                },
            },
        })
        .collect();
    let tool_choice = match (&req.tool_choice, tools.is_empty()) {
        (Some(choice), false) => Some(match choice {
            ToolChoice::Auto => ChoiceOut::Mode("auto"),
            ToolChoice::None => ChoiceOut::Mode("none"),
            ToolChoice::Required => ChoiceOut::Mode("required"),
            ToolChoice::Tool(name) => ChoiceOut::Function {
                kind: "function",
                function: NameOut { name },
            },
        }),
        _ => None,
    };
    let (max_tokens, max_completion_tokens) = match family {
        Family::Chat => (req.max_tokens, None),
        _ => (None, req.max_tokens),
    };
    Body {
        model: upstream_model,
        messages: messages(req),
        tools,
        tool_choice,
        max_tokens,
        max_completion_tokens,
        temperature: req.temperature.filter(|_| family == Family::Chat),
        top_p: req.top_p.filter(|_| family != Family::Gpt5),
        stop: &req.stop,
        stream: req.stream,
        stream_options: req.stream.then_some(StreamOptions {
            include_usage: true,
        }),
        reasoning_effort: reasoning_effort(req, family),
        user: req.user.as_deref(),
        response_format: match &req.json_output {
            None => None,
            Some(Value::Null) => Some(ResponseFormat::JsonObject),
            Some(schema) => Some(ResponseFormat::JsonSchema {
                json_schema: NamedSchema {
                    name: "response",
                    schema,
                },
            }),
        },
    }
}

/// A Chat Completions request body, borrowing the IR request it was made of.
#[derive(Debug, Serialize)]
pub struct Body<'a> {
    model: &'a str,
    messages: Vec<MessageOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ToolOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ChoiceOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop: &'a [String],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<ResponseFormat<'a>>,
}

#[derive(Debug, Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Debug, Serialize)]
struct ToolOut<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionOut<'a>,
}

#[derive(Debug, Serialize)]
struct FunctionOut<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    parameters: Cow<'a, SchemaText>,
}

/// `tool_choice`: a mode string, or the function that must be called.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum ChoiceOut<'a> {
    Mode(&'static str),
    Function {
        #[serde(rename = "type")]
        kind: &'static str,
        function: NameOut<'a>,
    },
}

#[derive(Debug, Serialize)]
struct NameOut<'a> {
    name: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ResponseFormat<'a> {
    JsonObject,
    JsonSchema { json_schema: NamedSchema<'a> },
}

#[derive(Debug, Serialize)]
struct NamedSchema<'a> {
    name: &'static str,
    schema: &'a Value,
}

/// One message of the conversation.
#[derive(Debug, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum MessageOut<'a> {
    System {
        content: String,
    },
    Tool {
        tool_call_id: &'a str,
        content: String,
    },
    User {
        content: UserContent<'a>,
    },
    Assistant {
        /// `null` beside tool calls.
        content: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<CallOut<'a>>,
    },
}

/// A user message's content: text alone as a string, with images as parts.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum UserContent<'a> {
    Text(String),
    Parts(Vec<UserPart<'a>>),
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum UserPart<'a> {
    Text { text: &'a str },
    ImageUrl { image_url: UrlOut },
}

#[derive(Debug, Serialize)]
struct UrlOut {
    url: String,
}

#[derive(Debug, Serialize)]
struct CallOut<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: CallFunction<'a>,
}

#[derive(Debug, Serialize)]
struct CallFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

/// Which parameter rules a model follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    /// Classic chat models: `max_tokens`, sampling parameters accepted.
    Chat,
    /// o-series reasoning models.
    OSeries,
    /// gpt-5 reasoning models.
    Gpt5,
}

fn family(model: &str) -> Family {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    if name.starts_with("gpt-5") && !name.starts_with("gpt-5-chat") {
        Family::Gpt5
    } else if ["o1", "o3", "o4"].iter().any(|p| name.starts_with(p)) {
        Family::OSeries
    } else {
        Family::Chat
    }
}

fn reasoning_effort(req: &Request, family: Family) -> Option<&str> {
    let r = req.reasoning.as_ref()?;
    if let Some(e) = &r.effort {
        return Some(e);
    }
    let budget = r.budget_tokens.filter(|b| *b > 0)?;
    if family == Family::Chat {
        return None;
    }
    let effort = match budget {
        ..2048 => "low",
        2048..8192 => "medium",
        _ => "high",
    };
    Some(effort)
}

fn messages(req: &Request) -> Vec<MessageOut<'_>> {
    let mut out = Vec::with_capacity(req.messages.len() + 1);
    if !req.system.is_empty() {
        out.push(MessageOut::System {
            content: req.system.join("\n"),
        });
    }
    for m in &req.messages {
        match m.role {
            Role::User => user(m, &mut out),
            Role::Assistant => out.extend(assistant(m)),
        }
    }
    out
}

/// Tool results first (they must follow the assistant's calls), then the rest.
fn user<'a>(m: &'a Message, out: &mut Vec<MessageOut<'a>>) {
    for p in &m.content {
        if let Part::ToolResult {
            call_id, content, ..
        } = p
        {
            out.push(MessageOut::Tool {
                tool_call_id: call_id,
                content: joined_text(content),
            });
        }
    }
    let rest: Vec<&Part> = m
        .content
        .iter()
        .filter(|p| matches!(p, Part::Text(_) | Part::Image(_)))
        .collect();
    if rest.is_empty() {
        return;
    }
    let content = if rest.iter().all(|p| matches!(p, Part::Text(_))) {
        UserContent::Text(joined_text(m.content.iter()))
    } else {
        UserContent::Parts(
            rest.iter()
                .filter_map(|p| match p {
                    Part::Text(text) => Some(UserPart::Text { text }),
                    Part::Image(src) => Some(image_part(src)),
                    _ => None,
                })
                .collect(),
        )
    };
    out.push(MessageOut::User { content });
}

fn image_part(src: &ImageSource) -> UserPart<'_> {
    UserPart::ImageUrl {
        image_url: UrlOut {
            url: image_url(src),
        },
    }
}

/// `None` when nothing is left (a turn of thinking only).
fn assistant(m: &Message) -> Option<MessageOut<'_>> {
    let mut tool_calls = Vec::new();
    for p in &m.content {
        if let Part::ToolCall {
            id,
            name,
            arguments,
        } = p
        {
            let arguments = if arguments.is_empty() {
                "{}"
            } else {
                arguments
            };
            tool_calls.push(CallOut {
                id,
                kind: "function",
                function: CallFunction { name, arguments },
            });
        }
    }
    let text = joined_text(m.content.iter());
    let content = match (text.is_empty(), tool_calls.is_empty()) {
        (true, true) => return None,
        (true, false) => None,
        (false, _) => Some(text),
    };
    Some(MessageOut::Assistant {
        content,
        tool_calls,
    })
}

/// The `Text` parts joined by `\n`.
fn joined_text<'a>(parts: impl IntoIterator<Item = &'a Part>) -> String {
    let mut out = String::new();
    for p in parts {
        if let Part::Text(t) = p {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(t);
        }
    }
    out
}
