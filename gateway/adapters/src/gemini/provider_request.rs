//! Provider side: an IR request encoded as a Gemini `generateContent` body.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::parts::{EncodeMode, encode_parts};
use super::schema;
use crate::ir::{Part, Reasoning, Request, Role, ToolChoice};

/// Harm categories [`EncodeOptions::safety_threshold`] applies to.
const HARM_CATEGORIES: [&str; 5] = [
    "HARM_CATEGORY_HARASSMENT",
    "HARM_CATEGORY_HATE_SPEECH",
    "HARM_CATEGORY_SEXUALLY_EXPLICIT",
    "HARM_CATEGORY_DANGEROUS_CONTENT",
    "HARM_CATEGORY_CIVIC_INTEGRITY",
];

/// Gemini allows at most this many stop sequences.
const MAX_STOP_SEQUENCES: usize = 5;

/// Channel settings that shape the upstream body.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EncodeOptions<'a> {
    /// The `gemini.safety_settings` option: a `HarmBlockThreshold` (`BLOCK_NONE`, `OFF`,
    /// `BLOCK_ONLY_HIGH`, …) sent for every harm category (harassment, hate speech,
    /// sexually explicit, dangerous content, civic integrity). `None` or empty sends no
    /// `safetySettings` (Google's defaults apply).
    pub safety_threshold: Option<&'a str>,
}

/// Encodes `req` for `POST {base}/v1beta/models/{upstream_model}:generateContent` (the model
/// goes in the URL, not the body) with default [`EncodeOptions`].
pub fn encode_request(req: &Request, upstream_model: &str) -> Value {
    encode_request_with(req, upstream_model, EncodeOptions::default())
}

/// Encodes `req` for Gemini:
/// - `system` → `systemInstruction` (one text part per block); messages → `contents`
///   (assistant → `model`; consecutive messages of one role merged into one content, so
///   parallel tool results answer their calls in one turn; empty messages left out);
/// - tool results → `user` `functionResponse` parts named by `ToolResult.name` or else by
///   the earlier call with that id (else the id itself); `response` is the result text
///   parsed when it is a JSON object, else `{"content": text}` (`{"error": text}` for an
///   error); images in results follow as `inlineData` parts. Call ids are not sent (Google
///   refuses `id` on `functionCall`/`functionResponse`);
/// - images: base64 and `data:` URLs → `inlineData`, other URLs → `fileData` (media type
///   from the extension, `image/jpeg` when unknown);
/// - thinking → `thought: true` parts; a thinking signature goes on the part after the
///   thinking (where Gemini puts it: the first `functionCall` or the answer text), or on the
///   last part of the turn when nothing follows; on Gemini 3 and later models the first
///   function call of a model turn without a signature gets Google's
///   `skip_thought_signature_validator` placeholder (history from another provider);
/// - tools → one `functionDeclarations` tool (parameters cleaned, see `gemini/schema.rs`;
///   none for a function without arguments); `tool_choice` → `toolConfig`
///   (`auto` AUTO, `none` NONE, `required` ANY, a named tool ANY + `allowedFunctionNames`);
/// - `max_tokens`, `temperature`, `top_p`, `top_k`, `stop` (first 5) → `generationConfig`;
///   `json_output` → `responseMimeType: application/json` (+ cleaned `responseSchema`);
/// - reasoning → `thinkingConfig`: `budget_tokens` as `thinkingBudget`, else `effort` as a
///   budget (`none` 0, `minimal` 512, `low` 1024, `medium` 8192, `high`/`xhigh` 24576: every
///   2.5 model accepts these, Pro refusing 0 only when asked for `none`), `includeThoughts`
///   when the client wants thoughts;
/// - `opts.safety_threshold` → `safetySettings`. `user` has no Gemini field and is dropped.
pub fn encode_request_with(req: &Request, upstream_model: &str, opts: EncodeOptions<'_>) -> Value {
    let mut body = Map::new();
    body.insert(
        "contents".into(),
        Value::Array(contents(req, upstream_model)),
    );
    if !req.system.is_empty() {
        let parts: Vec<Value> = req.system.iter().map(|s| json!({"text": s})).collect();
        let mut system = Map::new();
        system.insert("parts".into(), Value::Array(parts));
        body.insert("systemInstruction".into(), Value::Object(system));
    }
    let declarations: Vec<Value> = req
        .tools
        .iter()
        .map(|t| {
            let mut d = Map::new();
            d.insert("name".into(), json!(t.name));
            if let Some(desc) = &t.description {
                d.insert("description".into(), json!(desc));
            }
            if let Some(p) = schema::parameters_to_gemini(&t.parameters) {
                d.insert("parameters".into(), p);
            }
            Value::Object(d)
        })
        .collect();
    if !declarations.is_empty() {
        // Moved in: `json!` would copy the declarations by serialising them.
        let mut tool = Map::new();
        tool.insert("functionDeclarations".into(), Value::Array(declarations));
        body.insert("tools".into(), Value::Array(vec![Value::Object(tool)]));
        if let Some(choice) = &req.tool_choice {
            body.insert("toolConfig".into(), tool_config(choice));
        }
    }
    let config = generation_config(req);
    if !config.is_empty() {
        body.insert("generationConfig".into(), Value::Object(config));
    }
    if let Some(t) = opts.safety_threshold.filter(|t| !t.is_empty()) {
        let settings: Vec<Value> = HARM_CATEGORIES
            .iter()
            .map(|c| json!({"category": c, "threshold": t}))
            .collect();
        body.insert("safetySettings".into(), Value::Array(settings));
    }
    Value::Object(body)
}

fn contents(req: &Request, upstream_model: &str) -> Vec<Value> {
    let mut names: HashMap<&str, &str> = HashMap::new();
    for m in &req.messages {
        for p in &m.content {
            if let Part::ToolCall { id, name, .. } = p {
                names.insert(id, name);
            }
        }
    }
    let mode = EncodeMode {
        call_ids: false,
        placeholder_signature: needs_signature(upstream_model),
        signature_to_next_part: true,
    };
    let mut out: Vec<(Role, Vec<Value>)> = Vec::with_capacity(req.messages.len());
    for m in &req.messages {
        let parts = encode_parts(&m.content, mode, &names);
        if parts.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((role, have)) if *role == m.role => have.extend(parts),
            _ => out.push((m.role, parts)),
        }
    }
    out.into_iter()
        .map(|(role, parts)| {
            let role = match role {
                Role::User => "user",
                Role::Assistant => "model",
            };
            // Moved in: `json!` would copy the parts by serialising them.
            let mut content = json!({"role": role});
            content["parts"] = Value::Array(parts);
            content
        })
        .collect()
}

/// Whether the model is Gemini 3 or later (which refuses replayed function calls without
/// a thought signature).
fn needs_signature(model: &str) -> bool {
    let name = model.strip_prefix("models/").unwrap_or(model);
    let Some(version) = name.strip_prefix("gemini-") else {
        return false;
    };
    let digits: String = version.chars().take_while(char::is_ascii_digit).collect();
    digits.parse::<u32>().is_ok_and(|major| major >= 3)
}

fn tool_config(choice: &ToolChoice) -> Value {
    let cfg = match choice {
        ToolChoice::Auto => json!({"mode": "AUTO"}),
        ToolChoice::None => json!({"mode": "NONE"}),
        ToolChoice::Required => json!({"mode": "ANY"}),
        ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
    };
    json!({ "functionCallingConfig": cfg })
}

fn generation_config(req: &Request) -> Map<String, Value> {
    let mut c = Map::new();
    if let Some(n) = req.max_tokens {
        c.insert("maxOutputTokens".into(), json!(n));
    }
    if let Some(t) = req.temperature {
        c.insert("temperature".into(), json!(t));
    }
    if let Some(p) = req.top_p {
        c.insert("topP".into(), json!(p));
    }
    if let Some(k) = req.top_k {
        c.insert("topK".into(), json!(k));
    }
    if !req.stop.is_empty() {
        let stop: Vec<&String> = req.stop.iter().take(MAX_STOP_SEQUENCES).collect();
        c.insert("stopSequences".into(), json!(stop));
    }
    if let Some(j) = &req.json_output {
        c.insert("responseMimeType".into(), json!("application/json"));
        if !j.is_null() {
            c.insert("responseSchema".into(), schema::to_gemini(j));
        }
    }
    if let Some(r) = &req.reasoning {
        let t = thinking_config(r);
        if !t.is_empty() {
            c.insert("thinkingConfig".into(), Value::Object(t));
        }
    }
    c
}

fn thinking_config(r: &Reasoning) -> Map<String, Value> {
    let mut t = Map::new();
    let budget = r
        .budget_tokens
        .or_else(|| r.effort.as_deref().and_then(effort_budget));
    if let Some(b) = budget {
        t.insert("thinkingBudget".into(), json!(b));
    }
    if r.include_thoughts {
        t.insert("includeThoughts".into(), json!(true));
    }
    t
}

/// The thinking budget standing for an OpenAI reasoning effort.
fn effort_budget(effort: &str) -> Option<i64> {
    Some(match effort {
        "none" => 0,
        "minimal" => 512,
        "low" => 1024,
        "medium" => 8192,
        "high" | "xhigh" => 24576,
        _ => return None,
    })
}
