//! Provider side: an IR request encoded as a Cohere v2 Chat body (`POST /v2/chat`), as
//! borrowed serialisable structs (tool schemas go out as the client's JSON text).

use serde::Serialize;
use serde_json::Value;

use crate::ir::{ImageSource, Part, Reasoning, Request, Role, SchemaText, ToolChoice};

/// A `/v2/chat` body, borrowing the IR request it was made of.
#[derive(Debug, Serialize)]
pub struct Body<'a> {
    model: &'a str,
    messages: Vec<MessageOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ToolOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<&'static str>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    k: Option<i64>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop_sequences: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<ResponseFormat<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
}

#[derive(Debug, Serialize)]
struct MessageOut<'a> {
    role: &'static str,
    #[serde(skip_serializing_if = "Content::is_empty")]
    content: Content<'a>,
    #[serde(skip_serializing_if = "str::is_empty")]
    tool_plan: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<CallOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
}

/// Message content: a string when it is all text, else typed parts.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Content<'a> {
    Text(String),
    Parts(Vec<ContentPart<'a>>),
}

impl Content<'_> {
    fn is_empty(&self) -> bool {
        match self {
            Content::Text(t) => t.is_empty(),
            Content::Parts(p) => p.is_empty(),
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ContentPart<'a> {
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
    function: FunctionCallOut<'a>,
}

#[derive(Debug, Serialize)]
struct FunctionCallOut<'a> {
    name: &'a str,
    /// JSON text, as OpenAI sends it.
    arguments: &'a str,
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
    parameters: &'a SchemaText,
}

#[derive(Debug, Serialize)]
struct ResponseFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    json_schema: Option<&'a Value>,
}

#[derive(Debug, Serialize)]
struct Thinking {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    token_budget: Option<i64>,
}

/// Encodes `req` for `POST {base}/v2/chat` (`Authorization: Bearer {key}`):
/// - `system` blocks → one leading `system` message (joined by a blank line);
/// - user text → `content` (a string; text and `image_url` parts when there are images,
///   inline images as `data:` URLs); tool results → one `tool` message each
///   (`tool_call_id`, `content` the result text);
/// - assistant text → `content`, tool calls → `tool_calls` (arguments as JSON text), its
///   thinking → `tool_plan` when the turn calls tools (Cohere's plan is what the decoder
///   reads as thinking), else dropped with redacted thinking;
/// - tools → `tools`; `tool_choice` `required` → `REQUIRED`, `none` → `NONE`, a named tool
///   → `REQUIRED` with only that tool sent, `auto` → nothing;
/// - `max_tokens`, `temperature`, `top_p` → `p`, `top_k` → `k`, `stop` →
///   `stop_sequences`; `json_output` → `response_format` `json_object` (+ `json_schema`);
/// - reasoning → `thinking`: effort `none` → `disabled`, else `enabled` with
///   `token_budget` when a budget is given. `user` has no Cohere field and is dropped.
pub fn encode_request<'a>(req: &'a Request, upstream_model: &'a str) -> Body<'a> {
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if !req.system.is_empty() {
        let mut m = MessageOut::new("system");
        m.content = Content::Text(req.system.join("\n\n"));
        messages.push(m);
    }
    for msg in &req.messages {
        encode_message(msg.role, &msg.content, &mut messages);
    }
    let (tool_choice, only) = match &req.tool_choice {
        Some(ToolChoice::Required) => (Some("REQUIRED"), None),
        Some(ToolChoice::None) => (Some("NONE"), None),
        Some(ToolChoice::Tool(name)) => (Some("REQUIRED"), Some(name.as_str())),
        Some(ToolChoice::Auto) | None => (None, None),
    };
    let tools: Vec<ToolOut<'a>> = req
        .tools
        .iter()
        .filter(|t| only.is_none_or(|n| n == t.name))
        .map(|t| ToolOut {
            kind: "function",
            function: FunctionOut {
                name: &t.name,
                description: t.description.as_deref(),
                parameters: &t.parameters,
            },
        })
        .collect();
    Body {
        model: upstream_model,
        messages,
        tool_choice: tool_choice.filter(|_| !tools.is_empty()),
        tools,
        stream: req.stream,
        max_tokens: req.max_tokens,
        temperature: req.temperature,
        p: req.top_p,
        k: req.top_k,
        stop_sequences: &req.stop,
        response_format: req.json_output.as_ref().map(|j| ResponseFormat {
            kind: "json_object",
            json_schema: Some(j).filter(|j| !j.is_null()),
        }),
        thinking: req.reasoning.as_ref().map(thinking),
    }
}

impl MessageOut<'_> {
    fn new(role: &'static str) -> Self {
        MessageOut {
            role,
            content: Content::Text(String::new()),
            tool_plan: String::new(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    fn is_empty(&self) -> bool {
        self.content.is_empty() && self.tool_calls.is_empty()
    }
}

fn encode_message<'a>(role: Role, parts: &'a [Part], out: &mut Vec<MessageOut<'a>>) {
    let role_name = match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let mut cur = Building::default();
    let mut plan = String::new();
    for p in parts {
        match p {
            Part::Text(t) => cur.parts.push(ContentPart::Text { text: t }),
            Part::Image(src) => cur.parts.push(ContentPart::ImageUrl {
                image_url: UrlOut {
                    url: image_url(src),
                },
            }),
            Part::Thinking { text, .. } => plan.push_str(text),
            Part::RedactedThinking(_) => {}
            Part::ToolCall {
                id,
                name,
                arguments,
            } => cur.calls.push(CallOut {
                id,
                kind: "function",
                function: FunctionCallOut {
                    name,
                    arguments: if arguments.trim().is_empty() {
                        "{}"
                    } else {
                        arguments
                    },
                },
            }),
            Part::ToolResult {
                call_id, content, ..
            } => {
                cur.flush(role_name, &mut plan, out);
                let mut text = String::new();
                for c in content {
                    if let Part::Text(t) = c {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        text.push_str(t);
                    }
                }
                let mut m = MessageOut::new("tool");
                m.content = Content::Text(text);
                m.tool_call_id = Some(call_id);
                out.push(m);
            }
        }
    }
    cur.flush(role_name, &mut plan, out);
}

/// The content and calls of the message being built.
#[derive(Default)]
struct Building<'a> {
    parts: Vec<ContentPart<'a>>,
    calls: Vec<CallOut<'a>>,
}

impl<'a> Building<'a> {
    fn flush(&mut self, role: &'static str, plan: &mut String, out: &mut Vec<MessageOut<'a>>) {
        let parts = std::mem::take(&mut self.parts);
        let all_text = parts.iter().all(|p| matches!(p, ContentPart::Text { .. }));
        let mut m = MessageOut::new(role);
        m.content = if all_text {
            let mut text = String::new();
            for p in &parts {
                if let ContentPart::Text { text: t } = p {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(t);
                }
            }
            Content::Text(text)
        } else {
            Content::Parts(parts)
        };
        m.tool_calls = std::mem::take(&mut self.calls);
        if !m.tool_calls.is_empty() {
            m.tool_plan = std::mem::take(plan);
        }
        if !m.is_empty() {
            out.push(m);
        }
    }
}

fn image_url(src: &ImageSource) -> String {
    match src {
        ImageSource::Url(u) => u.clone(),
        ImageSource::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
    }
}

fn thinking(r: &Reasoning) -> Thinking {
    if r.effort.as_deref() == Some("none") || r.budget_tokens == Some(0) {
        return Thinking {
            kind: "disabled",
            token_budget: None,
        };
    }
    Thinking {
        kind: "enabled",
        token_budget: r.budget_tokens.filter(|b| *b > 0),
    }
}
