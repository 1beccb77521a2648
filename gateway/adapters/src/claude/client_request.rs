//! Client side: a `POST /v1/messages` (or `/v1/messages/count_tokens`) body decoded to an IR
//! request.

use serde_json::{Map, Value};

use super::wire::{signature, str_field};
use crate::ParseError;
use crate::ir::{
    ImageSource, Message, Part, Reasoning, Request, Role, SchemaText, Tool, ToolChoice,
};

/// Decodes a Messages request body; `max_tokens` is required, as Anthropic requires it.
///
/// Converted: `model`, `max_tokens`, `system` (a string or text blocks), `messages` (text,
/// image, tool_use, tool_result, thinking, redacted_thinking blocks; a `document` with a
/// plain-text source becomes text), custom `tools`, `tool_choice`, `temperature`, `top_p`,
/// `top_k`, `stop_sequences`, `stream`, `thinking` (`enabled` with its budget, `adaptive`
/// with `output_config.effort`), `metadata.user_id` and a JSON-schema output format
/// (`output_config.format` or the beta `output_format`).
///
/// Dropped: `cache_control`, citations, server tools (a `type` other than `custom`) and
/// the blocks they produce (`server_tool_use`, `*_tool_result`, …), `container`,
/// `mcp_servers`, `service_tier` and `disable_parallel_tool_use`. Images or documents that
/// point to uploaded files cannot be passed on and are refused.
pub fn decode_request(body: &[u8]) -> Result<Request, ParseError> {
    decode(body, true)
}

/// Decodes a `POST /v1/messages/count_tokens` body: as [`decode_request`], but without
/// `max_tokens`.
pub fn decode_count_tokens(body: &[u8]) -> Result<Request, ParseError> {
    decode(body, false)
}

fn decode(body: &[u8], needs_max_tokens: bool) -> Result<Request, ParseError> {
    let v: Value =
        serde_json::from_slice(body).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
    let Value::Object(body) = v else {
        return Err(invalid("the body must be a JSON object"));
    };
    let model = match body.get("model") {
        Some(Value::String(m)) if !m.trim().is_empty() => m.trim().to_owned(),
        _ => return Err(ParseError::MissingModel),
    };
    let max_tokens = match body.get("max_tokens") {
        None | Some(Value::Null) if !needs_max_tokens => None,
        None | Some(Value::Null) => return Err(invalid("field `max_tokens` is required")),
        Some(v) => match v.as_i64() {
            Some(n) if n >= 1 => Some(n),
            _ => return Err(invalid("field `max_tokens` must be a positive integer")),
        },
    };
    let messages = match body.get("messages") {
        Some(Value::Array(m)) if !m.is_empty() => m,
        _ => return Err(invalid("field `messages` must be a non-empty array")),
    };
    let mut conv = Conversation::default();
    for (i, m) in messages.iter().enumerate() {
        conv.add(i, m)?;
    }
    let num = |k: &str| body.get(k).and_then(Value::as_f64);
    Ok(Request {
        model,
        system: system(body.get("system"))?,
        messages: conv.messages,
        tools: tools(body.get("tools"))?,
        tool_choice: tool_choice(body.get("tool_choice"))?,
        max_tokens,
        temperature: num("temperature"),
        top_p: num("top_p"),
        top_k: body.get("top_k").and_then(Value::as_i64),
        stop: stop_sequences(body.get("stop_sequences"))?,
        stream: body.get("stream").and_then(Value::as_bool).unwrap_or(false),
        reasoning: reasoning(&body),
        user: body
            .get("metadata")
            .and_then(|m| str_field(m, "user_id"))
            .filter(|u| !u.is_empty())
            .map(str::to_owned),
        json_output: json_output(&body),
    })
}

fn invalid(msg: &str) -> ParseError {
    ParseError::Invalid(msg.to_owned())
}

/// `system`: a string or an array of text blocks (empty text is dropped).
fn system(v: Option<&Value>) -> Result<Vec<String>, ParseError> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) if s.is_empty() => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(blocks)) => {
            let mut out = Vec::new();
            for (i, b) in blocks.iter().enumerate() {
                match (str_field(b, "type"), str_field(b, "text")) {
                    (Some("text"), Some(t)) => {
                        if !t.is_empty() {
                            out.push(t.to_owned());
                        }
                    }
                    _ => {
                        return Err(ParseError::Invalid(format!(
                            "system[{i}] must be a text block with a `text` string"
                        )));
                    }
                }
            }
            Ok(out)
        }
        Some(_) => Err(invalid(
            "field `system` must be a string or an array of text blocks",
        )),
    }
}

/// The conversation being decoded.
#[derive(Default)]
struct Conversation {
    messages: Vec<Message>,
    /// Tool call ids and names seen so far (tool results carry no name; Gemini needs it).
    calls: Vec<(String, String)>,
}

impl Conversation {
    fn add(&mut self, i: usize, m: &Value) -> Result<(), ParseError> {
        let role = match str_field(m, "role") {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some(other) => {
                return Err(ParseError::Invalid(format!(
                    "messages[{i}].role {other:?} is not supported (expected user or assistant)"
                )));
            }
            None => {
                return Err(ParseError::Invalid(format!(
                    "messages[{i}].role is required"
                )));
            }
        };
        let content = match m.get("content") {
            Some(Value::String(s)) if s.is_empty() => Vec::new(),
            Some(Value::String(s)) => vec![Part::Text(s.clone())],
            Some(Value::Array(blocks)) => {
                let mut out = Vec::with_capacity(blocks.len());
                for (j, b) in blocks.iter().enumerate() {
                    if let Some(p) = self.block(i, j, b)? {
                        out.push(p);
                    }
                }
                out
            }
            _ => {
                return Err(ParseError::Invalid(format!(
                    "messages[{i}].content must be a string or an array of content blocks"
                )));
            }
        };
        if !content.is_empty() {
            self.messages.push(Message { role, content });
        }
        Ok(())
    }

    /// One content block; `None` for blocks the IR has no place for.
    fn block(&mut self, i: usize, j: usize, b: &Value) -> Result<Option<Part>, ParseError> {
        let at = |field: &str, problem: &str| {
            ParseError::Invalid(format!("messages[{i}].content[{j}].{field} {problem}"))
        };
        let kind = str_field(b, "type").ok_or_else(|| at("type", "is required"))?;
        let part = match kind {
            "text" => {
                let t = str_field(b, "text").ok_or_else(|| at("text", "must be a string"))?;
                if t.is_empty() {
                    return Ok(None);
                }
                Part::Text(t.to_owned())
            }
            "image" => Part::Image(image_source(b).map_err(|e| at("source", &e))?),
            "document" => match document_text(b).map_err(|e| at("source", &e))? {
                Some(t) => Part::Text(t),
                None => return Ok(None),
            },
            "tool_use" => {
                let id = str_field(b, "id").ok_or_else(|| at("id", "is required"))?;
                let name = str_field(b, "name").ok_or_else(|| at("name", "is required"))?;
                self.calls.push((id.to_owned(), name.to_owned()));
                Part::ToolCall {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    arguments: match b.get("input") {
                        None | Some(Value::Null) => "{}".to_owned(),
                        Some(input) => input.to_string(),
                    },
                }
            }
            "tool_result" => {
                let call_id = str_field(b, "tool_use_id")
                    .ok_or_else(|| at("tool_use_id", "is required"))?
                    .to_owned();
                let name = self
                    .calls
                    .iter()
                    .rev()
                    .find(|(id, _)| *id == call_id)
                    .map(|(_, n)| n.clone());
                Part::ToolResult {
                    call_id,
                    name,
                    content: tool_result_content(b.get("content"))
                        .map_err(|e| at("content", &e))?,
                    is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                }
            }
            "thinking" => Part::Thinking {
                text: str_field(b, "thinking")
                    .ok_or_else(|| at("thinking", "must be a string"))?
                    .to_owned(),
                signature: signature(b),
            },
            "redacted_thinking" => Part::RedactedThinking(
                str_field(b, "data")
                    .ok_or_else(|| at("data", "must be a string"))?
                    .to_owned(),
            ),
            // Server tool calls and their results, search results, container uploads, …
            _ => return Ok(None),
        };
        Ok(Some(part))
    }
}

/// An image block's source: `base64` or `url` (a `file` upload cannot be passed on).
fn image_source(b: &Value) -> Result<ImageSource, String> {
    let src = b.get("source").ok_or("is required")?;
    match str_field(src, "type") {
        Some("base64") => Ok(ImageSource::Base64 {
            media_type: str_field(src, "media_type")
                .ok_or("needs a `media_type` string")?
                .to_owned(),
            data: str_field(src, "data")
                .ok_or("needs a `data` string")?
                .to_owned(),
        }),
        Some("url") => Ok(ImageSource::Url(
            str_field(src, "url")
                .ok_or("needs a `url` string")?
                .to_owned(),
        )),
        Some(other) => Err(format!("type {other:?} is not supported (base64 or url)")),
        None => Err("needs a `type`".to_owned()),
    }
}

/// A document block's text when its source is plain text (empty text is `None`); other
/// sources (PDF, files, URLs) are refused.
fn document_text(b: &Value) -> Result<Option<String>, String> {
    let src = b.get("source").ok_or("is required")?;
    match str_field(src, "type") {
        Some("text") => Ok(str_field(src, "data")
            .filter(|t| !t.is_empty())
            .map(str::to_owned)),
        Some(other) => Err(format!(
            "type {other:?} is not supported for documents here (only plain text)"
        )),
        None => Err("needs a `type`".to_owned()),
    }
}

/// A tool result's content: a string or text and image blocks (other blocks are dropped).
fn tool_result_content(v: Option<&Value>) -> Result<Vec<Part>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) if s.is_empty() => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![Part::Text(s.clone())]),
        Some(Value::Array(blocks)) => {
            let mut out = Vec::new();
            for b in blocks {
                match str_field(b, "type") {
                    Some("text") => match str_field(b, "text") {
                        Some("") => {}
                        Some(t) => out.push(Part::Text(t.to_owned())),
                        None => return Err("text blocks need a `text` string".to_owned()),
                    },
                    Some("image") => out.push(Part::Image(image_source(b)?)),
                    _ => {}
                }
            }
            Ok(out)
        }
        Some(_) => Err("must be a string or an array of content blocks".to_owned()),
    }
}

/// Custom tools; server tools (a `type` other than `custom`) are skipped.
fn tools(v: Option<&Value>) -> Result<Vec<Tool>, ParseError> {
    let tools = match v {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(t)) => t,
        Some(_) => return Err(invalid("field `tools` must be an array")),
    };
    let mut out = Vec::with_capacity(tools.len());
    for (i, t) in tools.iter().enumerate() {
        if !matches!(t.get("type"), None | Some(Value::Null))
            && str_field(t, "type") != Some("custom")
        {
            continue;
        }
        let name = str_field(t, "name")
            .ok_or_else(|| ParseError::Invalid(format!("tools[{i}].name is required")))?;
        out.push(Tool {
            name: name.to_owned(),
            description: str_field(t, "description").map(str::to_owned),
            parameters: match t.get("input_schema") {
                Some(s @ Value::Object(_)) => SchemaText::from(s),
                _ => {
                    return Err(ParseError::Invalid(format!(
                        "tools[{i}].input_schema must be an object"
                    )));
                }
            },
        });
    }
    Ok(out)
}

/// `tool_choice`: `{type: auto | any | none | tool, name}`.
fn tool_choice(v: Option<&Value>) -> Result<Option<ToolChoice>, ParseError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    match str_field(v, "type") {
        Some("auto") => Ok(Some(ToolChoice::Auto)),
        Some("any") => Ok(Some(ToolChoice::Required)),
        Some("none") => Ok(Some(ToolChoice::None)),
        Some("tool") => match str_field(v, "name") {
            Some(n) => Ok(Some(ToolChoice::Tool(n.to_owned()))),
            None => Err(invalid(
                "tool_choice.name is required when its type is tool",
            )),
        },
        _ => Err(invalid(
            "tool_choice.type must be one of auto, any, tool or none",
        )),
    }
}

fn stop_sequences(v: Option<&Value>) -> Result<Vec<String>, ParseError> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| invalid("stop_sequences must be an array of strings"))
            })
            .collect(),
        Some(_) => Err(invalid("stop_sequences must be an array of strings")),
    }
}

/// `thinking`: `enabled` gives its budget; `adaptive` lets the model decide, guided by
/// `output_config.effort` (`max`/`xhigh` map to `high`, the IR's top level); `disabled`
/// or absent asks for none.
fn reasoning(body: &Map<String, Value>) -> Option<Reasoning> {
    let thinking = body.get("thinking")?;
    match str_field(thinking, "type") {
        Some("enabled") => Some(Reasoning {
            effort: None,
            budget_tokens: thinking.get("budget_tokens").and_then(Value::as_i64),
            include_thoughts: true,
        }),
        Some("adaptive") => Some(Reasoning {
            effort: body
                .get("output_config")
                .and_then(|c| str_field(c, "effort"))
                .map(|e| match e {
                    "max" | "xhigh" => "high".to_owned(),
                    other => other.to_owned(),
                }),
            budget_tokens: None,
            include_thoughts: true,
        }),
        _ => None,
    }
}

/// A JSON-schema output format (`output_config.format`, or the beta `output_format`).
fn json_output(body: &Map<String, Value>) -> Option<Value> {
    let format = body
        .get("output_config")
        .and_then(|c| c.get("format"))
        .filter(|f| !f.is_null())
        .or_else(|| body.get("output_format").filter(|f| !f.is_null()))?;
    if str_field(format, "type") != Some("json_schema") {
        return None;
    }
    Some(format.get("schema").cloned().unwrap_or(Value::Null))
}
