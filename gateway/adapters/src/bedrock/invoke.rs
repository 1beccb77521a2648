//! Claude through `InvokeModel`: an Anthropic Messages body made into Bedrock's (the model
//! and the stream choice move to the URL, the API version into the body).

use std::collections::BTreeMap;

use serde_json::value::RawValue;

use crate::ParseError;

/// The `anthropic_version` Bedrock requires in Claude bodies.
pub const BEDROCK_ANTHROPIC_VERSION: &str = "bedrock-2023-05-31";

/// The `InvokeModel` body of an Anthropic Messages body: `model` and `stream` removed (the
/// URL names both), `anthropic_version` set to [`BEDROCK_ANTHROPIC_VERSION`] (replacing any
/// given); every other member passed on as written (members come out sorted by name).
pub fn claude_invoke_body(anthropic_body: &[u8]) -> Result<Vec<u8>, ParseError> {
    let mut members: BTreeMap<String, Box<RawValue>> = serde_json::from_slice(anthropic_body)
        .map_err(|e| ParseError::MalformedJson(e.to_string()))?;
    members.remove("model");
    members.remove("stream");
    let version = serde_json::to_string(BEDROCK_ANTHROPIC_VERSION)
        .ok()
        .and_then(|s| RawValue::from_string(s).ok())
        .ok_or_else(|| ParseError::Invalid("cannot write anthropic_version".into()))?;
    members.insert("anthropic_version".into(), version);
    serde_json::to_vec(&members).map_err(|e| ParseError::Invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn moves_model_and_stream_out_and_the_version_in() {
        let body = br#"{"model":"claude-sonnet-4-20250514","stream":true,"max_tokens":64,
            "anthropic_version":"2023-06-01","system":"Be terse.",
            "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],
            "thinking":{"type":"enabled","budget_tokens":1024}}"#;
        let out: Value = serde_json::from_slice(&claude_invoke_body(body).unwrap()).unwrap();
        assert_eq!(
            out,
            json!({
                "anthropic_version": "bedrock-2023-05-31",
                "max_tokens": 64,
                "system": "Be terse.",
                "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
                "thinking": {"type": "enabled", "budget_tokens": 1024},
            })
        );
    }

    #[test]
    fn keeps_values_as_written_and_refuses_non_objects() {
        let out = claude_invoke_body(br#"{"max_tokens":1,"temperature":0.50}"#).unwrap();
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            r#"{"anthropic_version":"bedrock-2023-05-31","max_tokens":1,"temperature":0.50}"#
        );
        assert!(matches!(
            claude_invoke_body(b"[1]"),
            Err(ParseError::MalformedJson(_))
        ));
        assert!(claude_invoke_body(b"{").is_err());
    }
}
