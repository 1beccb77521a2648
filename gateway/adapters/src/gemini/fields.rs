//! Reading request fields the way Google's JSON parser accepts them: camelCase or
//! snake_case names, integers as JSON numbers or decimal strings.

use serde_json::Value;

use crate::ParseError;

/// Field `camel` (or its snake_case spelling `snake`) of object `v`; JSON `null` counts
/// as absent.
pub(super) fn get<'a>(v: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    let obj = v.as_object()?;
    obj.get(camel)
        .or_else(|| obj.get(snake))
        .filter(|x| !x.is_null())
}

/// An `Invalid` error naming the field and what it should be.
pub(super) fn invalid(field: &str, expected: &str) -> ParseError {
    ParseError::Invalid(format!("field `{field}` must be {expected}"))
}

/// An optional string field.
pub(super) fn string<'a>(
    v: &'a Value,
    camel: &str,
    snake: &str,
) -> Result<Option<&'a str>, ParseError> {
    match get(v, camel, snake) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(invalid(camel, "a string")),
    }
}

/// An optional integer field (a JSON integer, an integral float or a decimal string).
pub(super) fn int(v: &Value, camel: &str, snake: &str) -> Result<Option<i64>, ParseError> {
    let Some(x) = get(v, camel, snake) else {
        return Ok(None);
    };
    let n = match x {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    n.map(Some).ok_or_else(|| invalid(camel, "an integer"))
}

/// An optional number field (a JSON number or a decimal string).
pub(super) fn float(v: &Value, camel: &str, snake: &str) -> Result<Option<f64>, ParseError> {
    let Some(x) = get(v, camel, snake) else {
        return Ok(None);
    };
    let n = match x {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    n.map(Some).ok_or_else(|| invalid(camel, "a number"))
}

/// An optional boolean field (absent is `false`).
pub(super) fn flag(v: &Value, camel: &str, snake: &str) -> Result<bool, ParseError> {
    match get(v, camel, snake) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(invalid(camel, "a boolean")),
    }
}

/// An optional array field (absent is empty).
pub(super) fn array<'a>(v: &'a Value, camel: &str, snake: &str) -> Result<&'a [Value], ParseError> {
    match get(v, camel, snake) {
        None => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(invalid(camel, "an array")),
    }
}

/// An optional array of strings (absent is empty).
pub(super) fn strings(v: &Value, camel: &str, snake: &str) -> Result<Vec<String>, ParseError> {
    array(v, camel, snake)?
        .iter()
        .map(|s| {
            s.as_str()
                .map(str::to_owned)
                .ok_or_else(|| invalid(camel, "an array of strings"))
        })
        .collect()
}

/// The message of a Google error object (`{"error":{"message":…}}`), if `v` is one.
pub(super) fn error_message(v: &Value) -> Option<String> {
    let e = v.get("error")?;
    let msg = match e.get("message").and_then(Value::as_str) {
        Some(m) => m.to_owned(),
        None => e.to_string(),
    };
    Some(msg)
}
