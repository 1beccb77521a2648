//! Wire details both sides share: stop reason names, the usage object (Anthropic counts
//! `input_tokens` without cached tokens), message ids and small JSON helpers.

use serde_json::{Map, Value};

use crate::ir::{StopReason, Usage};

/// The `stop_reason` Anthropic names for an IR stop (a content filter is a `refusal`).
pub(super) fn stop_reason_name(stop: StopReason) -> &'static str {
    match stop {
        StopReason::EndTurn => "end_turn",
        StopReason::MaxTokens => "max_tokens",
        StopReason::StopSequence => "stop_sequence",
        StopReason::ToolUse => "tool_use",
        StopReason::ContentFilter => "refusal",
    }
}

/// The IR stop for an Anthropic `stop_reason`: `pause_turn` (a server tool loop paused)
/// ends the turn, `model_context_window_exceeded` is a length stop, `refusal` a content
/// filter; unknown reasons end the turn.
pub(super) fn stop_reason_of(name: &str) -> StopReason {
    match name {
        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        "tool_use" => StopReason::ToolUse,
        "refusal" => StopReason::ContentFilter,
        _ => StopReason::EndTurn,
    }
}

/// Token counts as Anthropic reports them: `input` excludes the cache reads and writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct WireUsage {
    pub input: i64,
    pub output: i64,
    pub cache_read: i64,
    pub cache_creation: i64,
}

impl WireUsage {
    /// Overwrites the counts `v` (an Anthropic `usage` object) carries; absent or `null`
    /// fields keep their value, so `message_delta` usage merges over `message_start` usage.
    pub fn merge(&mut self, v: &Value) {
        let set = |field: &mut i64, key: &str| {
            if let Some(n) = v.get(key).and_then(Value::as_i64) {
                *field = n.max(0);
            }
        };
        set(&mut self.input, "input_tokens");
        set(&mut self.output, "output_tokens");
        set(&mut self.cache_read, "cache_read_input_tokens");
        set(&mut self.cache_creation, "cache_creation_input_tokens");
    }

    /// The IR usage: every prompt token, cached ones included.
    pub fn to_ir(self) -> Usage {
        Usage {
            input_tokens: self
                .input
                .saturating_add(self.cache_read)
                .saturating_add(self.cache_creation),
            output_tokens: self.output,
            cache_read_tokens: self.cache_read,
            cache_creation_tokens: self.cache_creation,
            reasoning_tokens: 0,
        }
    }

    /// Anthropic's counts of an IR usage (`input` without the cached tokens, never below 0).
    pub fn of(u: &Usage) -> WireUsage {
        let cache_read = u.cache_read_tokens.max(0);
        let cache_creation = u.cache_creation_tokens.max(0);
        WireUsage {
            input: u
                .input_tokens
                .saturating_sub(cache_read)
                .saturating_sub(cache_creation)
                .max(0),
            output: u.output_tokens.max(0),
            cache_read,
            cache_creation,
        }
    }

    /// The `usage` object: `input_tokens`, `output_tokens` and both cache counts.
    pub fn to_json(self) -> Value {
        let mut m = Map::new();
        m.insert("input_tokens".into(), self.input.into());
        m.insert("output_tokens".into(), self.output.into());
        m.insert("cache_read_input_tokens".into(), self.cache_read.into());
        m.insert(
            "cache_creation_input_tokens".into(),
            self.cache_creation.into(),
        );
        Value::Object(m)
    }
}

/// A message id with Anthropic's `msg_` prefix: `id` as is when it has it, prefixed when it
/// does not, and when empty one derived from `seed` (the gateway is pure: no clock, no
/// randomness), e.g. `msg_3f2a…`.
pub(super) fn message_id(id: &str, seed: &str) -> String {
    if id.starts_with("msg_") {
        id.to_owned()
    } else if id.is_empty() {
        format!("msg_{:016x}", fnv1a(seed.as_bytes()))
    } else {
        format!("msg_{id}")
    }
}

/// 64-bit FNV-1a, to derive stable ids.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A string field of an object.
pub(super) fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A thinking signature: `None` when absent or empty (an empty one cannot be replayed).
pub(super) fn signature(v: &Value) -> Option<String> {
    str_field(v, "signature")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}
