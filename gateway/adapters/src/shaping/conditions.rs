//! Conditions of param override operations (and of `prune_objects`): parsed once, evaluated
//! against a JSON node, falling back to the override context when the node lacks the path.
//!
//! Semantics (new-api's): a missing value passes only with `pass_missing_key` (`invert` does
//! not apply to it); `full` compares equal values (null only equals null, booleans compare,
//! other differing types are an error); `prefix` / `suffix` / `contains` compare the text of
//! both sides (numbers as written, objects as JSON); `gt` / `gte` / `lt` / `lte` need two
//! numbers. `logic` is `AND` (every condition) or anything else: `OR` (any); no condition
//! always passes.

use std::borrow::Cow;

use serde_json::Value;

use super::context::OverrideContext;
use super::headers::HeaderEdits;
use super::path::{self, Path};

/// Most conditions on one operation.
pub(crate) const MAX_CONDITIONS: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Full,
    Prefix,
    Suffix,
    Contains,
    Gt,
    Gte,
    Lt,
    Lte,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Logic {
    And,
    Or,
}

impl Logic {
    /// `AND` in any case is And; anything else is Or (new-api's default).
    pub(crate) fn parse(raw: Option<&Value>, default: Logic) -> Logic {
        match raw.and_then(Value::as_str).map(str::trim) {
            Some(s) if s.eq_ignore_ascii_case("and") => Logic::And,
            Some(s) if !s.is_empty() => Logic::Or,
            _ => default,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Condition {
    path: Path,
    mode: Mode,
    value: Value,
    invert: bool,
    pass_missing_key: bool,
}

impl Condition {
    /// A `full` equality condition (the map forms).
    pub(crate) fn equals(path: &str, value: Value) -> Result<Condition, String> {
        Ok(Condition {
            path: checked_path(path)?,
            mode: Mode::Full,
            value,
            invert: false,
            pass_missing_key: false,
        })
    }
}

fn checked_path(raw: &str) -> Result<Path, String> {
    let p = Path::parse(raw.trim())?;
    if p.has_wildcard() {
        return Err(format!(
            "condition path `{raw}`: wildcards are not supported"
        ));
    }
    Ok(p)
}

/// Parses `conditions`: an array of `{path, mode, value, invert, pass_missing_key}` or an
/// object `{path: value}` of equalities.
pub(crate) fn parse_list(raw: &Value) -> Result<Vec<Condition>, String> {
    let out = match raw {
        Value::Null => Vec::new(),
        Value::Object(m) => {
            let mut out = Vec::with_capacity(m.len());
            for (k, v) in m {
                if !k.trim().is_empty() {
                    out.push(Condition::equals(k, v.clone())?);
                }
            }
            if out.is_empty() {
                return Err("conditions object must contain at least one key".into());
            }
            out
        }
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(parse_one(item)?);
            }
            out
        }
        _ => return Err("conditions must be an array or an object".into()),
    };
    if out.len() > MAX_CONDITIONS {
        return Err(format!("more than {MAX_CONDITIONS} conditions"));
    }
    Ok(out)
}

fn parse_one(item: &Value) -> Result<Condition, String> {
    let Value::Object(m) = item else {
        return Err("a condition must be an object".into());
    };
    let text = |k: &str| {
        m.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or("")
    };
    let flag = |k: &str| m.get(k).and_then(Value::as_bool).unwrap_or(false);
    let (path, mode) = (text("path"), text("mode"));
    if path.is_empty() || mode.is_empty() {
        return Err("a condition needs a path and a mode".into());
    }
    let mode = match mode.to_ascii_lowercase().as_str() {
        "full" => Mode::Full,
        "prefix" => Mode::Prefix,
        "suffix" => Mode::Suffix,
        "contains" => Mode::Contains,
        "gt" => Mode::Gt,
        "gte" => Mode::Gte,
        "lt" => Mode::Lt,
        "lte" => Mode::Lte,
        other => return Err(format!("unknown condition mode `{other}`")),
    };
    let value = m.get("value").cloned().unwrap_or(Value::Null);
    if matches!(mode, Mode::Gt | Mode::Gte | Mode::Lt | Mode::Lte) && !value.is_number() {
        return Err(format!(
            "condition on `{path}`: a numeric comparison needs a number value"
        ));
    }
    Ok(Condition {
        path: checked_path(path)?,
        mode,
        value,
        invert: flag("invert"),
        pass_missing_key: flag("pass_missing_key"),
    })
}

/// Where conditions read: the node, then the context.
pub(crate) struct Scope<'a> {
    pub(crate) ctx: &'a OverrideContext<'a>,
    pub(crate) edits: &'a HeaderEdits,
}

/// Whether `conds` hold for `node` under `logic`. Every condition is evaluated, so an error in
/// any surfaces (as in new-api).
pub(crate) fn check(
    conds: &[Condition],
    logic: Logic,
    node: &Value,
    scope: &Scope<'_>,
) -> Result<bool, String> {
    if conds.is_empty() {
        return Ok(true);
    }
    let mut all = true;
    let mut any = false;
    for c in conds {
        let ok = check_one(c, node, scope)?;
        all &= ok;
        any |= ok;
    }
    Ok(match logic {
        Logic::And => all,
        Logic::Or => any,
    })
}

fn check_one(c: &Condition, node: &Value, scope: &Scope<'_>) -> Result<bool, String> {
    let found = match path::get(node, &c.path) {
        Some(v) => Some(v),
        None => scope.ctx.lookup(&c.path, scope.edits).map(Cow::Owned),
    };
    let Some(actual) = found else {
        return Ok(c.pass_missing_key);
    };
    let target = &c.value;
    let ok = match c.mode {
        Mode::Full => full_equal(&actual, target)
            .map_err(|e| format!("condition on `{}`: {e}", c.path.text))?,
        Mode::Prefix => text(&actual).starts_with(text(target).as_ref()),
        Mode::Suffix => text(&actual).ends_with(text(target).as_ref()),
        Mode::Contains => text(&actual).contains(text(target).as_ref()),
        Mode::Gt | Mode::Gte | Mode::Lt | Mode::Lte => {
            let (Some(a), Some(b)) = (actual.as_f64(), target.as_f64()) else {
                return Err(format!(
                    "condition on `{}`: numeric comparison needs a number",
                    c.path.text
                ));
            };
            match c.mode {
                Mode::Gt => a > b,
                Mode::Gte => a >= b,
                Mode::Lt => a < b,
                _ => a <= b,
            }
        }
    };
    Ok(ok != c.invert)
}

fn full_equal(a: &Value, b: &Value) -> Result<bool, String> {
    Ok(match (a, b) {
        (Value::Null, _) | (_, Value::Null) => a.is_null() && b.is_null(),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(_), Value::Array(_)) | (Value::Object(_), Value::Object(_)) => a == b,
        _ => return Err("compared values have different types".into()),
    })
}

/// A value's text as gjson gives it: strings as they are, null empty, the rest as JSON.
pub(crate) fn text(v: &Value) -> Cow<'_, str> {
    match v {
        Value::String(s) => Cow::Borrowed(s),
        Value::Null => Cow::Borrowed(""),
        Value::Bool(true) => Cow::Borrowed("true"),
        Value::Bool(false) => Cow::Borrowed("false"),
        Value::Number(n) => Cow::Owned(n.to_string()),
        other => Cow::Owned(other.to_string()),
    }
}
