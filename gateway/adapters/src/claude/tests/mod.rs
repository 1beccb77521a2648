//! Golden tests of the Anthropic dialect, both sides, with helpers shared by them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod client;
mod client_stream;
mod provider;
mod provider_stream;

use serde_json::Value;

/// The `(event name, parsed data)` of each SSE frame in `sse`, checking every frame is
/// complete (`event:` line, `data:` line, blank line).
fn frames(sse: &[u8]) -> Vec<(String, Value)> {
    let text = std::str::from_utf8(sse).unwrap();
    assert!(
        text.is_empty() || text.ends_with("\n\n"),
        "unterminated: {text:?}"
    );
    text.split_terminator("\n\n")
        .map(|f| {
            let (event, data) = f.split_once('\n').unwrap();
            let event = event.strip_prefix("event: ").unwrap();
            let data = data.strip_prefix("data: ").unwrap();
            let v: Value = serde_json::from_str(data).unwrap();
            assert_eq!(v["type"], event, "event name and type differ in {f}");
            (event.to_owned(), v)
        })
        .collect()
}
