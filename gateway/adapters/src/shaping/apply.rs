//! Applying a parsed [`ParamOverride`] to one attempt's body: the deep merge, then each
//! operation whose conditions hold, in order. Body edits happen in place; header operations
//! only record [`HeaderEdits`], resolved later with the channel's header override.
//!
//! Cost: one pass over the operations; each reads or writes along its path (wildcards and
//! `prune_objects` walk the matched part of the body). Nothing is re-serialised.

use serde_json::{Map, Value};

use super::ShapingError;
use super::conditions::{self, Scope};
use super::context::OverrideContext;
use super::header_ops::{
    HeaderSet, copy_header, header_value, read_sync, rewrite_tokens, write_sync,
};
use super::headers::{HeaderEdits, HeaderEntry};
use super::param_override::{OpKind, Operation, OverrideReturnError, ParamOverride, PruneRule};
use super::path::{self, Path, Step};

/// Deepest nesting `prune_objects` walks.
const MAX_PRUNE_DEPTH: usize = 128;

enum OpError {
    Failed(String),
    Return(OverrideReturnError),
}

impl From<String> for OpError {
    fn from(s: String) -> Self {
        OpError::Failed(s)
    }
}

impl ParamOverride {
    /// Applies the rules to `body`. Returns the header edits made by header operations (give
    /// them to [`super::resolve_headers`]); fails with `param_override_failed` when a rule
    /// cannot apply (a missing `move` source, a string operation on a non-string, a type
    /// mismatch in a condition, ...) or with `override_return_error` for `return_error`.
    pub fn apply(
        &self,
        body: &mut Value,
        ctx: &OverrideContext<'_>,
    ) -> Result<HeaderEdits, ShapingError> {
        if !self.merge.is_empty() {
            let Value::Object(target) = body else {
                return Err(ShapingError::ParamOverrideFailed(
                    "the body is not a JSON object".into(),
                ));
            };
            deep_merge(target, &self.merge);
        }
        let mut edits = HeaderEdits::default();
        for (i, op) in self.ops.iter().enumerate() {
            let fail = |e: String| ShapingError::ParamOverrideFailed(format!("operation {i}: {e}"));
            let scope = Scope { ctx, edits: &edits };
            if !conditions::check(&op.conditions, op.logic, body, &scope).map_err(fail)? {
                continue;
            }
            match apply_op(op, body, ctx, &mut edits) {
                Ok(()) => {}
                Err(OpError::Failed(e)) => return Err(fail(e)),
                Err(OpError::Return(e)) => return Err(ShapingError::ReturnError(e)),
            }
        }
        Ok(edits)
    }
}

/// Objects merge member by member, recursively; any other value replaces.
pub(crate) fn deep_merge(target: &mut Map<String, Value>, patch: &Map<String, Value>) {
    for (k, v) in patch {
        match (target.get_mut(k), v) {
            (Some(Value::Object(t)), Value::Object(p)) => deep_merge(t, p),
            _ => {
                target.insert(k.clone(), v.clone());
            }
        }
    }
}

fn apply_op(
    op: &Operation,
    body: &mut Value,
    ctx: &OverrideContext<'_>,
    edits: &mut HeaderEdits,
) -> Result<(), OpError> {
    let keep = op.keep_origin;
    match &op.kind {
        OpKind::Set { path, value } => each(body, path, |body, steps| {
            if keep && path::get_steps(body, steps).is_some() {
                return Ok(());
            }
            path::set_steps(body, steps, value.clone())
        })?,
        OpKind::Delete { path } => each(body, path, |body, steps| {
            path::delete_steps(body, steps);
            Ok(())
        })?,
        OpKind::Move { from, to } | OpKind::Copy { from, to } => {
            let from_steps = from.resolve(body);
            let value = path::get_steps(body, &from_steps)
                .cloned()
                .ok_or_else(|| format!("source path `{}` does not exist", from.text))?;
            let to_steps = to.resolve(body);
            path::set_steps(body, &to_steps, value)?;
            if matches!(op.kind, OpKind::Move { .. }) {
                path::delete_steps(body, &from_steps);
            }
        }
        OpKind::Prepend { path, value } => each(body, path, |b, s| affix(b, s, value, keep, true))?,
        OpKind::Append { path, value } => each(body, path, |b, s| affix(b, s, value, keep, false))?,
        OpKind::TrimPrefix { path, text } => string_op(body, path, |s| {
            s.strip_prefix(text.as_str()).map(str::to_owned)
        })?,
        OpKind::TrimSuffix { path, text } => string_op(body, path, |s| {
            s.strip_suffix(text.as_str()).map(str::to_owned)
        })?,
        OpKind::EnsurePrefix { path, text } => string_op(body, path, |s| {
            (!s.starts_with(text.as_str())).then(|| format!("{text}{s}"))
        })?,
        OpKind::EnsureSuffix { path, text } => string_op(body, path, |s| {
            (!s.ends_with(text.as_str())).then(|| format!("{s}{text}"))
        })?,
        OpKind::TrimSpace { path } => string_op(body, path, |s| Some(s.trim().to_owned()))?,
        OpKind::ToLower { path } => string_op(body, path, |s| Some(s.to_lowercase()))?,
        OpKind::ToUpper { path } => string_op(body, path, |s| Some(s.to_uppercase()))?,
        OpKind::Replace { path, from, to } => {
            string_op(body, path, |s| Some(s.replace(from.as_str(), to)))?
        }
        OpKind::RegexReplace { path, re, to } => string_op(body, path, |s| {
            Some(re.replace_all(s, to.as_str()).into_owned())
        })?,
        OpKind::ReturnError(e) => return Err(OpError::Return(e.clone())),
        OpKind::PruneObjects { path, rule } => {
            let targets = if path.is_root() {
                vec![Vec::new()]
            } else {
                path.expand(body)?
            };
            for steps in targets {
                let Some(node) = path::get_steps_mut(body, &steps) else {
                    continue;
                };
                // The conditions read the node under test; the scope only supplies context.
                let scope = Scope { ctx, edits };
                prune(node, rule, &scope, true, 0)?;
            }
        }
        OpKind::SetHeader { name, value } => {
            if keep && edits.override_entry(name, ctx.header_override).is_some() {
                return Ok(());
            }
            match value {
                HeaderSet::Fixed(t) => edits.set(name, HeaderEntry::Template(t.clone())),
                HeaderSet::Clear => edits.remove(name),
                HeaderSet::Tokens(tm) => {
                    let current = header_value(name, ctx, edits).map(|e| e.text().to_owned());
                    match rewrite_tokens(current.as_deref().unwrap_or(""), tm) {
                        Some(v) => edits.set(name, HeaderEntry::Literal(v)),
                        None => edits.remove(name),
                    }
                }
            }
        }
        OpKind::DeleteHeader { name } => edits.remove(name),
        OpKind::CopyHeader { from, to } => {
            copy_header(from, to, keep, ctx, edits);
        }
        OpKind::MoveHeader { from, to } => {
            if copy_header(from, to, keep, ctx, edits) && from != to {
                edits.remove(from);
            }
        }
        OpKind::PassHeaders { names } => {
            for name in names {
                copy_header(name, name, keep, ctx, edits);
            }
        }
        OpKind::SyncFields { from, to } => {
            let a = read_sync(body, from, ctx, edits);
            let b = read_sync(body, to, ctx, edits);
            match (a, b) {
                (Some(v), None) => write_sync(body, to, v, edits)?,
                (None, Some(v)) => write_sync(body, from, v, edits)?,
                _ => {}
            }
        }
    }
    Ok(())
}

/// Runs `f` on every concrete path `path` names in `body`.
fn each(
    body: &mut Value,
    path: &Path,
    mut f: impl FnMut(&mut Value, &[Step]) -> Result<(), String>,
) -> Result<(), String> {
    for steps in path.expand(body)? {
        f(body, &steps)?;
    }
    Ok(())
}

pub(crate) fn type_name(v: Option<&Value>) -> &'static str {
    match v {
        None | Some(Value::Null) => "a missing or null value",
        Some(Value::Bool(_)) => "a boolean",
        Some(Value::Number(_)) => "a number",
        Some(Value::String(_)) => "a string",
        Some(Value::Array(_)) => "an array",
        Some(Value::Object(_)) => "an object",
    }
}

/// A string operation on every target: `f` gives the new text, `None` for no change.
fn string_op(
    body: &mut Value,
    path: &Path,
    f: impl Fn(&str) -> Option<String>,
) -> Result<(), String> {
    each(body, path, |body, steps| {
        match path::get_steps_mut(body, steps) {
            Some(Value::String(s)) => {
                if let Some(new) = f(s) {
                    *s = new;
                }
                Ok(())
            }
            other => Err(format!(
                "`{}` is {}, not a string",
                path.text,
                type_name(other.map(|v| &*v))
            )),
        }
    })
}

fn affix(
    body: &mut Value,
    steps: &[Step],
    value: &Value,
    keep_origin: bool,
    before: bool,
) -> Result<(), String> {
    match path::get_steps_mut(body, steps) {
        Some(Value::Array(items)) => {
            let added: Vec<Value> = match value {
                Value::Array(v) => v.clone(),
                other => vec![other.clone()],
            };
            if before {
                items.splice(0..0, added);
            } else {
                items.extend(added);
            }
            Ok(())
        }
        Some(Value::String(s)) => {
            let t = conditions::text(value);
            *s = if before {
                format!("{t}{s}")
            } else {
                format!("{s}{t}")
            };
            Ok(())
        }
        Some(Value::Object(m)) => {
            let Value::Object(add) = value else {
                return Err("merging into an object needs an object value".into());
            };
            for (k, v) in add {
                if !keep_origin || m.get(k).is_none_or(Value::is_null) {
                    m.insert(k.clone(), v.clone());
                }
            }
            Ok(())
        }
        other => Err(format!(
            "cannot prepend or append to {}",
            type_name(other.map(|v| &*v))
        )),
    }
}

/// Prunes matching objects under `node`; whether `node` itself is to be dropped.
fn prune(
    node: &mut Value,
    rule: &PruneRule,
    scope: &Scope<'_>,
    is_root: bool,
    depth: usize,
) -> Result<bool, String> {
    if depth > MAX_PRUNE_DEPTH {
        return Err(format!(
            "prune_objects: body nested deeper than {MAX_PRUNE_DEPTH}"
        ));
    }
    match node {
        Value::Array(items) => {
            let mut kept = Vec::with_capacity(items.len());
            for mut item in std::mem::take(items) {
                if !prune(&mut item, rule, scope, false, depth + 1)? {
                    kept.push(item);
                }
            }
            *items = kept;
            Ok(false)
        }
        Value::Object(_) => {
            if conditions::check(&rule.conditions, rule.logic, node, scope)? && !is_root {
                return Ok(true);
            }
            if !rule.recursive {
                return Ok(false);
            }
            if let Value::Object(m) = node {
                let mut dropped = Vec::new();
                for (k, child) in m.iter_mut() {
                    if prune(child, rule, scope, false, depth + 1)? {
                        dropped.push(k.clone());
                    }
                }
                for k in dropped {
                    m.remove(&k);
                }
            }
            Ok(false)
        }
        _ => Ok(false),
    }
}
