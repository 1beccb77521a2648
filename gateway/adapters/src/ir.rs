//! The canonical internal representation (IR) every dialect converts through: a chat
//! request, a complete answer, and the events of a streamed answer. Inbound dialects
//! decode client requests to it and encode answers from it; provider protocols encode
//! requests from it and decode upstream answers and stream events to it. Pure data.

use serde_json::Value;
use serde_json::value::RawValue;

/// Who wrote a message (system prompts live in [`Request::system`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

/// Where an image comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ImageSource {
    /// An `http(s)://` URL (or a `data:` URL, kept as given).
    Url(String),
    /// Inline bytes, base64-encoded.
    Base64 { media_type: String, data: String },
}

/// One piece of a message's content.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Image(ImageSource),
    /// Model reasoning shown to the client (Claude thinking, OpenAI `reasoning_content`,
    /// Gemini thought parts); `signature` is Claude's, passed back on later turns.
    Thinking {
        text: String,
        signature: Option<String>,
    },
    /// Reasoning the provider keeps encrypted (Claude `redacted_thinking`, Responses
    /// `encrypted_content`).
    RedactedThinking(String),
    /// A call of a client-defined function; `arguments` is JSON text.
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    /// The client's answer to a tool call.
    ToolResult {
        call_id: String,
        /// The function's name, when the dialect carries it (Gemini needs it).
        name: Option<String>,
        content: Vec<Part>,
        is_error: bool,
    },
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: Vec<Part>,
}

/// A function the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: Option<String>,
    /// JSON Schema of the arguments (an object schema).
    pub parameters: SchemaText,
}

/// A JSON value kept as the client wrote it (checked JSON text): tool schemas pass through
/// most conversions untouched, so they are neither parsed into a tree when decoded nor
/// serialised again when encoded (see `benches/convert.rs`).
#[derive(Clone)]
pub struct SchemaText(Box<RawValue>);

impl SchemaText {
    /// The JSON text of `raw`, copied.
    pub fn from_raw(raw: &RawValue) -> Self {
        SchemaText(raw.to_owned())
    }

    /// An object schema without properties (a function taking no arguments).
    pub fn empty_object() -> Self {
        Self::from(&serde_json::json!({"type": "object", "properties": {}}))
    }

    /// The JSON text.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    pub fn is_object(&self) -> bool {
        self.text().starts_with('{')
    }

    pub fn is_null(&self) -> bool {
        self.text() == "null"
    }

    /// The value as a tree.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or(Value::Null)
    }
}

impl From<&Value> for SchemaText {
    fn from(v: &Value) -> Self {
        // Serialising a `Value` always gives valid JSON; `null` is the unreachable fallback.
        let text = serde_json::to_string(v).unwrap_or_else(|_| "null".to_owned());
        SchemaText(RawValue::from_string(text).unwrap_or_else(|_| RawValue::NULL.to_owned()))
    }
}

impl From<Value> for SchemaText {
    fn from(v: Value) -> Self {
        Self::from(&v)
    }
}

/// Equal when the values are (whatever the spacing or the order of keys).
impl PartialEq for SchemaText {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text() || self.to_value() == other.to_value()
    }
}

impl std::fmt::Debug for SchemaText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

impl serde::Serialize for SchemaText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// How the model may use the tools.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolChoice {
    Auto,
    None,
    /// Some tool must be called.
    Required,
    /// This tool must be called.
    Tool(String),
}

/// Reasoning asked for: an effort level, a token budget, or both.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reasoning {
    /// `minimal`, `low`, `medium` or `high` (OpenAI's names).
    pub effort: Option<String>,
    /// Thinking tokens allowed (Claude `budget_tokens`, Gemini `thinkingBudget`).
    pub budget_tokens: Option<i64>,
    /// Whether the provider should send its thoughts back (Gemini `includeThoughts`).
    pub include_thoughts: bool,
}

/// A chat request in any dialect.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    pub model: String,
    /// System prompt blocks, in order.
    pub system: Vec<String>,
    pub messages: Vec<Message>,
    pub tools: Vec<Tool>,
    pub tool_choice: Option<ToolChoice>,
    pub max_tokens: Option<i64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub top_k: Option<i64>,
    pub stop: Vec<String>,
    pub stream: bool,
    pub reasoning: Option<Reasoning>,
    /// An end-user id for the provider's abuse tracking.
    pub user: Option<String>,
    /// Structured output: a JSON Schema (`Some(schema)`) or plain JSON (`Some(Value::Null)`).
    pub json_output: Option<Value>,
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StopReason {
    #[default]
    EndTurn,
    MaxTokens,
    StopSequence,
    ToolUse,
    ContentFilter,
}

/// Tokens of one answer, as the provider counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Every prompt token, cached ones included.
    pub input_tokens: i64,
    /// Every generated token, reasoning included.
    pub output_tokens: i64,
    /// Prompt tokens read from the provider's cache (part of `input_tokens`).
    pub cache_read_tokens: i64,
    /// Prompt tokens written to the provider's cache (part of `input_tokens`; Claude).
    pub cache_creation_tokens: i64,
    /// Reasoning tokens (part of `output_tokens`).
    pub reasoning_tokens: i64,
}

/// A complete (non-stream) answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Response {
    pub id: String,
    pub model: String,
    /// Text, thinking and tool calls, in order.
    pub content: Vec<Part>,
    pub stop: StopReason,
    /// `None` when the provider sent no usage (counted locally then).
    pub usage: Option<Usage>,
}

/// One event of a streamed answer. Indices count content blocks of one kind from 0.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// The answer begins.
    Start {
        id: String,
        model: String,
    },
    TextDelta(String),
    ThinkingDelta(String),
    /// Claude's thinking signature, sent at the end of a thinking block.
    ThinkingSignature(String),
    /// A tool call begins (`index` counts the answer's tool calls).
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    /// More JSON text of tool call `index`'s arguments.
    ToolCallDelta {
        index: usize,
        arguments: String,
    },
    /// Usage so far (the last one sent counts).
    Usage(Usage),
    /// The model stopped; usage may still follow.
    Finish(StopReason),
}

impl Request {
    /// Text of the whole prompt (system, messages, tool definitions), for local token counting.
    pub fn prompt_text(&self) -> String {
        let mut out = String::new();
        for s in &self.system {
            out.push_str(s);
            out.push('\n');
        }
        for m in &self.messages {
            push_parts_text(&m.content, &mut out);
            out.push('\n');
        }
        for t in &self.tools {
            out.push_str(&t.name);
            if let Some(d) = &t.description {
                out.push(' ');
                out.push_str(d);
            }
            out.push(' ');
            out.push_str(t.parameters.text());
            out.push('\n');
        }
        out
    }
}

impl Response {
    /// Generated text (text, thinking, tool arguments), for local token counting.
    pub fn output_text(&self) -> String {
        let mut out = String::new();
        push_parts_text(&self.content, &mut out);
        out
    }
}

/// Appends the text of `parts` (tool calls as name and arguments) to `out`.
pub fn push_parts_text(parts: &[Part], out: &mut String) {
    for p in parts {
        match p {
            Part::Text(t) | Part::Thinking { text: t, .. } => out.push_str(t),
            Part::ToolCall {
                name, arguments, ..
            } => {
                out.push_str(name);
                out.push(' ');
                out.push_str(arguments);
            }
            Part::ToolResult { content, .. } => push_parts_text(content, out),
            Part::Image(_) | Part::RedactedThinking(_) => {}
        }
        out.push(' ');
    }
}

impl StreamEvent {
    /// Generated text this event carries, for local token counting.
    pub fn output_text(&self) -> Option<&str> {
        match self {
            StreamEvent::TextDelta(t)
            | StreamEvent::ThinkingDelta(t)
            | StreamEvent::ToolCallDelta { arguments: t, .. } => Some(t),
            StreamEvent::ToolCallStart { name, .. } => Some(name),
            _ => None,
        }
    }
}
