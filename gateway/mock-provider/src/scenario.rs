//! Scenarios: how one request should be answered, parsed from the `/s/{spec}` path prefix
//! or the `x-mock-scenario` header (`key=value` pairs separated by commas).
//!
//! Keys for every dialect: `tag`, `status`, `ttfb_ms` (`latency_ms`), `chunk_delay_ms`,
//! `first_event_ms`, `chunks`, `usage=off`, `cut_after`, `malformed`, `prompt_tokens`.
//! OpenAI only: `cached_tokens` (part of `prompt_tokens`, as OpenAI reports it), and
//! `cache_usage=deepseek|moonshot` to report them as DeepSeek does (`prompt_cache_hit_tokens`
//! and `prompt_cache_miss_tokens`) or as Moonshot does (`cached_tokens` at the top of
//! `usage`) instead of in `prompt_tokens_details` (`cache_usage=openai`, the default).
//!
//! Ollama (`/api/chat`, `/api/embed`, `/api/tags`) and Cohere (`/v2/chat`, `/v2/rerank`)
//! take `status`, `chunks`, `usage=off`, `tool=NAME` (a whole `tool_calls` entry in Ollama,
//! a `tool_plan` and a streamed call in Cohere), `thinking=on`, `cut_after`, `malformed`,
//! `prompt_tokens` (Ollama's `prompt_eval_count`, Cohere's billed input tokens).
//! - `tool=NAME`: the answer calls tool NAME with input `{"city":"Paris"}` instead of
//!   answering text: an Anthropic `tool_use` block (streamed as `input_json_delta`
//!   fragments, stop_reason `tool_use`), a Gemini `functionCall` part, an OpenAI chat
//!   `tool_calls` entry (streamed argument fragments, finish_reason `tool_calls`) or a
//!   Responses `function_call` item.
//! - `thinking=on` (Anthropic, Gemini, Responses): a thinking block with a signature
//!   (Anthropic), a `thought: true` part (Gemini) or a reasoning item with a summary
//!   (Responses) before the answer; it counts [`THINKING_TOKENS`] (in Anthropic's
//!   `output_tokens`, in Gemini's `thoughtsTokenCount`, in Responses' `output_tokens` and
//!   `reasoning_tokens`).
//! - `cache_read=N`: Anthropic `cache_read_input_tokens`, Gemini `cachedContentTokenCount`.
//! - `cache_creation=N`: Anthropic `cache_creation_input_tokens`.
//! - `duration=N`: the `duration` (seconds) of a `verbose_json` transcription (default 3).
//! - `token_ttl=N`: the token endpoint (`POST /token`) issues tokens living N seconds (0: dead
//!   on arrival), to exercise refreshes; `status=` and `ttfb_ms` apply to it too.
//!
//! Vertex AI paths answer as Gemini (publisher `google`) or Anthropic (publisher `anthropic`)
//! with the same keys.
//!
//! `prompt_tokens` is the uncached input in both: Anthropic's `input_tokens` (which excludes
//! cache tokens) and Gemini's `promptTokenCount` minus `cachedContentTokenCount`. Token
//! counting answers the whole prompt: Anthropic `count_tokens` gives `prompt_tokens +
//! cache_read + cache_creation`, Gemini `countTokens` `prompt_tokens + cache_read`. Output
//! tokens are `chunks` (plus the thinking tokens); `usage=off` drops Anthropic's `usage` and
//! Gemini's `usageMetadata`. `cut_after=N` cuts Anthropic streams at the N-th content delta,
//! Responses streams at the N-th delta event and Gemini streams at the N-th chunk (or just
//! after the last one).
//!
//! Anthropic, Gemini and Responses check the key first, then answer `status=` errors in their
//! own error shape, then check the body like the real service; OpenAI chat checks tool-call
//! pairing and image parts. When the request carries images, chat, Responses, Anthropic and
//! Gemini text answers start with the piece `images: N `.

use std::time::Duration;

/// How the mock answers one request. Unknown keys are ignored so callers can add labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// Label used for call counting (`tag=a`); "default" when absent.
    pub tag: String,
    /// Status to answer with; errors use an OpenAI error body.
    pub status: u16,
    /// Delay before the response headers (time to first byte).
    pub ttfb: Duration,
    /// Delay between stream chunks.
    pub chunk_delay: Duration,
    /// Delay between the response head and the first stream event.
    pub first_event: Duration,
    /// Number of content pieces.
    pub chunks: usize,
    /// Whether usage is reported (`usage=off` to omit it everywhere).
    pub usage: bool,
    /// Cut the stream (connection reset, no `[DONE]`) after this many content chunks.
    pub cut_after: Option<usize>,
    /// Answer with malformed JSON (non-stream body, or the first stream event).
    pub malformed: bool,
    /// Prompt tokens reported in usage.
    pub prompt_tokens: u64,
    /// Cached prompt tokens reported in `prompt_tokens_details.cached_tokens`.
    pub cached_tokens: u64,
    /// Tool the answer calls instead of answering text (chat, Responses, Anthropic, Gemini).
    pub tool: Option<String>,
    /// Whether a thinking block / thought part / reasoning item precedes the answer
    /// (Anthropic, Gemini, Responses).
    pub thinking: bool,
    /// Prompt tokens read from the cache (Anthropic, Gemini).
    pub cache_read: u64,
    /// Prompt tokens written to the cache (Anthropic).
    pub cache_creation: u64,
    /// Where OpenAI-compatible answers report `cached_tokens` (`cache_usage=`).
    pub cache_usage: CacheUsage,
    /// Lifetime in seconds of a token the token endpoint issues (`token_ttl=N`; default
    /// [`crate::DEFAULT_TOKEN_TTL_SECS`]).
    pub token_ttl: Option<u64>,
    /// Seconds a `verbose_json` transcription reports as the audio's `duration`
    /// (`duration=N`, default 3).
    pub duration_secs: u64,
    /// Keep each request's JSON body and chosen headers in the stats (`record=1`): off by
    /// default, so benchmarks do not pay for it.
    pub record: bool,
}

/// The usage fields OpenAI-compatible answers carry cached prompt tokens in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheUsage {
    /// `prompt_tokens_details.cached_tokens` (OpenAI, xAI, OpenRouter…).
    OpenAi,
    /// `prompt_cache_hit_tokens` + `prompt_cache_miss_tokens` (DeepSeek).
    DeepSeek,
    /// `cached_tokens` at the top of `usage` (Moonshot/Kimi).
    Moonshot,
}

/// Tokens a thinking block or thought part counts.
pub const THINKING_TOKENS: u64 = 8;
/// The thinking text, piece by piece (one delta each in streams).
pub const THOUGHT_PIECES: [&str; 2] = ["Let me think", " about the weather."];
/// Signature of the Anthropic thinking block.
pub const THINKING_SIGNATURE: &str = "bW9jay1zaWduYXR1cmU=";
/// Id of the Anthropic tool_use block.
pub const TOOL_USE_ID: &str = "toolu_mock01";
/// The tool input `{"city": "Paris"}` as streamed `partial_json` fragments.
pub const TOOL_INPUT_PIECES: [&str; 3] = ["{\"city\"", ": \"Par", "is\"}"];

/// The input every tool call of the mock carries.
pub fn tool_input() -> serde_json::Value {
    serde_json::json!({"city": "Paris"})
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            tag: "default".to_owned(),
            status: 200,
            ttfb: Duration::ZERO,
            chunk_delay: Duration::ZERO,
            first_event: Duration::ZERO,
            chunks: 5,
            usage: true,
            cut_after: None,
            malformed: false,
            prompt_tokens: 12,
            cached_tokens: 0,
            tool: None,
            thinking: false,
            cache_read: 0,
            cache_creation: 0,
            token_ttl: None,
            duration_secs: 3,
            record: false,
            cache_usage: CacheUsage::OpenAi,
        }
    }
}

impl Scenario {
    /// Parses `tag=a,status=500,ttfb_ms=100`; invalid numbers keep the default.
    pub fn parse(spec: &str) -> Scenario {
        let mut s = Scenario::default();
        for pair in spec.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let num = v.parse::<u64>().ok();
            match k {
                "tag" => s.tag = v.to_owned(),
                "status" => {
                    if let Some(n) = num.and_then(|n| u16::try_from(n).ok()) {
                        s.status = n;
                    }
                }
                "ttfb_ms" | "latency_ms" => s.ttfb = Duration::from_millis(num.unwrap_or(0)),
                "chunk_delay_ms" => s.chunk_delay = Duration::from_millis(num.unwrap_or(0)),
                "first_event_ms" => s.first_event = Duration::from_millis(num.unwrap_or(0)),
                "chunks" => s.chunks = num.map_or(s.chunks, |n| n as usize),
                "usage" => s.usage = !matches!(v, "off" | "0" | "false"),
                "cut_after" => s.cut_after = num.map(|n| n as usize),
                "malformed" => s.malformed = !matches!(v, "0" | "false"),
                "prompt_tokens" => s.prompt_tokens = num.unwrap_or(s.prompt_tokens),
                "cached_tokens" => s.cached_tokens = num.unwrap_or(0),
                "tool" => s.tool = Some(v.to_owned()).filter(|t| !t.is_empty()),
                "thinking" => s.thinking = matches!(v, "on" | "1" | "true" | ""),
                "cache_read" => s.cache_read = num.unwrap_or(0),
                "cache_creation" => s.cache_creation = num.unwrap_or(0),
                "token_ttl" => s.token_ttl = num,
                "duration" => s.duration_secs = num.unwrap_or(s.duration_secs),
                "record" => s.record = v == "1" || v == "true",
                "cache_usage" => {
                    s.cache_usage = match v {
                        "deepseek" => CacheUsage::DeepSeek,
                        "moonshot" | "kimi" => CacheUsage::Moonshot,
                        _ => CacheUsage::OpenAi,
                    }
                }
                _ => {}
            }
        }
        s
    }

    /// Splits `/s/{spec}/rest` into the scenario spec and the rest of the path.
    pub fn split_path(path: &str) -> (Option<&str>, &str) {
        match path.strip_prefix("/s/") {
            Some(rest) => match rest.find('/') {
                Some(i) => (Some(&rest[..i]), &rest[i..]),
                None => (Some(rest), "/"),
            },
            None => (None, path),
        }
    }

    /// The content pieces a chat or completion answer is made of, in order.
    pub fn pieces(&self) -> Vec<String> {
        (0..self.chunks).map(|i| format!("word{i} ")).collect()
    }

    /// The text pieces of an Anthropic or Gemini answer: `images: N ` first when the request
    /// carried images, then [`Scenario::pieces`].
    pub fn text_pieces(&self, images: usize) -> Vec<String> {
        let mut out = Vec::with_capacity(self.chunks + 1);
        if images > 0 {
            out.push(format!("images: {images} "));
        }
        out.extend(self.pieces());
        out
    }

    /// Thinking tokens the answer counts.
    pub fn thinking_tokens(&self) -> u64 {
        if self.thinking { THINKING_TOKENS } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parses_spec_and_path() {
        let s = Scenario::parse("tag=a,status=429,ttfb_ms=50,usage=off,cut_after=2");
        assert_eq!(s.tag, "a");
        assert_eq!(s.status, 429);
        assert_eq!(s.ttfb, Duration::from_millis(50));
        assert!(!s.usage);
        assert_eq!(s.cut_after, Some(2));
        assert_eq!(
            Scenario::split_path("/s/tag=b/v1/chat/completions"),
            (Some("tag=b"), "/v1/chat/completions")
        );
        assert_eq!(Scenario::split_path("/v1/models"), (None, "/v1/models"));
        assert_eq!(Scenario::parse("status=abc").status, 200);
    }

    #[test]
    fn parses_dialect_keys() {
        let s = Scenario::parse("tool=get_weather,thinking=on,cache_read=30,cache_creation=5");
        assert_eq!(s.tool.as_deref(), Some("get_weather"));
        assert!(s.thinking);
        assert_eq!((s.cache_read, s.cache_creation), (30, 5));
        assert_eq!(s.thinking_tokens(), THINKING_TOKENS);
        assert_eq!(s.cache_usage, CacheUsage::OpenAi);
        assert_eq!(
            Scenario::parse("cache_usage=deepseek").cache_usage,
            CacheUsage::DeepSeek
        );
        assert_eq!(
            Scenario::parse("cache_usage=moonshot").cache_usage,
            CacheUsage::Moonshot
        );
        let plain = Scenario::parse("tool=,thinking=off");
        assert_eq!((plain.tool, plain.thinking), (None, false));
        let input: serde_json::Value = serde_json::from_str(&TOOL_INPUT_PIECES.concat()).unwrap();
        assert_eq!(input, tool_input());
        assert_eq!(
            Scenario::parse("chunks=1").text_pieces(2),
            vec!["images: 2 ".to_owned(), "word0 ".to_owned()]
        );
    }
}
