//! Gemini `streamGenerateContent`: SSE (`data: {…}\r\n\r\n`) with `?alt=sse`, otherwise a
//! JSON array sent element by element, as the real API does; partial texts first, then a
//! last chunk with `finishReason` and `usageMetadata`.

use bytes::Bytes;
use hyper::Response;
use serde_json::{Value, json};

use crate::gemini::{self, call_part, envelope, thought_part};
use crate::{MockBody, Scenario, SharedStats, sse};

/// The stream's frames and the indexes of its content chunks (where `cut_after` counts).
pub(crate) fn frames(
    s: &Scenario,
    model: &str,
    images: usize,
    alt_sse: bool,
) -> (Vec<Bytes>, Vec<usize>) {
    let mut chunks: Vec<Value> = Vec::new();
    if s.thinking {
        chunks.push(envelope(vec![thought_part()], false, model));
    }
    match &s.tool {
        Some(name) => chunks.push(envelope(vec![call_part(name)], false, model)),
        None => chunks.extend(
            s.text_pieces(images)
                .into_iter()
                .map(|t| envelope(vec![json!({"text": t})], false, model)),
        ),
    }
    let mut last = envelope(vec![json!({"text": ""})], true, model);
    if s.usage {
        last["usageMetadata"] = gemini::usage(s);
    }
    let mut out = Vec::with_capacity(chunks.len() + 3);
    if s.malformed {
        out.push(Bytes::from_static(if alt_sse {
            b"data: {\"candidates\": broken\r\n\r\n"
        } else {
            b"[{\"candidates\": broken"
        }));
    }
    let content: Vec<usize> = (out.len()..out.len() + chunks.len()).collect();
    for chunk in chunks.iter().chain([&last]) {
        out.push(Bytes::from(if alt_sse {
            format!("data: {chunk}\r\n\r\n")
        } else if out.is_empty() {
            format!("[{chunk}")
        } else {
            format!(",\r\n{chunk}")
        }));
    }
    if !alt_sse {
        out.push(Bytes::from_static(b"]"));
    }
    (out, content)
}

/// The streamed answer; `cut_after=n` resets the connection instead of the `n`-th chunk.
pub(crate) fn response(
    s: &Scenario,
    model: &str,
    images: usize,
    alt_sse: bool,
    stats: SharedStats,
) -> Response<MockBody> {
    let (frames, content) = frames(s, model, images, alt_sse);
    let cut = s.cut_after.map(|n| sse::cut_index(&content, n));
    let ctype = if alt_sse {
        "text/event-stream"
    } else {
        "application/json"
    };
    sse::response(frames, cut, s, stats, ctype)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn joined(frames: &[Bytes]) -> String {
        frames
            .iter()
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect()
    }

    #[test]
    fn array_form_is_one_json_array() {
        let s = Scenario::parse("chunks=3,thinking=on");
        let (frames, content) = frames(&s, "g", 0, false);
        assert_eq!(content, [0, 1, 2, 3]);
        let v: Value = serde_json::from_str(&joined(&frames)).unwrap();
        let items = v.as_array().unwrap();
        assert_eq!(items.len(), 5);
        assert_eq!(
            items[0]["candidates"][0]["content"]["parts"][0]["thought"],
            true
        );
        assert_eq!(items[4]["candidates"][0]["finishReason"], "STOP");
        assert_eq!(items[4]["usageMetadata"]["thoughtsTokenCount"], 8);
    }

    #[test]
    fn sse_form_uses_crlf_frames() {
        let s = Scenario::parse("chunks=2,tool=w");
        let (frames, _) = frames(&s, "g", 0, true);
        let text = joined(&frames);
        assert_eq!(text.matches("data: ").count(), 2);
        assert!(text.ends_with("}\r\n\r\n"));
        assert!(text.contains("\"functionCall\""));
    }
}
