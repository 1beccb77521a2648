//! Pieces of the Chat Completions wire format both sides share: finish reasons, usage
//! objects, message content text, `data:` image URLs and completion ids.

use serde_json::Value;

use crate::ir::{ImageSource, StopReason, Usage};

/// The `finish_reason` for `stop`. A plain end of turn after tool calls is reported as
/// `tool_calls`, which is what OpenAI clients test to run the calls.
pub(crate) fn finish_reason(stop: StopReason, has_tool_calls: bool) -> &'static str {
    match stop {
        StopReason::EndTurn if has_tool_calls => "tool_calls",
        StopReason::EndTurn | StopReason::StopSequence => "stop",
        StopReason::MaxTokens => "length",
        StopReason::ToolUse => "tool_calls",
        StopReason::ContentFilter => "content_filter",
    }
}

/// The stop reason of an upstream `finish_reason` (unknown values end the turn; a plain
/// end of turn after tool calls counts as a tool use).
pub(crate) fn stop_reason(finish_reason: &str, has_tool_calls: bool) -> StopReason {
    match finish_reason {
        "length" => StopReason::MaxTokens,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "content_filter" => StopReason::ContentFilter,
        _ if has_tool_calls => StopReason::ToolUse,
        _ => StopReason::EndTurn,
    }
}

/// The `usage` object of an answer or chunk, written without a value tree. Its keys are in
/// the order a `serde_json::Map` keeps them (sorted), as the body has always had them.
pub(crate) fn usage_json(u: &Usage) -> UsageOut {
    UsageOut {
        completion_tokens: u.output_tokens,
        completion_tokens_details: ReasoningOut {
            reasoning_tokens: u.reasoning_tokens,
        },
        prompt_tokens: u.input_tokens,
        prompt_tokens_details: CachedOut {
            cached_tokens: u.cache_read_tokens,
        },
        total_tokens: u.input_tokens.saturating_add(u.output_tokens),
    }
}

/// See [`usage_json`].
#[derive(Debug, serde::Serialize)]
pub(crate) struct UsageOut {
    completion_tokens: i64,
    completion_tokens_details: ReasoningOut,
    prompt_tokens: i64,
    prompt_tokens_details: CachedOut,
    total_tokens: i64,
}

impl UsageOut {
    /// The object as `serde_json` writes it.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        let mut n = itoa::Buffer::new();
        for (text, value) in [
            (r#"{"completion_tokens":"#, self.completion_tokens),
            (
                r#","completion_tokens_details":{"reasoning_tokens":"#,
                self.completion_tokens_details.reasoning_tokens,
            ),
            (r#"},"prompt_tokens":"#, self.prompt_tokens),
            (
                r#","prompt_tokens_details":{"cached_tokens":"#,
                self.prompt_tokens_details.cached_tokens,
            ),
            (r#"},"total_tokens":"#, self.total_tokens),
        ] {
            out.extend_from_slice(text.as_bytes());
            out.extend_from_slice(n.format(value).as_bytes());
        }
        out.push(b'}');
    }
}

#[derive(Debug, serde::Serialize)]
pub(crate) struct ReasoningOut {
    reasoning_tokens: i64,
}

#[derive(Debug, serde::Serialize)]
pub(crate) struct CachedOut {
    cached_tokens: i64,
}

/// Reads `holder.usage` (an answer, a chunk or, for Moonshot, a choice). Cached prompt
/// tokens are [`crate::openai::usage_of`]'s (OpenAI's `prompt_tokens_details`, DeepSeek's
/// `prompt_cache_hit_tokens`, Moonshot's `cached_tokens`); when `completion_tokens` is
/// missing it is `total - prompt`.
pub(crate) fn usage_of(holder: &Value) -> Option<Usage> {
    let base = crate::openai::usage_of(holder)?;
    let u = holder.get("usage")?;
    let int = |v: Option<&Value>| v.and_then(Value::as_i64);
    let output = match (u.get("completion_tokens"), int(u.get("total_tokens"))) {
        (None, Some(total)) => total.saturating_sub(base.prompt_tokens).max(0),
        _ => base.completion_tokens,
    };
    let reasoning = int(u
        .get("completion_tokens_details")
        .and_then(|d| d.get("reasoning_tokens")))
    .unwrap_or(0);
    Some(Usage {
        input_tokens: base.prompt_tokens,
        output_tokens: output,
        cache_read_tokens: base.cached_tokens,
        cache_creation_tokens: 0,
        reasoning_tokens: reasoning,
    })
}

/// The text of a message `content`: a string, or the `text` (or `refusal`) of its parts
/// joined by `sep`; anything else is empty.
pub(crate) fn content_text(content: Option<&Value>, sep: &str) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            let mut out = String::new();
            for p in parts {
                let text = match p {
                    Value::String(s) => Some(s.as_str()),
                    _ => p
                        .get("text")
                        .or_else(|| p.get("refusal"))
                        .and_then(Value::as_str),
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

/// An image URL as an [`ImageSource`]: `data:<type>;base64,<data>` is split into its media
/// type and data, anything else is kept as a URL.
pub(crate) fn image_source(url: &str) -> ImageSource {
    if let Some(rest) = url.strip_prefix("data:")
        && let Some((meta, data)) = rest.split_once(',')
        && let Some(media_type) = meta.strip_suffix(";base64")
    {
        return ImageSource::Base64 {
            media_type: media_type.to_owned(),
            data: data.to_owned(),
        };
    }
    ImageSource::Url(url.to_owned())
}

/// The URL of an image: base64 data as a `data:` URL.
pub(crate) fn image_url(src: &ImageSource) -> String {
    match src {
        ImageSource::Url(u) => u.clone(),
        ImageSource::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
    }
}

/// A completion id: `id` with the `chatcmpl-` prefix added when missing, or one made of
/// `created` when the provider gave none.
pub(crate) fn completion_id(id: &str, created: i64) -> String {
    if id.is_empty() {
        format!("chatcmpl-{created}")
    } else if id.starts_with("chatcmpl-") {
        id.to_owned()
    } else {
        format!("chatcmpl-{id}")
    }
}

/// A non-empty string field.
pub(crate) fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Arguments of a function call as JSON text: a string as given (empty → `{}`), any other
/// JSON (some clients send an object) serialised.
pub(crate) fn arguments_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        None | Some(Value::Null) | Some(Value::String(_)) => "{}".to_owned(),
        Some(other) => other.to_string(),
    }
}
