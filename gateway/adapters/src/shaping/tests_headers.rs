//! Golden tests for header override resolution, pass-through filtering, header operations of
//! param override, and the whole [`ChannelShaping`] path.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use http::HeaderMap;
use serde_json::json;

use super::*;

const KEY: &str = "sk-channel-secret";

fn client() -> HeaderMap {
    let mut h = HeaderMap::new();
    for (k, v) in [
        ("x-trace-id", "t-1"),
        ("x-tenant", "acme"),
        ("authorization", "Bearer sk-gateway-user"),
        ("x-api-key", "sk-user"),
        ("cookie", "a=b"),
        ("host", "gw.example"),
        ("content-length", "12"),
        ("connection", "keep-alive"),
        ("accept-encoding", "gzip"),
        ("anthropic-beta", "a-1, b-2"),
        ("x-sneaky", "{api_key}"),
    ] {
        h.insert(k, v.parse().unwrap());
    }
    h
}

/// Resolves `override_text` with `edits` into sorted (name, value) pairs and removals.
fn resolve(
    override_text: &str,
    edits: &HeaderEdits,
    client: Option<&HeaderMap>,
) -> (Vec<(String, String)>, Vec<String>) {
    let ho = HeaderOverride::parse(override_text).unwrap();
    let ctx = HeaderContext {
        api_key: KEY,
        client_headers: client,
    };
    let out = resolve_headers(ho.as_ref(), edits, &ctx).unwrap();
    let mut set: Vec<(String, String)> = out
        .set
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_str().unwrap().to_owned()))
        .collect();
    set.sort();
    (set, out.remove.iter().map(|n| n.to_string()).collect())
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = list
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect();
    v.sort();
    v
}

#[test]
fn placeholders_resolve() {
    let h = client();
    let text = r#"{"Authorization": "Bearer {api_key}", "X-Upstream-Trace": "{client_header:X-Trace-Id}",
        "X-Missing": "{client_header:X-Nope}", "X-Static": "v1", "X-Blank": "  "}"#;
    let (set, remove) = resolve(text, &HeaderEdits::default(), Some(&h));
    assert_eq!(
        set,
        pairs(&[
            ("authorization", &format!("Bearer {KEY}")),
            ("x-upstream-trace", "t-1"),
            ("x-static", "v1"),
        ])
    );
    assert!(remove.is_empty());
    // A channel test has no client: client_header values are left out.
    let (set, _) = resolve(text, &HeaderEdits::default(), None);
    assert_eq!(
        set,
        pairs(&[
            ("authorization", &format!("Bearer {KEY}")),
            ("x-static", "v1")
        ])
    );
}

#[test]
fn key_values_are_sensitive_and_debug_redacts() {
    let ho = HeaderOverride::parse(r#"{"x-key": "{api_key}"}"#).unwrap();
    let ctx = HeaderContext {
        api_key: KEY,
        client_headers: None,
    };
    let out = resolve_headers(ho.as_ref(), &HeaderEdits::default(), &ctx).unwrap();
    assert!(out.set[0].1.is_sensitive());
    let shown = format!("{out:?} {ctx:?}");
    assert!(shown.contains("x-key") && !shown.contains(KEY), "{shown}");
    let bad = HeaderContext {
        api_key: "sk\nbad",
        client_headers: None,
    };
    let e = resolve_headers(ho.as_ref(), &HeaderEdits::default(), &bad).unwrap_err();
    assert_eq!(e.code(), "header_override_failed");
    assert!(!e.to_string().contains("sk"), "{e}");
}

#[test]
fn pass_all_skips_credentials_and_hop_by_hop() {
    let h = client();
    let (set, _) = resolve(
        r#"{"*": "", "x-tenant": "fixed"}"#,
        &HeaderEdits::default(),
        Some(&h),
    );
    assert_eq!(
        set,
        pairs(&[
            ("x-trace-id", "t-1"),
            ("x-tenant", "fixed"),
            ("anthropic-beta", "a-1, b-2"),
            ("x-sneaky", "{api_key}"),
        ])
    );
    // No pass-through for channel tests.
    let (set, _) = resolve(r#"{"*": ""}"#, &HeaderEdits::default(), None);
    assert!(set.is_empty());
}

#[test]
fn regex_pass_through_is_case_insensitive() {
    let h = client();
    let (set, _) = resolve(
        r#"{"re:^X-TRACE": "", "regex: ^authorization$": ""}"#,
        &HeaderEdits::default(),
        Some(&h),
    );
    assert_eq!(set, pairs(&[("x-trace-id", "t-1")]));
}

#[test]
fn header_override_refusals() {
    let bad = |t: &str| {
        let e = HeaderOverride::parse(t).unwrap_err();
        assert_eq!(e.code(), "header_override_invalid", "{t}");
        e.to_string()
    };
    assert!(bad("[]").contains("object"));
    assert!(bad(r#"{"x-a": 1}"#).contains("string"));
    assert!(bad(r#"{"x-a": "pre {client_header:x-b}"}"#).contains("whole value"));
    assert!(bad(r#"{"x-a": "{client_header:x-b} post"}"#).contains("whole value"));
    assert!(bad(r#"{"x-a": "{client_header:Cookie}"}"#).contains("cookie"));
    assert!(bad(r#"{"Content-Length": "1"}"#).contains("managed"));
    assert!(bad(r#"{"Host": "a"}"#).contains("managed"));
    assert!(bad(r#"{"bad name": "a"}"#).contains("header name"));
    assert!(bad(r#"{"re:(": ""}"#).contains("re:("));
    assert!(bad(r#"{"re:": ""}"#).contains("empty"));
    assert!(HeaderOverride::parse("{}").unwrap().is_none());
    assert!(HeaderOverride::parse("").unwrap().is_none());
    let from_map = HeaderOverride::from_pairs([("X-A", "{api_key}")]).unwrap();
    assert!(from_map.is_some());
}

/// Header edits produced by `ops` on an empty body, with `override_text` as the channel's.
fn edits_of(ops: serde_json::Value, override_text: &str, h: &HeaderMap) -> HeaderEdits {
    let po = ParamOverride::parse(&json!({ "operations": ops }).to_string())
        .unwrap()
        .unwrap();
    let ho = HeaderOverride::parse(override_text).unwrap();
    let ctx = OverrideContext {
        client_headers: Some(h),
        header_override: ho.as_ref(),
        ..Default::default()
    };
    po.apply(&mut json!({}), &ctx).unwrap()
}

#[test]
fn header_operations() {
    let h = client();
    let base = r#"{"x-static": "v1", "x-key": "k={api_key}", "*": ""}"#;
    let ops = json!([
        {"mode": "set_header", "path": "X-New", "value": "n-{api_key}"},
        {"mode": "set_header", "path": "x-static", "value": "ignored", "keep_origin": true},
        {"mode": "delete_header", "path": "x-tenant"},
        {"mode": "copy_header", "from": "x-trace-id", "to": "x-request-id"},
        {"mode": "move_header", "from": "x-key", "to": "x-key-2"},
        {"mode": "copy_header", "from": "x-sneaky", "to": "x-copied"},
        {"mode": "copy_header", "from": "x-absent", "to": "x-never"},
        {"mode": "pass_headers", "value": "x-trace-id, X-Absent"},
    ]);
    let edits = edits_of(ops, base, &h);
    let (set, remove) = resolve(base, &edits, Some(&h));
    assert_eq!(
        set,
        pairs(&[
            ("x-static", "v1"),
            ("x-new", &format!("n-{KEY}")),
            ("x-request-id", "t-1"),
            ("x-key-2", &format!("k={KEY}")),
            // Copied client text is sent as it is, never expanded.
            ("x-copied", "{api_key}"),
            ("x-sneaky", "{api_key}"),
            ("x-trace-id", "t-1"),
            ("anthropic-beta", "a-1, b-2"),
        ])
    );
    let mut remove = remove;
    remove.sort();
    assert_eq!(remove, vec!["x-key".to_owned(), "x-tenant".to_owned()]);
}

#[test]
fn set_header_token_mapping() {
    let h = client();
    let ops = json!([{"mode": "set_header", "path": "anthropic-beta",
        "value": {"a-1": "a-9", "b-2": null, "$append": ["c-3", "a-9"]}}]);
    let (set, _) = resolve("{}", &edits_of(ops, "{}", &h), Some(&h));
    assert_eq!(set, pairs(&[("anthropic-beta", "a-9,c-3")]));
    let ops = json!([{"mode": "set_header", "path": "anthropic-beta",
        "value": {"b-2": "b-2", "$keep_only_declared": true}}]);
    let (set, _) = resolve("{}", &edits_of(ops, "{}", &h), Some(&h));
    assert_eq!(set, pairs(&[("anthropic-beta", "b-2")]));
    let ops = json!([{"mode": "set_header", "path": "anthropic-beta", "value": {"*": null}}]);
    let (set, remove) = resolve("{}", &edits_of(ops, "{}", &h), Some(&h));
    assert!(set.is_empty());
    assert_eq!(remove, vec!["anthropic-beta".to_owned()]);
}

#[test]
fn header_conditions_read_request_and_override_headers() {
    let h = client();
    let ops = json!([
        {"mode": "set_header", "path": "x-tier", "value": "gold",
         "conditions": [{"path": "request_headers.x-tenant", "mode": "full", "value": "acme"}]},
        {"mode": "set_header", "path": "x-seen", "value": "yes",
         "conditions": [{"path": "header_override.x-tier", "mode": "full", "value": "gold"}]},
    ]);
    let (set, _) = resolve("{}", &edits_of(ops, "{}", &h), Some(&h));
    assert_eq!(set, pairs(&[("x-tier", "gold"), ("x-seen", "yes")]));
}

#[test]
fn channel_shaping_end_to_end() {
    let shaping = ChannelShaping::parse(&ShapingSource {
        param_override: r#"{"operations": [
            {"path": "metadata.routed", "mode": "set", "value": true,
             "conditions": [{"path": "model", "mode": "full", "value": "o3-mini"}]},
            {"mode": "set_header", "path": "x-effort", "value": "high"}]}"#,
        header_override: r#"{"x-org": "{api_key}"}"#,
        settings: r#"{"system_prompt": "Be brief.", "system_prompt_override": true, "allow_service_tier": false, "proxy": ""}"#,
    })
    .unwrap();
    let mut body = json!({"model": "o3-mini-high", "max_tokens": 50, "temperature": 0.3, "service_tier": "flex",
        "messages": [{"role": "user", "content": "hi"}]});
    assert!(shaping.needs_body(BodyDialect::OpenAiChat, "o3-mini-high", b"{}"));
    let ctx = OverrideContext {
        original_model: "o3-mini-high",
        upstream_model: "o3-mini-high",
        ..Default::default()
    };
    let out = shaping
        .shape_body(&mut body, BodyDialect::OpenAiChat, &ctx)
        .unwrap();
    assert_eq!(
        body,
        json!({"model": "o3-mini", "max_completion_tokens": 50, "reasoning_effort": "high", "metadata": {"routed": true},
            "messages": [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": "hi"}]})
    );
    assert_eq!(out.upstream_model.as_deref(), Some("o3-mini"));
    assert_eq!(out.reasoning_effort.as_deref(), Some("high"));
    assert!(!out.system_prompt_overwritten);
    let headers = shaping
        .upstream_headers(
            &out.header_edits,
            &HeaderContext {
                api_key: KEY,
                client_headers: None,
            },
        )
        .unwrap();
    let mut map = HeaderMap::new();
    map.insert("x-effort", "low".parse().unwrap());
    headers.apply_to(&mut map);
    assert_eq!(map.get("x-effort").unwrap(), "high");
    assert_eq!(map.get("x-org").unwrap(), KEY);

    let plain = ChannelShaping::parse(&ShapingSource::default()).unwrap();
    assert!(!plain.needs_body(BodyDialect::Gemini, "gemini-2.5-pro", b"{}"));
    assert!(!plain.needs_body(BodyDialect::OpenAiChat, "gpt-4o", br#"{"model":"gpt-4o"}"#));
    assert!(plain.needs_body(
        BodyDialect::OpenAiChat,
        "gpt-4o",
        br#"{"service_tier":"flex"}"#
    ));
    assert!(plain.needs_body(BodyDialect::OpenAiChat, "o3", br#"{"model":"o3"}"#));
    assert!(!plain.has_header_override());
    let e = ChannelShaping::parse(&ShapingSource {
        param_override: "[",
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code(), "param_override_invalid");
    let e = ChannelShaping::parse(&ShapingSource {
        settings: "[]",
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code(), "channel_setting_invalid");
}

#[test]
fn client_credentials_are_never_copied_and_debug_hides_values() {
    let h = client();
    let ops = json!([
        {"mode": "copy_header", "from": "authorization", "to": "x-user-auth"},
        {"mode": "pass_headers", "value": ["x-api-key", "cookie"]},
        {"mode": "sync_fields", "from": "header:authorization", "to": "json:user"},
    ]);
    let po = ParamOverride::parse(&json!({ "operations": ops }).to_string())
        .unwrap()
        .unwrap();
    let ctx = OverrideContext {
        client_headers: Some(&h),
        ..Default::default()
    };
    let mut body = json!({});
    let edits = po.apply(&mut body, &ctx).unwrap();
    assert!(edits.is_empty());
    assert_eq!(body, json!({}));
    let ho = HeaderOverride::parse(
        r#"{"authorization": "Bearer sk-literal-secret", "x-a": "{api_key}"}"#,
    )
    .unwrap();
    let shaping = ChannelShaping::default().with_header_override(ho);
    let shown = format!("{shaping:?} {edits:?}");
    assert!(!shown.contains("sk-literal-secret"), "{shown}");
}
