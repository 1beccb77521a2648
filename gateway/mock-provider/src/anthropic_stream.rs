//! Anthropic Messages stream: the real event sequence (`message_start`,
//! `content_block_start`, `ping`, `content_block_delta`…, `content_block_stop`,
//! `message_delta`, `message_stop`) with `event:` lines, mid-stream cut and malformed events.

use bytes::Bytes;
use hyper::Response;
use serde_json::{Value, json};

use crate::anthropic::{self, Block, MESSAGE_ID};
use crate::scenario::{THINKING_SIGNATURE, THOUGHT_PIECES, TOOL_INPUT_PIECES, TOOL_USE_ID};
use crate::{MockBody, Scenario, SharedStats, sse};

fn frame(name: &str, data: &Value) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

/// The stream's frames and the indexes of its content deltas (where `cut_after` counts).
pub(crate) fn frames(s: &Scenario, model: &str, images: usize) -> (Vec<Bytes>, Vec<usize>) {
    let mut out = Vec::new();
    let mut deltas = Vec::new();
    if s.malformed {
        out.push(Bytes::from_static(
            b"event: message_start\ndata: {\"type\": \"message_start\", broken\n\n",
        ));
    }
    let mut start = json!({
        "type": "message_start",
        "message": {
            "id": MESSAGE_ID, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
        },
    });
    if s.usage {
        start["message"]["usage"] = anthropic::usage(s, 1);
    }
    out.push(frame("message_start", &start));
    for (index, block) in anthropic::plan(s, images).into_iter().enumerate() {
        let (opening, pieces): (Value, Vec<Value>) = match block {
            Block::Thinking => (
                json!({"type": "thinking", "thinking": ""}),
                THOUGHT_PIECES
                    .iter()
                    .map(|p| json!({"type": "thinking_delta", "thinking": p}))
                    .chain([json!({"type": "signature_delta", "signature": THINKING_SIGNATURE})])
                    .collect(),
            ),
            Block::Text(texts) => (
                json!({"type": "text", "text": ""}),
                texts
                    .iter()
                    .map(|t| json!({"type": "text_delta", "text": t}))
                    .collect(),
            ),
            Block::ToolUse(name) => (
                json!({"type": "tool_use", "id": TOOL_USE_ID, "name": name, "input": {}}),
                TOOL_INPUT_PIECES
                    .iter()
                    .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
                    .collect(),
            ),
        };
        out.push(frame(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": opening}),
        ));
        if index == 0 {
            out.push(frame("ping", &json!({"type": "ping"})));
        }
        for delta in pieces {
            deltas.push(out.len());
            out.push(frame(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        out.push(frame(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
    }
    let mut end = json!({
        "type": "message_delta",
        "delta": {"stop_reason": anthropic::stop_reason(s), "stop_sequence": null},
    });
    if s.usage {
        end["usage"] = json!({"output_tokens": anthropic::output_tokens(s)});
    }
    out.push(frame("message_delta", &end));
    out.push(frame("message_stop", &json!({"type": "message_stop"})));
    (out, deltas)
}

/// The streamed answer; `cut_after=n` resets the connection instead of the `n`-th delta.
pub(crate) fn response(
    s: &Scenario,
    model: &str,
    images: usize,
    stats: SharedStats,
) -> Response<MockBody> {
    let (frames, deltas) = frames(s, model, images);
    let cut = s.cut_after.map(|n| sse::cut_index(&deltas, n));
    sse::response(frames, cut, s, stats, "text/event-stream")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &Scenario) -> Vec<String> {
        frames(s, "m", 0)
            .0
            .iter()
            .map(|f| {
                let text = String::from_utf8_lossy(f);
                let name = text.lines().next().unwrap_or("");
                name.trim_start_matches("event: ").to_owned()
            })
            .collect()
    }

    #[test]
    fn sends_the_real_event_sequence() {
        let s = Scenario::parse("chunks=2");
        assert_eq!(
            names(&s),
            [
                "message_start",
                "content_block_start",
                "ping",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        let (_, deltas) = frames(&Scenario::parse("thinking=on,tool=w"), "m", 0);
        // Two thinking deltas and a signature, then three input_json fragments.
        assert_eq!(deltas, [3, 4, 5, 8, 9, 10]);
    }
}
