//! Golden tests for param override: parsing (and refusals), every operation mode, conditions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use http::HeaderMap;
use serde_json::{Value, json};

use super::*;

fn ctx_with<'a>(h: Option<&'a HeaderMap>) -> OverrideContext<'a> {
    OverrideContext {
        original_model: "gpt-4o",
        upstream_model: "gpt-4o-2024-08-06",
        request_path: "/v1/chat/completions",
        client_headers: h,
        ..Default::default()
    }
}

fn run(rule: Value, body: Value) -> Result<(Value, HeaderEdits), ShapingError> {
    let po = ParamOverride::parse(&rule.to_string())?.expect("a rule");
    let mut b = body;
    let edits = po.apply(&mut b, &ctx_with(None))?;
    Ok((b, edits))
}

/// One operation on `body` gives `expected`.
fn golden(op: Value, body: Value, expected: Value) {
    let (got, _) = run(json!({ "operations": [op] }), body).unwrap();
    assert_eq!(got, expected, "op {op}");
}

fn failed(op: Value, body: Value) -> ShapingError {
    run(json!({ "operations": [op] }), body).unwrap_err()
}

fn refused(rule: Value) -> String {
    let e = ParamOverride::parse(&rule.to_string()).unwrap_err();
    assert_eq!(e.code(), "param_override_invalid", "{e}");
    e.to_string()
}

#[test]
fn empty_rules_are_none() {
    for t in ["", "  ", "{}", r#"{"operations": []}"#] {
        assert!(ParamOverride::parse(t).unwrap().is_none(), "{t}");
    }
}

#[test]
fn plain_object_deep_merges() {
    let (b, e) = run(
        json!({"temperature": 0.1, "metadata": {"a": 1, "n": {"x": 1}}, "tools": []}),
        json!({"model": "m", "temperature": 1, "metadata": {"b": 2, "n": {"y": 2}}, "tools": [{"type": "x"}]}),
    )
    .unwrap();
    assert_eq!(
        b,
        json!({"model": "m", "temperature": 0.1, "metadata": {"a": 1, "b": 2, "n": {"x": 1, "y": 2}}, "tools": []})
    );
    assert!(e.is_empty());
}

#[test]
fn operations_form_merges_other_keys_first() {
    let (b, _) = run(
        json!({"top_k": 5, "operations": [{"path": "top_k", "mode": "set", "value": 6, "keep_origin": true}]}),
        json!({"model": "m"}),
    )
    .unwrap();
    assert_eq!(b, json!({"model": "m", "top_k": 5}));
}

#[test]
fn set_delete_move_copy() {
    golden(
        json!({"path": "generationConfig.thinkingConfig.thinkingBudget", "mode": "set", "value": 0}),
        json!({"contents": []}),
        json!({"contents": [], "generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}}),
    );
    golden(
        json!({"path": "temperature", "mode": "set", "value": 0.5, "keep_origin": true}),
        json!({"temperature": 1}),
        json!({"temperature": 1}),
    );
    golden(
        json!({"path": "messages.-1.name", "mode": "set", "value": "last"}),
        json!({"messages": [{"role": "user"}, {"role": "user"}]}),
        json!({"messages": [{"role": "user"}, {"role": "user", "name": "last"}]}),
    );
    golden(
        json!({"path": "tools.*.function.strict", "mode": "delete"}),
        json!({"tools": [{"function": {"name": "a", "strict": true}}, {"function": {"name": "b"}}]}),
        json!({"tools": [{"function": {"name": "a"}}, {"function": {"name": "b"}}]}),
    );
    golden(
        json!({"path": "absent", "mode": "delete"}),
        json!({"a": 1}),
        json!({"a": 1}),
    );
    golden(
        json!({"mode": "move", "from": "max_tokens", "to": "max_completion_tokens"}),
        json!({"max_tokens": 9}),
        json!({"max_completion_tokens": 9}),
    );
    golden(
        json!({"mode": "copy", "from": "model", "to": "metadata.model"}),
        json!({"model": "m"}),
        json!({"model": "m", "metadata": {"model": "m"}}),
    );
    let e = failed(
        json!({"mode": "move", "from": "nope", "to": "x"}),
        json!({}),
    );
    assert_eq!(e.code(), "param_override_failed");
    assert!(e.retryable());
}

#[test]
fn prepend_and_append() {
    golden(
        json!({"path": "stop", "mode": "prepend", "value": ["a", "b"]}),
        json!({"stop": ["c"]}),
        json!({"stop": ["a", "b", "c"]}),
    );
    golden(
        json!({"path": "stop", "mode": "append", "value": "d"}),
        json!({"stop": ["c"]}),
        json!({"stop": ["c", "d"]}),
    );
    golden(
        json!({"path": "messages.0.content", "mode": "prepend", "value": "Note: "}),
        json!({"messages": [{"content": "hi"}]}),
        json!({"messages": [{"content": "Note: hi"}]}),
    );
    golden(
        json!({"path": "user", "mode": "append", "value": 7}),
        json!({"user": "u"}),
        json!({"user": "u7"}),
    );
    golden(
        json!({"path": "metadata", "mode": "append", "value": {"a": 2, "b": 2}, "keep_origin": true}),
        json!({"metadata": {"a": 1, "c": null}}),
        json!({"metadata": {"a": 1, "b": 2, "c": null}}),
    );
    golden(
        json!({"path": "metadata", "mode": "prepend", "value": {"a": 2}}),
        json!({"metadata": {"a": 1}}),
        json!({"metadata": {"a": 2}}),
    );
    assert_eq!(
        failed(
            json!({"path": "missing", "mode": "append", "value": 1}),
            json!({})
        )
        .code(),
        "param_override_failed"
    );
}

#[test]
fn string_modes() {
    let m = |mode: &str, value: Value, from: &str, to: &str, input: &str, out: &str| {
        golden(
            json!({"path": "model", "mode": mode, "value": value, "from": from, "to": to}),
            json!({"model": input}),
            json!({"model": out}),
        )
    };
    m(
        "trim_prefix",
        json!("openai/"),
        "",
        "",
        "openai/gpt-4o",
        "gpt-4o",
    );
    m("trim_prefix", json!("x/"), "", "", "gpt-4o", "gpt-4o");
    m(
        "trim_suffix",
        json!("-latest"),
        "",
        "",
        "gpt-4o-latest",
        "gpt-4o",
    );
    m(
        "ensure_prefix",
        json!("models/"),
        "",
        "",
        "gemini",
        "models/gemini",
    );
    m(
        "ensure_prefix",
        json!("models/"),
        "",
        "",
        "models/gemini",
        "models/gemini",
    );
    m("ensure_suffix", json!("-001"), "", "", "m", "m-001");
    m("ensure_suffix", json!("-001"), "", "", "m-001", "m-001");
    m("trim_space", Value::Null, "", "", "  m \n", "m");
    m("to_lower", Value::Null, "", "", "GPT-4O", "gpt-4o");
    m("to_upper", Value::Null, "", "", "gpt", "GPT");
    m(
        "replace",
        Value::Null,
        ".",
        "-",
        "claude-3.5.x",
        "claude-3-5-x",
    );
    m(
        "regex_replace",
        Value::Null,
        r"^gpt-(\d)o$",
        "gpt-${1}o-mini",
        "gpt-4o",
        "gpt-4o-mini",
    );
    golden(
        json!({"path": "messages.*.content", "mode": "replace", "from": "foo", "to": "bar"}),
        json!({"messages": [{"content": "foo foo"}, {"content": "x"}]}),
        json!({"messages": [{"content": "bar bar"}, {"content": "x"}]}),
    );
    let e = failed(json!({"path": "n", "mode": "to_lower"}), json!({"n": 1}));
    assert!(e.to_string().contains("not a string"), "{e}");
}

#[test]
fn return_error_defaults_and_object_form() {
    let e = failed(
        json!({"mode": "return_error", "value": "model disabled here"}),
        json!({}),
    );
    assert_eq!(
        e,
        ShapingError::ReturnError(OverrideReturnError {
            message: "model disabled here".into(),
            status: 400,
            code: "invalid_request".into(),
            error_type: "invalid_request_error".into(),
            skip_retry: true,
        })
    );
    assert_eq!(
        (e.code(), e.status(), e.retryable()),
        ("override_return_error", 400, false)
    );
    let e = failed(
        json!({"mode": "return_error", "value": {"msg": "busy", "status_code": 429, "code": 42, "skip_retry": false}}),
        json!({}),
    );
    assert_eq!(
        (e.status(), e.retryable(), e.to_string()),
        (429, true, "busy".to_owned())
    );
    let ShapingError::ReturnError(r) = e else {
        panic!()
    };
    assert_eq!(r.code, "42");
}

#[test]
fn prune_objects_forms() {
    golden(
        json!({"path": "tools", "mode": "prune_objects", "value": "web_search"}),
        json!({"tools": [{"type": "function", "x": {"type": "web_search"}}, {"type": "web_search"}]}),
        json!({"tools": [{"type": "function"}]}),
    );
    golden(
        json!({"path": "tools", "mode": "prune_objects", "value": {"where": {"type": "web_search"}, "recursive": false}}),
        json!({"tools": [{"type": "function", "x": {"type": "web_search"}}, {"type": "web_search"}]}),
        json!({"tools": [{"type": "function", "x": {"type": "web_search"}}]}),
    );
    golden(
        json!({"mode": "prune_objects", "value": {"conditions": [{"path": "cache_control", "mode": "full", "value": null, "invert": true}]}}),
        json!({"cache_control": 1, "messages": [{"content": [{"text": "a", "cache_control": {"type": "ephemeral"}}, {"text": "b"}]}]}),
        json!({"cache_control": 1, "messages": [{"content": [{"text": "b"}]}]}),
    );
    golden(
        json!({"path": "missing", "mode": "prune_objects", "value": "x"}),
        json!({"a": 1}),
        json!({"a": 1}),
    );
}

#[test]
fn sync_fields_fills_the_missing_side() {
    golden(
        json!({"mode": "sync_fields", "from": "json:user", "to": "body:metadata.user_id"}),
        json!({"user": "u1"}),
        json!({"user": "u1", "metadata": {"user_id": "u1"}}),
    );
    golden(
        json!({"mode": "sync_fields", "from": "user", "to": "metadata.user_id"}),
        json!({"user": "  ", "metadata": {"user_id": "u2"}}),
        json!({"user": "u2", "metadata": {"user_id": "u2"}}),
    );
    golden(
        json!({"mode": "sync_fields", "from": "a", "to": "b"}),
        json!({"a": 1, "b": 2}),
        json!({"a": 1, "b": 2}),
    );
    let mut h = HeaderMap::new();
    h.insert("session_id", "s-9".parse().unwrap());
    let po = ParamOverride::parse(
        &json!({"operations": [{"mode": "sync_fields", "from": "header:session_id", "to": "json:prompt_cache_key"}]})
            .to_string(),
    )
    .unwrap()
    .unwrap();
    let mut b = json!({});
    po.apply(&mut b, &ctx_with(Some(&h))).unwrap();
    assert_eq!(b, json!({"prompt_cache_key": "s-9"}));
}

fn cond_op(conditions: Value, logic: &str) -> Value {
    json!({"operations": [{"path": "hit", "mode": "set", "value": true, "conditions": conditions, "logic": logic}]})
}

fn hits(conditions: Value, logic: &str, body: Value) -> bool {
    let (b, _) = run(cond_op(conditions, logic), body).unwrap();
    b.get("hit").is_some()
}

#[test]
fn conditions_and_or_invert_missing() {
    let body =
        json!({"model": "gpt-4o-mini", "stream": true, "max_tokens": 100, "messages": [1, 2, 3]});
    let c =
        |path: &str, mode: &str, value: Value| json!({"path": path, "mode": mode, "value": value});
    assert!(hits(
        json!([c("model", "prefix", json!("gpt-4o"))]),
        "",
        body.clone()
    ));
    assert!(!hits(
        json!([c("model", "suffix", json!("4o"))]),
        "",
        body.clone()
    ));
    assert!(hits(
        json!([c("model", "contains", json!("4o-m"))]),
        "",
        body.clone()
    ));
    assert!(hits(
        json!([c("stream", "full", json!(true))]),
        "",
        body.clone()
    ));
    assert!(hits(
        json!([c("max_tokens", "gt", json!(99))]),
        "",
        body.clone()
    ));
    assert!(!hits(
        json!([c("max_tokens", "lt", json!(100))]),
        "",
        body.clone()
    ));
    assert!(hits(
        json!([
            c("max_tokens", "lte", json!(100)),
            c("max_tokens", "gte", json!(100))
        ]),
        "AND",
        body.clone()
    ));
    assert!(hits(
        json!([c("messages.#", "gt", json!(2))]),
        "",
        body.clone()
    ));
    // OR (the default) needs one; AND needs all.
    let mixed = json!([
        c("model", "prefix", json!("gpt")),
        c("model", "prefix", json!("claude"))
    ]);
    assert!(hits(mixed.clone(), "OR", body.clone()));
    assert!(hits(mixed.clone(), "", body.clone()));
    assert!(!hits(mixed, "and", body.clone()));
    // invert flips a found value's result, not a missing one.
    let inv = json!([{"path": "model", "mode": "prefix", "value": "claude", "invert": true}]);
    assert!(hits(inv, "", body.clone()));
    let missing = json!([{"path": "tools", "mode": "full", "value": 1, "invert": true}]);
    assert!(!hits(missing, "", body.clone()));
    let pass = json!([{"path": "tools", "mode": "full", "value": 1, "pass_missing_key": true}]);
    assert!(hits(pass, "", body.clone()));
    // Object form: equalities.
    assert!(hits(
        json!({"stream": true, "max_tokens": 100}),
        "AND",
        body.clone()
    ));
}

#[test]
fn conditions_fall_back_to_the_context() {
    let body = json!({"messages": []});
    assert!(hits(
        json!([{"path": "model", "mode": "prefix", "value": "gpt-4o-2024"}]),
        "",
        body.clone()
    ));
    assert!(hits(
        json!([{"path": "original_model", "mode": "full", "value": "gpt-4o"}]),
        "",
        body.clone()
    ));
    assert!(hits(
        json!([{"path": "is_retry", "mode": "full", "value": false}]),
        "",
        body.clone()
    ));
    assert!(hits(
        json!([{"path": "request_path", "mode": "suffix", "value": "/completions"}]),
        "",
        body.clone()
    ));
    // The body wins over the context.
    assert!(!hits(
        json!([{"path": "model", "mode": "full", "value": "gpt-4o"}]),
        "",
        json!({"model": "x"})
    ));
}

#[test]
fn condition_type_mismatch_fails_the_attempt() {
    let e = run(
        cond_op(
            json!([{"path": "max_tokens", "mode": "full", "value": "100"}]),
            "",
        ),
        json!({"max_tokens": 100}),
    )
    .unwrap_err();
    assert_eq!(e.code(), "param_override_failed");
}

#[test]
fn invalid_rules_are_refused_at_parse_time() {
    assert!(refused(json!([1])).contains("object"));
    assert!(refused(json!({"operations": {}})).contains("array"));
    assert!(refused(json!({"operations": [{"path": "a"}]})).contains("mode"));
    assert!(
        refused(json!({"operations": [{"path": "a", "mode": "frobnicate"}]}))
            .contains("frobnicate")
    );
    assert!(refused(json!({"operations": [{"mode": "set"}]})).contains("path"));
    assert!(refused(json!({"operations": [{"mode": "move", "from": "a"}]})).contains("to"));
    assert!(
        refused(json!({"operations": [{"mode": "copy", "from": "a.*", "to": "b"}]}))
            .contains("wildcard")
    );
    assert!(refused(json!({"operations": [{"mode": "set", "path": "a.#"}]})).contains("#"));
    assert!(
        refused(json!({"operations": [{"mode": "regex_replace", "path": "a", "from": "("}]}))
            .contains("regex")
    );
    assert!(refused(json!({"operations": [{"mode": "replace", "path": "a"}]})).contains("from"));
    assert!(
        refused(json!({"operations": [{"mode": "ensure_prefix", "path": "a", "value": ""}]}))
            .contains("value")
    );
    assert!(refused(json!({"operations": [{"mode": "append", "path": "a"}]})).contains("value"));
    assert!(
        refused(json!({"operations": [{"mode": "return_error", "value": {"status": 200}}]}))
            .contains("message")
    );
    assert!(refused(json!({"operations": [{"mode": "return_error", "value": {"message": "x", "status": 700}}]})).contains("range"));
    assert!(
        refused(json!({"operations": [{"mode": "prune_objects", "value": {}}]}))
            .contains("condition")
    );
    assert!(
        refused(
            json!({"operations": [{"mode": "set_header", "path": "content-length", "value": "1"}]})
        )
        .contains("managed")
    );
    assert!(
        refused(json!({"operations": [{"mode": "set_header", "path": "bad name", "value": "1"}]}))
            .contains("header name")
    );
    assert!(refused(json!({"operations": [{"mode": "set_header", "path": "x-a", "value": "{client_header:Authorization}"}]})).contains("authorization"));
    assert!(
        refused(json!({"operations": [{"mode": "sync_fields", "from": "cookie:x", "to": "a"}]}))
            .contains("prefix")
    );
    assert!(refused(json!({"operations": [{"mode": "set", "path": "a", "conditions": [{"path": "m", "mode": "between"}]}]})).contains("between"));
    assert!(refused(json!({"operations": [{"mode": "set", "path": "a", "conditions": [{"path": "m", "mode": "gt", "value": "1"}]}]})).contains("number"));
    let many: Vec<Value> = (0..300)
        .map(|_| json!({"mode": "delete", "path": "a"}))
        .collect();
    assert!(refused(json!({ "operations": many })).contains("256"));
    assert!(
        ParamOverride::parse("{not json")
            .unwrap_err()
            .to_string()
            .contains("JSON")
    );
}
