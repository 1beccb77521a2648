//! Provider side: an IR request encoded as an Anthropic Messages request body.

use serde_json::{Map, Value, json};

use super::client_response::arguments_object;
use crate::ir::{ImageSource, Part, Reasoning, Request, Role, ToolChoice};

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
pub fn encode_request(req: &Request, upstream_model: &str) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), upstream_model.into());
    let mut max_tokens = req
        .max_tokens
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_MAX_TOKENS);

    let system: Vec<&String> = req.system.iter().filter(|s| !s.is_empty()).collect();
    match system.as_slice() {
        [] => {}
        [one] => {
            body.insert("system".into(), one.as_str().into());
        }
        many => {
            let blocks: Vec<Value> = many
                .iter()
                .map(|s| json!({ "type": "text", "text": s }))
                .collect();
            body.insert("system".into(), blocks.into());
        }
    }
    body.insert("messages".into(), messages(req).into());

    let forced_tool = matches!(
        req.tool_choice,
        Some(ToolChoice::Required | ToolChoice::Tool(_))
    ) && !req.tools.is_empty();
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                let mut tool = Map::new();
                tool.insert("name".into(), t.name.as_str().into());
                if let Some(d) = &t.description {
                    tool.insert("description".into(), d.as_str().into());
                }
                let schema = match &t.parameters {
                    s @ Value::Object(_) => s.clone(),
                    _ => json!({ "type": "object", "properties": {} }),
                };
                tool.insert("input_schema".into(), schema);
                Value::Object(tool)
            })
            .collect();
        body.insert("tools".into(), tools.into());
        if let Some(choice) = &req.tool_choice {
            let choice = match choice {
                ToolChoice::Auto => json!({ "type": "auto" }),
                ToolChoice::None => json!({ "type": "none" }),
                ToolChoice::Required => json!({ "type": "any" }),
                ToolChoice::Tool(name) => json!({ "type": "tool", "name": name }),
            };
            body.insert("tool_choice".into(), choice);
        }
    }

    let budget = req
        .reasoning
        .as_ref()
        .and_then(thinking_budget)
        .filter(|_| !forced_tool);
    if let Some(budget) = budget {
        if max_tokens <= budget {
            max_tokens = max_tokens.saturating_add(budget);
        }
        body.insert(
            "thinking".into(),
            json!({ "type": "enabled", "budget_tokens": budget }),
        );
        if let Some(p) = req.top_p.filter(|p| (0.95..=1.0).contains(p)) {
            body.insert("top_p".into(), p.into());
        }
    } else {
        if let Some(t) = req.temperature {
            body.insert("temperature".into(), t.into());
        }
        if let Some(p) = req.top_p {
            body.insert("top_p".into(), p.into());
        }
        if let Some(k) = req.top_k {
            body.insert("top_k".into(), k.into());
        }
    }
    body.insert("max_tokens".into(), max_tokens.into());

    if !req.stop.is_empty() {
        body.insert("stop_sequences".into(), req.stop.clone().into());
    }
    if req.stream {
        body.insert("stream".into(), true.into());
    }
    if let Some(user) = req.user.as_deref().filter(|u| !u.is_empty()) {
        body.insert("metadata".into(), json!({ "user_id": user }));
    }
    if let Some(schema @ Value::Object(_)) = &req.json_output {
        body.insert(
            "output_config".into(),
            json!({ "format": { "type": "json_schema", "schema": schema } }),
        );
    }
    Value::Object(body)
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
fn messages(req: &Request) -> Vec<Value> {
    let mut out: Vec<(Role, Vec<Value>)> = Vec::with_capacity(req.messages.len());
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
        .map(|(role, mut blocks)| {
            let role = match role {
                Role::User => {
                    // Tool results must come first in a user message.
                    blocks.sort_by_key(|b| {
                        b.get("type").and_then(Value::as_str) != Some("tool_result")
                    });
                    "user"
                }
                Role::Assistant => "assistant",
            };
            // Moved in: `json!` would copy the blocks by serialising them.
            let mut message = json!({ "role": role });
            message["content"] = Value::Array(blocks);
            message
        })
        .collect()
}

/// The content block of a part; `None` for empty text and unsigned thinking.
fn block(p: &Part) -> Option<Value> {
    match p {
        Part::Text(t) if t.is_empty() => None,
        Part::Text(t) => Some(json!({ "type": "text", "text": t })),
        Part::Image(src) => Some(image(src)),
        Part::Thinking {
            text,
            signature: Some(sig),
        } => Some(json!({ "type": "thinking", "thinking": text, "signature": sig })),
        Part::Thinking {
            signature: None, ..
        } => None,
        Part::RedactedThinking(data) => Some(json!({ "type": "redacted_thinking", "data": data })),
        Part::ToolCall {
            id,
            name,
            arguments,
        } => Some(json!({
            "type": "tool_use",
            "id": id,
            "name": name,
            "input": arguments_object(arguments),
        })),
        Part::ToolResult {
            call_id,
            content,
            is_error,
            ..
        } => {
            let mut b = Map::new();
            b.insert("type".into(), "tool_result".into());
            b.insert("tool_use_id".into(), call_id.as_str().into());
            // Only text and images are allowed inside; nested results are not followed.
            let inner: Vec<Value> = content
                .iter()
                .filter_map(|p| match p {
                    Part::Text(t) if !t.is_empty() => Some(json!({ "type": "text", "text": t })),
                    Part::Image(src) => Some(image(src)),
                    _ => None,
                })
                .collect();
            match inner.as_slice() {
                [] => {}
                [only] if only.get("type").and_then(Value::as_str) == Some("text") => {
                    b.insert(
                        "content".into(),
                        only.get("text").cloned().unwrap_or_default(),
                    );
                }
                _ => {
                    b.insert("content".into(), inner.into());
                }
            }
            if *is_error {
                b.insert("is_error".into(), true.into());
            }
            Some(Value::Object(b))
        }
    }
}

/// An image block; a `data:` URL is sent as a base64 source.
fn image(src: &ImageSource) -> Value {
    let source = match src {
        ImageSource::Base64 { media_type, data } => {
            json!({ "type": "base64", "media_type": media_type, "data": data })
        }
        ImageSource::Url(url) => match data_url(url) {
            Some((media_type, data)) => {
                json!({ "type": "base64", "media_type": media_type, "data": data })
            }
            None => json!({ "type": "url", "url": url }),
        },
    };
    json!({ "type": "image", "source": source })
}

/// The media type and base64 data of a `data:<type>;base64,<data>` URL.
fn data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (meta, data) = rest.split_once(',')?;
    let media_type = meta.strip_suffix(";base64")?;
    Some((media_type, data))
}
