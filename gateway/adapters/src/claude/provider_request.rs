//! Provider side: an IR request encoded as an Anthropic Messages request body.
//!
//! The body is a tree of borrowed, serialisable structs written straight to bytes: no
//! `serde_json::Value` is built on this hot path (see `benches/convert.rs`).

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::ir::{ImageSource, Part, Reasoning, Request, Role, SchemaText, ToolChoice};
use crate::json_out::ObjectText;
/// `max_tokens` when the request names none (the gateway normally fills it from the
/// `claude.default_max_tokens` option first).
pub const DEFAULT_MAX_TOKENS: i64 = 4096;

/// Anthropic's smallest thinking budget.
const MIN_THINKING_BUDGET: i64 = 1024;

/// Encodes `req` for the Messages API under `upstream_model`.
///
/// - `system`: one block as a string, several as text blocks.
/// - Messages: consecutive messages of one role are merged (Anthropic requires
///   alternation); tool results go into user messages, ahead of any text there; empty text
///   and messages left empty are dropped; `data:` image URLs become base64 sources.
/// - Thinking parts without a signature (from other providers) are dropped: Anthropic
///   refuses to replay unsigned thinking.
/// - Tool arguments are parsed back to an object (`{}` when not a JSON object);
///   `tool_choice` is left out without tools.
/// - Reasoning: a positive `budget_tokens` (raised to Anthropic's minimum 1024) or else the
///   effort (`minimal`/`low` 1024, `medium` 4096, `high` and above 16384, `none` off; a
///   bare request for thoughts 4096) enables thinking; a budget of 0 disables it. With
///   thinking on, `max_tokens` is raised by the budget when it does not exceed it, and
///   `temperature`, `top_k` and a `top_p` below 0.95 are left out (Anthropic refuses
///   them). Thinking is also left out when `tool_choice` forces a tool (Anthropic refuses
///   that combination).
/// - `json_output` with a schema becomes `output_config.format` (`json_schema`); plain
///   JSON output has no Anthropic equivalent and is dropped.
pub fn encode_request<'a>(req: &'a Request, upstream_model: &'a str) -> Body<'a> {
    let mut max_tokens = req
        .max_tokens
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_MAX_TOKENS);
    let system: Vec<&'a str> = req
        .system
        .iter()
        .map(String::as_str)
        .filter(|s| !s.is_empty())
        .collect();
    let system = match system.as_slice() {
        [] => None,
        [one] => Some(System::Text(one)),
        many => Some(System::Blocks(
            many.iter().map(|text| TextBlock::Text { text }).collect(),
        )),
    };
    let forced_tool = matches!(
        req.tool_choice,
        Some(ToolChoice::Required | ToolChoice::Tool(_))
    ) && !req.tools.is_empty();
    let tools: Vec<ToolOut<'a>> = req
        .tools
        .iter()
        .map(|t| ToolOut {
            name: &t.name,
            description: t.description.as_deref(),
            input_schema: if t.parameters.is_object() {
                Cow::Borrowed(&t.parameters)
            } else {
                Cow::Owned(SchemaText::empty_object())
            },
        })
        .collect();
    let tool_choice = match (&req.tool_choice, tools.is_empty()) {
        (Some(choice), false) => Some(match choice {
            ToolChoice::Auto => ChoiceOut::Auto,
            ToolChoice::None => ChoiceOut::None,
            ToolChoice::Required => ChoiceOut::Any,
            ToolChoice::Tool(name) => ChoiceOut::Tool { name },
        }),
        _ => None,
    };
    let budget = req
        .reasoning
        .as_ref()
        .and_then(thinking_budget)
        .filter(|_| !forced_tool);
    let (thinking, temperature, top_p, top_k) = match budget {
        Some(budget_tokens) => {
            if max_tokens <= budget_tokens {
                max_tokens = max_tokens.saturating_add(budget_tokens);
            }
            let top_p = req.top_p.filter(|p| (0.95..=1.0).contains(p));
            (Some(Thinking::Enabled { budget_tokens }), None, top_p, None)
        }
        None => (None, req.temperature, req.top_p, req.top_k),
    };
    Body {
        model: upstream_model,
        system,
        messages: messages(req),
        tools,
        tool_choice,
        thinking,
        temperature,
        top_p,
        top_k,
        max_tokens,
        stop_sequences: &req.stop,
        stream: req.stream,
        metadata: req
            .user
            .as_deref()
            .filter(|u| !u.is_empty())
            .map(|user_id| Metadata { user_id }),
        output_config: match &req.json_output {
            Some(schema @ Value::Object(_)) => Some(OutputConfig {
                format: Format::JsonSchema { schema },
            }),
            _ => None,
        },
    }
}

/// A Messages request body, borrowing the IR request it was made of.
#[derive(Debug, Serialize)]
pub struct Body<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<System<'a>>,
    messages: Vec<MessageOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ToolOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ChoiceOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_k: Option<i64>,
    max_tokens: i64,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop_sequences: &'a [String],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<Metadata<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<OutputConfig<'a>>,
}

/// `system`: one prompt as a string, several as text blocks.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum System<'a> {
    Text(&'a str),
    Blocks(Vec<TextBlock<'a>>),
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum TextBlock<'a> {
    Text { text: &'a str },
}

#[derive(Debug, Serialize)]
struct MessageOut<'a> {
    role: &'static str,
    content: Vec<Block<'a>>,
}

/// A content block of a message.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
    },
    Image {
        source: Source<'a>,
    },
    Thinking {
        thinking: &'a str,
        signature: &'a str,
    },
    RedactedThinking {
        data: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: ObjectText<'a>,
    },
    ToolResult {
        tool_use_id: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<ResultContent<'a>>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

/// What a tool result holds: its only text as a string, or text and image blocks.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum ResultContent<'a> {
    Text(&'a str),
    Blocks(Vec<ResultBlock<'a>>),
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ResultBlock<'a> {
    Text { text: &'a str },
    Image { source: Source<'a> },
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Source<'a> {
    Base64 { media_type: &'a str, data: &'a str },
    Url { url: &'a str },
}

#[derive(Debug, Serialize)]
struct ToolOut<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    input_schema: Cow<'a, SchemaText>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ChoiceOut<'a> {
    Auto,
    None,
    Any,
    Tool { name: &'a str },
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Thinking {
    Enabled { budget_tokens: i64 },
}

#[derive(Debug, Serialize)]
struct Metadata<'a> {
    user_id: &'a str,
}

#[derive(Debug, Serialize)]
struct OutputConfig<'a> {
    format: Format<'a>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Format<'a> {
    JsonSchema { schema: &'a Value },
}

/// The thinking budget asked for, or `None` for no thinking.
fn thinking_budget(r: &Reasoning) -> Option<i64> {
    match r.budget_tokens {
        Some(0) => return None,
        Some(b) if b > 0 => return Some(b.max(MIN_THINKING_BUDGET)),
        // Negative budgets (Gemini's -1, "dynamic") fall back to the effort.
        _ => {}
    }
    match r.effort.as_deref() {
        Some("none") => None,
        Some("minimal" | "low") => Some(1024),
        Some("high" | "xhigh" | "max") => Some(16384),
        Some(_) => Some(4096),
        None if r.include_thoughts || r.budget_tokens.is_some() => Some(4096),
        None => None,
    }
}

/// The messages, merged by role.
fn messages(req: &Request) -> Vec<MessageOut<'_>> {
    let mut out: Vec<(Role, Vec<Block<'_>>)> = Vec::with_capacity(req.messages.len());
    for m in &req.messages {
        for p in &m.content {
            // Tool results always belong to the user.
            let role = match p {
                Part::ToolResult { .. } => Role::User,
                _ => m.role,
            };
            let Some(block) = block(p) else { continue };
            match out.last_mut() {
                Some((r, blocks)) if *r == role => blocks.push(block),
                _ => out.push((role, vec![block])),
            }
        }
    }
    out.into_iter()
        .map(|(role, mut content)| {
            let role = match role {
                Role::User => {
                    // Tool results must come first in a user message.
                    content.sort_by_key(|b| !matches!(b, Block::ToolResult { .. }));
                    "user"
                }
                Role::Assistant => "assistant",
            };
            MessageOut { role, content }
        })
        .collect()
}

/// The content block of a part; `None` for empty text and unsigned thinking.
fn block(p: &Part) -> Option<Block<'_>> {
    match p {
        Part::Text(t) if t.is_empty() => None,
        Part::Text(text) => Some(Block::Text { text }),
        Part::Image(src) => Some(Block::Image {
            source: source(src),
        }),
        Part::Thinking {
            text,
            signature: Some(signature),
        } => Some(Block::Thinking {
            thinking: text,
            signature,
        }),
        Part::Thinking {
            signature: None, ..
        } => None,
        Part::RedactedThinking(data) => Some(Block::RedactedThinking { data }),
        Part::ToolCall {
            id,
            name,
            arguments,
        } => Some(Block::ToolUse {
            id,
            name,
            input: ObjectText::of(arguments),
        }),
        Part::ToolResult {
            call_id,
            content,
            is_error,
            ..
        } => {
            // Only text and images are allowed inside; nested results are not followed.
            let mut inner: Vec<ResultBlock<'_>> = content
                .iter()
                .filter_map(|p| match p {
                    Part::Text(text) if !text.is_empty() => Some(ResultBlock::Text { text }),
                    Part::Image(src) => Some(ResultBlock::Image {
                        source: source(src),
                    }),
                    _ => None,
                })
                .collect();
            let content = match inner.as_slice() {
                [] => None,
                [ResultBlock::Text { text }] => Some(ResultContent::Text(text)),
                _ => Some(ResultContent::Blocks(std::mem::take(&mut inner))),
            };
            Some(Block::ToolResult {
                tool_use_id: call_id,
                content,
                is_error: *is_error,
            })
        }
    }
}

/// An image's source; a `data:` URL is sent as a base64 source.
fn source(src: &ImageSource) -> Source<'_> {
    match src {
        ImageSource::Base64 { media_type, data } => Source::Base64 { media_type, data },
        ImageSource::Url(url) => match data_url(url) {
            Some((media_type, data)) => Source::Base64 { media_type, data },
            None => Source::Url { url },
        },
    }
}

/// The media type and base64 data of a `data:<type>;base64,<data>` URL.
fn data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (meta, data) = rest.split_once(',')?;
    let media_type = meta.strip_suffix(";base64")?;
    Some((media_type, data))
}
