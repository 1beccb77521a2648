//! Schema cleaning for Gemini and normalisation back to JSON Schema.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::super::schema::{from_gemini, parameters_to_gemini, to_gemini};
use super::super::schema_check::takes_as_is;
use crate::ir::SchemaText;

#[test]
fn json_schema_is_cleaned_for_gemini() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Args",
        "type": "object",
        "additionalProperties": false,
        "$defs": {
            "Unit": {"type": "string", "enum": ["c", "f"], "title": "Unit"},
            "Point": {"type": "object", "properties": {"x": {"type": "number", "format": "double"}},
                      "required": ["x"], "additionalProperties": false}
        },
        "properties": {
            "unit": {"$ref": "#/$defs/Unit", "description": "Temperature unit"},
            "at": {"$ref": "#/$defs/Point"},
            "note": {"type": ["string", "null"], "format": "email", "maxLength": 80},
            "when": {"type": "string", "format": "date-time"},
            "count": {"anyOf": [{"type": "integer", "format": "uint8"}, {"type": "null"}],
                      "default": null},
            "mode": {"const": "fast"},
            "level": {"type": "integer", "enum": [1, 2, 3], "description": "Level"},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true,
                     "minItems": 1},
            "merged": {"allOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]},
                                 {"properties": {"b": {"type": "string"}}, "required": ["b"]}]},
            "multi": {"type": ["string", "integer"]},
            "score": {"type": "number", "exclusiveMinimum": 0, "minimum": 0}
        },
        "required": ["unit", "missing"]
    });
    assert_eq!(
        to_gemini(&schema),
        json!({
            "type": "object",
            "properties": {
                "unit": {"type": "string", "enum": ["c", "f"], "description": "Temperature unit"},
                "at": {"type": "object", "properties": {"x": {"type": "number", "format": "double"}},
                       "required": ["x"]},
                "note": {"type": "string", "maxLength": 80, "nullable": true},
                "when": {"type": "string", "format": "date-time"},
                "count": {"type": "integer", "default": null, "nullable": true},
                "mode": {"enum": ["fast"]},
                "level": {"type": "integer", "description": "Level (one of: 1, 2, 3)"},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "merged": {"type": "object",
                           "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                           "required": ["a", "b"]},
                "multi": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "score": {"type": "number", "minimum": 0}
            },
            "required": ["unit"]
        })
    );
}

#[test]
fn recursive_refs_terminate() {
    let schema = json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            "next": {"$ref": "#/definitions/Missing"}
        }}}
    });
    let out = to_gemini(&schema);
    assert_eq!(out["properties"]["root"]["type"], "object");
    assert_eq!(out["properties"]["root"]["properties"]["next"], json!({}));
    // A fan-out of references is cut by the node budget instead of exploding.
    let mut defs = serde_json::Map::new();
    for i in 0..20 {
        let next = format!("#/$defs/D{}", i + 1);
        let props: serde_json::Map<String, serde_json::Value> = (0..10)
            .map(|k| (format!("p{k}"), json!({"$ref": next})))
            .collect();
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": props}),
        );
    }
    let wide = json!({"$ref": "#/$defs/D0", "$defs": defs});
    let out = to_gemini(&wide).to_string();
    assert!(out.len() < 2_000_000, "{}", out.len());
}

/// Cleaned tool parameters, as a `Value`.
fn params(schema: serde_json::Value) -> Option<serde_json::Value> {
    let text = SchemaText::from(schema);
    parameters_to_gemini(&text).map(|s| serde_json::to_value(s).unwrap())
}

#[test]
fn parameterless_functions_have_no_parameters() {
    assert_eq!(params(json!({"type": "object", "properties": {}})), None);
    assert_eq!(params(json!({})), None);
    assert_eq!(params(json!(true)), None);
    assert_eq!(
        params(json!({"properties": {"a": {"type": "string"}}})),
        Some(json!({"type": "object", "properties": {"a": {"type": "string"}}}))
    );
}

#[test]
fn gemini_schema_normalises_to_json_schema() {
    let s = json!({
        "type": "OBJECT",
        "properties": {
            "a": {"type": "STRING", "format": "enum", "enum": ["x"], "nullable": true},
            "b": {"type": "ARRAY", "items": {"type": "NUMBER"}, "minItems": "2"},
            "c": {"anyOf": [{"type": "INTEGER"}, {"type": "BOOLEAN"}]}
        },
        "propertyOrdering": ["a", "b", "c"],
        "required": ["a"]
    });
    assert_eq!(
        from_gemini(&s),
        json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"], "enum": ["x"]},
                "b": {"type": "array", "items": {"type": "number"}, "minItems": 2},
                "c": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}
            },
            "required": ["a"]
        })
    );
}

#[test]
fn schemas_sent_as_given_are_exactly_those_cleaning_leaves_alone() {
    let clean = [
        r#"{"type":"object","properties":{"city":{"type":"string","description":"City"}},"required":["city"]}"#,
        r#"{"type": "object", "properties": {"unit": {"type": "string", "enum": ["c", "f"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "at": {"type": "object", "properties": {"x": {"type": "number"}}, "nullable": true}}}"#,
    ];
    let unclean = [
        // Keys the cleaner drops or rewrites, and shapes it changes.
        r#"{"type":"object","properties":{"a":{"type":"string","format":"email"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}"#,
        r#"{"type":"object","properties":{"a":{"type":["string","null"]}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"STRING"}}}"#,
        r#"{"type":"object","properties":{"a":{"enum":["x"]}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"integer","enum":[1,2]}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string","enum":[]}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string","enum":["x",null]}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}"#,
        r#"{"type":"object","required":["a"]}"#,
        r##"{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}"##,
        r#"{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string","nullable":false}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"integer"}}}"#,
        r#"{"type":"object","type":"object","properties":{"a":{"type":"string"}}}"#,
        r#"{"type":"object","properties":{"a\u0041":{"type":"string"}}}"#,
        r#"{"properties":{"a":{"type":"string"}}}"#,
        r#"{"type":"object","properties":{"a":true}}"#,
        // No arguments: Gemini takes no parameters at all.
        r#"{"type":"object","properties":{}}"#,
        r#"{"type":"object"}"#,
        "null",
    ];
    for text in clean {
        assert!(takes_as_is(text), "{text}");
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        // What would have been sent after cleaning is the client's schema.
        assert_eq!(to_gemini(&value), value, "{text}");
        let schema = SchemaText::from(value.clone());
        let sent = serde_json::to_value(parameters_to_gemini(&schema).unwrap()).unwrap();
        assert_eq!(sent, value);
    }
    for text in unclean {
        assert!(!takes_as_is(text), "{text}");
    }
    let deep = (0..40).fold(r#"{"type":"string"}"#.to_owned(), |inner, _| {
        format!(r#"{{"type":"object","properties":{{"a":{inner}}}}}"#)
    });
    assert!(!takes_as_is(&deep));
}
