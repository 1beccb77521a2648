//! IR request → Bedrock `Converse` / `ConverseStream` body (the model id and the stream
//! choice go in the URL). Borrowed, serialisable structs: no `Value` tree is built.

use std::borrow::Cow;

use serde::Serialize;

use super::models::is_claude;
use crate::ParseError;
use crate::ir::{ImageSource, Part, Reasoning, Request, Role, SchemaText, ToolChoice};
use crate::json_out::ObjectText;

/// Anthropic's smallest thinking budget (Claude on Bedrock has the same rule).
const MIN_THINKING_BUDGET: i64 = 1024;

/// Encodes `req` for Converse on `model_id`:
/// - `system` → `system` text blocks (empty ones left out); messages → `messages` with
///   consecutive messages of one role merged (Bedrock requires alternation), tool results
///   first in their user message, empty text and empty messages left out;
/// - text → `text`; images → `image` with `format` (`png`, `jpeg`, `gif`, `webp`) and
///   `source.bytes` (base64 data, or a `data:` URL's). An `http(s)` image URL is an `Err`:
///   Converse takes bytes or S3 locations only and the adapters do no I/O;
/// - signed thinking → `reasoningContent.reasoningText` (unsigned thinking from other
///   providers is dropped: it cannot be replayed); redacted → `redactedContent`;
/// - tool calls → `toolUse` (input parsed to an object); results → `toolResult` (`text`
///   and `image` content, `status: error` for errors);
/// - `max_tokens`, `temperature`, `top_p`, `stop` → `inferenceConfig`;
/// - tools → `toolConfig.tools[].toolSpec` (`inputSchema.json`); `tool_choice` `auto` →
///   `auto`, `required` → `any`, a tool → `tool`; `none` has no Converse equivalent: the
///   tools are still sent (Bedrock needs them when the history holds tool blocks), without
///   a choice;
/// - Claude models only (`additionalModelRequestFields`): `top_k`, and reasoning as
///   Anthropic's `thinking` (budget as in `claude::encode_request`: a positive budget, at
///   least 1024, or the effort: `minimal`/`low` 1024, `medium` 4096, `high` 16384; with
///   thinking `temperature` and a `top_p` below 0.95 are left out and `maxTokens` (4096
///   when not given) is raised by the budget when it does not exceed it; not with a forced
///   tool). Other models get
///   no reasoning fields (they differ per vendor).
/// - `user` and `json_output` have no Converse field and are dropped.
pub fn encode_request<'a>(req: &'a Request, model_id: &str) -> Result<Body<'a>, ParseError> {
    let claude = is_claude(model_id);
    let forced_tool = matches!(
        req.tool_choice,
        Some(ToolChoice::Required | ToolChoice::Tool(_))
    ) && !req.tools.is_empty();
    let budget = req
        .reasoning
        .as_ref()
        .and_then(thinking_budget)
        .filter(|_| claude && !forced_tool);
    let mut max_tokens = req.max_tokens.filter(|n| *n > 0);
    let (temperature, top_p) = match budget {
        Some(b) => {
            // Claude needs `max_tokens` above the budget; Bedrock's default may not be.
            let m = max_tokens.unwrap_or(crate::claude::DEFAULT_MAX_TOKENS);
            max_tokens = Some(if m <= b { m.saturating_add(b) } else { m });
            (None, req.top_p.filter(|p| (0.95..=1.0).contains(p)))
        }
        None => (req.temperature, req.top_p),
    };
    let additional = if claude && (budget.is_some() || req.top_k.is_some()) {
        Some(Additional {
            thinking: budget.map(|budget_tokens| Thinking {
                kind: "enabled",
                budget_tokens,
            }),
            top_k: req.top_k.filter(|_| budget.is_none()),
        })
    } else {
        None
    };
    let tool_config = (!req.tools.is_empty()).then(|| ToolConfig {
        tools: req
            .tools
            .iter()
            .map(|t| ToolOut {
                tool_spec: ToolSpec {
                    name: &t.name,
                    description: t.description.as_deref().filter(|d| !d.is_empty()),
                    input_schema: InputSchema {
                        json: if t.parameters.is_object() {
                            Cow::Borrowed(&t.parameters)
                        } else {
                            Cow::Owned(SchemaText::empty_object())
                        },
                    },
                },
            })
            .collect(),
        tool_choice: match &req.tool_choice {
            Some(ToolChoice::Auto) => Some(Choice::Auto {}),
            Some(ToolChoice::Required) => Some(Choice::Any {}),
            Some(ToolChoice::Tool(name)) => Some(Choice::Tool { name }),
            Some(ToolChoice::None) | None => None,
        },
    });
    let inference = InferenceConfig {
        max_tokens,
        temperature,
        top_p,
        stop_sequences: &req.stop,
    };
    Ok(Body {
        messages: messages(req)?,
        system: req
            .system
            .iter()
            .filter(|s| !s.is_empty())
            .map(|text| SystemBlock { text })
            .collect(),
        inference_config: (!inference.is_empty()).then_some(inference),
        tool_config,
        additional_model_request_fields: additional,
    })
}

/// A Converse request body, borrowing the IR request it was made of.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Body<'a> {
    messages: Vec<MessageOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    system: Vec<SystemBlock<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inference_config: Option<InferenceConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_config: Option<ToolConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_model_request_fields: Option<Additional>,
}

#[derive(Debug, Serialize)]
struct SystemBlock<'a> {
    text: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct InferenceConfig<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop_sequences: &'a [String],
}

impl InferenceConfig<'_> {
    fn is_empty(&self) -> bool {
        self.max_tokens.is_none()
            && self.temperature.is_none()
            && self.top_p.is_none()
            && self.stop_sequences.is_empty()
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolConfig<'a> {
    tools: Vec<ToolOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Choice<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolOut<'a> {
    tool_spec: ToolSpec<'a>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolSpec<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    input_schema: InputSchema<'a>,
}

#[derive(Debug, Serialize)]
struct InputSchema<'a> {
    json: Cow<'a, SchemaText>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
enum Choice<'a> {
    Auto {},
    Any {},
    Tool { name: &'a str },
}

#[derive(Debug, Serialize)]
struct Additional {
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_k: Option<i64>,
}

#[derive(Debug, Serialize)]
struct Thinking {
    #[serde(rename = "type")]
    kind: &'static str,
    budget_tokens: i64,
}

#[derive(Debug, Serialize)]
struct MessageOut<'a> {
    role: &'static str,
    content: Vec<Block<'a>>,
}

/// A content block (Converse blocks are objects with one member naming the kind).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
enum Block<'a> {
    Text(&'a str),
    Image(Image<'a>),
    ReasoningContent(Reasoned<'a>),
    ToolUse {
        #[serde(rename = "toolUseId")]
        tool_use_id: &'a str,
        name: &'a str,
        input: ObjectText<'a>,
    },
    ToolResult {
        #[serde(rename = "toolUseId")]
        tool_use_id: &'a str,
        content: Vec<ResultBlock<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<&'static str>,
    },
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
enum ResultBlock<'a> {
    Text(&'a str),
    Image(Image<'a>),
}

#[derive(Debug, Serialize)]
struct Image<'a> {
    format: &'static str,
    source: ImageBytes<'a>,
}

#[derive(Debug, Serialize)]
struct ImageBytes<'a> {
    bytes: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
enum Reasoned<'a> {
    ReasoningText { text: &'a str, signature: &'a str },
    RedactedContent(&'a str),
}

/// The thinking budget asked for, or `None` for no thinking.
fn thinking_budget(r: &Reasoning) -> Option<i64> {
    match r.budget_tokens {
        Some(0) => return None,
        Some(b) if b > 0 => return Some(b.max(MIN_THINKING_BUDGET)),
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

/// The messages, merged by role, tool results first in user messages.
fn messages(req: &Request) -> Result<Vec<MessageOut<'_>>, ParseError> {
    let mut out: Vec<MessageOut<'_>> = Vec::with_capacity(req.messages.len());
    for m in &req.messages {
        let role = match m.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        let mut blocks = Vec::with_capacity(m.content.len());
        for p in &m.content {
            if let Some(b) = block(p)? {
                blocks.push(b);
            }
        }
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.role == role => last.content.extend(blocks),
            _ => out.push(MessageOut {
                role,
                content: blocks,
            }),
        }
    }
    for m in out.iter_mut().filter(|m| m.role == "user") {
        // Stable: results keep their order, and so does the rest.
        m.content
            .sort_by_key(|b| !matches!(b, Block::ToolResult { .. }));
    }
    Ok(out)
}

fn block(p: &Part) -> Result<Option<Block<'_>>, ParseError> {
    Ok(match p {
        Part::Text(t) if t.is_empty() => None,
        Part::Text(t) => Some(Block::Text(t)),
        Part::Image(src) => Some(Block::Image(image(src)?)),
        Part::Thinking {
            text,
            signature: Some(signature),
        } => Some(Block::ReasoningContent(Reasoned::ReasoningText {
            text,
            signature,
        })),
        Part::Thinking {
            signature: None, ..
        } => None,
        Part::RedactedThinking(data) => {
            Some(Block::ReasoningContent(Reasoned::RedactedContent(data)))
        }
        Part::ToolCall {
            id,
            name,
            arguments,
        } => Some(Block::ToolUse {
            tool_use_id: id,
            name,
            input: ObjectText::of(arguments),
        }),
        Part::ToolResult {
            call_id,
            content,
            is_error,
            ..
        } => {
            let mut inner = Vec::with_capacity(content.len());
            for p in content {
                match p {
                    Part::Text(t) if !t.is_empty() => inner.push(ResultBlock::Text(t)),
                    Part::Image(src) => inner.push(ResultBlock::Image(image(src)?)),
                    _ => {}
                }
            }
            Some(Block::ToolResult {
                tool_use_id: call_id,
                content: inner,
                status: is_error.then_some("error"),
            })
        }
    })
}

/// An image as Converse takes it: base64 bytes and a format.
fn image(src: &ImageSource) -> Result<Image<'_>, ParseError> {
    let (media_type, data) = match src {
        ImageSource::Base64 { media_type, data } => (media_type.as_str(), data.as_str()),
        ImageSource::Url(url) => data_url(url).ok_or_else(|| {
            ParseError::Invalid(
                "Bedrock Converse cannot fetch image URLs: send the image inline (base64 or a data: URL)"
                    .into(),
            )
        })?,
    };
    let format = match media_type.to_ascii_lowercase().as_str() {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpeg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => {
            return Err(ParseError::Invalid(format!(
                "Bedrock Converse takes png, jpeg, gif and webp images, not {media_type:?}"
            )));
        }
    };
    Ok(Image {
        format,
        source: ImageBytes { bytes: data },
    })
}

/// The media type and base64 data of a `data:<type>;base64,<data>` URL.
fn data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (meta, data) = rest.split_once(',')?;
    Some((meta.strip_suffix(";base64")?, data))
}
