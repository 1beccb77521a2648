//! Client side: a `generateContent` / `streamGenerateContent` body decoded to an IR request.

use serde_json::Value;

use super::fields::{self, get, invalid};
use super::parts::PartDecoder;
use super::schema;
use crate::ParseError;
use crate::ir::{Message, Reasoning, Request, Role, SchemaText, Tool, ToolChoice};

/// Decodes the body of `POST …/models/{model}:generateContent` (or
/// `:streamGenerateContent`); `model` and `stream` come from the URL. Field names may be
/// camelCase or snake_case, as Google's parser allows.
///
/// Converted: `contents` (required, non-empty; roles `user`/`model`, `function` and `tool`
/// read as `user`) with text, `inlineData`, `fileData` (an image URL), `functionCall`,
/// `functionResponse` and thought parts (see `gemini/parts.rs` for signatures and call ids);
/// `systemInstruction` text parts; `generationConfig` `maxOutputTokens`, `temperature`,
/// `topP`, `topK`, `stopSequences`, `responseMimeType: application/json` (plain JSON),
/// `responseSchema` (normalised to JSON Schema) / `responseJsonSchema`, `thinkingConfig`
/// (`thinkingBudget` ≥ 0 → `budget_tokens`, −1 (dynamic) → no budget, `thinkingLevel` →
/// `effort`, `includeThoughts`); `tools[].functionDeclarations` (`parameters` normalised
/// to JSON Schema, or `parametersJsonSchema`); `toolConfig.functionCallingConfig`.
/// Ignored: `candidateCount`, penalties, `seed`, logprobs, `safetySettings`,
/// `cachedContent`, other tool kinds (`googleSearch`, `codeExecution`, …).
pub fn decode_request(model: &str, stream: bool, body: &[u8]) -> Result<Request, ParseError> {
    let v: Value =
        serde_json::from_slice(body).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
    if !v.is_object() {
        return Err(ParseError::Invalid(
            "request body must be a JSON object".into(),
        ));
    }
    let mut req = Request {
        model: model.to_owned(),
        stream,
        system: system(&v)?,
        messages: messages(&v)?,
        tools: tools(&v)?,
        tool_choice: tool_choice(&v)?,
        ..Request::default()
    };
    if let Some(cfg) = get(&v, "generationConfig", "generation_config") {
        generation_config(cfg, &mut req)?;
    }
    Ok(req)
}

fn system(v: &Value) -> Result<Vec<String>, ParseError> {
    let Some(si) = get(v, "systemInstruction", "system_instruction") else {
        return Ok(Vec::new());
    };
    if let Some(s) = si.as_str() {
        return Ok(vec![s.to_owned()]);
    }
    let parts = fields::array(si, "parts", "parts")?;
    Ok(parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .map(str::to_owned)
        .collect())
}

fn messages(v: &Value) -> Result<Vec<Message>, ParseError> {
    let contents = fields::array(v, "contents", "contents")?;
    if contents.is_empty() {
        return Err(ParseError::Invalid(
            "field `contents` must be a non-empty array".into(),
        ));
    }
    let mut decoder = PartDecoder::new("call_".into());
    let mut out = Vec::with_capacity(contents.len());
    for (i, c) in contents.iter().enumerate() {
        if !c.is_object() {
            return Err(invalid(&format!("contents[{i}]"), "an object"));
        }
        let role = match fields::string(c, "role", "role")? {
            None | Some("user" | "function" | "tool" | "") => Role::User,
            Some("model") => Role::Assistant,
            Some(other) => {
                return Err(ParseError::Invalid(format!(
                    "field `contents[{i}].role` must be `user` or `model`, got {other:?}"
                )));
            }
        };
        let mut content = Vec::new();
        for (j, p) in fields::array(c, "parts", "parts")?.iter().enumerate() {
            decoder.decode(p, &format!("contents[{i}].parts[{j}]"), &mut content)?;
        }
        if !content.is_empty() {
            out.push(Message { role, content });
        }
    }
    if out.is_empty() {
        return Err(ParseError::Invalid(
            "field `contents` has no usable parts".into(),
        ));
    }
    Ok(out)
}

fn tools(v: &Value) -> Result<Vec<Tool>, ParseError> {
    let mut out = Vec::new();
    for t in fields::array(v, "tools", "tools")? {
        for (i, f) in fields::array(t, "functionDeclarations", "function_declarations")?
            .iter()
            .enumerate()
        {
            let name = fields::string(f, "name", "name")?
                .ok_or_else(|| invalid(&format!("functionDeclarations[{i}].name"), "a string"))?;
            let parameters =
                if let Some(p) = get(f, "parametersJsonSchema", "parameters_json_schema") {
                    SchemaText::from(p)
                } else if let Some(p) = get(f, "parameters", "parameters") {
                    SchemaText::from(schema::from_gemini(p))
                } else {
                    SchemaText::empty_object()
                };
            out.push(Tool {
                name: name.to_owned(),
                description: fields::string(f, "description", "description")?.map(str::to_owned),
                parameters,
            });
        }
    }
    Ok(out)
}

fn tool_choice(v: &Value) -> Result<Option<ToolChoice>, ParseError> {
    let Some(cfg) = get(v, "toolConfig", "tool_config")
        .and_then(|c| get(c, "functionCallingConfig", "function_calling_config"))
    else {
        return Ok(None);
    };
    let mode = fields::string(cfg, "mode", "mode")?.unwrap_or("AUTO");
    let names = fields::strings(cfg, "allowedFunctionNames", "allowed_function_names")?;
    Ok(match mode.to_ascii_uppercase().as_str() {
        "NONE" => Some(ToolChoice::None),
        "ANY" if names.len() == 1 => names.into_iter().next().map(ToolChoice::Tool),
        "ANY" => Some(ToolChoice::Required),
        "AUTO" | "VALIDATED" | "MODE_UNSPECIFIED" => Some(ToolChoice::Auto),
        _ => {
            return Err(invalid(
                "toolConfig.functionCallingConfig.mode",
                "AUTO, ANY or NONE",
            ));
        }
    })
}

fn generation_config(cfg: &Value, req: &mut Request) -> Result<(), ParseError> {
    req.max_tokens = fields::int(cfg, "maxOutputTokens", "max_output_tokens")?;
    req.temperature = fields::float(cfg, "temperature", "temperature")?;
    req.top_p = fields::float(cfg, "topP", "top_p")?;
    req.top_k = fields::int(cfg, "topK", "top_k")?;
    req.stop = fields::strings(cfg, "stopSequences", "stop_sequences")?;
    let mime = fields::string(cfg, "responseMimeType", "response_mime_type")?;
    req.json_output = if let Some(s) = get(cfg, "responseJsonSchema", "response_json_schema") {
        Some(s.clone())
    } else if let Some(s) = get(cfg, "responseSchema", "response_schema") {
        Some(schema::from_gemini(s))
    } else if mime == Some("application/json") {
        Some(Value::Null)
    } else {
        None
    };
    if let Some(t) = get(cfg, "thinkingConfig", "thinking_config") {
        let budget = fields::int(t, "thinkingBudget", "thinking_budget")?;
        req.reasoning = Some(Reasoning {
            effort: fields::string(t, "thinkingLevel", "thinking_level")?
                .map(str::to_ascii_lowercase)
                .filter(|l| l != "thinking_level_unspecified"),
            budget_tokens: budget.filter(|b| *b >= 0),
            include_thoughts: fields::flag(t, "includeThoughts", "include_thoughts")?,
        });
    }
    Ok(())
}
