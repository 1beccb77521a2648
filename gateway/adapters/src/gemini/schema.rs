//! Schemas of tool parameters and structured output: the IR's JSON Schema to the OpenAPI
//! subset Gemini's `Schema` accepts, and Gemini schemas back to JSON Schema.
//!
//! Gemini refuses unknown keys (`Invalid JSON payload received. Unknown name …`), so
//! [`to_gemini`] keeps only the keys of its `Schema` object: `type`, `format`,
//! `description`, `nullable`, `enum`, `items`, `properties`, `required`, `anyOf`,
//! `minItems`, `maxItems`, `minProperties`, `maxProperties`, `minLength`, `maxLength`,
//! `pattern`, `minimum`, `maximum`, `example`, `default`, `propertyOrdering`. Everything
//! else is dropped, notably `$schema`, `$id`, `$comment`, `additionalProperties`,
//! `patternProperties`, `propertyNames`, `unevaluatedProperties`, `dependentRequired`,
//! `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `const` (made a one-value
//! `enum`), `examples`, `title`, `readOnly`, `writeOnly`, `deprecated`, `contentEncoding`,
//! `contentMediaType`, `if`/`then`/`else`, `not`, `discriminator`, `strict`. Rewrites:
//! `type: [t, "null"]` → `type: t, nullable: true` (several types → `anyOf`); `oneOf` →
//! `anyOf`, a `{type: null}` branch → `nullable`, a single branch inlined; `allOf` merged;
//! local `$ref`s (`#/$defs/…`, `#/definitions/…`) inlined (bounded); string formats other
//! than `enum`/`date-time`, integer formats other than `int32`/`int64` and number formats
//! other than `float`/`double` dropped; `enum` values made strings, and an `enum` on a
//! non-string type (which Gemini refuses) moved into the description; `required` names
//! without a property dropped.

use serde_json::{Map, Value, json};

/// Deeper subschemas become `{}` (the whole input is at most serde_json's nesting limit,
/// but `$ref`s can loop).
const MAX_DEPTH: usize = 32;
/// Subschemas visited at most (bounds `$ref` expansion of hostile schemas).
const MAX_NODES: usize = 10_000;

/// Plain keys copied as they are.
const KEPT: &[&str] = &[
    "description",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "example",
    "default",
    "propertyOrdering",
];

/// A JSON Schema as Gemini's `Schema` (see the module doc for what changes).
pub(super) fn to_gemini(schema: &Value) -> Value {
    let defs = schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .and_then(Value::as_object);
    let mut cx = Cleaner {
        defs,
        budget: MAX_NODES,
    };
    Value::Object(cx.clean(schema, 0))
}

/// Tool parameters for a `functionDeclaration`: `None` when the function takes no
/// arguments (Gemini refuses an object schema with empty `properties`).
pub(super) fn parameters_to_gemini(schema: &Value) -> Option<Value> {
    let cleaned = to_gemini(schema);
    let has_props = cleaned
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    (has_props || cleaned.get("anyOf").is_some()).then_some(cleaned)
}

struct Cleaner<'a> {
    defs: Option<&'a Map<String, Value>>,
    budget: usize,
}

impl<'a> Cleaner<'a> {
    fn clean(&mut self, schema: &Value, depth: usize) -> Map<String, Value> {
        let mut out = Map::new();
        let Some(s) = schema.as_object() else {
            return out;
        };
        if depth > MAX_DEPTH || self.budget == 0 {
            return out;
        }
        self.budget -= 1;
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            if let Some(target) = self.lookup(r) {
                out = self.clean(target, depth + 1);
            }
            if let Some(d) = s.get("description") {
                out.insert("description".into(), d.clone());
            }
            if s.get("nullable") == Some(&Value::Bool(true)) {
                out.insert("nullable".into(), Value::Bool(true));
            }
            return out;
        }

        let mut nullable = s.get("nullable") == Some(&Value::Bool(true));
        let mut types: Vec<&str> = match s.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if types.iter().any(|t| t.eq_ignore_ascii_case("null")) {
            nullable = true;
            types.retain(|t| !t.eq_ignore_ascii_case("null"));
        }

        let mut any_of = Vec::new();
        for key in ["anyOf", "oneOf"] {
            for branch in s.get(key).and_then(Value::as_array).into_iter().flatten() {
                if is_null_schema(branch) {
                    nullable = true;
                } else {
                    any_of.push(Value::Object(self.clean(branch, depth + 1)));
                }
            }
        }
        if types.len() > 1 && any_of.is_empty() {
            any_of = types.iter().map(|t| json!({"type": t})).collect();
            types.clear();
        }
        let mut ty = types.first().map(|t| t.to_ascii_lowercase());
        if ty.is_none() && any_of.is_empty() {
            if s.contains_key("properties") {
                ty = Some("object".into());
            } else if s.contains_key("items") {
                ty = Some("array".into());
            }
        }
        if let Some(t) = &ty {
            out.insert("type".into(), json!(t));
        }

        for key in KEPT {
            if let Some(v) = s.get(*key) {
                out.insert((*key).into(), v.clone());
            }
        }
        if let Some(f) = s.get("format").and_then(Value::as_str)
            && format_allowed(ty.as_deref(), f)
        {
            out.insert("format".into(), json!(f));
        }
        self.enumeration(s, ty.as_deref(), &mut nullable, &mut out);

        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            let mut cleaned = Map::new();
            for (name, p) in props {
                cleaned.insert(name.clone(), Value::Object(self.clean(p, depth + 1)));
            }
            let required: Vec<&Value> = s
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|r| r.as_str().is_some_and(|r| cleaned.contains_key(r)))
                .collect();
            if !required.is_empty() {
                out.insert("required".into(), json!(required));
            }
            out.insert("properties".into(), Value::Object(cleaned));
        }
        match s.get("items") {
            Some(items @ Value::Object(_)) => {
                out.insert("items".into(), Value::Object(self.clean(items, depth + 1)));
            }
            Some(Value::Array(tuple)) => {
                if let Some(first) = tuple.first() {
                    out.insert("items".into(), Value::Object(self.clean(first, depth + 1)));
                }
            }
            _ => {}
        }
        for branch in s
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let b = self.clean(branch, depth + 1);
            merge_missing(&mut out, b);
        }

        match any_of.len() {
            0 => {}
            1 => {
                if let Some(Value::Object(only)) = any_of.pop() {
                    merge_missing(&mut out, only);
                }
            }
            _ => {
                out.insert("anyOf".into(), Value::Array(any_of));
            }
        }
        if nullable {
            out.insert("nullable".into(), Value::Bool(true));
        }
        out
    }

    fn lookup(&self, r: &str) -> Option<&'a Value> {
        let name = r
            .strip_prefix("#/$defs/")
            .or_else(|| r.strip_prefix("#/definitions/"))?;
        self.defs?.get(name)
    }

    /// `enum` (or `const`) as strings; `null` values make the schema nullable. Gemini takes
    /// `enum` on strings only: on other types the values go into the description.
    fn enumeration(
        &self,
        s: &Map<String, Value>,
        ty: Option<&str>,
        nullable: &mut bool,
        out: &mut Map<String, Value>,
    ) {
        let values: Vec<&Value> = match (s.get("enum"), s.get("const")) {
            (Some(Value::Array(vs)), _) => vs.iter().collect(),
            (_, Some(c)) => vec![c],
            _ => return,
        };
        let mut strings = Vec::with_capacity(values.len());
        for v in values {
            match v {
                Value::Null => *nullable = true,
                Value::String(s) => strings.push(s.clone()),
                other => strings.push(other.to_string()),
            }
        }
        if strings.is_empty() {
            return;
        }
        if matches!(ty, None | Some("string")) {
            out.insert("enum".into(), json!(strings));
            return;
        }
        let note = format!("one of: {}", strings.join(", "));
        let description = match out.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d} ({note})"),
            _ => note,
        };
        out.insert("description".into(), json!(description));
    }
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.eq_ignore_ascii_case("null"))
}

fn format_allowed(ty: Option<&str>, format: &str) -> bool {
    match ty {
        Some("string") => matches!(format, "enum" | "date-time"),
        Some("integer") => matches!(format, "int32" | "int64"),
        Some("number") => matches!(format, "float" | "double"),
        _ => false,
    }
}

/// Adds `from`'s keys missing in `into`; `properties` are merged and `required` joined.
fn merge_missing(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (k, v) in from {
        match (k.as_str(), into.get_mut(&k), v) {
            ("properties", Some(Value::Object(have)), Value::Object(add)) => {
                for (name, p) in add {
                    have.entry(name).or_insert(p);
                }
            }
            ("required", Some(Value::Array(have)), Value::Array(add)) => {
                for r in add {
                    if !have.contains(&r) {
                        have.push(r);
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// Gemini's `Schema` (OpenAPI subset) as JSON Schema for the IR: `type` lowercased
/// (`STRING` → `string`), `nullable: true` → a `[t, "null"]` type, `format: enum` and
/// `propertyOrdering` dropped, int64 counts given as strings (`"minItems": "1"`) made numbers.
pub(super) fn from_gemini(schema: &Value) -> Value {
    from_gemini_at(schema, 0)
}

fn from_gemini_at(schema: &Value, depth: usize) -> Value {
    let Some(s) = schema.as_object() else {
        return schema.clone();
    };
    if depth > MAX_DEPTH {
        return schema.clone();
    }
    let nullable = s.get("nullable") == Some(&Value::Bool(true));
    let mut out = Map::new();
    for (k, v) in s {
        let v = match k.as_str() {
            "nullable" | "propertyOrdering" => continue,
            "format" if v.as_str() == Some("enum") => continue,
            "type" => match v.as_str().map(str::to_ascii_lowercase) {
                Some(t) if t == "type_unspecified" => continue,
                Some(t) if nullable => json!([t, "null"]),
                Some(t) => json!(t),
                None => v.clone(),
            },
            "properties" => match v.as_object() {
                Some(props) => Value::Object(
                    props
                        .iter()
                        .map(|(n, p)| (n.clone(), from_gemini_at(p, depth + 1)))
                        .collect(),
                ),
                None => v.clone(),
            },
            "items" => from_gemini_at(v, depth + 1),
            "anyOf" => match v.as_array() {
                Some(bs) => bs.iter().map(|b| from_gemini_at(b, depth + 1)).collect(),
                None => v.clone(),
            },
            "minItems" | "maxItems" | "minProperties" | "maxProperties" | "minLength"
            | "maxLength" => match v.as_str().and_then(|n| n.parse::<i64>().ok()) {
                Some(n) => json!(n),
                None => v.clone(),
            },
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    Value::Object(out)
}
