//! Bedrock streams in the `application/vnd.amazon.eventstream` framing: Claude's
//! `InvokeModelWithResponseStream` (`chunk` events carrying base64 Anthropic stream events)
//! and `ConverseStream` (`messageStart`, `contentBlockStart`/`Delta`/`Stop`, `messageStop`,
//! `metadata`), with the scenario's pacing, cut and malformed first event.

use base64::Engine as _;
use bytes::Bytes;
use hyper::Response;
use serde_json::{Value, json};

use crate::anthropic::{self, Block};
use crate::bedrock::{TOOL_USE_ID, converse_usage};
use crate::scenario::{THINKING_SIGNATURE, THOUGHT_PIECES, TOOL_INPUT_PIECES};
use crate::{MockBody, Scenario, SharedStats, anthropic_stream, sse};

const CONTENT_TYPE: &str = "application/vnd.amazon.eventstream";

/// One event-stream message with string headers: prelude (lengths and their CRC32),
/// headers, payload, CRC32 of all before.
pub(crate) fn message(headers: &[(&str, &str)], payload: &[u8]) -> Bytes {
    let mut h = Vec::new();
    for (name, value) in headers {
        h.push(name.len() as u8);
        h.extend_from_slice(name.as_bytes());
        h.push(7);
        h.extend_from_slice(&(value.len() as u16).to_be_bytes());
        h.extend_from_slice(value.as_bytes());
    }
    let total = (16 + h.len() + payload.len()) as u32;
    let mut out = Vec::with_capacity(total as usize);
    out.extend_from_slice(&total.to_be_bytes());
    out.extend_from_slice(&(h.len() as u32).to_be_bytes());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    Bytes::from(out)
}

fn event(event_type: &str, payload: &[u8]) -> Bytes {
    message(
        &[
            (":event-type", event_type),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload,
    )
}

/// A `chunk` event holding one Anthropic stream event's JSON text.
fn chunk(anthropic_json: &str) -> Bytes {
    let b64 = base64::engine::general_purpose::STANDARD.encode(anthropic_json);
    event(
        "chunk",
        json!({"bytes": b64, "p": "abcdefgh"})
            .to_string()
            .as_bytes(),
    )
}

/// The Claude stream: the mock's Anthropic SSE events, each as a `chunk`; `message_stop`
/// carries Bedrock's `amazon-bedrock-invocationMetrics`.
pub(crate) fn invoke(
    s: &Scenario,
    model: &str,
    images: usize,
    stats: SharedStats,
) -> Response<MockBody> {
    let (frames, deltas) = anthropic_stream::frames(s, model, images);
    let frames: Vec<Bytes> = frames
        .iter()
        .map(|f| {
            let text = String::from_utf8_lossy(f);
            let data = text
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .unwrap_or("");
            match serde_json::from_str::<Value>(data) {
                Ok(mut v) if v["type"] == "message_stop" => {
                    v["amazon-bedrock-invocationMetrics"] = json!({
                        "inputTokenCount": s.prompt_tokens,
                        "outputTokenCount": anthropic::output_tokens(s),
                        "invocationLatency": 42,
                        "firstByteLatency": 7,
                    });
                    chunk(&v.to_string())
                }
                _ => chunk(data),
            }
        })
        .collect();
    let cut = s.cut_after.map(|n| sse::cut_index(&deltas, n));
    sse::response(frames, cut, s, stats, CONTENT_TYPE)
}

/// The ConverseStream frames and the indexes of their content deltas.
pub(crate) fn converse_frames(s: &Scenario, images: usize) -> (Vec<Bytes>, Vec<usize>) {
    let mut out = Vec::new();
    let mut deltas = Vec::new();
    if s.malformed {
        out.push(event("messageStart", b"{\"role\": broken"));
    }
    out.push(event("messageStart", br#"{"role":"assistant"}"#));
    let mut push = |out: &mut Vec<Bytes>, name: &str, v: Value, delta: bool| {
        if delta {
            deltas.push(out.len());
        }
        out.push(event(name, v.to_string().as_bytes()));
    };
    for (index, block) in anthropic::plan(s, images).into_iter().enumerate() {
        let pieces: Vec<Value> = match block {
            Block::Thinking => THOUGHT_PIECES
                .iter()
                .map(|t| json!({"reasoningContent": {"text": t}}))
                .chain([json!({"reasoningContent": {"signature": THINKING_SIGNATURE}})])
                .collect(),
            Block::Text(texts) => texts.iter().map(|t| json!({"text": t})).collect(),
            Block::ToolUse(name) => {
                let start = json!({"contentBlockIndex": index,
                    "start": {"toolUse": {"toolUseId": TOOL_USE_ID, "name": name}}});
                push(&mut out, "contentBlockStart", start, false);
                TOOL_INPUT_PIECES
                    .iter()
                    .map(|p| json!({"toolUse": {"input": p}}))
                    .collect()
            }
        };
        for delta in pieces {
            let v = json!({"contentBlockIndex": index, "delta": delta});
            push(&mut out, "contentBlockDelta", v, true);
        }
        push(
            &mut out,
            "contentBlockStop",
            json!({"contentBlockIndex": index}),
            false,
        );
    }
    let stop = json!({"stopReason": anthropic::stop_reason(s)});
    push(&mut out, "messageStop", stop, false);
    let mut meta = json!({"metrics": {"latencyMs": 42}});
    if s.usage {
        meta["usage"] = converse_usage(s);
    }
    push(&mut out, "metadata", meta, false);
    (out, deltas)
}

/// The ConverseStream answer; `cut_after=n` resets the connection at the `n`-th delta.
pub(crate) fn converse(s: &Scenario, images: usize, stats: SharedStats) -> Response<MockBody> {
    let (frames, deltas) = converse_frames(s, images);
    let cut = s.cut_after.map(|n| sse::cut_index(&deltas, n));
    sse::response(frames, cut, s, stats, CONTENT_TYPE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_carry_valid_crcs_and_the_converse_sequence() {
        let m = message(&[(":event-type", "x")], b"{}");
        let n = m.len();
        assert_eq!(u32::from_be_bytes([m[0], m[1], m[2], m[3]]) as usize, n);
        assert_eq!(
            crc32fast::hash(&m[..8]),
            u32::from_be_bytes([m[8], m[9], m[10], m[11]])
        );
        assert_eq!(
            crc32fast::hash(&m[..n - 4]),
            u32::from_be_bytes([m[n - 4], m[n - 3], m[n - 2], m[n - 1]])
        );
        let (frames, deltas) = converse_frames(&Scenario::parse("chunks=2,tool=w"), 0);
        // start; block 0: tool start, 3 input deltas, stop; messageStop; metadata.
        assert_eq!(frames.len(), 8);
        assert_eq!(deltas, [2, 3, 4]);
    }
}
