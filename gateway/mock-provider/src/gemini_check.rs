//! Checks Gemini request bodies as the real API does (proto field names, `contents` and
//! `parts` rules, the function-declaration schema subset), collecting every violation into
//! one message the way Google joins them.

use serde_json::{Map, Value};

use crate::b64;

/// What the checks saw that the answer echoes.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Seen {
    /// `inlineData` / `fileData` parts with an `image/…` MIME type.
    pub images: usize,
}

/// One text to embed and the vector size asked for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct EmbedInput {
    pub text: String,
    pub dims: usize,
}

/// Vector size when the request does not set `outputDimensionality`.
pub(crate) const DEFAULT_DIMS: usize = 8;

const REQUEST_KEYS: &[&str] = &[
    "model",
    "contents",
    "tools",
    "toolConfig",
    "tool_config",
    "safetySettings",
    "safety_settings",
    "systemInstruction",
    "system_instruction",
    "generationConfig",
    "generation_config",
    "cachedContent",
    "cached_content",
];
/// The `data` oneof of a part, camelCase and snake_case.
const DATA_KEYS: &[(&str, &str)] = &[
    ("text", "text"),
    ("inlineData", "inline_data"),
    ("fileData", "file_data"),
    ("functionCall", "function_call"),
    ("functionResponse", "function_response"),
    ("executableCode", "executable_code"),
    ("codeExecutionResult", "code_execution_result"),
];
const PART_META_KEYS: &[&str] = &[
    "thought",
    "thoughtSignature",
    "thought_signature",
    "videoMetadata",
    "video_metadata",
    "mediaResolution",
    "media_resolution",
    "partMetadata",
    "part_metadata",
];
/// Fields of the proto `Schema` that function `parameters` may use.
const SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "max_items",
    "minItems",
    "min_items",
    "properties",
    "required",
    "minProperties",
    "min_properties",
    "maxProperties",
    "max_properties",
    "minLength",
    "min_length",
    "maxLength",
    "max_length",
    "pattern",
    "example",
    "anyOf",
    "any_of",
    "propertyOrdering",
    "property_ordering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// A field under its camelCase or snake_case name.
fn get<'a>(o: &'a Map<String, Value>, camel: &str, snake: &str) -> Option<&'a Value> {
    o.get(camel)
        .or_else(|| o.get(snake))
        .filter(|v| !v.is_null())
}

/// A function call's or response's non-empty `name`.
fn name_of(obj: Option<&Map<String, Value>>) -> Option<&str> {
    obj.and_then(|f| f.get("name"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
}

fn unknown(name: &str, at: &str) -> String {
    if at.is_empty() {
        format!("Invalid JSON payload received. Unknown name \"{name}\": Cannot find field.")
    } else {
        format!(
            "Invalid JSON payload received. Unknown name \"{name}\" at '{at}': Cannot find field."
        )
    }
}

fn finish(errs: Vec<String>) -> Result<(), String> {
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n"))
    }
}

/// Checks a `generateContent` / `streamGenerateContent` body.
pub(crate) fn generate(v: &Value) -> Result<Seen, String> {
    let Some(o) = v.as_object() else {
        return Err("Invalid JSON payload received. Expected an object.".to_owned());
    };
    let mut errs: Vec<String> = o
        .keys()
        .filter(|k| !REQUEST_KEYS.contains(&k.as_str()))
        .map(|k| unknown(k, ""))
        .collect();
    let mut seen = Seen::default();
    match o.get("contents") {
        Some(Value::Array(contents)) if !contents.is_empty() => {
            for (i, c) in contents.iter().enumerate() {
                seen.images += content(c, &format!("contents[{i}]"), true, &mut errs);
            }
        }
        None | Some(Value::Null | Value::Array(_)) => {
            errs.push("* GenerateContentRequest.contents: contents is not specified\n".to_owned());
        }
        Some(_) => {
            errs.push("Invalid JSON payload received. Expected an array for 'contents'.".to_owned())
        }
    }
    if let Some(sys) = get(o, "systemInstruction", "system_instruction") {
        seen.images += content(sys, "system_instruction", false, &mut errs);
    }
    if let Some(tools) = o.get("tools").filter(|t| !t.is_null()) {
        check_tools(tools, &mut errs);
    }
    finish(errs).map(|()| seen)
}

/// Checks a `countTokens` body: `contents` or a whole `generateContentRequest`.
pub(crate) fn count_tokens(v: &Value) -> Result<Seen, String> {
    let inner = v
        .get("generateContentRequest")
        .or_else(|| v.get("generate_content_request"));
    match inner {
        Some(req) => generate(req),
        None => generate(v),
    }
}

/// Checks one `Content` at `at` (`contents[0]`); returns its images.
fn content(c: &Value, at: &str, check_role: bool, errs: &mut Vec<String>) -> usize {
    let Some(o) = c.as_object() else {
        errs.push(format!(
            "Invalid value at '{at}': expected a Content object."
        ));
        return 0;
    };
    for k in o.keys().filter(|k| !matches!(k.as_str(), "role" | "parts")) {
        errs.push(unknown(k, at));
    }
    if check_role {
        match o.get("role").and_then(Value::as_str) {
            None | Some("" | "user" | "model") => {}
            Some(_) => errs.push("Please use a valid role: user, model.".to_owned()),
        }
    }
    let parts = match o.get("parts") {
        Some(Value::Array(parts)) if !parts.is_empty() => parts,
        _ => {
            errs.push(format!(
                "* GenerateContentRequest.{at}.parts: contents.parts must not be empty.\n"
            ));
            return 0;
        }
    };
    let mut images = 0;
    for (j, p) in parts.iter().enumerate() {
        images += part(p, &format!("{at}.parts[{j}]"), errs);
    }
    images
}

/// Checks one `Part`; returns 1 when it is an image.
fn part(p: &Value, at: &str, errs: &mut Vec<String>) -> usize {
    let Some(o) = p.as_object() else {
        errs.push(format!("Invalid value at '{at}': expected a Part object."));
        return 0;
    };
    let mut data = Vec::new();
    for k in o.keys() {
        match DATA_KEYS.iter().find(|(c, s)| k == c || k == s) {
            Some((camel, _)) => data.push(*camel),
            None if PART_META_KEYS.contains(&k.as_str()) => {}
            None => errs.push(unknown(k, at)),
        }
    }
    let field = |camel: &str, snake: &str| get(o, camel, snake).and_then(Value::as_object);
    match data.as_slice() {
        [] => errs.push(format!(
            "* GenerateContentRequest.{at}.data: required oneof field 'data' must have one initialized field\n"
        )),
        [_, second, ..] => errs.push(format!(
            "Invalid JSON payload received. Oneof field 'data' is already set. Cannot set '{second}' at '{at}'."
        )),
        ["text"] if !o.get("text").is_some_and(Value::is_string) => {
            errs.push(format!("Invalid value at '{at}.text' (TYPE_STRING)"));
        }
        ["inlineData"] => {
            let blob = field("inlineData", "inline_data");
            let mime = blob
                .and_then(|b| get(b, "mimeType", "mime_type"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let raw = blob.and_then(|b| b.get("data")).and_then(Value::as_str);
            if mime.is_empty() {
                errs.push(format!(
                    "* GenerateContentRequest.{at}.inline_data.mime_type: mime_type must not be empty.\n"
                ));
            }
            match raw {
                Some(d) if b64::lenient(d) => return usize::from(mime.starts_with("image/")),
                Some(d) => errs.push(format!(
                    "Invalid value at '{at}.inline_data.data' (TYPE_BYTES), Base64 decoding failed for \"{}\"",
                    d.chars().take(40).collect::<String>()
                )),
                None => errs.push(format!(
                    "* GenerateContentRequest.{at}.inline_data.data: data must not be empty.\n"
                )),
            }
        }
        ["fileData"] => {
            let file = field("fileData", "file_data");
            let uri = file.and_then(|f| get(f, "fileUri", "file_uri")).and_then(Value::as_str);
            if uri.is_none_or(str::is_empty) {
                errs.push(format!(
                    "* GenerateContentRequest.{at}.file_data.file_uri: file_uri must not be empty.\n"
                ));
            } else {
                let mime = file.and_then(|f| get(f, "mimeType", "mime_type"));
                return usize::from(
                    mime.and_then(Value::as_str).is_some_and(|m| m.starts_with("image/")),
                );
            }
        }
        ["functionCall"] if name_of(field("functionCall", "function_call")).is_none() => {
            errs.push(format!(
                "* GenerateContentRequest.{at}.function_call.name: Name cannot be empty.\n"
            ));
        }
        ["functionResponse"] => {
            let f = field("functionResponse", "function_response");
            if name_of(f).is_none() {
                errs.push(format!(
                    "* GenerateContentRequest.{at}.function_response.name: Name cannot be empty.\n"
                ));
            }
            if let Some(r) = f.and_then(|f| f.get("response"))
                && !r.is_object()
            {
                errs.push(format!(
                    "Invalid value at '{at}.function_response.response' (type.googleapis.com/google.protobuf.Struct), {r}"
                ));
            }
        }
        _ => {}
    }
    0
}

fn check_tools(tools: &Value, errs: &mut Vec<String>) {
    let Some(tools) = tools.as_array() else {
        errs.push("Invalid JSON payload received. Expected an array for 'tools'.".to_owned());
        return;
    };
    for (t, tool) in tools.iter().enumerate() {
        let decls = tool
            .as_object()
            .and_then(|o| get(o, "functionDeclarations", "function_declarations"))
            .and_then(Value::as_array);
        for (d, decl) in decls.into_iter().flatten().enumerate() {
            let at = format!("tools[{t}].function_declarations[{d}]");
            let name = decl.get("name").and_then(Value::as_str).unwrap_or("");
            let valid = name.len() <= 64
                && name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'));
            if !valid {
                errs.push(format!(
                    "* GenerateContentRequest.{at}.name: [FIELD_INVALID] Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n"
                ));
            }
            // `parametersJsonSchema` takes full JSON Schema; `parameters` only the proto subset.
            if let Some(params) = decl.get("parameters").filter(|p| !p.is_null()) {
                schema(params, &format!("{at}.parameters"), errs);
            }
        }
    }
}

/// Walks a proto `Schema`, naming unknown keys at their proto path like Google does.
fn schema(v: &Value, at: &str, errs: &mut Vec<String>) {
    let Some(o) = v.as_object() else {
        errs.push(format!(
            "Invalid value at '{at}' (type.googleapis.com/google.ai.generativelanguage.v1beta.Schema), {v}"
        ));
        return;
    };
    for (k, sub) in o {
        match k.as_str() {
            "properties" => {
                for (n, (_, p)) in sub.as_object().into_iter().flatten().enumerate() {
                    schema(p, &format!("{at}.properties[{n}].value"), errs);
                }
            }
            "items" => schema(sub, &format!("{at}.items"), errs),
            "anyOf" | "any_of" => {
                for (n, alt) in sub.as_array().into_iter().flatten().enumerate() {
                    schema(alt, &format!("{at}.any_of[{n}]"), errs);
                }
            }
            "type" if sub.is_array() => errs.push(format!(
                "Invalid JSON payload received. Unknown name \"type\" at '{at}': Proto field is not repeating, cannot start list."
            )),
            known if SCHEMA_KEYS.contains(&known) => {}
            other => errs.push(unknown(other, at)),
        }
    }
}

/// Checks an `embedContent` body (or one request of a batch, at `at`).
pub(crate) fn embed(v: &Value, at: &str) -> Result<EmbedInput, String> {
    let Some(o) = v.as_object() else {
        return Err(format!("Invalid value at '{at}': expected an object."));
    };
    let dot = if at.is_empty() { "" } else { "." };
    let mut errs = Vec::new();
    let text = match o.get("content") {
        Some(c) if !c.is_null() => {
            content(c, &format!("{at}{dot}content"), false, &mut errs);
            let parts = c.get("parts").and_then(Value::as_array);
            parts
                .into_iter()
                .flatten()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<String>()
        }
        _ => {
            errs.push(format!(
                "* EmbedContentRequest.{at}{dot}content: content is not specified\n"
            ));
            String::new()
        }
    };
    let dims = match get(o, "outputDimensionality", "output_dimensionality") {
        None => DEFAULT_DIMS,
        Some(d) => match d.as_u64() {
            Some(n @ 1..=3072) => n as usize,
            _ => {
                errs.push(format!(
                    "* EmbedContentRequest.{at}{dot}output_dimensionality: must be between 1 and 3072.\n"
                ));
                DEFAULT_DIMS
            }
        },
    };
    finish(errs).map(|()| EmbedInput { text, dims })
}

/// Checks a `batchEmbedContents` body for the model named in the path.
pub(crate) fn batch_embed(v: &Value, model: &str) -> Result<Vec<EmbedInput>, String> {
    let requests = match v.get("requests") {
        Some(Value::Array(r)) if !r.is_empty() => r,
        _ => {
            return Err(
                "* BatchEmbedContentsRequest.requests: requests is not specified\n".to_owned(),
            );
        }
    };
    let expected = format!("models/{model}");
    let mut out = Vec::with_capacity(requests.len());
    for (i, r) in requests.iter().enumerate() {
        let at = format!("requests[{i}]");
        match r.get("model").and_then(Value::as_str) {
            Some(m) if m == expected => {}
            Some(m) if m.starts_with("models/") => {
                return Err(format!(
                    "* BatchEmbedContentsRequest.{at}.model: Model name `{m}` in the request does not match the model name `{expected}` in the URL.\n"
                ));
            }
            _ => {
                return Err(format!(
                    "* BatchEmbedContentsRequest.{at}.model: unexpected model name format\n"
                ));
            }
        }
        out.push(embed(r, &at)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> String {
        match generate(&v) {
            Err(e) => e,
            Ok(seen) => panic!("accepted: {seen:?}"),
        }
    }

    #[test]
    fn checks_contents_and_parts() {
        assert!(err(json!({})).contains("contents is not specified"));
        assert!(err(json!({"contents": []})).contains("contents is not specified"));
        assert!(
            err(json!({"contents": [{"role": "user", "parts": []}]})).contains("must not be empty")
        );
        assert!(
            err(json!({"contents": [{"role": "assistant", "parts": [{"text": "a"}]}]}))
                .contains("valid role")
        );
        assert!(
            err(json!({"messages": [], "contents": [{"parts": [{"text": "a"}]}]}))
                .contains("Unknown name \"messages\"")
        );
        let fr = json!({"contents": [{"role": "user", "parts": [{"functionResponse": {"response": {}}}]}]});
        assert!(
            err(fr).contains("contents[0].parts[0].function_response.name: Name cannot be empty")
        );
        let two = json!({"contents": [{"parts": [{"text": "a", "inlineData": {"mimeType": "image/png", "data": "aGk="}}]}]});
        assert!(err(two).contains("Oneof field 'data' is already set"));
        let ok = json!({"contents": [
            {"role": "user", "parts": [{"text": "a"}, {"inline_data": {"mime_type": "image/png", "data": "aGk"}}]},
            {"role": "model", "parts": [{"functionCall": {"name": "w", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "w", "response": {"t": 1}}}, {"fileData": {"fileUri": "gs://b/a.jpg", "mimeType": "image/jpeg"}}]},
        ]});
        assert_eq!(generate(&ok), Ok(Seen { images: 2 }));
        let bad = json!({"contents": [{"parts": [{"inlineData": {"mimeType": "image/png", "data": "!!"}}]}]});
        assert!(err(bad).contains("Base64 decoding failed"));
    }

    #[test]
    fn refuses_json_schema_keys_outside_the_proto_subset() {
        let params = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "additionalProperties": false,
            "properties": {"city": {"type": ["string", "null"]}},
        });
        let body = json!({
            "contents": [{"parts": [{"text": "a"}]}],
            "tools": [{"functionDeclarations": [{"name": "get_weather", "parameters": params}]}],
        });
        let e = err(body);
        let at = "tools[0].function_declarations[0].parameters";
        assert!(
            e.contains(&format!(
                "Unknown name \"$schema\" at '{at}': Cannot find field."
            )),
            "{e}"
        );
        assert!(
            e.contains(&format!("Unknown name \"additionalProperties\" at '{at}'")),
            "{e}"
        );
        assert!(e.contains("cannot start list"), "{e}");
        let loose = json!({
            "contents": [{"parts": [{"text": "a"}]}],
            "tools": [{"functionDeclarations": [{"name": "w", "parametersJsonSchema": {"additionalProperties": false}}]}],
        });
        assert!(generate(&loose).is_ok());
    }

    #[test]
    fn checks_embeddings() {
        let one = json!({"content": {"parts": [{"text": "a"}, {"text": "b"}]}, "outputDimensionality": 4});
        assert_eq!(
            embed(&one, ""),
            Ok(EmbedInput {
                text: "ab".to_owned(),
                dims: 4
            })
        );
        assert!(embed(&json!({}), "").is_err_and(|e| e.contains("content is not specified")));
        let batch =
            json!({"requests": [{"model": "models/e", "content": {"parts": [{"text": "x"}]}}]});
        assert_eq!(batch_embed(&batch, "e").map(|v| v.len()), Ok(1));
        assert!(batch_embed(&batch, "other").is_err_and(|e| e.contains("does not match")));
    }
}
