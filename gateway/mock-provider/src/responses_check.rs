//! Checks an OpenAI Responses request (`POST /v1/responses`) as the real API does: model
//! and input required, input items and their content parts, function tools in the flat
//! Responses shape, tool outputs paired with calls, `max_output_tokens` bounds.

use serde_json::{Map, Value};

use crate::openai_check::{Checked, Invalid, image_url};

/// What the checks saw that the answer echoes.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Seen {
    /// `input_image` parts.
    pub images: usize,
}

const ITEM_TYPES: &[&str] = &[
    "message",
    "function_call",
    "function_call_output",
    "reasoning",
    "item_reference",
];
const ROLES: &[&str] = &["user", "assistant", "system", "developer"];
const INPUT_PARTS: &[&str] = &["input_text", "input_image", "input_file"];
const OUTPUT_PARTS: &[&str] = &["output_text", "refusal"];
const MIN_OUTPUT_TOKENS: i64 = 16;

/// Checks a `/v1/responses` body.
pub(crate) fn request(v: &Value) -> Checked<Seen> {
    let Some(obj) = v.as_object() else {
        return Err(Invalid::kind("body", "an object", v));
    };
    match obj.get("model") {
        None | Some(Value::Null) => return Err(Invalid::missing("model")),
        Some(Value::String(_)) => {}
        Some(other) => return Err(Invalid::kind("model", "a string", other)),
    }
    if let Some(n) = obj.get("max_output_tokens").filter(|n| !n.is_null()) {
        match n.as_i64() {
            Some(n) if n >= MIN_OUTPUT_TOKENS => {}
            Some(n) => {
                let message = format!(
                    "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= {MIN_OUTPUT_TOKENS}, but got {n} instead."
                );
                return Err(Invalid::new(
                    message,
                    "max_output_tokens",
                    "integer_below_min_value",
                ));
            }
            None => return Err(Invalid::kind("max_output_tokens", "an integer", n)),
        }
    }
    if let Some(s) = obj
        .get("stream")
        .filter(|s| !s.is_null() && !s.is_boolean())
    {
        return Err(Invalid::kind("stream", "a boolean", s));
    }
    tools(obj)?;
    match obj.get("input") {
        None | Some(Value::Null) => Err(Invalid::missing("input")),
        Some(Value::String(_)) => Ok(Seen::default()),
        Some(Value::Array(items)) => input(items),
        Some(other) => Err(Invalid::kind(
            "input",
            "one of a string or array of input items",
            other,
        )),
    }
}

/// Function tools are flat (`{"type":"function","name":…,"parameters":…}`), not the Chat
/// Completions shape with a nested `function`.
fn tools(obj: &Map<String, Value>) -> Checked {
    let Some(tools) = obj.get("tools").filter(|t| !t.is_null()) else {
        return Ok(());
    };
    let Some(tools) = tools.as_array() else {
        return Err(Invalid::kind("tools", "an array", tools));
    };
    for (i, t) in tools.iter().enumerate() {
        let Some(kind) = t.get("type").and_then(Value::as_str) else {
            return Err(Invalid::missing(&format!("tools[{i}].type")));
        };
        if kind == "function" && t.get("name").and_then(Value::as_str).is_none() {
            return Err(Invalid::missing(&format!("tools[{i}].name")));
        }
    }
    Ok(())
}

/// Checks the input items; returns the images they hold.
fn input(items: &[Value]) -> Checked<Seen> {
    let mut seen = Seen::default();
    let mut calls: Vec<&str> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("input[{i}]");
        let Some(obj) = item.as_object() else {
            return Err(Invalid::kind(&at, "an object", item));
        };
        let str_field = |k: &str| obj.get(k).and_then(Value::as_str);
        // Easy input messages (`{"role","content"}`) may leave out the type.
        let kind = str_field("type").unwrap_or("message");
        match kind {
            "message" => seen.images += message(obj, &at)?,
            "function_call" => {
                for field in ["call_id", "name", "arguments"] {
                    if str_field(field).is_none() {
                        return Err(Invalid::missing(&format!("{at}.{field}")));
                    }
                }
                calls.extend(str_field("call_id"));
            }
            "function_call_output" => {
                let Some(id) = str_field("call_id") else {
                    return Err(Invalid::missing(&format!("{at}.call_id")));
                };
                if obj.get("output").is_none() {
                    return Err(Invalid::missing(&format!("{at}.output")));
                }
                if !calls.contains(&id) {
                    let message =
                        format!("No tool call found for function call output with call_id {id}.");
                    return Err(Invalid::new(message, "input", "invalid_value"));
                }
            }
            k if ITEM_TYPES.contains(&k) => {}
            other => return Err(Invalid::value(&format!("{at}.type"), other, ITEM_TYPES)),
        }
    }
    Ok(seen)
}

/// Checks one message item at `at`; returns the images it holds.
fn message(obj: &Map<String, Value>, at: &str) -> Checked<usize> {
    let Some(role) = obj.get("role").and_then(Value::as_str) else {
        return Err(Invalid::missing(&format!("{at}.role")));
    };
    if !ROLES.contains(&role) {
        return Err(Invalid::value(&format!("{at}.role"), role, ROLES));
    }
    let parts = match obj.get("content") {
        Some(Value::String(_)) => return Ok(0),
        Some(Value::Array(parts)) => parts,
        None | Some(Value::Null) => return Err(Invalid::missing(&format!("{at}.content"))),
        Some(other) => {
            let expected = "one of a string or array of input content parts";
            return Err(Invalid::kind(&format!("{at}.content"), expected, other));
        }
    };
    let allowed = if role == "assistant" {
        OUTPUT_PARTS
    } else {
        INPUT_PARTS
    };
    let mut images = 0;
    for (j, p) in parts.iter().enumerate() {
        let at = format!("{at}.content[{j}]");
        let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
        if !allowed.contains(&kind) {
            return Err(Invalid::value(&format!("{at}.type"), kind, allowed));
        }
        if kind == "input_image" {
            match p.get("image_url").and_then(Value::as_str) {
                Some(url) => image_url(url, &format!("{at}.image_url"))?,
                None if p.get("file_id").is_some_and(Value::is_string) => {}
                None => return Err(Invalid::missing(&format!("{at}.image_url"))),
            }
            images += 1;
        } else if p.get("text").and_then(Value::as_str).is_none() && kind != "input_file" {
            return Err(Invalid::missing(&format!("{at}.text")));
        }
    }
    Ok(images)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    fn refused(v: Value) -> (String, Option<String>) {
        match request(&v) {
            Ok(seen) => panic!("accepted: {seen:?}"),
            Err(e) => (e.message, e.param),
        }
    }

    #[test]
    fn requires_model_and_input() {
        assert_eq!(
            refused(json!({"input": "hi"})),
            (
                "Missing required parameter: 'model'.".into(),
                Some("model".into())
            )
        );
        assert_eq!(
            refused(json!({"model": "m"})),
            (
                "Missing required parameter: 'input'.".into(),
                Some("input".into())
            )
        );
        assert_eq!(
            refused(json!({"model": "m", "input": {"role": "user"}})).0,
            "Invalid type for 'input': expected one of a string or array of input items, but got an object instead."
        );
        assert_eq!(
            refused(json!({"model": "m", "input": "hi", "max_output_tokens": 8})).1,
            Some("max_output_tokens".into())
        );
        assert_eq!(
            request(&json!({"model": "m", "input": "hi"})),
            Ok(Seen::default())
        );
    }

    #[test]
    fn checks_items_tools_and_images() {
        let image =
            json!({"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}")});
        let turn = json!({"model": "m", "tools": [{"type": "function", "name": "w", "parameters": {}}],
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "hi"}, image]},
                {"type": "function_call", "call_id": "call_1", "name": "w", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}]});
        assert_eq!(request(&turn), Ok(Seen { images: 1 }));
        let chat_tool = json!({"model": "m", "input": "x",
            "tools": [{"type": "function", "function": {"name": "w"}}]});
        assert_eq!(refused(chat_tool).1, Some("tools[0].name".into()));
        let orphan = json!({"model": "m", "input": [
            {"type": "function_call_output", "call_id": "call_9", "output": "x"}]});
        assert_eq!(
            refused(orphan).0,
            "No tool call found for function call output with call_id call_9."
        );
        let input_text_from_assistant = json!({"model": "m", "input": [
            {"role": "assistant", "content": [{"type": "input_text", "text": "x"}]}]});
        assert_eq!(
            refused(input_text_from_assistant).1,
            Some("input[0].content[0].type".into())
        );
        let bad_role = json!({"model": "m", "input": [{"role": "tool", "content": "x"}]});
        assert_eq!(refused(bad_role).1, Some("input[0].role".into()));
    }
}
