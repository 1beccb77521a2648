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

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value, json};

use super::schema_check;
use crate::ir::SchemaText;
use crate::json_tree::Json;

/// Deeper subschemas become `{}` (the whole input is at most serde_json's nesting limit,
/// but `$ref`s can loop).
pub(super) const MAX_DEPTH: usize = 32;
/// Subschemas visited at most (bounds `$ref` expansion of hostile schemas).
const MAX_NODES: usize = 10_000;

/// Plain keys copied as they are.
pub(super) const KEPT: &[&str] = &[
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

/// A JSON Schema cleaned for Gemini. Its text borrows from the tool's schema text: built on
/// every converted request with tools, so it copies no strings and builds no maps.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Schema<'a>(Vec<(Cow<'a, str>, Node<'a>)>);

/// A member's value in a cleaned schema.
#[derive(Debug, Clone, PartialEq)]
enum Node<'a> {
    /// Copied as it is.
    Json(Json<'a>),
    Str(Cow<'a, str>),
    True,
    Schema(Schema<'a>),
    /// `properties`.
    Properties(Vec<(Cow<'a, str>, Schema<'a>)>),
    /// `anyOf`.
    Schemas(Vec<Schema<'a>>),
    /// `enum`, and `required`.
    Strings(Vec<Cow<'a, str>>),
}

impl<'a> Schema<'a> {
    fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut Node<'a>> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Sets `key`, replacing its value when present.
    fn set(&mut self, key: &'static str, value: Node<'a>) {
        match self.get_mut(key) {
            Some(have) => *have = value,
            None => self.0.push((Cow::Borrowed(key), value)),
        }
    }

    /// Whether the schema has non-empty `properties` or an `anyOf`: what makes it worth
    /// sending as a function's parameters.
    fn takes_arguments(&self) -> bool {
        matches!(self.get("properties"), Some(Node::Properties(p)) if !p.is_empty())
            || self.get("anyOf").is_some()
    }

    /// Adds `from`'s keys missing here; `properties` are merged and `required` joined.
    fn merge_missing(&mut self, from: Schema<'a>) {
        for (k, v) in from.0 {
            match (self.get_mut(&k), v) {
                (Some(Node::Properties(have)), Node::Properties(add)) => {
                    for (name, p) in add {
                        if !have.iter().any(|(n, _)| *n == name) {
                            have.push((name, p));
                        }
                    }
                }
                (Some(Node::Strings(have)), Node::Strings(add)) if k == "required" => {
                    for r in add {
                        if !have.contains(&r) {
                            have.push(r);
                        }
                    }
                }
                (Some(_), _) => {}
                (None, v) => self.0.push((k, v)),
            }
        }
    }
}

impl Serialize for Schema<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Json(v) => v.serialize(s),
            Node::Str(t) => s.serialize_str(t),
            Node::True => s.serialize_bool(true),
            Node::Schema(schema) => schema.serialize(s),
            Node::Properties(props) => {
                let mut map = s.serialize_map(Some(props.len()))?;
                for (name, p) in props {
                    map.serialize_entry(name, p)?;
                }
                map.end()
            }
            Node::Schemas(list) => s.collect_seq(list),
            Node::Strings(list) => s.collect_seq(list),
        }
    }
}

/// A JSON Schema as Gemini's `Schema` (see the module doc for what changes).
pub(super) fn clean<'a>(schema: &Json<'a>) -> Schema<'a> {
    let defs = match schema.get("$defs").or_else(|| schema.get("definitions")) {
        Some(Json::Object(defs)) => Some(defs.as_slice()),
        _ => None,
    };
    let mut cx = Cleaner {
        defs,
        budget: MAX_NODES,
    };
    cx.clean(schema, 0)
}

/// [`clean`] of a `Value` (structured output's schema).
pub(super) fn value_to_gemini(schema: &Value) -> Schema<'static> {
    clean(&Json::from_value(schema))
}

/// [`clean`] as a `Value`.
#[cfg(test)]
pub(super) fn to_gemini(schema: &Value) -> Value {
    serde_json::to_value(value_to_gemini(schema)).unwrap_or(Value::Null)
}

/// A function's parameters as sent to Gemini.
#[derive(Debug)]
pub(super) enum Parameters<'a> {
    /// The client's schema, already one Gemini takes (see `gemini/schema_check.rs`).
    AsGiven(&'a SchemaText),
    Cleaned(Schema<'a>),
}

impl Serialize for Parameters<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Parameters::AsGiven(text) => text.serialize(s),
            Parameters::Cleaned(schema) => schema.serialize(s),
        }
    }
}

/// Tool parameters for a `functionDeclaration`: `None` when the function takes no
/// arguments (Gemini refuses an object schema with empty `properties`).
pub(super) fn parameters_to_gemini(schema: &SchemaText) -> Option<Parameters<'_>> {
    if schema_check::takes_as_is(schema.text()) {
        return Some(Parameters::AsGiven(schema));
    }
    // The text was checked when it was decoded: it parses.
    let tree = Json::parse(schema.text().as_bytes()).ok()?;
    Some(clean(&tree))
        .filter(Schema::takes_arguments)
        .map(Parameters::Cleaned)
}

/// Walks a schema tree `'t` whose text lives for `'a`.
struct Cleaner<'t, 'a> {
    defs: Option<&'t [(Cow<'a, str>, Json<'a>)]>,
    budget: usize,
}

impl<'t, 'a> Cleaner<'t, 'a> {
    fn clean(&mut self, schema: &'t Json<'a>, depth: usize) -> Schema<'a> {
        let mut out = Schema::default();
        let Json::Object(s) = schema else {
            return out;
        };
        if depth > MAX_DEPTH || self.budget == 0 {
            return out;
        }
        self.budget -= 1;
        let m = Members::of(s);
        if let Some(r) = m.reference {
            if let Some(target) = self.lookup(r) {
                out = self.clean(target, depth + 1);
            }
            if let Some(d) = m.description {
                out.set("description", Node::Json(d.clone()));
            }
            if m.nullable {
                out.set("nullable", Node::True);
            }
            return out;
        }

        let mut nullable = m.nullable;
        let mut types: Vec<&'t Cow<'a, str>> = match m.ty {
            Some(Json::Str(t)) => vec![t],
            Some(Json::Array(ts)) => ts
                .iter()
                .filter_map(|t| match t {
                    Json::Str(t) => Some(t),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        if types.iter().any(|t| t.eq_ignore_ascii_case("null")) {
            nullable = true;
            types.retain(|t| !t.eq_ignore_ascii_case("null"));
        }

        let mut any_of = Vec::new();
        for branch in [m.any_of, m.one_of].into_iter().flatten().flatten() {
            if is_null_schema(branch) {
                nullable = true;
            } else {
                any_of.push(self.clean(branch, depth + 1));
            }
        }
        if types.len() > 1 && any_of.is_empty() {
            any_of = types
                .iter()
                .map(|t| Schema(vec![(Cow::Borrowed("type"), Node::Str(lowercase(t)))]))
                .collect();
            types.clear();
        }
        let mut ty: Option<Cow<'a, str>> = types.first().map(|t| lowercase(t));
        if ty.is_none() && any_of.is_empty() {
            if m.properties.is_some() {
                ty = Some(Cow::Borrowed("object"));
            } else if m.items.is_some() {
                ty = Some(Cow::Borrowed("array"));
            }
        }
        if let Some(t) = &ty {
            out.0.push((Cow::Borrowed("type"), Node::Str(t.clone())));
        }

        out.0.extend(
            m.kept
                .iter()
                .map(|(k, v)| ((*k).clone(), Node::Json((*v).clone()))),
        );
        if let Some(Json::Str(f)) = m.format
            && format_allowed(ty.as_deref(), f)
        {
            out.set("format", Node::Str(f.clone()));
        }
        self.enumeration(&m, ty.as_deref(), &mut nullable, &mut out);

        if let Some(Json::Object(props)) = m.properties {
            let cleaned: Vec<(Cow<'a, str>, Schema<'a>)> = props
                .iter()
                .map(|(name, p)| (name.clone(), self.clean(p, depth + 1)))
                .collect();
            let required: Vec<Cow<'a, str>> = match m.required {
                Some(Json::Array(names)) => names
                    .iter()
                    .filter_map(|r| match r {
                        Json::Str(r) if cleaned.iter().any(|(n, _)| n == r) => Some(r.clone()),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            if !required.is_empty() {
                out.set("required", Node::Strings(required));
            }
            out.set("properties", Node::Properties(cleaned));
        }
        match m.items {
            Some(items @ Json::Object(_)) => {
                out.set("items", Node::Schema(self.clean(items, depth + 1)));
            }
            Some(Json::Array(tuple)) => {
                if let Some(first) = tuple.first() {
                    out.set("items", Node::Schema(self.clean(first, depth + 1)));
                }
            }
            _ => {}
        }
        for branch in m.all_of.into_iter().flatten() {
            let b = self.clean(branch, depth + 1);
            out.merge_missing(b);
        }

        match any_of.len() {
            0 => {}
            1 => {
                if let Some(only) = any_of.pop() {
                    out.merge_missing(only);
                }
            }
            _ => out.set("anyOf", Node::Schemas(any_of)),
        }
        if nullable {
            out.set("nullable", Node::True);
        }
        out
    }

    fn lookup(&self, r: &str) -> Option<&'t Json<'a>> {
        let name = r
            .strip_prefix("#/$defs/")
            .or_else(|| r.strip_prefix("#/definitions/"))?;
        self.defs?
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }

    /// `enum` (or `const`) as strings; `null` values make the schema nullable. Gemini takes
    /// `enum` on strings only: on other types the values go into the description.
    fn enumeration(
        &self,
        m: &Members<'t, 'a>,
        ty: Option<&str>,
        nullable: &mut bool,
        out: &mut Schema<'a>,
    ) {
        let values: Vec<&'t Json<'a>> = match (m.enumeration, m.constant) {
            (Some(Json::Array(vs)), _) => vs.iter().collect(),
            (_, Some(c)) => vec![c],
            _ => return,
        };
        let mut strings: Vec<Cow<'a, str>> = Vec::with_capacity(values.len());
        for v in values {
            match v {
                Json::Null => *nullable = true,
                Json::Str(s) => strings.push(s.clone()),
                other => strings.push(Cow::Owned(serde_json::to_string(other).unwrap_or_default())),
            }
        }
        if strings.is_empty() {
            return;
        }
        if matches!(ty, None | Some("string")) {
            out.set("enum", Node::Strings(strings));
            return;
        }
        let note = format!("one of: {}", strings.join(", "));
        let description = match out.get("description") {
            Some(Node::Json(Json::Str(d))) if !d.is_empty() => format!("{d} ({note})"),
            _ => note,
        };
        out.set("description", Node::Str(Cow::Owned(description)));
    }
}

/// The members of one schema object the cleaner reads, found in one pass over its keys (a
/// lookup per key the cleaner knows would cost more than the rest of the cleaning). A
/// repeated key counts once, its last value.
#[derive(Default)]
struct Members<'t, 'a> {
    reference: Option<&'t str>,
    description: Option<&'t Json<'a>>,
    nullable: bool,
    ty: Option<&'t Json<'a>>,
    any_of: Option<&'t [Json<'a>]>,
    one_of: Option<&'t [Json<'a>]>,
    all_of: Option<&'t [Json<'a>]>,
    properties: Option<&'t Json<'a>>,
    required: Option<&'t Json<'a>>,
    items: Option<&'t Json<'a>>,
    format: Option<&'t Json<'a>>,
    enumeration: Option<&'t Json<'a>>,
    constant: Option<&'t Json<'a>>,
    /// The [`KEPT`] members, copied as they are.
    kept: Vec<(&'t Cow<'a, str>, &'t Json<'a>)>,
}

impl<'t, 'a> Members<'t, 'a> {
    fn of(s: &'t [(Cow<'a, str>, Json<'a>)]) -> Self {
        let array = |v: &'t Json<'a>| match v {
            Json::Array(items) => Some(items.as_slice()),
            _ => None,
        };
        let mut m = Members::default();
        for (k, v) in s {
            match &**k {
                "$ref" => m.reference = v.as_str(),
                "nullable" => m.nullable = matches!(v, Json::Bool(true)),
                "type" => m.ty = Some(v),
                "anyOf" => m.any_of = array(v),
                "oneOf" => m.one_of = array(v),
                "allOf" => m.all_of = array(v),
                "properties" => m.properties = Some(v),
                "required" => m.required = Some(v),
                "items" => m.items = Some(v),
                "format" => m.format = Some(v),
                "enum" => m.enumeration = Some(v),
                "const" => m.constant = Some(v),
                key => {
                    if key == "description" {
                        m.description = Some(v);
                    }
                    if KEPT.contains(&key) {
                        match m.kept.iter_mut().find(|(have, _)| *have == k) {
                            Some(slot) => slot.1 = v,
                            None => m.kept.push((k, v)),
                        }
                    }
                }
            }
        }
        m
    }
}

/// A type name lowercased, borrowed when it already is.
fn lowercase<'a>(t: &Cow<'a, str>) -> Cow<'a, str> {
    if t.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(t.to_ascii_lowercase())
    } else {
        t.clone()
    }
}

fn is_null_schema(v: &Json<'_>) -> bool {
    v.get("type")
        .and_then(Json::as_str)
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
