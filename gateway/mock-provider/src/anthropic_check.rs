//! Checks an Anthropic Messages request as the real API does, with its error messages,
//! which name the offending field (`messages.1.content.0…`).

use serde_json::{Map, Value};

use crate::b64;

/// Which endpoint's rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Endpoint {
    Messages,
    CountTokens,
}

/// What the checks saw that the answer echoes.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Seen {
    /// Image blocks, including those inside tool results.
    pub images: usize,
}

const BLOCK_TYPES: &[&str] = &[
    "text",
    "image",
    "document",
    "search_result",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
];
const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];
const DOCS: &str = "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking";

type Checked<T = ()> = Result<T, String>;

/// Checks a `/v1/messages` or `/v1/messages/count_tokens` body.
pub(crate) fn request(v: &Value, endpoint: Endpoint) -> Checked<Seen> {
    let Some(obj) = v.as_object() else {
        return Err("body: Input should be a valid dictionary".to_owned());
    };
    match obj.get("model") {
        None | Some(Value::Null) => return Err("model: Field required".to_owned()),
        Some(Value::String(_)) => {}
        Some(_) => return Err("model: Input should be a valid string".to_owned()),
    }
    let max_tokens = match endpoint {
        Endpoint::Messages => Some(max_tokens(obj)?),
        Endpoint::CountTokens => None,
    };
    let messages = match obj.get("messages") {
        None | Some(Value::Null) => return Err("messages: Field required".to_owned()),
        Some(Value::Array(a)) => a,
        Some(_) => return Err("messages: Input should be a valid list".to_owned()),
    };
    if messages.is_empty() {
        return Err("messages: at least one message is required".to_owned());
    }
    system(obj.get("system"))?;
    if let Some(t) = obj.get("temperature") {
        match t.as_f64() {
            Some(x) if x < 0.0 => {
                return Err("temperature: Input should be greater than or equal to 0".to_owned());
            }
            Some(x) if x > 1.0 => {
                return Err("temperature: Input should be less than or equal to 1".to_owned());
            }
            Some(_) => {}
            None => return Err("temperature: Input should be a valid number".to_owned()),
        }
    }
    if obj.get("stream").is_some_and(|s| !s.is_boolean()) {
        return Err("stream: Input should be a valid boolean".to_owned());
    }
    tools(obj.get("tools"))?;
    thinking(obj, max_tokens)?;
    Ok(Seen {
        images: conversation(messages)?,
    })
}

fn max_tokens(obj: &Map<String, Value>) -> Checked<i64> {
    match obj.get("max_tokens") {
        None | Some(Value::Null) => Err("max_tokens: Field required".to_owned()),
        Some(v) => match v.as_i64() {
            Some(n) if n >= 1 => Ok(n),
            Some(_) => Err("max_tokens: Input should be greater than or equal to 1".to_owned()),
            None => Err("max_tokens: Input should be a valid integer".to_owned()),
        },
    }
}

fn system(v: Option<&Value>) -> Checked {
    match v {
        None | Some(Value::Null | Value::String(_)) => Ok(()),
        Some(Value::Array(blocks)) => {
            for (k, b) in blocks.iter().enumerate() {
                if b.get("type").and_then(Value::as_str) != Some("text") {
                    return Err(format!("system.{k}.type: Input should be 'text'"));
                }
                if !b.get("text").is_some_and(Value::is_string) {
                    return Err(format!("system.{k}.text: Field required"));
                }
            }
            Ok(())
        }
        Some(_) => Err("system: Input should be a valid string or list".to_owned()),
    }
}

fn tools(v: Option<&Value>) -> Checked {
    let tools = match v {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(a)) => a,
        Some(_) => return Err("tools: Input should be a valid list".to_owned()),
    };
    for (k, tool) in tools.iter().enumerate() {
        let kind = tool.get("type").and_then(Value::as_str).unwrap_or("custom");
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            return Err(format!("tools.{k}.{kind}.name: Field required"));
        };
        if kind != "custom" {
            // Server tools (web_search_…, bash_…) have their own fields.
            continue;
        }
        let name_ok = (1..=128).contains(&name.len())
            && name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-');
        if !name_ok {
            return Err(format!(
                "tools.{k}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'"
            ));
        }
        match tool.get("input_schema") {
            None => return Err(format!("tools.{k}.custom.input_schema: Field required")),
            Some(s) if s.get("type").and_then(Value::as_str) != Some("object") => {
                return Err(format!(
                    "tools.{k}.custom.input_schema.type: Input should be 'object'"
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

fn thinking(obj: &Map<String, Value>, max_tokens: Option<i64>) -> Checked {
    let Some(t) = obj.get("thinking").filter(|t| !t.is_null()) else {
        return Ok(());
    };
    match t.get("type").and_then(Value::as_str) {
        Some("enabled") => {}
        Some("disabled" | "adaptive") => return Ok(()),
        Some(other) => {
            return Err(format!(
                "thinking: Input tag '{other}' found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'"
            ));
        }
        None => {
            return Err("thinking: Unable to extract tag using discriminator 'type'".to_owned());
        }
    }
    let budget = match t.get("budget_tokens") {
        None | Some(Value::Null) => {
            return Err("thinking.enabled.budget_tokens: Field required".to_owned());
        }
        Some(b) => b.as_i64().ok_or_else(|| {
            "thinking.enabled.budget_tokens: Input should be a valid integer".to_owned()
        })?,
    };
    if budget < 1024 {
        return Err(
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
                .to_owned(),
        );
    }
    if let Some(max) = max_tokens
        && budget >= max
    {
        return Err(format!(
            "`max_tokens` must be greater than `thinking.budget_tokens`. {DOCS}#max-tokens-and-context-window-size"
        ));
    }
    let set = |k: &str| obj.get(k).filter(|v| !v.is_null());
    if set("temperature").is_some_and(|t| t.as_f64() != Some(1.0)) {
        return Err(format!(
            "`temperature` may only be set to 1 when thinking is enabled. {DOCS}#feature-compatibility"
        ));
    }
    if set("top_k").is_some() {
        return Err(format!(
            "`top_k` must be unset when thinking is enabled. {DOCS}#feature-compatibility"
        ));
    }
    if set("top_p").is_some_and(|p| p.as_f64().is_none_or(|p| p < 0.95)) {
        return Err(format!(
            "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled. {DOCS}#feature-compatibility"
        ));
    }
    let forced = set("tool_choice")
        .and_then(|c| c.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|c| c == "any" || c == "tool");
    if forced {
        return Err("Thinking may not be enabled when tool_choice forces tool use.".to_owned());
    }
    Ok(())
}

/// The tool ids one message declares (`tool_use`) and answers (`tool_result`, with the
/// block index).
#[derive(Default)]
struct ToolIds<'a> {
    uses: Vec<&'a str>,
    results: Vec<(usize, &'a str)>,
}

/// Checks roles, blocks and tool pairing; returns the number of images.
fn conversation(messages: &[Value]) -> Checked<usize> {
    let last = messages.len() - 1;
    let mut images = 0;
    let mut ids = Vec::with_capacity(messages.len());
    let mut prev_role = "";
    for (i, m) in messages.iter().enumerate() {
        let role = match m.get("role") {
            None | Some(Value::Null) => return Err(format!("messages.{i}.role: Field required")),
            Some(r) => match r.as_str() {
                Some(r @ ("user" | "assistant")) => r,
                _ => {
                    return Err(format!(
                        "messages.{i}.role: Input should be 'user' or 'assistant'"
                    ));
                }
            },
        };
        if i == 0 && role != "user" {
            return Err("messages: first message must use the \"user\" role".to_owned());
        }
        if role == prev_role {
            return Err(format!(
                "messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"{role}\" roles in a row"
            ));
        }
        prev_role = role;
        let empty_allowed = i == last && role == "assistant";
        let empty = || {
            Err(format!(
                "messages.{i}: all messages must have non-empty content except for the optional final assistant message"
            ))
        };
        let blocks: &[Value] = match m.get("content") {
            None | Some(Value::Null) => {
                return Err(format!("messages.{i}.content: Field required"));
            }
            Some(Value::String(s)) if s.is_empty() && !empty_allowed => return empty(),
            Some(Value::String(_)) => &[],
            Some(Value::Array(a)) if a.is_empty() && !empty_allowed => return empty(),
            Some(Value::Array(a)) => a,
            Some(_) => {
                return Err(format!(
                    "messages.{i}.content: Input should be a valid string or list"
                ));
            }
        };
        let mut mine = ToolIds::default();
        for (j, b) in blocks.iter().enumerate() {
            images += block(b, &format!("messages.{i}.content.{j}"), j, &mut mine)?;
        }
        ids.push(mine);
    }
    for (i, here) in ids.iter().enumerate() {
        let before = i.checked_sub(1).and_then(|p| ids.get(p));
        for (j, id) in &here.results {
            if !before.is_some_and(|b| b.uses.contains(id)) {
                return Err(format!(
                    "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                ));
            }
        }
    }
    for (i, pair) in ids.windows(2).enumerate() {
        let (here, next) = (&pair[0], &pair[1]);
        let missing: Vec<&str> = here
            .uses
            .iter()
            .filter(|id| !next.results.iter().any(|(_, r)| r == *id))
            .copied()
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                missing.join(", ")
            ));
        }
    }
    Ok(images)
}

/// Checks one content block at `at`; returns the images it holds.
fn block<'a>(b: &'a Value, at: &str, j: usize, ids: &mut ToolIds<'a>) -> Checked<usize> {
    let Some(obj) = b.as_object() else {
        return Err(format!("{at}: Input should be a valid dictionary"));
    };
    let Some(kind) = obj.get("type").and_then(Value::as_str) else {
        return Err(format!("{at}.type: Field required"));
    };
    let str_field = |k: &str| obj.get(k).and_then(Value::as_str);
    match kind {
        "text" => match str_field("text") {
            None => Err(format!("{at}.text.text: Field required")),
            Some("") => Err("messages: text content blocks must be non-empty".to_owned()),
            Some(_) => Ok(0),
        },
        "image" => image_source(obj.get("source"), &format!("{at}.image.source")).map(|()| 1),
        "tool_use" => {
            let Some(id) = str_field("id").filter(|id| !id.is_empty()) else {
                return Err(format!("{at}.tool_use.id: Field required"));
            };
            if str_field("name").is_none() {
                return Err(format!("{at}.tool_use.name: Field required"));
            }
            if !obj.get("input").is_some_and(Value::is_object) {
                return Err(format!(
                    "{at}.tool_use.input: Input should be a valid dictionary"
                ));
            }
            ids.uses.push(id);
            Ok(0)
        }
        "tool_result" => {
            let Some(id) = str_field("tool_use_id") else {
                return Err(format!("{at}.tool_result.tool_use_id: Field required"));
            };
            ids.results.push((j, id));
            match obj.get("content") {
                None | Some(Value::Null | Value::String(_)) => Ok(0),
                Some(Value::Array(inner)) => {
                    let mut images = 0;
                    for (k, c) in inner.iter().enumerate() {
                        let at = format!("{at}.tool_result.content.{k}");
                        match c.get("type").and_then(Value::as_str) {
                            Some("image") => {
                                image_source(c.get("source"), &format!("{at}.image.source"))?;
                                images += 1;
                            }
                            Some("text" | "document" | "search_result") => {}
                            _ => {
                                return Err(format!(
                                    "{at}: Input tag found using 'type' does not match any of the expected tags: 'text', 'image', 'document', 'search_result'"
                                ));
                            }
                        }
                    }
                    Ok(images)
                }
                Some(_) => Err(format!(
                    "{at}.tool_result.content: Input should be a valid string or list"
                )),
            }
        }
        "thinking" => {
            if str_field("signature").is_none() {
                return Err(format!("{at}.thinking.signature: Field required"));
            }
            Ok(0)
        }
        k if BLOCK_TYPES.contains(&k) => Ok(0),
        other => Err(format!(
            "{at}: Input tag '{other}' found using 'type' does not match any of the expected tags: {}",
            BLOCK_TYPES
                .iter()
                .map(|t| format!("'{t}'"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Checks an image `source` at `at` (`…image.source`): base64 with a supported media type
/// whose bytes match it, a URL, or an uploaded file.
fn image_source(source: Option<&Value>, at: &str) -> Checked {
    let Some(source) = source.and_then(Value::as_object) else {
        return Err(format!("{at}: Field required"));
    };
    let str_field = |k: &str| source.get(k).and_then(Value::as_str);
    match str_field("type") {
        Some("base64") => {
            let Some(media) = str_field("media_type").filter(|m| IMAGE_TYPES.contains(m)) else {
                return Err(format!(
                    "{at}.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
                ));
            };
            let Some(data) = str_field("data") else {
                return Err(format!("{at}.base64.data: Field required"));
            };
            if !b64::strict(data) {
                return Err(format!("{at}.base64.data: Invalid base64 data"));
            }
            match b64::sniff_image(data) {
                Some(seen) if seen == media => Ok(()),
                Some(seen) => Err(format!(
                    "{at}.base64.data: The image was specified using the {media} media type, but the image appears to be a {seen} image"
                )),
                None => Err(format!("{at}.base64.data: Could not process image")),
            }
        }
        Some("url") => match str_field("url") {
            Some(u) if u.starts_with("https://") || u.starts_with("http://") => Ok(()),
            _ => Err(format!("{at}.url.url: Input should be a valid URL")),
        },
        Some("file") if str_field("file_id").is_some() => Ok(()),
        Some("file") => Err(format!("{at}.file.file_id: Field required")),
        Some(other) => Err(format!(
            "{at}: Input tag '{other}' found using 'type' does not match any of the expected tags: 'base64', 'file', 'url'"
        )),
        None => Err(format!(
            "{at}: Unable to extract tag using discriminator 'type'"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A 1×1 PNG.
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    fn check(v: Value) -> Checked<Seen> {
        request(&v, Endpoint::Messages)
    }

    fn body(messages: Value) -> Value {
        json!({"model": "claude", "max_tokens": 2000, "messages": messages})
    }

    fn err(v: Value) -> String {
        match check(v) {
            Err(e) => e,
            Ok(seen) => panic!("accepted: {seen:?}"),
        }
    }

    #[test]
    fn requires_model_max_tokens_and_messages() {
        let user = json!([{"role": "user", "content": "hi"}]);
        assert_eq!(
            err(json!({"max_tokens": 5, "messages": user})),
            "model: Field required"
        );
        assert_eq!(
            err(json!({"model": "m", "messages": user})),
            "max_tokens: Field required"
        );
        assert!(
            err(json!({"model": "m", "max_tokens": 0, "messages": user})).contains("max_tokens")
        );
        assert!(
            err(json!({"model": "m", "max_tokens": "5", "messages": user})).contains("integer")
        );
        assert!(err(body(json!([]))).contains("at least one message"));
        assert!(
            request(
                &json!({"model": "m", "messages": user}),
                Endpoint::CountTokens
            )
            .is_ok()
        );
    }

    #[test]
    fn checks_roles_and_content() {
        assert!(
            err(body(json!([{"role": "assistant", "content": "x"}]))).contains("first message")
        );
        let twice = json!([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]);
        assert!(err(body(twice)).contains("must alternate"));
        assert!(err(body(json!([{"role": "system", "content": "x"}]))).contains("messages.0.role"));
        assert!(err(body(json!([{"role": "user", "content": ""}]))).contains("non-empty"));
        let prefill =
            json!([{"role": "user", "content": "a"}, {"role": "assistant", "content": ""}]);
        assert!(check(body(prefill)).is_ok());
        let bad = json!([{"role": "user", "content": [{"type": "txt", "text": "a"}]}]);
        assert!(err(body(bad)).starts_with("messages.0.content.0: Input tag 'txt'"));
    }

    #[test]
    fn pairs_tool_results_with_tool_uses() {
        let call = json!({"type": "tool_use", "id": "toolu_1", "name": "w", "input": {}});
        let result =
            |id: &str| json!({"type": "tool_result", "tool_use_id": id, "content": "sunny"});
        let ok = json!([
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [call]},
            {"role": "user", "content": [result("toolu_1")]},
        ]);
        assert!(check(body(ok)).is_ok());
        let stray = json!([
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [call]},
            {"role": "user", "content": [result("toolu_1"), result("toolu_2")]},
        ]);
        assert!(err(body(stray)).starts_with(
            "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_2"
        ));
        let unanswered = json!([
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [call]},
            {"role": "user", "content": "well?"},
        ]);
        assert!(err(body(unanswered)).starts_with("messages.1: `tool_use` ids were found"));
    }

    #[test]
    fn checks_thinking_rules() {
        let user = json!([{"role": "user", "content": "hi"}]);
        let with = |extra: Value| {
            let mut v = body(user.clone());
            if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
                o.extend(e.clone());
            }
            v
        };
        let on = |n: i64| json!({"type": "enabled", "budget_tokens": n});
        assert!(check(with(json!({"thinking": on(1024)}))).is_ok());
        assert!(err(with(json!({"thinking": on(1000)}))).contains("1024"));
        assert!(err(with(json!({"thinking": on(2000)}))).contains("`max_tokens` must be greater"));
        assert!(
            err(with(json!({"thinking": on(1024), "temperature": 0.5}))).contains("temperature")
        );
        assert!(check(with(json!({"thinking": on(1024), "temperature": 1}))).is_ok());
        assert!(err(with(json!({"thinking": on(1024), "top_k": 5}))).contains("top_k"));
        assert!(
            check(with(
                json!({"thinking": {"type": "disabled"}, "temperature": 0.2})
            ))
            .is_ok()
        );
    }

    #[test]
    fn checks_and_counts_images() {
        let image = |source: Value| {
            body(json!([{"role": "user", "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image", "source": source},
            ]}]))
        };
        let png = json!({"type": "base64", "media_type": "image/png", "data": PNG});
        assert_eq!(check(image(png)), Ok(Seen { images: 1 }));
        let url = json!({"type": "url", "url": "https://example.com/a.png"});
        assert_eq!(check(image(url)), Ok(Seen { images: 1 }));
        let bmp = json!({"type": "base64", "media_type": "image/bmp", "data": PNG});
        assert!(err(image(bmp)).contains("source.base64.media_type"));
        let garbage = json!({"type": "base64", "media_type": "image/png", "data": "not base64!"});
        assert!(err(image(garbage)).contains("Invalid base64"));
        let lie = json!({"type": "base64", "media_type": "image/jpeg", "data": PNG});
        assert!(err(image(lie)).contains("appears to be a image/png image"));
    }
}
