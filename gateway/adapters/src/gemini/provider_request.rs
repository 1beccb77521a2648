//! Provider side: an IR request encoded as a Gemini `generateContent` body.
//!
//! The body is a tree of borrowed, serialisable structs written straight to bytes: no
//! `serde_json::Value` is built on this hot path, cleaned tool schemas included (see
//! `benches/convert.rs`).

use std::collections::HashMap;

use serde::Serialize;

use super::parts_out::{EncodeMode, PartOut, encode_parts};
use super::schema;
use crate::ir::{Part, Reasoning, Request, Role, ToolChoice};

/// Harm categories [`EncodeOptions::safety_threshold`] applies to.
pub const HARM_CATEGORIES: [&str; 5] = [
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
pub fn encode_request<'a>(req: &'a Request, upstream_model: &str) -> Body<'a> {
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
pub fn encode_request_with<'a>(
    req: &'a Request,
    upstream_model: &str,
    opts: EncodeOptions<'a>,
) -> Body<'a> {
    let declarations: Vec<Declaration<'a>> = req
        .tools
        .iter()
        .map(|t| Declaration {
            name: &t.name,
            description: t.description.as_deref(),
            parameters: schema::parameters_to_gemini(&t.parameters),
        })
        .collect();
    let tool_config = match (&req.tool_choice, declarations.is_empty()) {
        (Some(choice), false) => Some(tool_config(choice)),
        _ => None,
    };
    let tools = if declarations.is_empty() {
        Vec::new()
    } else {
        vec![ToolOut {
            function_declarations: declarations,
        }]
    };
    let mut body = Body {
        contents: contents(req, upstream_model),
        system_instruction: (!req.system.is_empty()).then(|| SystemOut {
            parts: req.system.iter().map(|text| TextOut { text }).collect(),
        }),
        tools,
        tool_config,
        generation_config: generation_config(req),
        safety_settings: Vec::new(),
    };
    if let Some(t) = opts.safety_threshold.filter(|t| !t.is_empty()) {
        body.set_safety(HARM_CATEGORIES.iter().map(|c| (*c, t)));
    }
    body
}

/// A `generateContent` body, borrowing the IR request it was made of.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Body<'a> {
    contents: Vec<ContentOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_instruction: Option<SystemOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ToolOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_config: Option<ToolConfig<'a>>,
    #[serde(skip_serializing_if = "GenerationConfig::is_empty")]
    generation_config: GenerationConfig<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    safety_settings: Vec<SafetySetting<'a>>,
}

impl<'a> Body<'a> {
    /// Asks for images as well as text (`generationConfig.responseModalities`), for the models
    /// that draw.
    pub fn set_image_output(&mut self) {
        self.generation_config.response_modalities = Some(&["TEXT", "IMAGE"]);
    }

    /// Sets `safetySettings`: a threshold per harm category.
    pub fn set_safety(&mut self, settings: impl IntoIterator<Item = (&'static str, &'a str)>) {
        self.safety_settings = settings
            .into_iter()
            .map(|(category, threshold)| SafetySetting {
                category,
                threshold,
            })
            .collect();
    }
}

#[derive(Debug, Serialize)]
struct ContentOut<'a> {
    role: &'static str,
    parts: Vec<PartOut<'a>>,
}

#[derive(Debug, Serialize)]
struct SystemOut<'a> {
    parts: Vec<TextOut<'a>>,
}

#[derive(Debug, Serialize)]
struct TextOut<'a> {
    text: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolOut<'a> {
    function_declarations: Vec<Declaration<'a>>,
}

#[derive(Debug, Serialize)]
struct Declaration<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parameters: Option<schema::Parameters<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolConfig<'a> {
    function_calling_config: CallingConfig<'a>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CallingConfig<'a> {
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_function_names: Option<[&'a str; 1]>,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct GenerationConfig<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_k: Option<i64>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop_sequences: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    response_mime_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_schema: Option<schema::Schema<'a>>,
    #[serde(skip_serializing_if = "ThinkingConfig::is_empty")]
    thinking_config: ThinkingConfig,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_modalities: Option<&'static [&'static str]>,
}

impl GenerationConfig<'_> {
    fn is_empty(&self) -> bool {
        self.max_output_tokens.is_none()
            && self.temperature.is_none()
            && self.top_p.is_none()
            && self.top_k.is_none()
            && self.stop_sequences.is_empty()
            && self.response_mime_type.is_none()
            && self.thinking_config.is_empty()
            && self.response_modalities.is_none()
    }
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct ThinkingConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_budget: Option<i64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    include_thoughts: bool,
}

impl ThinkingConfig {
    fn is_empty(&self) -> bool {
        self.thinking_budget.is_none() && !self.include_thoughts
    }
}

#[derive(Debug, Serialize)]
struct SafetySetting<'a> {
    category: &'static str,
    threshold: &'a str,
}

fn contents<'a>(req: &'a Request, upstream_model: &str) -> Vec<ContentOut<'a>> {
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
    let mut out: Vec<(Role, Vec<PartOut<'a>>)> = Vec::with_capacity(req.messages.len());
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
        .map(|(role, parts)| ContentOut {
            role: match role {
                Role::User => "user",
                Role::Assistant => "model",
            },
            parts,
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

fn tool_config(choice: &ToolChoice) -> ToolConfig<'_> {
    let (mode, allowed_function_names) = match choice {
        ToolChoice::Auto => ("AUTO", None),
        ToolChoice::None => ("NONE", None),
        ToolChoice::Required => ("ANY", None),
        ToolChoice::Tool(name) => ("ANY", Some([name.as_str()])),
    };
    ToolConfig {
        function_calling_config: CallingConfig {
            mode,
            allowed_function_names,
        },
    }
}

fn generation_config(req: &Request) -> GenerationConfig<'_> {
    let json = req.json_output.as_ref();
    GenerationConfig {
        max_output_tokens: req.max_tokens,
        temperature: req.temperature,
        top_p: req.top_p,
        top_k: req.top_k,
        stop_sequences: &req.stop[..req.stop.len().min(MAX_STOP_SEQUENCES)],
        response_mime_type: json.map(|_| "application/json"),
        response_schema: json.filter(|j| !j.is_null()).map(schema::value_to_gemini),
        thinking_config: req
            .reasoning
            .as_ref()
            .map(thinking_config)
            .unwrap_or_default(),
        response_modalities: None,
    }
}

fn thinking_config(r: &Reasoning) -> ThinkingConfig {
    ThinkingConfig {
        thinking_budget: r
            .budget_tokens
            .or_else(|| r.effort.as_deref().and_then(effort_budget)),
        include_thoughts: r.include_thoughts,
    }
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
