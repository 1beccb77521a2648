//! Client side: a `POST /v1/chat/completions` body decoded to an IR request.
//!
//! Decoded from a borrowed tree ([`Json`]), not a `serde_json::Value`: this runs on every
//! converted request (see `benches/convert.rs`).

use serde_json::Value;

use super::wire::image_source;
use crate::ParseError;
use crate::ir::{Message, Part, Reasoning, Request, Role, SchemaText, Tool, ToolChoice};
use crate::json_tree::Json;

/// Decodes a Chat Completions request body.
///
/// `system` and `developer` messages become system blocks (wherever they stand); `tool` and
/// legacy `function` messages become tool results, consecutive ones sharing one user
/// message; an assistant's `reasoning_content` (or `reasoning`) becomes a thinking part
/// placed first. Audio and file parts, image `detail`, `n`, `logprobs`, `seed` and other
/// options the IR has no place for are dropped; empty text is dropped too.
pub fn decode_request(body: &[u8]) -> Result<Request, ParseError> {
    // Tool parameters stay JSON text: most providers take them as they are.
    let body = Json::parse_keeping_raw(body, "parameters")
        .map_err(|e| ParseError::MalformedJson(e.to_string()))?;
    if !body.is_object() {
        return Err(ParseError::Invalid(
            "the body must be a JSON object".to_owned(),
        ));
    }
    let model = match body.get("model") {
        Some(Json::Str(m)) if !m.trim().is_empty() => m.trim().to_owned(),
        _ => return Err(ParseError::MissingModel),
    };
    let messages = match body.get("messages") {
        Some(Json::Array(m)) if !m.is_empty() => m,
        _ => {
            return Err(ParseError::Invalid(
                "field `messages` must be a non-empty array".to_owned(),
            ));
        }
    };
    let mut conv = Conversation::default();
    for (i, m) in messages.iter().enumerate() {
        conv.add(i, m)?;
    }
    let num = |k: &str| body.get(k).and_then(Json::as_f64);
    let int = |k: &str| body.get(k).and_then(Json::as_i64);
    Ok(Request {
        model,
        system: conv.system,
        messages: conv.messages,
        tools: tools(&body)?,
        tool_choice: tool_choice(&body),
        max_tokens: int("max_completion_tokens").or_else(|| int("max_tokens")),
        temperature: num("temperature"),
        top_p: num("top_p"),
        top_k: int("top_k"),
        stop: stop(body.get("stop")),
        stream: body.get("stream").and_then(Json::as_bool).unwrap_or(false),
        reasoning: reasoning(&body),
        user: body.get("user").and_then(Json::as_str).map(str::to_owned),
        json_output: json_output(body.get("response_format")),
    })
}

/// Whether a streaming client asked for the final usage chunk
/// (`stream_options.include_usage`). Parses `body` again: call it only for streams.
pub fn client_wants_usage(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.get("stream_options")?.get("include_usage")?.as_bool())
        .unwrap_or(false)
}

/// The conversation being decoded.
#[derive(Default)]
struct Conversation {
    system: Vec<String>,
    messages: Vec<Message>,
    /// Tool call ids and function names seen so far (tool messages carry no name).
    calls: Vec<(String, String)>,
    /// The id given to the latest legacy `function_call`, for the `function` message after it.
    legacy_call: Option<String>,
    legacy_count: usize,
    /// The previous message was a tool result (the next one joins its user message).
    after_tool: bool,
}

impl Conversation {
    fn add(&mut self, i: usize, m: &Json<'_>) -> Result<(), ParseError> {
        let role = m
            .get("role")
            .and_then(Json::as_str)
            .ok_or_else(|| invalid(i, "role", "is required"))?;
        let content = m.get("content");
        let was_tool = std::mem::take(&mut self.after_tool);
        match role {
            "system" | "developer" => {
                let text = content_text(content, "\n");
                if !text.is_empty() {
                    self.system.push(text);
                }
            }
            "user" => {
                let parts = parts(i, content)?;
                if !parts.is_empty() {
                    self.push(Role::User, parts);
                }
            }
            "assistant" => {
                let parts = self.assistant_parts(i, m)?;
                if !parts.is_empty() {
                    self.push(Role::Assistant, parts);
                }
            }
            "tool" => {
                let call_id = str_field(m, "tool_call_id")
                    .ok_or_else(|| invalid(i, "tool_call_id", "is required"))?
                    .to_owned();
                let name = str_field(m, "name").map(str::to_owned).or_else(|| {
                    self.calls
                        .iter()
                        .find(|(id, _)| *id == call_id)
                        .map(|(_, n)| n.clone())
                });
                self.push_result(was_tool, call_id, name, parts(i, content)?);
            }
            "function" => {
                let name = str_field(m, "name")
                    .ok_or_else(|| invalid(i, "name", "is required"))?
                    .to_owned();
                let call_id = self
                    .legacy_call
                    .clone()
                    .unwrap_or_else(|| format!("call_{name}"));
                self.push_result(was_tool, call_id, Some(name), parts(i, content)?);
            }
            other => {
                return Err(ParseError::Invalid(format!(
                    "messages[{i}].role {other:?} is not supported"
                )));
            }
        }
        Ok(())
    }

    fn push(&mut self, role: Role, content: Vec<Part>) {
        self.messages.push(Message { role, content });
    }

    /// Adds a tool result, to the previous user message when that holds tool results.
    fn push_result(
        &mut self,
        join_previous: bool,
        call_id: String,
        name: Option<String>,
        content: Vec<Part>,
    ) {
        let part = Part::ToolResult {
            call_id,
            name,
            content,
            is_error: false,
        };
        match self.messages.last_mut() {
            Some(last) if join_previous && last.role == Role::User => last.content.push(part),
            _ => self.push(Role::User, vec![part]),
        }
        self.after_tool = true;
    }

    /// Thinking first, then text, then tool calls.
    fn assistant_parts(&mut self, i: usize, m: &Json<'_>) -> Result<Vec<Part>, ParseError> {
        let mut out = Vec::new();
        if let Some(t) = str_field(m, "reasoning_content").or_else(|| str_field(m, "reasoning")) {
            out.push(Part::Thinking {
                text: t.to_owned(),
                signature: None,
            });
        }
        out.extend(parts(i, m.get("content"))?);
        if let Some(calls) = m.get("tool_calls").filter(|c| !c.is_null()) {
            let Json::Array(calls) = calls else {
                return Err(invalid(i, "tool_calls", "must be an array"));
            };
            for (j, c) in calls.iter().enumerate() {
                if c.get("type").and_then(Json::as_str).unwrap_or("function") != "function" {
                    continue;
                }
                let f = c.get("function");
                let name = f.and_then(|f| str_field(f, "name")).ok_or_else(|| {
                    invalid(i, &format!("tool_calls[{j}].function.name"), "is required")
                })?;
                let id = str_field(c, "id")
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("call_{i}_{j}"));
                self.calls.push((id.clone(), name.to_owned()));
                out.push(Part::ToolCall {
                    id,
                    name: name.to_owned(),
                    arguments: arguments_text(f.and_then(|f| f.get("arguments"))),
                });
            }
        }
        if let Some(f) = m.get("function_call").filter(|f| !f.is_null()) {
            let name = str_field(f, "name")
                .ok_or_else(|| invalid(i, "function_call.name", "is required"))?;
            self.legacy_count += 1;
            let id = format!("call_legacy_{}", self.legacy_count);
            self.legacy_call = Some(id.clone());
            out.push(Part::ToolCall {
                id,
                name: name.to_owned(),
                arguments: arguments_text(f.get("arguments")),
            });
        }
        Ok(out)
    }
}

fn invalid(i: usize, field: &str, what: &str) -> ParseError {
    ParseError::Invalid(format!("messages[{i}].{field} {what}"))
}

/// The parts of a message `content`: a string, `null`, or an array of text and image parts
/// (audio, file and unknown parts are skipped).
fn parts(i: usize, content: Option<&Json<'_>>) -> Result<Vec<Part>, ParseError> {
    let mut out = Vec::new();
    match content {
        None | Some(Json::Null) => {}
        Some(Json::Str(s)) => {
            if !s.is_empty() {
                out.push(Part::Text(s.to_string()));
            }
        }
        Some(Json::Array(items)) => {
            for p in items {
                match p.get("type").and_then(Json::as_str) {
                    Some("text") | None => {
                        let text = p.as_str().or_else(|| p.get("text").and_then(Json::as_str));
                        if let Some(t) = text.filter(|t| !t.is_empty()) {
                            out.push(Part::Text(t.to_owned()));
                        }
                    }
                    Some("refusal") => {
                        if let Some(t) = str_field(p, "refusal") {
                            out.push(Part::Text(t.to_owned()));
                        }
                    }
                    Some("image_url") => {
                        let url = p.get("image_url").and_then(|u| {
                            u.as_str().or_else(|| u.get("url").and_then(Json::as_str))
                        });
                        match url.filter(|u| !u.is_empty()) {
                            Some(u) => out.push(Part::Image(image_source(u))),
                            None => {
                                return Err(invalid(i, "content", "has an image without a url"));
                            }
                        }
                    }
                    Some(_) => {}
                }
            }
        }
        Some(_) => return Err(invalid(i, "content", "must be a string or an array")),
    }
    Ok(out)
}

/// `tools` (function tools; others are skipped) and legacy `functions`.
fn tools(body: &Json<'_>) -> Result<Vec<Tool>, ParseError> {
    let mut out = Vec::new();
    let list = |k: &str| match body.get(k) {
        None | Some(Json::Null) => Ok(&[][..]),
        Some(Json::Array(a)) => Ok(a.as_slice()),
        Some(_) => Err(ParseError::Invalid(format!("field `{k}` must be an array"))),
    };
    for (j, t) in list("tools")?.iter().enumerate() {
        if t.get("type").and_then(Json::as_str).unwrap_or("function") != "function" {
            continue;
        }
        let f = t.get("function").unwrap_or(&Json::Null);
        out.push(
            tool(f).ok_or_else(|| {
                ParseError::Invalid(format!("tools[{j}].function.name is required"))
            })?,
        );
    }
    for (j, f) in list("functions")?.iter().enumerate() {
        out.push(
            tool(f)
                .ok_or_else(|| ParseError::Invalid(format!("functions[{j}].name is required")))?,
        );
    }
    Ok(out)
}

fn tool(f: &Json<'_>) -> Option<Tool> {
    Some(Tool {
        name: str_field(f, "name")?.to_owned(),
        description: str_field(f, "description").map(str::to_owned),
        parameters: match f.get("parameters") {
            None | Some(Json::Null) => SchemaText::empty_object(),
            Some(Json::Raw(raw)) if raw.get() == "null" => SchemaText::empty_object(),
            Some(Json::Raw(raw)) => SchemaText::from_raw(raw),
            Some(p) => SchemaText::from(p.to_value()),
        },
    })
}

/// `tool_choice`, or legacy `function_call`; unknown forms are ignored.
fn tool_choice(body: &Json<'_>) -> Option<ToolChoice> {
    let v = body
        .get("tool_choice")
        .filter(|v| !v.is_null())
        .or_else(|| body.get("function_call"))?;
    match v {
        Json::Str(s) => match &**s {
            "auto" => Some(ToolChoice::Auto),
            "none" => Some(ToolChoice::None),
            "required" => Some(ToolChoice::Required),
            _ => None,
        },
        Json::Object(_) => {
            let name = v
                .get("function")
                .and_then(|f| str_field(f, "name"))
                .or_else(|| str_field(v, "name"))?;
            Some(ToolChoice::Tool(name.to_owned()))
        }
        _ => None,
    }
}

/// `stop`: a string or an array of strings.
fn stop(v: Option<&Json<'_>>) -> Vec<String> {
    match v {
        Some(Json::Str(s)) if !s.is_empty() => vec![s.to_string()],
        Some(Json::Array(a)) => a
            .iter()
            .filter_map(Json::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// `reasoning_effort`, or OpenRouter's `reasoning: {effort, max_tokens}`. A client asking
/// for reasoning also gets the thoughts back (as `reasoning_content`).
fn reasoning(body: &Json<'_>) -> Option<Reasoning> {
    let nested = body.get("reasoning").filter(|r| r.is_object());
    let effort = body
        .get("reasoning_effort")
        .and_then(Json::as_str)
        .or_else(|| nested.and_then(|r| r.get("effort")?.as_str()))
        .filter(|e| !e.is_empty());
    let budget = nested.and_then(|r| r.get("max_tokens")?.as_i64());
    if effort.is_none() && budget.is_none() {
        return None;
    }
    Some(Reasoning {
        effort: effort.map(str::to_owned),
        budget_tokens: budget,
        include_thoughts: true,
    })
}

/// `response_format`: `json_object` → plain JSON, `json_schema` → its schema.
fn json_output(v: Option<&Json<'_>>) -> Option<Value> {
    let v = v?;
    match v.get("type").and_then(Json::as_str)? {
        "json_object" => Some(Value::Null),
        "json_schema" => Some(
            v.get("json_schema")
                .and_then(|s| s.get("schema"))
                .map_or(Value::Null, Json::to_value),
        ),
        _ => None,
    }
}

/// A non-empty string field.
fn str_field<'j>(v: &'j Json<'_>, key: &str) -> Option<&'j str> {
    v.get(key).and_then(Json::as_str).filter(|s| !s.is_empty())
}

/// The text of a message `content`: a string, or the `text` (or `refusal`) of its parts
/// joined by `sep`; anything else is empty.
fn content_text(content: Option<&Json<'_>>, sep: &str) -> String {
    match content {
        Some(Json::Str(s)) => s.to_string(),
        Some(Json::Array(parts)) => {
            let mut out = String::new();
            for p in parts {
                let text = match p {
                    Json::Str(s) => Some(&**s),
                    _ => p
                        .get("text")
                        .or_else(|| p.get("refusal"))
                        .and_then(Json::as_str),
                };
                if let Some(t) = text.filter(|t| !t.is_empty()) {
                    if !out.is_empty() {
                        out.push_str(sep);
                    }
                    out.push_str(t);
                }
            }
            out
        }
        _ => String::new(),
    }
}

/// Arguments of a function call as JSON text: a string as given (empty → `{}`), any other
/// JSON (some clients send an object) serialised.
fn arguments_text(v: Option<&Json<'_>>) -> String {
    match v {
        Some(Json::Str(s)) if !s.is_empty() => s.to_string(),
        None | Some(Json::Null) | Some(Json::Str(_)) => "{}".to_owned(),
        Some(other) => other.to_value().to_string(),
    }
}
