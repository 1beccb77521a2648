//! Provider side: an IR request encoded as a Chat Completions body for OpenAI-compatible
//! channels.

use serde_json::{Map, Value, json};

use super::wire::image_url;
use crate::ir::{ImageSource, Message, Part, Request, Role, ToolChoice};

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
pub fn encode_request(req: &Request, upstream_model: &str) -> Value {
    let family = family(upstream_model);
    let mut body = Map::new();
    body.insert("model".into(), Value::from(upstream_model));
    body.insert("messages".into(), Value::Array(messages(req)));
    if !req.tools.is_empty() {
        let tools = req
            .tools
            .iter()
            .map(|t| {
                // Cloned or moved in: `json!` would copy values by serialising them.
                let mut f = json!({"name": t.name});
                f["parameters"] = if t.parameters.is_null() {
                    json!({"type": "object", "properties": {}})
                } else {
                    t.parameters.clone()
                };
                if let Some(d) = &t.description {
                    f["description"] = Value::from(d.as_str());
                }
                let mut tool = json!({"type": "function"});
                tool["function"] = f;
                tool
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        if let Some(choice) = &req.tool_choice {
            let choice = match choice {
                ToolChoice::Auto => json!("auto"),
                ToolChoice::None => json!("none"),
                ToolChoice::Required => json!("required"),
                ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
            };
            body.insert("tool_choice".into(), choice);
        }
    }
    if let Some(n) = req.max_tokens {
        let key = if family == Family::Chat {
            "max_tokens"
        } else {
            "max_completion_tokens"
        };
        body.insert(key.into(), Value::from(n));
    }
    if let Some(t) = req.temperature.filter(|_| family == Family::Chat) {
        body.insert("temperature".into(), Value::from(t));
    }
    if let Some(p) = req.top_p.filter(|_| family != Family::Gpt5) {
        body.insert("top_p".into(), Value::from(p));
    }
    if !req.stop.is_empty() {
        body.insert("stop".into(), Value::from(req.stop.clone()));
    }
    if req.stream {
        body.insert("stream".into(), Value::Bool(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if let Some(effort) = reasoning_effort(req, family) {
        body.insert("reasoning_effort".into(), Value::from(effort));
    }
    if let Some(u) = &req.user {
        body.insert("user".into(), Value::from(u.as_str()));
    }
    match &req.json_output {
        None => {}
        Some(Value::Null) => {
            body.insert("response_format".into(), json!({"type": "json_object"}));
        }
        Some(schema) => {
            body.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": {"name": "response", "schema": schema}}),
            );
        }
    }
    Value::Object(body)
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

fn reasoning_effort(req: &Request, family: Family) -> Option<String> {
    let r = req.reasoning.as_ref()?;
    if let Some(e) = &r.effort {
        return Some(e.clone());
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
    Some(effort.to_owned())
}

fn messages(req: &Request) -> Vec<Value> {
    let mut out = Vec::with_capacity(req.messages.len() + 1);
    if !req.system.is_empty() {
        out.push(json!({"role": "system", "content": req.system.join("\n")}));
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
fn user(m: &Message, out: &mut Vec<Value>) {
    for p in &m.content {
        if let Part::ToolResult {
            call_id, content, ..
        } = p
        {
            out.push(
                json!({"role": "tool", "tool_call_id": call_id, "content": joined_text(content)}),
            );
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
        Value::String(joined_text(m.content.iter()))
    } else {
        let parts = rest
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(json!({"type": "text", "text": t})),
                Part::Image(src) => Some(image_part(src)),
                _ => None,
            })
            .collect();
        Value::Array(parts)
    };
    let mut msg = json!({"role": "user"});
    msg["content"] = content;
    out.push(msg);
}

fn image_part(src: &ImageSource) -> Value {
    json!({"type": "image_url", "image_url": {"url": image_url(src)}})
}

/// `None` when nothing is left (a turn of thinking only).
fn assistant(m: &Message) -> Option<Value> {
    let mut calls = Vec::new();
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
            calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }));
        }
    }
    let text = joined_text(m.content.iter());
    let content = match (text.is_empty(), calls.is_empty()) {
        (true, true) => return None,
        (true, false) => Value::Null,
        (false, _) => Value::String(text),
    };
    let mut msg = json!({"role": "assistant"});
    msg["content"] = content;
    if !calls.is_empty() {
        msg["tool_calls"] = Value::Array(calls);
    }
    Some(msg)
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
