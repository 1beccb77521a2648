//! The channel's `param_override`, parsed once: a plain object deep-merged into the body, or
//! `{"operations": [...]}` (other top-level keys of that form are merged first, as new-api
//! does). Every rule is checked here (paths, modes, required fields, regexes, limits), so a
//! bad rule refuses the channel's config instead of failing requests one by one.
//!
//! Operation fields: `path`, `mode`, `value`, `from`, `to`, `keep_origin`, `conditions`,
//! `logic` (`AND`, or `OR` by default). Modes and their meaning are listed on [`OpKind`];
//! applying them is in `apply.rs`.

use regex::{Regex, RegexBuilder};
use serde_json::{Map, Value};

use super::ShapingError;
use super::conditions::{self, Condition, Logic};
use super::header_ops::{
    HeaderSet, SyncTarget, parse_header_set, parse_pass_names, parse_sync_target,
};
use super::headers::{REGEX_SIZE_LIMIT, normalize_name};
use super::path::Path;

/// Most operations in one rule set.
pub(crate) const MAX_OPERATIONS: usize = 256;
/// Longest accepted rule text.
pub(crate) const MAX_TEXT: usize = 256 * 1024;

/// A channel's parsed param override.
#[derive(Debug, Clone)]
pub struct ParamOverride {
    /// Deep-merged into the body first (the plain form, or the non-`operations` keys).
    pub(crate) merge: Map<String, Value>,
    pub(crate) ops: Vec<Operation>,
}

#[derive(Debug, Clone)]
pub(crate) struct Operation {
    pub(crate) kind: OpKind,
    pub(crate) conditions: Vec<Condition>,
    pub(crate) logic: Logic,
    pub(crate) keep_origin: bool,
}

/// The failure a `return_error` rule answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverrideReturnError {
    pub message: String,
    /// HTTP status, 100..=511 (default 400).
    pub status: u16,
    /// Error code in the client's error body (default `invalid_request`).
    pub code: String,
    /// Error type (default `invalid_request_error`).
    pub error_type: String,
    /// Answer the client at once instead of trying another channel (default true).
    pub skip_retry: bool,
}

/// What `prune_objects` removes: objects (array items or member values, never the target
/// itself) matching the conditions; `recursive` (default) looks inside kept values too.
#[derive(Debug, Clone)]
pub(crate) struct PruneRule {
    pub(crate) conditions: Vec<Condition>,
    pub(crate) logic: Logic,
    pub(crate) recursive: bool,
}

/// The operation modes.
#[derive(Debug, Clone)]
pub(crate) enum OpKind {
    /// Writes `value` (creating parents); with `keep_origin`, only where nothing is.
    Set {
        path: Path,
        value: Value,
    },
    /// Removes the value (nothing when missing).
    Delete {
        path: Path,
    },
    /// Moves `from` to `to`; a missing source fails.
    Move {
        from: Path,
        to: Path,
    },
    /// Copies `from` to `to`; a missing source fails.
    Copy {
        from: Path,
        to: Path,
    },
    /// Arrays: items of `value` (or `value`) before the existing ones; strings: `value`'s text
    /// before; objects: `value`'s members merged in (`keep_origin`: only absent or null ones).
    Prepend {
        path: Path,
        value: Value,
    },
    /// As `Prepend`, after.
    Append {
        path: Path,
        value: Value,
    },
    TrimPrefix {
        path: Path,
        text: String,
    },
    TrimSuffix {
        path: Path,
        text: String,
    },
    /// Adds the prefix unless present.
    EnsurePrefix {
        path: Path,
        text: String,
    },
    EnsureSuffix {
        path: Path,
        text: String,
    },
    TrimSpace {
        path: Path,
    },
    ToLower {
        path: Path,
    },
    ToUpper {
        path: Path,
    },
    /// Replaces every `from` in the string with `to`.
    Replace {
        path: Path,
        from: String,
        to: String,
    },
    /// Replaces every match of the regex `from` with `to` (`$1`, `${name}` expand).
    RegexReplace {
        path: Path,
        re: Regex,
        to: String,
    },
    /// Fails the request with this error.
    ReturnError(OverrideReturnError),
    PruneObjects {
        path: Path,
        rule: PruneRule,
    },
    /// Header override of `path` (a header name); `keep_origin`: only when not set.
    SetHeader {
        name: String,
        value: HeaderSet,
    },
    DeleteHeader {
        name: String,
    },
    /// Copies header `from` (override, else client header) to `to`; a missing source does
    /// nothing.
    CopyHeader {
        from: String,
        to: String,
    },
    MoveHeader {
        from: String,
        to: String,
    },
    /// Copies these client headers to the upstream request.
    PassHeaders {
        names: Vec<String>,
    },
    /// When exactly one side has a value (not null, not a blank string), copies it across.
    SyncFields {
        from: SyncTarget,
        to: SyncTarget,
    },
}

impl ParamOverride {
    /// Parses the channel's `param_override` text; empty text, `{}` or no operation gives
    /// `None`. Errors carry the code `param_override_invalid`.
    pub fn parse(text: &str) -> Result<Option<ParamOverride>, ShapingError> {
        let invalid = ShapingError::ParamOverrideInvalid;
        if text.trim().is_empty() {
            return Ok(None);
        }
        if text.len() > MAX_TEXT {
            return Err(invalid(format!("longer than {MAX_TEXT} bytes")));
        }
        let v: Value = serde_json::from_str(text).map_err(|e| invalid(format!("not JSON: {e}")))?;
        let Value::Object(mut map) = v else {
            return Err(invalid("must be a JSON object".into()));
        };
        let ops = match map.remove("operations") {
            None => Vec::new(),
            Some(Value::Array(items)) => {
                if items.len() > MAX_OPERATIONS {
                    return Err(invalid(format!("more than {MAX_OPERATIONS} operations")));
                }
                let mut ops = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    ops.push(parse_op(item).map_err(|e| invalid(format!("operation {i}: {e}")))?);
                }
                ops
            }
            Some(_) => return Err(invalid("`operations` must be an array".into())),
        };
        if map.is_empty() && ops.is_empty() {
            return Ok(None);
        }
        Ok(Some(ParamOverride { merge: map, ops }))
    }
}

fn parse_op(item: &Value) -> Result<Operation, String> {
    let Value::Object(m) = item else {
        return Err("must be an object".into());
    };
    let text = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("");
    let Some(mode) = m.get("mode").and_then(Value::as_str) else {
        return Err("`mode` is required".into());
    };
    let value = m.get("value").cloned().unwrap_or(Value::Null);
    let (path, from, to) = (text("path"), text("from"), text("to"));
    let kind = parse_kind(mode.trim(), path, from, to, value)?;
    let conditions = match m.get("conditions") {
        Some(c) => conditions::parse_list(c)?,
        None => Vec::new(),
    };
    Ok(Operation {
        kind,
        conditions,
        logic: Logic::parse(m.get("logic"), Logic::Or),
        keep_origin: m
            .get("keep_origin")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

/// A path an operation writes through: no `#`.
fn write_path(raw: &str) -> Result<Path, String> {
    let p = Path::parse(raw.trim())?;
    if p.has_count() {
        return Err(format!("path `{raw}`: `#` can only be read"));
    }
    Ok(p)
}

/// A path naming one value: no wildcard, no `#`, not the whole body.
pub(crate) fn single_path(field: &str, raw: &str) -> Result<Path, String> {
    if raw.trim().is_empty() {
        return Err(format!("`{field}` is required"));
    }
    let p = write_path(raw)?;
    if p.has_wildcard() {
        return Err(format!(
            "`{field}` `{raw}`: wildcards are not supported here"
        ));
    }
    Ok(p)
}

/// A path-based operation's target: required, wildcards allowed.
fn target_path(raw: &str) -> Result<Path, String> {
    if raw.trim().is_empty() {
        return Err("`path` is required".into());
    }
    write_path(raw)
}

/// `value` as text (new-api's `%v`): strings as they are, other JSON as JSON; null refused.
fn value_text(value: &Value, what: &str) -> Result<String, String> {
    match value {
        Value::Null => Err(format!("`value` is required for {what}")),
        other => Ok(conditions::text(other).into_owned()),
    }
}

fn header_name(field: &str, raw: &str) -> Result<String, String> {
    if raw.trim().is_empty() {
        return Err(format!("`{field}` (a header name) is required"));
    }
    normalize_name(raw)
}

fn parse_kind(
    mode: &str,
    path: &str,
    from: &str,
    to: &str,
    value: Value,
) -> Result<OpKind, String> {
    Ok(match mode {
        "set" => OpKind::Set {
            path: target_path(path)?,
            value,
        },
        "delete" => OpKind::Delete {
            path: target_path(path)?,
        },
        "move" => OpKind::Move {
            from: single_path("from", from)?,
            to: single_path("to", to)?,
        },
        "copy" => OpKind::Copy {
            from: single_path("from", from)?,
            to: single_path("to", to)?,
        },
        "prepend" | "append" => {
            if value.is_null() {
                return Err(format!("`value` is required for {mode}"));
            }
            let path = target_path(path)?;
            if mode == "prepend" {
                OpKind::Prepend { path, value }
            } else {
                OpKind::Append { path, value }
            }
        }
        "trim_prefix" => OpKind::TrimPrefix {
            path: target_path(path)?,
            text: value_text(&value, mode)?,
        },
        "trim_suffix" => OpKind::TrimSuffix {
            path: target_path(path)?,
            text: value_text(&value, mode)?,
        },
        "ensure_prefix" | "ensure_suffix" => {
            let text = value_text(&value, mode)?;
            if text.is_empty() {
                return Err(format!("`value` is required for {mode}"));
            }
            let path = target_path(path)?;
            if mode == "ensure_prefix" {
                OpKind::EnsurePrefix { path, text }
            } else {
                OpKind::EnsureSuffix { path, text }
            }
        }
        "trim_space" => OpKind::TrimSpace {
            path: target_path(path)?,
        },
        "to_lower" => OpKind::ToLower {
            path: target_path(path)?,
        },
        "to_upper" => OpKind::ToUpper {
            path: target_path(path)?,
        },
        "replace" => {
            if from.is_empty() {
                return Err("`from` is required for replace".into());
            }
            OpKind::Replace {
                path: target_path(path)?,
                from: from.to_owned(),
                to: to.to_owned(),
            }
        }
        "regex_replace" => {
            if from.is_empty() {
                return Err("`from` (the pattern) is required for regex_replace".into());
            }
            let re = RegexBuilder::new(from)
                .size_limit(REGEX_SIZE_LIMIT)
                .dfa_size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| format!("regex `{from}`: {e}"))?;
            OpKind::RegexReplace {
                path: target_path(path)?,
                re,
                to: to.to_owned(),
            }
        }
        "return_error" => OpKind::ReturnError(parse_return_error(&value)?),
        "prune_objects" => OpKind::PruneObjects {
            path: write_path(path.trim())?,
            rule: parse_prune(&value)?,
        },
        "set_header" => OpKind::SetHeader {
            name: header_name("path", path)?,
            value: parse_header_set(&value)?,
        },
        "delete_header" => OpKind::DeleteHeader {
            name: header_name("path", path)?,
        },
        "copy_header" | "move_header" => {
            let from = header_name("from", if from.trim().is_empty() { path } else { from })?;
            let to = header_name("to", if to.trim().is_empty() { path } else { to })?;
            if mode == "copy_header" {
                OpKind::CopyHeader { from, to }
            } else {
                OpKind::MoveHeader { from, to }
            }
        }
        "pass_headers" => OpKind::PassHeaders {
            names: parse_pass_names(&value, 0)?,
        },
        "sync_fields" => OpKind::SyncFields {
            from: parse_sync_target(from)?,
            to: parse_sync_target(to)?,
        },
        other => return Err(format!("unknown mode `{other}`")),
    })
}

fn parse_return_error(value: &Value) -> Result<OverrideReturnError, String> {
    let mut out = OverrideReturnError {
        message: String::new(),
        status: 400,
        code: "invalid_request".into(),
        error_type: "invalid_request_error".into(),
        skip_retry: true,
    };
    match value {
        Value::String(s) => out.message = s.trim().to_owned(),
        Value::Object(m) => {
            let text = |k: &str| {
                m.get(k)
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .unwrap_or("")
            };
            out.message = match text("message") {
                "" => text("msg").to_owned(),
                s => s.to_owned(),
            };
            if let Some(code) = m.get("code") {
                let code = conditions::text(code).trim().to_owned();
                if !code.is_empty() {
                    out.code = code;
                }
            }
            if !text("type").is_empty() {
                out.error_type = text("type").to_owned();
            }
            if let Some(b) = m.get("skip_retry").and_then(Value::as_bool) {
                out.skip_retry = b;
            }
            if let Some(s) = m.get("status_code").or_else(|| m.get("status")) {
                let n = s.as_u64().ok_or("return_error status must be an integer")?;
                out.status = u16::try_from(n).map_err(|_| "return_error status out of range")?;
            }
        }
        Value::Null => return Err("`value` is required for return_error".into()),
        _ => return Err("return_error value must be a string or an object".into()),
    }
    if out.message.is_empty() {
        return Err("return_error message is required".into());
    }
    if !(100..=511).contains(&out.status) {
        return Err(format!("return_error status {} out of range", out.status));
    }
    Ok(out)
}

fn parse_prune(value: &Value) -> Result<PruneRule, String> {
    let mut rule = PruneRule {
        conditions: Vec::new(),
        logic: Logic::And,
        recursive: true,
    };
    match value {
        Value::String(s) if !s.trim().is_empty() => {
            rule.conditions
                .push(Condition::equals("type", Value::from(s.trim()))?);
        }
        Value::Object(m) => {
            rule.logic = Logic::parse(m.get("logic"), Logic::And);
            if let Some(r) = m.get("recursive").and_then(Value::as_bool) {
                rule.recursive = r;
            }
            if let Some(c) = m.get("conditions") {
                rule.conditions.extend(conditions::parse_list(c)?);
            }
            match m.get("where") {
                Some(Value::Object(w)) => {
                    for (k, v) in w {
                        if !k.trim().is_empty() {
                            rule.conditions.push(Condition::equals(k, v.clone())?);
                        }
                    }
                }
                Some(_) => return Err("prune_objects `where` must be an object".into()),
                None => {}
            }
            if let Some(t) = m.get("type") {
                rule.conditions.push(Condition::equals("type", t.clone())?);
            }
        }
        _ => return Err("prune_objects value must be a non-empty string or an object".into()),
    }
    if rule.conditions.is_empty() {
        return Err("prune_objects needs at least one condition".into());
    }
    Ok(rule)
}
