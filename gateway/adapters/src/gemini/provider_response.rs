//! Provider side: a Gemini `GenerateContentResponse` decoded to an IR answer.

use serde_json::Value;

use super::fields::{self, error_message, get};
use super::parts::PartDecoder;
use super::usage::{from_metadata, stop_reason};
use crate::ParseError;
use crate::ir::{Response, StopReason};

/// Decodes an answer: the first candidate's parts (text, thoughts with signatures,
/// function calls with `id`s synthesised as `call_{responseId}_{n}` when Google sends
/// none, images), `finishReason` (`STOP` → `ToolUse` when the answer calls tools),
/// `promptFeedback.blockReason` (→ `ContentFilter` with no content), `usageMetadata`,
/// `responseId` and `modelVersion`. An error object is `Err(Invalid(message))`.
pub fn decode_response(v: &Value) -> Result<Response, ParseError> {
    if !v.is_object() {
        return Err(ParseError::Invalid(
            "Gemini answer must be a JSON object".into(),
        ));
    }
    if let Some(msg) = error_message(v) {
        return Err(ParseError::Invalid(msg));
    }
    let id = fields::string(v, "responseId", "response_id")?.unwrap_or_default();
    let mut resp = Response {
        id: id.to_owned(),
        model: fields::string(v, "modelVersion", "model_version")?
            .unwrap_or_default()
            .to_owned(),
        usage: get(v, "usageMetadata", "usage_metadata").map(from_metadata),
        ..Response::default()
    };
    let mut decoder = PartDecoder::new(call_id_prefix(id));
    let candidates = fields::array(v, "candidates", "candidates")?;
    if let Some(c) = candidates.first() {
        let content = get(c, "content", "content");
        let parts = match content {
            Some(content) => fields::array(content, "parts", "parts")?,
            None => &[],
        };
        for (i, p) in parts.iter().enumerate() {
            decoder.decode(
                p,
                &format!("candidates[0].content.parts[{i}]"),
                &mut resp.content,
            )?;
        }
        let reason = fields::string(c, "finishReason", "finish_reason")?.unwrap_or_default();
        resp.stop = stop_reason(reason).unwrap_or_default();
    } else if blocked(v) {
        resp.stop = StopReason::ContentFilter;
    }
    if resp.stop == StopReason::EndTurn && decoder.saw_calls() {
        resp.stop = StopReason::ToolUse;
    }
    Ok(resp)
}

/// Whether the prompt was blocked (`promptFeedback.blockReason`).
pub(super) fn blocked(v: &Value) -> bool {
    get(v, "promptFeedback", "prompt_feedback")
        .and_then(|f| get(f, "blockReason", "block_reason"))
        .and_then(Value::as_str)
        .is_some_and(|r| !r.is_empty() && r != "BLOCK_REASON_UNSPECIFIED")
}

/// `call_{responseId}_` (the id's characters outside `[A-Za-z0-9_-]` left out, so the ids
/// suit every dialect), or `call_` without a response id.
pub(super) fn call_id_prefix(response_id: &str) -> String {
    let mut p = String::from("call_");
    let clean: String = response_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    if !clean.is_empty() {
        p.push_str(&clean);
        p.push('_');
    }
    p
}
