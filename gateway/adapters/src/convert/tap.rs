//! Reading a Responses API answer the client gets untouched (passthrough to an OpenAI
//! channel): usage for billing, generated text for local counting, errors in the stream.

use serde_json::Value;

use crate::ParseError;
use crate::ir::{StreamEvent, Usage};

/// Usage of a Responses `usage` object.
pub fn responses_usage(u: &Value) -> Option<Usage> {
    let n = |v: Option<&Value>| v.and_then(Value::as_i64).unwrap_or(0).max(0);
    let usage = Usage {
        input_tokens: n(u.get("input_tokens")),
        output_tokens: n(u.get("output_tokens")),
        cache_read_tokens: n(u.pointer("/input_tokens_details/cached_tokens")),
        cache_creation_tokens: 0,
        reasoning_tokens: n(u.pointer("/output_tokens_details/reasoning_tokens")),
    };
    (usage.input_tokens > 0 || usage.output_tokens > 0).then_some(usage)
}

/// Stream events of a Responses stream, as far as billing needs them.
#[derive(Debug, Default)]
pub struct ResponsesTap;

impl ResponsesTap {
    /// Reads one event's data: text deltas, the final usage, errors.
    pub fn decode(&mut self, data: &str, out: &mut Vec<StreamEvent>) -> Result<(), ParseError> {
        let v: Value =
            serde_json::from_str(data).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "response.output_text.delta"
            | "response.reasoning_summary_text.delta"
            | "response.function_call_arguments.delta" => {
                if let Some(d) = v.get("delta").and_then(Value::as_str) {
                    out.push(StreamEvent::TextDelta(d.to_owned()));
                }
            }
            "response.completed" | "response.incomplete" | "response.done" => {
                if let Some(u) = v.pointer("/response/usage").and_then(responses_usage) {
                    out.push(StreamEvent::Usage(u));
                }
            }
            "error" | "response.failed" => {
                let message = v
                    .get("message")
                    .or_else(|| v.pointer("/response/error/message"))
                    .and_then(Value::as_str)
                    .unwrap_or("the upstream stream failed");
                return Err(ParseError::Invalid(message.to_owned()));
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn reads_usage_text_and_errors() {
        let mut tap = ResponsesTap;
        let mut out = Vec::new();
        tap.decode(
            r#"{"type":"response.output_text.delta","delta":"hi"}"#,
            &mut out,
        )
        .unwrap();
        tap.decode(
            r#"{"type":"response.completed","response":{"usage":{"input_tokens":7,"output_tokens":3,"input_tokens_details":{"cached_tokens":2},"output_tokens_details":{"reasoning_tokens":1}}}}"#,
            &mut out,
        )
        .unwrap();
        assert_eq!(out[0], StreamEvent::TextDelta("hi".into()));
        assert_eq!(
            out[1],
            StreamEvent::Usage(Usage {
                input_tokens: 7,
                output_tokens: 3,
                cache_read_tokens: 2,
                cache_creation_tokens: 0,
                reasoning_tokens: 1
            })
        );
        assert!(
            tap.decode(r#"{"type":"error","message":"boom"}"#, &mut out)
                .is_err()
        );
        assert!(tap.decode("{oops", &mut out).is_err());
    }
}
