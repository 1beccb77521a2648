//! Decodes a Responses API request (`POST /v1/responses`) into the IR: `input` items become
//! turns (consecutive items of one role merged), `instructions` and system/developer
//! messages the system prompt, flat function tools the IR tools.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::ParseError;
use crate::ir::{
    ImageSource, Message, Part, Reasoning, Request, Role, SchemaText, Tool, ToolChoice,
};

/// Request fields that point at state stored by OpenAI, which this gateway does not keep.
const STATEFUL_FIELDS: [&str; 3] = ["previous_response_id", "conversation", "prompt"];

/// Decodes a Responses request body.
pub fn decode_request(body: &[u8]) -> Result<Request, ParseError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
    let Value::Object(obj) = value else {
        return Err(invalid("the request body must be a JSON object"));
    };
    let model = match obj.get("model") {
        Some(Value::String(m)) if !m.trim().is_empty() => m.trim().to_owned(),
        _ => return Err(ParseError::MissingModel),
    };
    for key in STATEFUL_FIELDS {
        if obj.get(key).is_some_and(|v| !v.is_null()) {
            return Err(invalid(&format!(
                "field `{key}` is not supported: responses are not stored here; \
                 send the whole conversation in `input`"
            )));
        }
    }

    let mut turns = Turns::default();
    if let Some(instructions) = opt_str(&obj, "instructions")? {
        turns.system.push(instructions.to_owned());
    }
    match obj.get("input") {
        Some(Value::String(text)) => turns.push(Role::User, Part::Text(text.clone())),
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                turns.item(i, item)?;
            }
        }
        None | Some(Value::Null) => return Err(invalid("field `input` is required")),
        Some(_) => return Err(invalid("field `input` must be a string or an array")),
    }

    Ok(Request {
        model,
        system: turns.system,
        messages: turns.messages,
        tools: tools(obj.get("tools"))?,
        tool_choice: tool_choice(obj.get("tool_choice"))?,
        max_tokens: opt_i64(&obj, "max_output_tokens")?,
        temperature: opt_f64(&obj, "temperature")?,
        top_p: opt_f64(&obj, "top_p")?,
        top_k: None,
        stop: Vec::new(),
        stream: match obj.get("stream") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(invalid("field `stream` must be a boolean")),
        },
        reasoning: reasoning(obj.get("reasoning"))?,
        user: opt_str(&obj, "user")?.map(str::to_owned),
        json_output: json_output(obj.get("text"))?,
    })
}

/// The conversation being assembled from `input` items.
#[derive(Default)]
struct Turns {
    system: Vec<String>,
    messages: Vec<Message>,
    /// Function names by call id, so tool results can name their function.
    call_names: HashMap<String, String>,
}

impl Turns {
    /// Adds a part to the last turn when it has `role`, else starts a turn.
    fn push(&mut self, role: Role, part: Part) {
        match self.messages.last_mut() {
            Some(m) if m.role == role => m.content.push(part),
            _ => self.messages.push(Message {
                role,
                content: vec![part],
            }),
        }
    }

    /// Adds input item `i`.
    fn item(&mut self, i: usize, item: &Value) -> Result<(), ParseError> {
        let Value::Object(item) = item else {
            return Err(invalid(&format!("`input[{i}]` must be an object")));
        };
        match item.get("type").and_then(Value::as_str) {
            None | Some("message") => self.message(i, item),
            Some("function_call") => {
                let id = req_str(item, "call_id", i)?.to_owned();
                let name = req_str(item, "name", i)?.to_owned();
                let arguments = match item.get("arguments") {
                    Some(Value::String(a)) => a.clone(),
                    None | Some(Value::Null) => String::new(),
                    Some(other) => other.to_string(),
                };
                self.call_names.insert(id.clone(), name.clone());
                self.push(
                    Role::Assistant,
                    Part::ToolCall {
                        id,
                        name,
                        arguments,
                    },
                );
                Ok(())
            }
            Some("function_call_output") => {
                let call_id = req_str(item, "call_id", i)?.to_owned();
                let content = match item.get("output") {
                    Some(Value::String(s)) => vec![Part::Text(s.clone())],
                    Some(Value::Array(parts)) => parts.iter().filter_map(content_part).collect(),
                    None | Some(Value::Null) => Vec::new(),
                    Some(_) => {
                        return Err(invalid(&format!(
                            "`input[{i}].output` must be a string or an array"
                        )));
                    }
                };
                let name = self.call_names.get(&call_id).cloned();
                self.push(
                    Role::User,
                    Part::ToolResult {
                        call_id,
                        name,
                        content,
                        is_error: false,
                    },
                );
                Ok(())
            }
            Some("reasoning") => {
                self.reasoning(item);
                Ok(())
            }
            // item_reference and built-in tool items (web search, file search, computer,
            // shell, custom tools...) have no IR form.
            Some(_) => Ok(()),
        }
    }

    /// Adds a `message` item.
    fn message(&mut self, i: usize, item: &Map<String, Value>) -> Result<(), ParseError> {
        let role = match item.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("system" | "developer") => {
                match item.get("content") {
                    Some(Value::String(s)) => self.system.push(s.clone()),
                    Some(Value::Array(parts)) => {
                        for p in parts {
                            if let Some(Part::Text(t)) = content_part(p) {
                                self.system.push(t);
                            }
                        }
                    }
                    _ => return Err(bad_content(i)),
                }
                return Ok(());
            }
            Some(other) => {
                return Err(invalid(&format!(
                    "`input[{i}].role` {other:?} is not one of user, assistant, system, developer"
                )));
            }
            None => return Err(invalid(&format!("`input[{i}].role` is required"))),
        };
        match item.get("content") {
            Some(Value::String(s)) => self.push(role, Part::Text(s.clone())),
            Some(Value::Array(parts)) => {
                for part in parts.iter().filter_map(content_part) {
                    self.push(role, part);
                }
            }
            _ => return Err(bad_content(i)),
        }
        Ok(())
    }

    /// Adds a `reasoning` item to the assistant turn: summary text with its encrypted
    /// content (a thinking signature) as thinking, encrypted content alone as redacted.
    fn reasoning(&mut self, item: &Map<String, Value>) {
        let mut text = String::new();
        for key in ["summary", "content"] {
            let Some(Value::Array(parts)) = item.get(key) else {
                continue;
            };
            for p in parts {
                if let Some(t) = p.get("text").and_then(Value::as_str) {
                    if !text.is_empty() {
                        text.push_str("\n\n");
                    }
                    text.push_str(t);
                }
            }
            if !text.is_empty() {
                break;
            }
        }
        let encrypted = item
            .get("encrypted_content")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        let part = match (text.is_empty(), encrypted) {
            (false, signature) => Part::Thinking { text, signature },
            (true, Some(data)) => Part::RedactedThinking(data),
            (true, None) => return,
        };
        self.push(Role::Assistant, part);
    }
}

/// One content part of a message or tool output; `None` for parts with no IR form
/// (files, audio, images given by file id).
fn content_part(p: &Value) -> Option<Part> {
    match p.get("type").and_then(Value::as_str)? {
        "input_text" | "output_text" | "text" => {
            Some(Part::Text(p.get("text")?.as_str()?.to_owned()))
        }
        "refusal" => Some(Part::Text(p.get("refusal")?.as_str()?.to_owned())),
        "input_image" => {
            let url = match p.get("image_url")? {
                Value::String(u) => u,
                // Chat Completions shape, sent by some clients.
                other => other.get("url")?.as_str()?,
            };
            Some(Part::Image(image_source(url)))
        }
        _ => None,
    }
}

/// A `data:<type>;base64,<data>` URL as inline bytes; any other URL as is.
fn image_source(url: &str) -> ImageSource {
    if let Some(rest) = url.strip_prefix("data:")
        && let Some((header, data)) = rest.split_once(',')
        && let Some(media_type) = header.strip_suffix(";base64")
    {
        return ImageSource::Base64 {
            media_type: media_type.to_owned(),
            data: data.to_owned(),
        };
    }
    ImageSource::Url(url.to_owned())
}

/// The function tools (flat `{type: function, name, ...}`); built-in tools are left out.
fn tools(v: Option<&Value>) -> Result<Vec<Tool>, ParseError> {
    let items = match v {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(invalid("field `tools` must be an array")),
    };
    let mut out = Vec::new();
    for (i, t) in items.iter().enumerate() {
        if t.get("type").and_then(Value::as_str) != Some("function") {
            continue;
        }
        // Tolerate the nested Chat Completions shape `{type, function: {...}}`.
        let f = t.get("function").filter(|f| f.is_object()).unwrap_or(t);
        let name = match f.get("name") {
            Some(Value::String(n)) if !n.is_empty() => n.clone(),
            _ => return Err(invalid(&format!("`tools[{i}].name` is required"))),
        };
        let parameters = match f.get("parameters") {
            None | Some(Value::Null) => SchemaText::empty_object(),
            Some(p) => SchemaText::from(p),
        };
        out.push(Tool {
            name,
            description: f
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            parameters,
        });
    }
    Ok(out)
}

/// `tool_choice`: a mode string or an object naming a function. Objects forcing a built-in
/// tool fall back to the provider default.
fn tool_choice(v: Option<&Value>) -> Result<Option<ToolChoice>, ParseError> {
    let choice = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => match s.as_str() {
            "auto" => ToolChoice::Auto,
            "none" => ToolChoice::None,
            "required" => ToolChoice::Required,
            other => {
                return Err(invalid(&format!(
                    "`tool_choice` {other:?} is not one of auto, none, required"
                )));
            }
        },
        Some(Value::Object(o)) => match o.get("type").and_then(Value::as_str) {
            Some("function") => {
                let name = o
                    .get("name")
                    .or_else(|| o.get("function").and_then(|f| f.get("name")))
                    .and_then(Value::as_str);
                match name {
                    Some(n) => ToolChoice::Tool(n.to_owned()),
                    None => return Err(invalid("`tool_choice.name` is required")),
                }
            }
            Some("allowed_tools") => match o.get("mode").and_then(Value::as_str) {
                Some("required") => ToolChoice::Required,
                _ => ToolChoice::Auto,
            },
            _ => return Ok(None),
        },
        Some(_) => return Err(invalid("field `tool_choice` must be a string or an object")),
    };
    Ok(Some(choice))
}

/// `reasoning {effort, summary}`: effort `none` asks for no reasoning; a summary asks for
/// the thoughts back.
fn reasoning(v: Option<&Value>) -> Result<Option<Reasoning>, ParseError> {
    let o = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(o)) => o,
        Some(_) => return Err(invalid("field `reasoning` must be an object")),
    };
    let effort = match o.get("effort") {
        None | Some(Value::Null) => None,
        Some(Value::String(e)) if e == "none" => None,
        Some(Value::String(e)) => Some(e.clone()),
        Some(_) => return Err(invalid("`reasoning.effort` must be a string")),
    };
    let include_thoughts = ["summary", "generate_summary"].iter().any(|k| {
        o.get(*k)
            .and_then(Value::as_str)
            .is_some_and(|s| s != "none")
    });
    if effort.is_none() && !include_thoughts {
        return Ok(None);
    }
    Ok(Some(Reasoning {
        effort,
        budget_tokens: None,
        include_thoughts,
    }))
}

/// `text.format`: a JSON schema, plain JSON (`Null`), or free text (`None`).
fn json_output(text: Option<&Value>) -> Result<Option<Value>, ParseError> {
    let Some(format) = text.and_then(|t| t.get("format")).filter(|f| !f.is_null()) else {
        return Ok(None);
    };
    match format.get("type").and_then(Value::as_str) {
        Some("json_schema") => match format.get("schema") {
            Some(schema) if schema.is_object() => Ok(Some(schema.clone())),
            _ => Err(invalid("`text.format.schema` must be an object")),
        },
        Some("json_object") => Ok(Some(Value::Null)),
        Some("text") => Ok(None),
        _ => Err(invalid(
            "`text.format.type` must be one of text, json_schema, json_object",
        )),
    }
}

fn invalid(msg: &str) -> ParseError {
    ParseError::Invalid(msg.to_owned())
}

fn bad_content(i: usize) -> ParseError {
    invalid(&format!(
        "`input[{i}].content` must be a string or an array"
    ))
}

/// A required string field of input item `i`.
fn req_str<'a>(item: &'a Map<String, Value>, key: &str, i: usize) -> Result<&'a str, ParseError> {
    item.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(&format!("`input[{i}].{key}` must be a string")))
}

fn opt_str<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, ParseError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(invalid(&format!("field `{key}` must be a string"))),
    }
}

fn opt_i64(obj: &Map<String, Value>, key: &str) -> Result<Option<i64>, ParseError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| invalid(&format!("field `{key}` must be an integer"))),
    }
}

fn opt_f64(obj: &Map<String, Value>, key: &str) -> Result<Option<f64>, ParseError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| invalid(&format!("field `{key}` must be a number"))),
    }
}
