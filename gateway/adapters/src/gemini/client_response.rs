//! Client side: an IR answer encoded as a `GenerateContentResponse`.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::parts_out::{EncodeMode, encode_parts};
use super::usage::{finish_reason, to_metadata};
use crate::ir::Response;

/// How answers to clients encode parts: with call ids, never a placeholder signature.
pub(super) const CLIENT_MODE: EncodeMode = EncodeMode {
    call_ids: true,
    placeholder_signature: false,
    signature_to_next_part: false,
};

/// Encodes a complete answer: one candidate with the text, thought (`thought: true`, with
/// `thoughtSignature`) and `functionCall` (args as an object, with the IR `id`) parts,
/// `finishReason` (`STOP`, `MAX_TOKENS` or `SAFETY`), `usageMetadata` (when the answer has
/// usage), `modelVersion` and `responseId`.
pub fn encode_response(r: &Response) -> Value {
    let parts = encode_parts(&r.content, CLIENT_MODE, &HashMap::new());
    let mut out = Map::new();
    out.insert(
        "candidates".into(),
        json!([{
            "content": {"role": "model", "parts": parts},
            "finishReason": finish_reason(r.stop),
            "index": 0,
        }]),
    );
    if let Some(u) = &r.usage {
        out.insert("usageMetadata".into(), to_metadata(u));
    }
    out.insert("modelVersion".into(), json!(r.model));
    out.insert("responseId".into(), json!(r.id));
    Value::Object(out)
}
