//! Param override's header operations (`set_header`, `copy_header`, `move_header`,
//! `pass_headers`, `sync_fields`): their parsed values and how they read and edit the
//! attempt's header override. A header's current value is its override entry, else the
//! client's header; values copied from the client or the body are sent as they are.

use serde_json::Value;

use super::apply::type_name;
use super::conditions;
use super::context::OverrideContext;
use super::headers::{HeaderEdits, HeaderEntry, NOT_READABLE, Template, normalize_name};
use super::param_override::single_path;
use super::path::{self, Path};

/// `set_header` values.
#[derive(Debug, Clone)]
pub(crate) enum HeaderSet {
    /// A configured value (placeholders resolved with the other overrides).
    Fixed(Template),
    /// A blank value: removes the override of that header.
    Clear,
    /// Rewrites a comma-separated header token by token.
    Tokens(TokenMap),
}

/// `{"token": replacement (string, array, or null to drop), "*": for unlisted tokens,
/// "$append": tokens added, "$keep_only_declared": drop unlisted tokens}`.
#[derive(Debug, Clone)]
pub(crate) struct TokenMap {
    pub(crate) map: Vec<(String, Vec<String>)>,
    pub(crate) wildcard: Option<Vec<String>>,
    pub(crate) append: Vec<String>,
    pub(crate) keep_only_declared: bool,
}

/// A side of `sync_fields`: `json:<path>` / `body:<path>` / a bare path, or `header:<name>`.
#[derive(Debug, Clone)]
pub(crate) enum SyncTarget {
    Body(Path),
    Header(String),
}

pub(crate) fn parse_header_set(value: &Value) -> Result<HeaderSet, String> {
    Ok(match value {
        Value::Null => return Err("`value` is required for set_header".into()),
        Value::String(s) if s.trim().is_empty() => HeaderSet::Clear,
        Value::String(s) => HeaderSet::Fixed(Template::parse(s.trim())?),
        Value::Number(_) | Value::Bool(_) => {
            HeaderSet::Fixed(Template::parse(&conditions::text(value))?)
        }
        Value::Array(_) => return Err("set_header value must be a string or an object".into()),
        Value::Object(m) => {
            if m.is_empty() {
                return Err("set_header mapping cannot be empty".into());
            }
            let mut tm = TokenMap {
                map: Vec::new(),
                wildcard: None,
                append: Vec::new(),
                keep_only_declared: false,
            };
            for (k, v) in m {
                match k.as_str() {
                    "$append" => tm.append = tokens(v)?,
                    "$keep_only_declared" => tm.keep_only_declared = v.as_bool().unwrap_or(false),
                    "*" => tm.wildcard = Some(tokens(v)?),
                    _ => tm.map.push((k.trim().to_owned(), tokens(v)?)),
                }
            }
            HeaderSet::Tokens(tm)
        }
    })
}

/// Header tokens of a replacement: null none, a string split at commas, an array flattened.
pub(crate) fn tokens(v: &Value) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    match v {
        Value::Null => {}
        Value::String(s) => out.extend(split_tokens(s)),
        Value::Array(items) => {
            for item in items {
                for t in tokens(item)? {
                    if !out.contains(&t) {
                        out.push(t);
                    }
                }
            }
        }
        Value::Object(_) => {
            return Err("header replacement must be a string, an array or null".into());
        }
        other => out.extend(split_tokens(&conditions::text(other))),
    }
    Ok(out)
}

/// The non-blank comma-separated tokens of a header value.
pub(crate) fn split_tokens(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

pub(crate) fn parse_pass_names(value: &Value, depth: u8) -> Result<Vec<String>, String> {
    if depth > 2 {
        return Err("pass_headers value nests too deeply".into());
    }
    let mut raw: Vec<String> = Vec::new();
    match value {
        Value::String(s) => {
            let t = s.trim();
            if (t.starts_with('[') || t.starts_with('{'))
                && let Ok(parsed) = serde_json::from_str::<Value>(t)
            {
                return parse_pass_names(&parsed, depth + 1);
            }
            raw.extend(split_tokens(t));
        }
        Value::Array(items) => raw.extend(items.iter().map(|i| conditions::text(i).into_owned())),
        Value::Object(m) => {
            for key in ["headers", "names", "header"] {
                if let Some(v) = m.get(key) {
                    raw.extend(parse_pass_names(v, depth + 1)?);
                }
            }
        }
        _ => return Err("pass_headers value must be a string, an array or an object".into()),
    }
    let mut names: Vec<String> = Vec::new();
    for r in raw.iter().filter(|r| !r.trim().is_empty()) {
        let n = normalize_name(r)?;
        if !names.contains(&n) {
            names.push(n);
        }
    }
    if names.is_empty() {
        return Err("pass_headers names no header".into());
    }
    Ok(names)
}

pub(crate) fn parse_sync_target(spec: &str) -> Result<SyncTarget, String> {
    let raw = spec.trim();
    if raw.is_empty() {
        return Err("sync_fields needs `from` and `to`".into());
    }
    let Some((kind, key)) = raw.split_once(':') else {
        return Ok(SyncTarget::Body(single_path("from/to", raw)?));
    };
    let key = key.trim();
    if key.is_empty() {
        return Err(format!("sync_fields target `{raw}` has no key"));
    }
    match kind.trim().to_ascii_lowercase().as_str() {
        "json" | "body" => Ok(SyncTarget::Body(single_path("from/to", key)?)),
        "header" => Ok(SyncTarget::Header(normalize_name(key)?)),
        _ => Err(format!(
            "sync_fields target `{raw}`: prefix must be json:, body: or header:"
        )),
    }
}

/// The header's current value: its override entry, else the client's header.
pub(crate) fn header_value(
    name: &str,
    ctx: &OverrideContext<'_>,
    edits: &HeaderEdits,
) -> Option<HeaderEntry> {
    if let Some(e) = edits.override_entry(name, ctx.header_override) {
        return Some(e.clone());
    }
    // The client's credentials and cookies are never copied anywhere.
    if NOT_READABLE.contains(&name) {
        return None;
    }
    ctx.client_header(name)
        .map(|v| HeaderEntry::Literal(v.to_owned()))
}

/// Copies header `from` to `to`; false when `from` has no value.
pub(crate) fn copy_header(
    from: &str,
    to: &str,
    keep_origin: bool,
    ctx: &OverrideContext<'_>,
    edits: &mut HeaderEdits,
) -> bool {
    let Some(entry) = header_value(from, ctx, edits) else {
        return false;
    };
    if !(keep_origin && edits.override_entry(to, ctx.header_override).is_some()) {
        edits.set(to, entry);
    }
    true
}

/// The tokens of `current` rewritten by `tm`, joined with commas; `None` when none is left.
pub(crate) fn rewrite_tokens(current: &str, tm: &TokenMap) -> Option<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |t: &str| {
        if !out.iter().any(|o| o == t) {
            out.push(t.to_owned());
        }
    };
    for token in split_tokens(current) {
        let replacement =
            tm.map
                .iter()
                .find(|(k, _)| *k == token)
                .map(|(_, r)| r)
                .or(if tm.keep_only_declared {
                    None
                } else {
                    tm.wildcard.as_ref()
                });
        match replacement {
            Some(r) => r.iter().for_each(|t| push(t)),
            None if tm.keep_only_declared => {}
            None => push(&token),
        }
    }
    tm.append.iter().for_each(|t| push(t));
    (!out.is_empty()).then(|| out.join(","))
}

pub(crate) fn read_sync(
    body: &Value,
    target: &SyncTarget,
    ctx: &OverrideContext<'_>,
    edits: &HeaderEdits,
) -> Option<Value> {
    match target {
        SyncTarget::Body(p) => {
            let v = path::get(body, p)?;
            match &*v {
                Value::Null => None,
                Value::String(s) if s.trim().is_empty() => None,
                _ => Some(v.into_owned()),
            }
        }
        SyncTarget::Header(name) => header_value(name, ctx, edits)
            .map(|e| e.text().trim().to_owned())
            .filter(|s| !s.is_empty())
            .map(Value::String),
    }
}

pub(crate) fn write_sync(
    body: &mut Value,
    target: &SyncTarget,
    value: Value,
    edits: &mut HeaderEdits,
) -> Result<(), String> {
    match target {
        SyncTarget::Body(p) => {
            let steps = p.resolve(body);
            path::set_steps(body, &steps, value)
        }
        SyncTarget::Header(name) => {
            if value.is_object() || value.is_array() {
                return Err(format!(
                    "cannot copy {} into header `{name}`",
                    type_name(Some(&value))
                ));
            }
            edits.set(
                name,
                HeaderEntry::Literal(conditions::text(&value).into_owned()),
            );
            Ok(())
        }
    }
}
