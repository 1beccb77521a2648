//! Scenarios: how one request should be answered, parsed from the `/s/{spec}` path prefix
//! or the `x-mock-scenario` header (`key=value` pairs separated by commas).

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
}

#[cfg(test)]
mod tests {
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
}
