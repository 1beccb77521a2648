//! Golden tests of the Gemini dialect: client requests, answers and streams; provider
//! requests, answers and streams; schemas; embeddings.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod client;
mod client_stream;
mod embeddings;
mod provider;
mod provider_stream;
mod schema;

use serde_json::Value;

/// The JSON payloads of SSE frames, checking each is `data: …\n\n` with no event name.
pub(super) fn frames(bytes: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(bytes).unwrap();
    assert!(
        text.is_empty() || text.ends_with("\n\n"),
        "unterminated: {text:?}"
    );
    text.split_terminator("\n\n")
        .map(|f| {
            let data = f
                .strip_prefix("data: ")
                .unwrap_or_else(|| panic!("not data: {f:?}"));
            assert!(!data.contains('\n'), "multi-line frame {f:?}");
            serde_json::from_str(data).unwrap()
        })
        .collect()
}
