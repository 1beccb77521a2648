//! Parameter fixes new-api applies to OpenAI requests, and the channel's field policy
//! (new-api's `RemoveDisabledFields`).
//!
//! Chat Completions to a reasoning model (`o` followed by a digit: o1, o3, o4…; or `gpt-5*`):
//! `max_tokens` becomes `max_completion_tokens` (when the latter is unset or 0); `temperature`
//! is dropped (gpt-5 also drops `top_p` and `logprobs`); a model-name suffix `-high`,
//! `-medium`, `-low`, `-minimal`, `-none` or `-xhigh` becomes `reasoning_effort` and is removed
//! from the model sent upstream; a leading `system` message becomes `developer` (not for
//! `o1-mini` / `o1-preview`). Responses API, any model: the suffix becomes `reasoning.effort`.
//! new-api treats every model starting with `o` as a reasoning model; we require the digit so
//! that e.g. `openchat` is left alone.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::ShapingError;

/// Effort suffixes new-api reads from OpenAI model names.
const EFFORT_SUFFIXES: &[&str] = &["high", "minimal", "low", "medium", "none", "xhigh"];

/// What the fixes changed, for the relay and the consume log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FixOutcome {
    /// The model now sent upstream, when a suffix was removed.
    pub upstream_model: Option<String>,
    /// The reasoning effort of the request after the fixes (log field `reasoning_effort`).
    pub reasoning_effort: Option<String>,
}

/// An o-series (`o1`, `o3`, `o4-mini`…) or gpt-5 model.
pub fn is_reasoning_model(model: &str) -> bool {
    let mut b = model.bytes();
    (b.next() == Some(b'o') && b.next().is_some_and(|c| c.is_ascii_digit()))
        || model.starts_with("gpt-5")
}

/// `model` without an effort suffix, and the effort: `o3-mini-high` → (`o3-mini`, `high`).
pub fn split_effort_suffix(model: &str) -> Option<(&str, &'static str)> {
    EFFORT_SUFFIXES.iter().find_map(|effort| {
        let base = model.strip_suffix(effort)?.strip_suffix('-')?;
        (!base.is_empty()).then_some((base, *effort))
    })
}

/// Fixes a Chat Completions body for `upstream_model` (the mapped model).
pub fn fix_chat(body: &mut Value, upstream_model: &str) -> FixOutcome {
    let mut out = FixOutcome::default();
    let Value::Object(obj) = body else {
        return out;
    };
    if !is_reasoning_model(upstream_model) {
        return out;
    }
    let unset = |v: Option<&Value>| v.is_none_or(|v| v.is_null() || v.as_f64() == Some(0.0));
    if unset(obj.get("max_completion_tokens"))
        && !unset(obj.get("max_tokens"))
        && let Some(v) = obj.remove("max_tokens")
    {
        obj.insert("max_completion_tokens".into(), v);
    }
    obj.remove("temperature");
    if upstream_model.starts_with("gpt-5") {
        obj.remove("top_p");
        obj.remove("logprobs");
    }
    let mut model = upstream_model;
    if let Some((base, effort)) = split_effort_suffix(upstream_model) {
        obj.insert("reasoning_effort".into(), Value::from(effort));
        obj.insert("model".into(), Value::from(base));
        out.upstream_model = Some(base.to_owned());
        model = base;
    }
    out.reasoning_effort = obj
        .get("reasoning_effort")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    if !model.starts_with("o1-mini") && !model.starts_with("o1-preview") {
        developer_role(obj);
    }
    out
}

fn developer_role(obj: &mut Map<String, Value>) {
    if let Some(Value::Object(first)) = obj
        .get_mut("messages")
        .and_then(Value::as_array_mut)
        .and_then(|m| m.first_mut())
        && first.get("role").and_then(Value::as_str) == Some("system")
    {
        first.insert("role".into(), Value::from("developer"));
    }
}

/// Fixes a Responses API body: the model's effort suffix becomes `reasoning.effort`.
pub fn fix_responses(body: &mut Value, upstream_model: &str) -> FixOutcome {
    let mut out = FixOutcome::default();
    let Value::Object(obj) = body else {
        return out;
    };
    if let Some((base, effort)) = split_effort_suffix(upstream_model) {
        let reasoning = obj
            .entry("reasoning")
            .or_insert_with(|| Value::Object(Map::new()));
        if !reasoning.is_object() {
            *reasoning = Value::Object(Map::new());
        }
        if let Value::Object(r) = reasoning {
            r.insert("effort".into(), Value::from(effort));
        }
        obj.insert("model".into(), Value::from(base));
        out.upstream_model = Some(base.to_owned());
    }
    out.reasoning_effort = obj
        .get("reasoning")
        .and_then(|r| r.get("effort"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    out
}

/// Which optional request fields the channel lets through (new-api's `ChannelOtherSettings`
/// switches). Default: drop `service_tier`, `safety_identifier`, `inference_geo`, `speed` and
/// `stream_options.include_obfuscation`; keep `store`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FieldPolicy {
    pub allow_service_tier: bool,
    pub allow_safety_identifier: bool,
    pub allow_inference_geo: bool,
    pub allow_speed: bool,
    pub allow_include_obfuscation: bool,
    pub disable_store: bool,
}

impl FieldPolicy {
    /// Reads the switches from a channel settings JSON object (other keys are ignored; empty
    /// text is the default policy).
    pub fn parse(text: &str) -> Result<FieldPolicy, ShapingError> {
        if text.trim().is_empty() {
            return Ok(FieldPolicy::default());
        }
        /// The switches as stored; null or absent is off.
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Raw {
            allow_service_tier: Option<bool>,
            allow_safety_identifier: Option<bool>,
            allow_inference_geo: Option<bool>,
            allow_speed: Option<bool>,
            allow_include_obfuscation: Option<bool>,
            disable_store: Option<bool>,
        }
        let r: Raw = super::settings_object(text)?;
        Ok(FieldPolicy {
            allow_service_tier: r.allow_service_tier.unwrap_or(false),
            allow_safety_identifier: r.allow_safety_identifier.unwrap_or(false),
            allow_inference_geo: r.allow_inference_geo.unwrap_or(false),
            allow_speed: r.allow_speed.unwrap_or(false),
            allow_include_obfuscation: r.allow_include_obfuscation.unwrap_or(false),
            disable_store: r.disable_store.unwrap_or(false),
        })
    }

    /// Whether [`Self::apply`] could remove anything from this raw body: one pass over the
    /// bytes for the quoted names of the dropped fields (most bodies have none), so bodies
    /// without them skip JSON parsing.
    pub fn may_apply(&self, raw: &[u8]) -> bool {
        let dropped = [
            !self.allow_service_tier,
            !self.allow_safety_identifier,
            !self.allow_inference_geo,
            !self.allow_speed,
            self.disable_store,
            !self.allow_include_obfuscation,
        ];
        if !dropped.contains(&true) {
            return false;
        }
        match field_names() {
            Some(names) => names
                .find_iter(raw)
                .any(|m| dropped.get(m.pattern().as_usize()) == Some(&true)),
            // Not built (it always is): parse the body and let `apply` decide.
            None => true,
        }
    }

    /// Drops the fields the policy does not allow from a top-level body object; whether
    /// anything was removed.
    pub fn apply(&self, body: &mut Value) -> bool {
        let Value::Object(obj) = body else {
            return false;
        };
        let mut removed = false;
        let mut drop = |obj: &mut Map<String, Value>, key: &str, allowed: bool| {
            if !allowed {
                removed |= obj.remove(key).is_some();
            }
        };
        drop(obj, "service_tier", self.allow_service_tier);
        drop(obj, "safety_identifier", self.allow_safety_identifier);
        drop(obj, "inference_geo", self.allow_inference_geo);
        drop(obj, "speed", self.allow_speed);
        drop(obj, "store", !self.disable_store);
        if !self.allow_include_obfuscation
            && let Some(Value::Object(so)) = obj.get_mut("stream_options")
            && so.remove("include_obfuscation").is_some()
        {
            removed = true;
            if so.is_empty() {
                obj.remove("stream_options");
            }
        }
        removed
    }
}

/// The quoted names the field policy drops, in [`FieldPolicy::may_apply`]'s order, as one
/// automaton built once.
fn field_names() -> Option<&'static aho_corasick::AhoCorasick> {
    static NAMES: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::OnceLock::new();
    NAMES
        .get_or_init(|| {
            let names = [
                "\"service_tier\"",
                "\"safety_identifier\"",
                "\"inference_geo\"",
                "\"speed\"",
                "\"store\"",
                "\"include_obfuscation\"",
            ];
            aho_corasick::AhoCorasick::new(names).ok()
        })
        .as_ref()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn reasoning_models() {
        for m in [
            "o1",
            "o3-mini",
            "o4-mini-high",
            "gpt-5",
            "gpt-5-mini",
            "gpt-5.1",
        ] {
            assert!(is_reasoning_model(m), "{m}");
        }
        for m in ["openchat", "gpt-4o", "omni", "", "claude-3"] {
            assert!(!is_reasoning_model(m), "{m}");
        }
    }

    #[test]
    fn suffixes() {
        assert_eq!(
            split_effort_suffix("o3-mini-high"),
            Some(("o3-mini", "high"))
        );
        assert_eq!(
            split_effort_suffix("gpt-5-minimal"),
            Some(("gpt-5", "minimal"))
        );
        assert_eq!(split_effort_suffix("gpt-5-xhigh"), Some(("gpt-5", "xhigh")));
        assert_eq!(split_effort_suffix("o3-mini"), None);
        assert_eq!(split_effort_suffix("-low"), None);
        assert_eq!(split_effort_suffix("o3-xlow"), None);
    }

    #[test]
    fn o_series_chat_fixes() {
        let mut b = json!({"model": "o3-mini-high", "max_tokens": 100, "temperature": 0.2, "top_p": 0.9,
            "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]});
        let out = fix_chat(&mut b, "o3-mini-high");
        assert_eq!(
            b,
            json!({"model": "o3-mini", "max_completion_tokens": 100, "top_p": 0.9, "reasoning_effort": "high",
            "messages": [{"role": "developer", "content": "s"}, {"role": "user", "content": "u"}]})
        );
        assert_eq!(
            out,
            FixOutcome {
                upstream_model: Some("o3-mini".into()),
                reasoning_effort: Some("high".into())
            }
        );
    }

    #[test]
    fn gpt5_drops_sampling_and_keeps_explicit_completion_tokens() {
        let mut b = json!({"model": "gpt-5-minimal", "max_tokens": 5, "max_completion_tokens": 9, "temperature": 1,
            "top_p": 1, "logprobs": true, "reasoning_effort": "low", "messages": [{"role": "user", "content": "u"}]});
        let out = fix_chat(&mut b, "gpt-5-minimal");
        assert_eq!(
            b,
            json!({"model": "gpt-5", "max_tokens": 5, "max_completion_tokens": 9, "reasoning_effort": "minimal",
            "messages": [{"role": "user", "content": "u"}]})
        );
        assert_eq!(out.reasoning_effort.as_deref(), Some("minimal"));
    }

    #[test]
    fn o1_mini_keeps_system_and_others_are_untouched() {
        let mut b = json!({"model": "o1-mini", "messages": [{"role": "system", "content": "s"}], "max_tokens": 3});
        let out = fix_chat(&mut b, "o1-mini");
        assert_eq!(
            b,
            json!({"model": "o1-mini", "messages": [{"role": "system", "content": "s"}], "max_completion_tokens": 3})
        );
        assert_eq!(out, FixOutcome::default());
        let orig = json!({"model": "gpt-4o-high", "max_tokens": 3, "temperature": 0.5});
        let mut b = orig.clone();
        assert_eq!(fix_chat(&mut b, "gpt-4o-high"), FixOutcome::default());
        assert_eq!(b, orig);
    }

    #[test]
    fn responses_suffix_to_reasoning_effort() {
        let mut b = json!({"model": "gpt-5-low", "input": "x", "reasoning": {"summary": "auto"}});
        let out = fix_responses(&mut b, "gpt-5-low");
        assert_eq!(
            b,
            json!({"model": "gpt-5", "input": "x", "reasoning": {"summary": "auto", "effort": "low"}})
        );
        assert_eq!(out.upstream_model.as_deref(), Some("gpt-5"));
    }

    #[test]
    fn field_policy_defaults_and_switches() {
        let body = json!({"model": "m", "service_tier": "priority", "safety_identifier": "u", "inference_geo": "us",
            "speed": "fast", "store": true, "stream_options": {"include_obfuscation": false}});
        let mut b = body.clone();
        assert!(FieldPolicy::default().apply(&mut b));
        assert_eq!(b, json!({"model": "m", "store": true}));
        let p = FieldPolicy::parse(r#"{"allow_service_tier": true, "allow_include_obfuscation": true, "disable_store": true, "proxy": "x"}"#).unwrap();
        let mut b = body.clone();
        p.apply(&mut b);
        assert_eq!(
            b,
            json!({"model": "m", "service_tier": "priority", "stream_options": {"include_obfuscation": false}})
        );
        let mut b = json!({"stream_options": {"include_usage": true, "include_obfuscation": true}});
        FieldPolicy::default().apply(&mut b);
        assert_eq!(b, json!({"stream_options": {"include_usage": true}}));
        assert!(FieldPolicy::default().may_apply(br#"{"speed": "fast"}"#));
        assert!(!FieldPolicy::default().may_apply(br#"{"store": true, "model": "m"}"#));
        // Each dropped name is found, and only when the policy drops it.
        let allowed = FieldPolicy {
            allow_service_tier: true,
            allow_safety_identifier: true,
            allow_inference_geo: true,
            allow_speed: true,
            allow_include_obfuscation: true,
            disable_store: false,
        };
        for name in [
            "service_tier",
            "safety_identifier",
            "inference_geo",
            "speed",
            "include_obfuscation",
        ] {
            let body = format!(r#"{{"model": "m", "{name}": 1}}"#);
            assert!(FieldPolicy::default().may_apply(body.as_bytes()), "{name}");
            assert!(!allowed.may_apply(body.as_bytes()), "{name}");
        }
        let no_store = FieldPolicy {
            disable_store: true,
            ..allowed
        };
        assert!(no_store.may_apply(br#"{"store": true}"#));
        assert!(!no_store.may_apply(br#"{"stored": true}"#));
        let e = FieldPolicy::parse(r#"{"allow_speed": "yes"}"#).unwrap_err();
        assert_eq!(e.code(), "channel_setting_invalid");
    }
}
