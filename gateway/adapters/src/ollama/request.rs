//! Provider side: an IR request encoded as an Ollama `POST /api/chat` body (borrowed,
//! serialisable structs; tool schemas and call arguments go out as the client's JSON text).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::ParseError;
use crate::ir::{ImageSource, Part, Reasoning, Request, Role, SchemaText, ToolChoice};

/// An `/api/chat` body, borrowing the IR request it was made of.
#[derive(Debug, Serialize)]
pub struct Body<'a> {
    model: &'a str,
    messages: Vec<MessageOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ToolOut<'a>>,
    /// Always sent: Ollama streams when it is absent.
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<Format<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    think: Option<Think>,
    #[serde(skip_serializing_if = "Options::is_empty")]
    options: Options<'a>,
}

#[derive(Debug, Serialize)]
struct MessageOut<'a> {
    role: &'static str,
    content: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    thinking: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    images: Vec<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<CallOut<'a>>,
    /// Tool results: the function answered (what Ollama's templates read).
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_name: Option<&'a str>,
    /// Tool results: the call answered (newer Ollama versions; older ones ignore it).
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
}

impl MessageOut<'_> {
    fn new(role: &'static str) -> Self {
        MessageOut {
            role,
            content: String::new(),
            thinking: String::new(),
            images: Vec::new(),
            tool_calls: Vec::new(),
            tool_name: None,
            tool_call_id: None,
        }
    }

    fn is_empty(&self) -> bool {
        self.content.is_empty()
            && self.thinking.is_empty()
            && self.images.is_empty()
            && self.tool_calls.is_empty()
    }
}

#[derive(Debug, Serialize)]
struct CallOut<'a> {
    #[serde(skip_serializing_if = "str::is_empty")]
    id: &'a str,
    function: FunctionCallOut<'a>,
}

#[derive(Debug, Serialize)]
struct FunctionCallOut<'a> {
    name: &'a str,
    /// An object (Ollama refuses argument strings): the call's JSON text when it is an
    /// object, else `{}`.
    arguments: &'a RawValue,
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

/// `format`: `"json"` or a JSON Schema.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Format<'a> {
    Json(&'static str),
    Schema(&'a Value),
}

/// `think`: on/off, or a level (gpt-oss models).
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Think {
    On(bool),
    Level(&'static str),
}

#[derive(Debug, Default, Serialize)]
struct Options<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_k: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    num_predict: Option<i64>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop: &'a [String],
}

impl Options<'_> {
    fn is_empty(&self) -> bool {
        self.temperature.is_none()
            && self.top_p.is_none()
            && self.top_k.is_none()
            && self.num_predict.is_none()
            && self.stop.is_empty()
    }
}

const EMPTY_OBJECT: &str = "{}";

/// Encodes `req` for `POST {base}/api/chat`:
/// - `system` blocks → one leading `system` message (joined by a blank line);
/// - user text → `content` (parts joined by `\n`), images → `images` (raw base64: inline
///   data and `data:` URLs; Ollama fetches nothing, so a remote image URL is
///   `Err(Invalid)`); tool results → one `tool` message each (`content` the result text,
///   `tool_name` from `ToolResult.name` or the earlier call with that id, `tool_call_id`);
/// - assistant text → `content`, thinking → `thinking`, tool calls → `tool_calls` with the
///   arguments as an object; redacted thinking is dropped;
/// - tools → `tools` (`type: function`), left out when `tool_choice` is `none` (Ollama has
///   no tool choice: `required` and named tools are sent as plain tools);
/// - `max_tokens` → `options.num_predict`, `temperature`, `top_p`, `top_k`, `stop` →
///   `options`; `json_output` → `format` (`"json"`, or the schema);
/// - reasoning → `think`: `false` for effort `none`, the level (`low`/`medium`/`high`,
///   `minimal` as `low`) on gpt-oss models, else `true`;
/// - `stream` is always sent (Ollama streams when it is absent). `user` is dropped.
pub fn encode_request<'a>(
    req: &'a Request,
    upstream_model: &'a str,
) -> Result<Body<'a>, ParseError> {
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if !req.system.is_empty() {
        let mut m = MessageOut::new("system");
        m.content = req.system.join("\n\n");
        messages.push(m);
    }
    let names = call_names(req);
    for msg in &req.messages {
        encode_message(msg.role, &msg.content, &names, &mut messages)?;
    }
    let tools = if req.tool_choice == Some(ToolChoice::None) {
        Vec::new()
    } else {
        req.tools
            .iter()
            .map(|t| ToolOut {
                kind: "function",
                function: FunctionOut {
                    name: &t.name,
                    description: t.description.as_deref(),
                    parameters: &t.parameters,
                },
            })
            .collect()
    };
    Ok(Body {
        model: upstream_model,
        messages,
        tools,
        stream: req.stream,
        format: req.json_output.as_ref().map(|j| match j {
            Value::Null => Format::Json("json"),
            schema => Format::Schema(schema),
        }),
        think: req.reasoning.as_ref().map(|r| think(r, upstream_model)),
        options: Options {
            temperature: req.temperature,
            top_p: req.top_p,
            top_k: req.top_k,
            num_predict: req.max_tokens,
            stop: &req.stop,
        },
    })
}

/// Function names of the tool calls in the history, by call id.
fn call_names(req: &Request) -> HashMap<&str, &str> {
    let mut names = HashMap::new();
    for m in &req.messages {
        for p in &m.content {
            if let Part::ToolCall { id, name, .. } = p {
                names.insert(id.as_str(), name.as_str());
            }
        }
    }
    names
}

fn encode_message<'a>(
    role: Role,
    parts: &'a [Part],
    names: &HashMap<&'a str, &'a str>,
    out: &mut Vec<MessageOut<'a>>,
) -> Result<(), ParseError> {
    let role_name = match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let mut cur = MessageOut::new(role_name);
    for p in parts {
        match p {
            Part::Text(t) => push_line(&mut cur.content, t),
            Part::Image(src) => cur.images.push(inline_image(src)?),
            Part::Thinking { text, .. } => cur.thinking.push_str(text),
            Part::RedactedThinking(_) => {}
            Part::ToolCall {
                id,
                name,
                arguments,
            } => cur.tool_calls.push(CallOut {
                id,
                function: FunctionCallOut {
                    name,
                    arguments: object_text(arguments),
                },
            }),
            Part::ToolResult {
                call_id,
                name,
                content,
                ..
            } => {
                // Results are messages of their own, in order with the text around them.
                if !cur.is_empty() {
                    out.push(std::mem::replace(&mut cur, MessageOut::new(role_name)));
                }
                let mut m = MessageOut::new("tool");
                for c in content {
                    match c {
                        Part::Text(t) => push_line(&mut m.content, t),
                        Part::Image(src) => m.images.push(inline_image(src)?),
                        _ => {}
                    }
                }
                m.tool_name = name
                    .as_deref()
                    .or_else(|| names.get(call_id.as_str()).copied());
                m.tool_call_id = Some(call_id).filter(|c| !c.is_empty()).map(String::as_str);
                out.push(m);
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    Ok(())
}

fn push_line(out: &mut String, text: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(text);
}

/// The raw base64 of an inline image (Ollama takes no media type and no URL).
fn inline_image(src: &ImageSource) -> Result<&str, ParseError> {
    match src {
        ImageSource::Base64 { data, .. } => Ok(data),
        ImageSource::Url(url) => url
            .strip_prefix("data:")
            .and_then(|rest| rest.split_once(";base64,"))
            .map(|(_, data)| data)
            .ok_or_else(|| {
                ParseError::Invalid(
                    "Ollama takes images inline only (base64 or a data: URL), not image URLs"
                        .to_owned(),
                )
            }),
    }
}

/// `text` when it is a JSON object, else `{}`.
fn object_text(text: &str) -> &RawValue {
    let empty = || serde_json::from_str::<&RawValue>(EMPTY_OBJECT);
    match serde_json::from_str::<&RawValue>(text) {
        Ok(raw) if raw.get().starts_with('{') => raw,
        _ => match empty() {
            Ok(raw) => raw,
            // `{}` always parses.
            Err(_) => RawValue::NULL,
        },
    }
}

fn think(r: &Reasoning, model: &str) -> Think {
    let level = match r.effort.as_deref() {
        Some("none") => return Think::On(false),
        Some("minimal" | "low") => Some("low"),
        Some("medium") => Some("medium"),
        Some("high" | "xhigh") => Some("high"),
        _ => None,
    };
    match level {
        Some(l) if model.contains("gpt-oss") => Think::Level(l),
        _ => Think::On(true),
    }
}
