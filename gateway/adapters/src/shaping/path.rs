//! Dotted JSON paths for param override (the gjson subset new-api's rules use), parsed once
//! when the channel's rules are loaded, and reading, writing and deleting through them on a
//! `serde_json::Value`.
//!
//! Syntax: segments separated by `.`, `\` escapes the next character (`a\.b` is one key).
//! A segment that is an integer indexes an array (negative counts from the end: `-1` is the
//! last element) and is a plain key on an object. `*` (whole segment) matches every member
//! (path-based operations only); `#` as the last segment reads an array's length. The empty
//! path is the whole body.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// Most segments in one path.
pub(crate) const MAX_DEPTH: usize = 32;
/// Longest path text.
pub(crate) const MAX_PATH_LEN: usize = 1024;
/// Most concrete paths one wildcard path may expand to in one body.
pub(crate) const MAX_EXPANDED: usize = 10_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    /// A key, and its value as an array index when it is an integer.
    Name { key: String, index: Option<i64> },
    /// `*`: every member of an object or array.
    Wild,
    /// `#` (last): the length of an array.
    Count,
}

/// One parsed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Path {
    pub(crate) text: String,
    pub(crate) segs: Vec<Seg>,
}

/// A step of a concrete (wildcard-free, resolved) path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

impl Path {
    /// Parses `text`; the message says why it is not a path.
    pub(crate) fn parse(text: &str) -> Result<Path, String> {
        if text.len() > MAX_PATH_LEN {
            return Err(format!("path longer than {MAX_PATH_LEN} bytes"));
        }
        let mut segs = Vec::new();
        if text.is_empty() {
            return Ok(Path {
                text: String::new(),
                segs,
            });
        }
        let mut cur = String::new();
        let mut escaped_any = false;
        let mut chars = text.chars();
        let push = |cur: &mut String, escaped: bool, segs: &mut Vec<Seg>| {
            let key = std::mem::take(cur);
            if key.is_empty() {
                return Err(format!("path `{text}` has an empty segment"));
            }
            let seg = match (key.as_str(), escaped) {
                ("*", false) => Seg::Wild,
                ("#", false) => Seg::Count,
                _ => Seg::Name {
                    index: key.parse::<i64>().ok(),
                    key,
                },
            };
            segs.push(seg);
            Ok(())
        };
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    escaped_any = true;
                    match chars.next() {
                        Some(n) => cur.push(n),
                        None => return Err(format!("path `{text}` ends with `\\`")),
                    }
                }
                '.' => {
                    push(&mut cur, escaped_any, &mut segs)?;
                    escaped_any = false;
                }
                _ => cur.push(c),
            }
        }
        push(&mut cur, escaped_any, &mut segs)?;
        if segs.len() > MAX_DEPTH {
            return Err(format!("path `{text}` deeper than {MAX_DEPTH} segments"));
        }
        if let Some(i) = segs.iter().position(|s| *s == Seg::Count)
            && i + 1 != segs.len()
        {
            return Err(format!(
                "path `{text}`: `#` is only supported as the last segment"
            ));
        }
        Ok(Path {
            text: text.to_owned(),
            segs,
        })
    }

    pub(crate) fn has_wildcard(&self) -> bool {
        self.segs.contains(&Seg::Wild)
    }

    pub(crate) fn has_count(&self) -> bool {
        self.segs.last() == Some(&Seg::Count)
    }

    pub(crate) fn is_root(&self) -> bool {
        self.segs.is_empty()
    }

    /// The concrete paths this path names in `root`. Without a wildcard: the path itself
    /// (resolved as far as it exists, so a missing tail can still be written). With one: every
    /// match, a missing key allowed only as the last segment (new-api's expansion); none when
    /// nothing matches.
    pub(crate) fn expand(&self, root: &Value) -> Result<Vec<Vec<Step>>, String> {
        if !self.has_wildcard() {
            return Ok(vec![self.resolve(root)]);
        }
        let mut out = Vec::new();
        let mut prefix = Vec::new();
        collect(root, &self.segs, &mut prefix, &mut out)?;
        Ok(out)
    }

    /// Resolves names to steps: integers index the arrays they meet (negative from the end
    /// when in range); anything else is a key. `-1` on an empty array stays an append.
    pub(crate) fn resolve(&self, root: &Value) -> Vec<Step> {
        let mut steps = Vec::with_capacity(self.segs.len());
        let mut node = Some(root);
        for seg in &self.segs {
            let (key, index) = match seg {
                Seg::Name { key, index } => (key.as_str(), *index),
                // Not reachable for paths that went through `expand`'s wildcard branch or the
                // write-mode checks; a literal key keeps this total.
                Seg::Wild => ("*", None),
                Seg::Count => ("#", None),
            };
            let step = match (node, index) {
                (Some(Value::Array(a)), Some(i)) => match array_index(a.len(), i) {
                    Some(u) => Step::Index(u),
                    None if i == -1 || i == a.len() as i64 => Step::Index(a.len()),
                    None => Step::Key(key.to_owned()),
                },
                _ => Step::Key(key.to_owned()),
            };
            node = node.and_then(|n| step_get(n, &step));
            steps.push(step);
        }
        steps
    }
}

fn array_index(len: usize, i: i64) -> Option<usize> {
    if i >= 0 {
        let u = usize::try_from(i).ok()?;
        (u < len).then_some(u)
    } else {
        let back = usize::try_from(i.unsigned_abs()).ok()?;
        len.checked_sub(back)
    }
}

fn collect(
    node: &Value,
    segs: &[Seg],
    prefix: &mut Vec<Step>,
    out: &mut Vec<Vec<Step>>,
) -> Result<(), String> {
    let Some((seg, rest)) = segs.split_first() else {
        if out.len() >= MAX_EXPANDED {
            return Err(format!("wildcard matches more than {MAX_EXPANDED} values"));
        }
        out.push(prefix.clone());
        return Ok(());
    };
    match (seg, node) {
        (Seg::Wild, Value::Object(m)) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            for k in keys {
                if let Some(child) = m.get(k) {
                    prefix.push(Step::Key(k.clone()));
                    collect(child, rest, prefix, out)?;
                    prefix.pop();
                }
            }
        }
        (Seg::Wild, Value::Array(a)) => {
            for (i, child) in a.iter().enumerate() {
                prefix.push(Step::Index(i));
                collect(child, rest, prefix, out)?;
                prefix.pop();
            }
        }
        (Seg::Name { key, .. }, Value::Object(m)) => {
            prefix.push(Step::Key(key.clone()));
            match m.get(key) {
                Some(child) => collect(child, rest, prefix, out)?,
                None if rest.is_empty() => collect(&Value::Null, rest, prefix, out)?,
                None => {}
            }
            prefix.pop();
        }
        (Seg::Name { index: Some(i), .. }, Value::Array(a)) => {
            if let Some(u) = array_index(a.len(), *i)
                && let Some(child) = a.get(u)
            {
                prefix.push(Step::Index(u));
                collect(child, rest, prefix, out)?;
                prefix.pop();
            }
        }
        _ => {}
    }
    Ok(())
}

fn step_get<'v>(node: &'v Value, step: &Step) -> Option<&'v Value> {
    match (node, step) {
        (Value::Object(m), Step::Key(k)) => m.get(k),
        (Value::Object(m), Step::Index(i)) => m.get(&i.to_string()),
        (Value::Array(a), Step::Index(i)) => a.get(*i),
        _ => None,
    }
}

/// Reads `path` (wildcards unsupported: the caller refuses them at parse time; `#` gives an
/// array's length).
pub(crate) fn get<'v>(root: &'v Value, path: &Path) -> Option<Cow<'v, Value>> {
    let mut node = root;
    for seg in &path.segs {
        node = match (seg, node) {
            (Seg::Count, Value::Array(a)) => return Some(Cow::Owned(Value::from(a.len()))),
            (Seg::Name { key, .. }, Value::Object(m)) => m.get(key)?,
            (Seg::Name { index: Some(i), .. }, Value::Array(a)) => {
                a.get(array_index(a.len(), *i)?)?
            }
            _ => return None,
        };
    }
    Some(Cow::Borrowed(node))
}

/// Reads a concrete path.
pub(crate) fn get_steps<'v>(root: &'v Value, steps: &[Step]) -> Option<&'v Value> {
    steps.iter().try_fold(root, step_get)
}

/// A mutable reference to a concrete path's value.
pub(crate) fn get_steps_mut<'v>(root: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    let mut node = root;
    for step in steps {
        node = match (node, step) {
            (Value::Object(m), Step::Key(k)) => m.get_mut(k)?,
            (Value::Object(m), Step::Index(i)) => m.get_mut(&i.to_string())?,
            (Value::Array(a), Step::Index(i)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(node)
}

/// Writes `value` at a concrete path, creating missing objects on the way; an index equal to
/// an array's length appends. Fails through a scalar or past an array's end.
pub(crate) fn set_steps(root: &mut Value, steps: &[Step], value: Value) -> Result<(), String> {
    let Some((last, parents)) = steps.split_last() else {
        *root = value;
        return Ok(());
    };
    let mut node = root;
    for step in parents {
        node = child_or_insert(node, step)?;
    }
    match (node, last) {
        (Value::Object(m), Step::Key(k)) => {
            m.insert(k.clone(), value);
        }
        (Value::Object(m), Step::Index(i)) => {
            m.insert(i.to_string(), value);
        }
        (Value::Array(a), Step::Index(i)) if *i < a.len() => {
            if let Some(slot) = a.get_mut(*i) {
                *slot = value;
            }
        }
        (Value::Array(a), Step::Index(i)) if *i == a.len() => a.push(value),
        (n @ Value::Null, Step::Key(k)) => {
            let mut m = Map::new();
            m.insert(k.clone(), value);
            *n = Value::Object(m);
        }
        _ => return Err(
            "cannot set a value there: the parent is not an object or the index is out of range"
                .into(),
        ),
    }
    Ok(())
}

fn child_or_insert<'v>(node: &'v mut Value, step: &Step) -> Result<&'v mut Value, String> {
    if node.is_null() {
        *node = Value::Object(Map::new());
    }
    match (node, step) {
        (Value::Object(m), Step::Key(k)) => Ok(m
            .entry(k.clone())
            .or_insert_with(|| Value::Object(Map::new()))),
        (Value::Object(m), Step::Index(i)) => Ok(m
            .entry(i.to_string())
            .or_insert_with(|| Value::Object(Map::new()))),
        (Value::Array(a), Step::Index(i)) => {
            if *i == a.len() {
                a.push(Value::Object(Map::new()));
            }
            a.get_mut(*i)
                .ok_or_else(|| "array index out of range".to_owned())
        }
        _ => Err("cannot set a value through a non-object".into()),
    }
}

/// Removes and returns a concrete path's value (`None` when missing).
pub(crate) fn delete_steps(root: &mut Value, steps: &[Step]) -> Option<Value> {
    let (last, parents) = steps.split_last()?;
    match (get_steps_mut(root, parents)?, last) {
        (Value::Object(m), Step::Key(k)) => m.remove(k),
        (Value::Object(m), Step::Index(i)) => m.remove(&i.to_string()),
        (Value::Array(a), Step::Index(i)) if *i < a.len() => Some(a.remove(*i)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    fn p(s: &str) -> Path {
        Path::parse(s).unwrap()
    }

    #[test]
    fn parses_escapes_indexes_and_refuses_bad_paths() {
        assert_eq!(p(r"a\.b.c").segs.len(), 2);
        assert_eq!(
            p("messages.-1").segs[1],
            Seg::Name {
                key: "-1".into(),
                index: Some(-1)
            }
        );
        assert!(Path::parse("a..b").is_err());
        assert!(Path::parse("a.#.b").is_err());
        assert!(Path::parse("a.".repeat(40).trim_end_matches('.')).is_err());
        assert!(p("").is_root());
    }

    #[test]
    fn reads_negative_indexes_and_lengths() {
        let v = json!({"m": [{"r": "a"}, {"r": "b"}], "a.b": 1});
        assert_eq!(*get(&v, &p("m.-1.r")).unwrap(), json!("b"));
        assert_eq!(*get(&v, &p("m.#")).unwrap(), json!(2));
        assert_eq!(*get(&v, &p(r"a\.b")).unwrap(), json!(1));
        assert!(get(&v, &p("m.5")).is_none());
    }

    #[test]
    fn sets_create_objects_and_append() {
        let mut v = json!({"m": []});
        let steps = p("x.y").resolve(&v);
        set_steps(&mut v, &steps, json!(1)).unwrap();
        let steps = p("m.-1").resolve(&v);
        set_steps(&mut v, &steps, json!("a")).unwrap();
        let steps = p("m.1").resolve(&v);
        set_steps(&mut v, &steps, json!("b")).unwrap();
        assert_eq!(v, json!({"x": {"y": 1}, "m": ["a", "b"]}));
        let steps = p("m.9").resolve(&v);
        assert!(set_steps(&mut v, &steps, json!(1)).is_err());
    }

    #[test]
    fn wildcards_expand_in_order() {
        let v = json!({"m": [{"c": 1}, {"d": 2}]});
        let got = p("m.*.c").expand(&v).unwrap();
        assert_eq!(
            got,
            vec![
                vec![Step::Key("m".into()), Step::Index(0), Step::Key("c".into())],
                vec![Step::Key("m".into()), Step::Index(1), Step::Key("c".into())]
            ]
        );
    }
}
