//! The Anthropic Messages body as Claude on Vertex takes it: no `model` (the URL names it)
//! and `anthropic_version: "vertex-2023-10-16"` in the body instead of the header. The other
//! members pass through byte for byte, `stream` included: `:streamRawPredict` streams when
//! the body says `"stream": true`.

use std::borrow::Cow;

use serde::de::{self, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::ParseError;
use crate::raw_json::json_string;

/// The `anthropic_version` Vertex requires.
pub const VERTEX_ANTHROPIC_VERSION: &str = "vertex-2023-10-16";

/// Top-level members of a body, in order, values as written.
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> de::Deserialize<'de> for Members<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut out: Vec<(Cow<'de, str>, &'de RawValue)> = Vec::new();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let value: &'de RawValue = map.next_value()?;
                    if out.iter().any(|(k, _)| *k == key) {
                        return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
                    }
                    out.push((key, value));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The Vertex body of an Anthropic Messages body: `anthropic_version` first (replacing any
/// the body had), `model` dropped, every other member kept in order with its bytes.
pub fn claude_body(anthropic_body: &[u8]) -> Result<Vec<u8>, ParseError> {
    let Members(members) = serde_json::from_slice(anthropic_body)
        .map_err(|e| ParseError::MalformedJson(e.to_string()))?;
    let mut out = Vec::with_capacity(anthropic_body.len() + 48);
    out.push(b'{');
    out.extend_from_slice(b"\"anthropic_version\":");
    out.extend_from_slice(&json_string(VERTEX_ANTHROPIC_VERSION));
    for (key, value) in members {
        if key == "model" || key == "anthropic_version" {
            continue;
        }
        out.push(b',');
        out.extend_from_slice(&json_string(&key));
        out.push(b':');
        out.extend_from_slice(value.get().as_bytes());
    }
    out.push(b'}');
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::{Value, json};

    fn convert(v: &Value) -> Value {
        serde_json::from_slice(&claude_body(v.to_string().as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn golden_stream_request() {
        let body = json!({
            "model": "claude-sonnet-4-5@20250929",
            "max_tokens": 1024,
            "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}],
            "thinking": {"type": "enabled", "budget_tokens": 512},
            "stream": true
        });
        assert_eq!(
            convert(&body),
            json!({
                "anthropic_version": "vertex-2023-10-16",
                "max_tokens": 1024,
                "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}],
                "thinking": {"type": "enabled", "budget_tokens": 512},
                "stream": true
            })
        );
    }

    #[test]
    fn golden_plain_request_replaces_a_client_version() {
        let body = json!({
            "anthropic_version": "bedrock-2023-05-31",
            "messages": [{"role": "user", "content": "hi"}],
            "max_tokens": 8
        });
        assert_eq!(
            convert(&body),
            json!({
                "anthropic_version": "vertex-2023-10-16",
                "messages": [{"role": "user", "content": "hi"}],
                "max_tokens": 8
            })
        );
    }

    #[test]
    fn values_and_order_pass_through_byte_for_byte() {
        let raw = br#"{ "model" : "m", "temperature":1.0e0, "messages":[{"role":"user","content":"caf\u00e9"}] , "max_tokens":8}"#;
        let out = String::from_utf8(claude_body(raw).unwrap()).unwrap();
        assert_eq!(
            out,
            r#"{"anthropic_version":"vertex-2023-10-16","temperature":1.0e0,"messages":[{"role":"user","content":"caf\u00e9"}],"max_tokens":8}"#
        );
        let only_model = claude_body(br#"{"model":"m"}"#).unwrap();
        let v: Value = serde_json::from_slice(&only_model).unwrap();
        assert_eq!(v, json!({"anthropic_version": "vertex-2023-10-16"}));
    }

    #[test]
    fn refuses_what_is_not_one_object() {
        for bad in [&b"[]"[..], b"{", b"{\"a\":1}x", br#"{"a":1,"a":2}"#, b""] {
            assert!(
                claude_body(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
