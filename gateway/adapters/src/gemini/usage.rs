//! `usageMetadata` and `finishReason`, both directions.

use serde_json::{Map, Value, json};

use crate::ir::{StopReason, Usage};

fn count(m: &Value, camel: &str, snake: &str) -> i64 {
    super::fields::int(m, camel, snake)
        .ok()
        .flatten()
        .unwrap_or(0)
        .max(0)
}

/// IR usage of a `usageMetadata` object. Google counts thoughts apart from candidates and
/// tool-use prompt tokens (search results and the like) apart from the prompt; the IR folds
/// them into output and input. Cached tokens are part of `promptTokenCount` already.
pub(super) fn from_metadata(m: &Value) -> Usage {
    let thoughts = count(m, "thoughtsTokenCount", "thoughts_token_count");
    Usage {
        input_tokens: count(m, "promptTokenCount", "prompt_token_count").saturating_add(count(
            m,
            "toolUsePromptTokenCount",
            "tool_use_prompt_token_count",
        )),
        output_tokens: count(m, "candidatesTokenCount", "candidates_token_count")
            .saturating_add(thoughts),
        cache_read_tokens: count(m, "cachedContentTokenCount", "cached_content_token_count"),
        cache_creation_tokens: 0,
        reasoning_tokens: thoughts,
    }
}

/// The `usageMetadata` object of IR usage (zero thought and cache counts left out, as
/// Google does).
pub(super) fn to_metadata(u: &Usage) -> Value {
    let mut m = Map::new();
    m.insert("promptTokenCount".into(), json!(u.input_tokens));
    m.insert(
        "candidatesTokenCount".into(),
        json!(u.output_tokens.saturating_sub(u.reasoning_tokens).max(0)),
    );
    m.insert(
        "totalTokenCount".into(),
        json!(u.input_tokens.saturating_add(u.output_tokens)),
    );
    if u.reasoning_tokens > 0 {
        m.insert("thoughtsTokenCount".into(), json!(u.reasoning_tokens));
    }
    if u.cache_read_tokens > 0 {
        m.insert("cachedContentTokenCount".into(), json!(u.cache_read_tokens));
    }
    Value::Object(m)
}

/// The IR stop reason of a `finishReason`; `None` for an absent or unspecified one.
/// Blocked output (safety, recitation, block lists, prohibited content, personal data,
/// image safety) is `ContentFilter`; `OTHER`, malformed or unexpected tool calls and the
/// like are `EndTurn`. The caller turns `EndTurn` into `ToolUse` when the answer calls tools.
pub(super) fn stop_reason(finish_reason: &str) -> Option<StopReason> {
    Some(match finish_reason {
        "" | "FINISH_REASON_UNSPECIFIED" => return None,
        "MAX_TOKENS" => StopReason::MaxTokens,
        "SAFETY"
        | "RECITATION"
        | "BLOCKLIST"
        | "PROHIBITED_CONTENT"
        | "SPII"
        | "IMAGE_SAFETY"
        | "IMAGE_PROHIBITED_CONTENT"
        | "IMAGE_RECITATION" => StopReason::ContentFilter,
        _ => StopReason::EndTurn,
    })
}

/// The `finishReason` of an IR stop reason (Gemini has no tool-use or stop-sequence reason:
/// both are `STOP`).
pub(super) fn finish_reason(stop: StopReason) -> &'static str {
    match stop {
        StopReason::EndTurn | StopReason::ToolUse | StopReason::StopSequence => "STOP",
        StopReason::MaxTokens => "MAX_TOKENS",
        StopReason::ContentFilter => "SAFETY",
    }
}
