//! A borrowed JSON tree for decoding request bodies: strings without escapes borrow from the
//! input and objects are vectors of pairs, so parsing builds no maps and copies no text.
//! Several times cheaper than a `serde_json::Value` of the same body (see
//! `benches/convert.rs`); it answers the same questions (`get`, `as_str`, ...) with the same
//! results, a repeated key meaning its last value, as `Value` does.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};

use crate::loose::Text;

/// A JSON value borrowing from the text it was parsed from.
#[derive(Debug, Clone)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    /// An integer that fits `i64`.
    Int(i64),
    /// A larger positive integer.
    UInt(u64),
    Float(f64),
    Str(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
    /// A member value left unparsed (see [`Json::parse_keeping_raw`]).
    Raw(&'a RawValue),
}

impl PartialEq for Json<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(a), Json::Bool(b)) => a == b,
            (Json::Int(a), Json::Int(b)) => a == b,
            (Json::UInt(a), Json::UInt(b)) => a == b,
            (Json::Float(a), Json::Float(b)) => a == b,
            (Json::Str(a), Json::Str(b)) => a == b,
            (Json::Array(a), Json::Array(b)) => a == b,
            (Json::Object(a), Json::Object(b)) => a == b,
            (Json::Raw(a), Json::Raw(b)) => a.get() == b.get(),
            _ => false,
        }
    }
}

impl<'a> Json<'a> {
    /// Parses `text` (serde_json's grammar and nesting limit).
    pub fn parse(text: &'a [u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(text)
    }

    /// Parses `text`, leaving the value of every member named `raw_key` (at any depth) as
    /// [`Json::Raw`] text: for values passed on as they are, which a tree would only slow.
    pub fn parse_keeping_raw(text: &'a [u8], raw_key: &str) -> Result<Self, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_slice(text);
        let v = de::DeserializeSeed::deserialize(
            JsonVisitor {
                raw_key: Some(raw_key),
                _text: std::marker::PhantomData,
            },
            &mut de,
        )?;
        de.end()?;
        Ok(v)
    }

    /// The value of `key` in an object (the last one when repeated); `None` otherwise.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        match self {
            Json::Object(pairs) => pairs.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// An integer that fits `i64` (as `Value::as_i64`: no floats).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// Any number as `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Int(n) => Some(*n as f64),
            Json::UInt(n) => Some(*n as f64),
            Json::Float(f) => Some(*f),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    /// The same value as a `serde_json::Value` (repeated keys: the last one).
    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Int(n) => Value::Number((*n).into()),
            Json::UInt(n) => Value::Number((*n).into()),
            Json::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Json::Str(s) => Value::String(s.to_string()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Object(pairs) => {
                let mut map = Map::new();
                for (k, v) in pairs {
                    map.insert(k.to_string(), v.to_value());
                }
                Value::Object(map)
            }
            // Text serde_json itself checked: parsing it again cannot fail.
            Json::Raw(raw) => serde_json::from_str(raw.get()).unwrap_or(Value::Null),
        }
    }
}

impl Json<'static> {
    /// The same value as a tree owning its text.
    pub fn from_value(v: &Value) -> Self {
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Json::Int(i),
                (None, Some(u)) => Json::UInt(u),
                _ => Json::Float(n.as_f64().unwrap_or_default()),
            },
            Value::String(s) => Json::Str(Cow::Owned(s.clone())),
            Value::Array(items) => Json::Array(items.iter().map(Json::from_value).collect()),
            Value::Object(map) => Json::Object(
                map.iter()
                    .map(|(k, v)| (Cow::Owned(k.clone()), Json::from_value(v)))
                    .collect(),
            ),
        }
    }
}

/// Written as JSON (repeated keys as they are).
impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Int(n) => s.serialize_i64(*n),
            Json::UInt(n) => s.serialize_u64(*n),
            Json::Float(f) => s.serialize_f64(*f),
            Json::Str(t) => s.serialize_str(t),
            Json::Array(items) => s.collect_seq(items),
            Json::Object(pairs) => {
                let mut map = s.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
            Json::Raw(raw) => raw.serialize(s),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Json<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor {
            raw_key: None,
            _text: std::marker::PhantomData,
        })
    }
}

/// Builds a [`Json`]; members named `raw_key` are kept as raw text.
#[derive(Clone, Copy)]
struct JsonVisitor<'a, 'k> {
    raw_key: Option<&'k str>,
    _text: std::marker::PhantomData<&'a ()>,
}

impl<'de: 'a, 'a> DeserializeSeed<'de> for JsonVisitor<'a, '_> {
    type Value = Json<'a>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json<'a>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for JsonVisitor<'a, '_> {
    type Value = Json<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
        Ok(Json::Int(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
        Ok(i64::try_from(n).map_or(Json::UInt(n), Json::Int))
    }

    fn visit_f64<E>(self, f: f64) -> Result<Self::Value, E> {
        Ok(Json::Float(f))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Json::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Json::Str(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(Json::Str(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut pairs = Vec::new();
        while let Some(Text(k)) = map.next_key::<Text<'a>>()? {
            let v = if self.raw_key.is_some_and(|raw| raw == k) {
                Json::Raw(map.next_value::<&'a RawValue>()?)
            } else {
                map.next_value_seed(self)?
            };
            pairs.push((k, v));
        }
        Ok(Json::Object(pairs))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::Json;
    use serde_json::Value;

    #[test]
    fn answers_as_a_value_would() {
        let text = br#"{"a":"x\ny","b":[1,-2,3.5,18446744073709551615,true,null],"a":"last","c":{"d":"e"}}"#;
        let json = Json::parse(text).unwrap();
        let value: Value = serde_json::from_slice(text).unwrap();
        assert_eq!(json.to_value(), value);
        assert_eq!(json.get("a").and_then(Json::as_str), Some("last"));
        let Some(Json::Array(b)) = json.get("b") else {
            panic!("b is an array")
        };
        let as_value = value["b"].as_array().unwrap();
        for (j, v) in b.iter().zip(as_value) {
            assert_eq!(j.as_i64(), v.as_i64());
            assert_eq!(j.as_f64(), v.as_f64());
            assert_eq!(j.as_bool(), v.as_bool());
            assert_eq!(j.is_null(), v.is_null());
        }
        assert!(json.get("c").unwrap().is_object());
        assert!(json.get("missing").is_none());
    }

    #[test]
    fn members_named_the_raw_key_stay_text_at_any_depth() {
        let text = br#"{"tools":[{"function":{"name":"f","parameters": {"type" : "object",
            "properties":{"parameters":{"type":"string"}}}}}],"parameters":[1, 2]}"#;
        let json = Json::parse_keeping_raw(text, "parameters").unwrap();
        let f = &json.get("tools").unwrap();
        let Json::Array(tools) = f else {
            panic!("tools is an array")
        };
        let function = tools[0].get("function").unwrap();
        assert_eq!(function.get("name").and_then(Json::as_str), Some("f"));
        let Some(Json::Raw(params)) = function.get("parameters") else {
            panic!("parameters stay raw")
        };
        // As written, spacing included; a member of the same name inside is part of it.
        assert!(params.get().starts_with(r#"{"type" : "object","#));
        assert!(matches!(json.get("parameters"), Some(Json::Raw(r)) if r.get() == "[1, 2]"));
        // The tree still answers as a value would, and writes the same JSON back.
        let value: Value = serde_json::from_slice(text).unwrap();
        assert_eq!(json.to_value(), value);
        let written: Value = serde_json::from_str(&serde_json::to_string(&json).unwrap()).unwrap();
        assert_eq!(written, value);
        assert_eq!(Json::from_value(&value).to_value(), value);
        assert!(Json::parse_keeping_raw(br#"{"parameters": {"a": }"#, "parameters").is_err());
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for bad in [&b"{"[..], b"[1,]", b"{\"a\" 1}", b"\"\xff\""] {
            assert!(Json::parse(bad).is_err());
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(Json::parse(deep.as_bytes()).is_err(), "nesting is limited");
    }
}
