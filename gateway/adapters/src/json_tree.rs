//! A borrowed JSON tree for decoding request bodies: strings without escapes borrow from the
//! input and objects are vectors of pairs, so parsing builds no maps and copies no text.
//! Several times cheaper than a `serde_json::Value` of the same body (see
//! `benches/convert.rs`); it answers the same questions (`get`, `as_str`, ...) with the same
//! results, a repeated key meaning its last value, as `Value` does.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value borrowing from the text it was parsed from.
#[derive(Debug, Clone, PartialEq)]
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
}

impl<'a> Json<'a> {
    /// Parses `text` (serde_json's grammar and nesting limit).
    pub fn parse(text: &'a [u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(text)
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
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Json<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor(std::marker::PhantomData))
    }
}

struct JsonVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for JsonVisitor<'a> {
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
        while let Some(item) = seq.next_element::<Json<'a>>()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut pairs = Vec::new();
        while let Some(Key(k)) = map.next_key::<Key<'a>>()? {
            pairs.push((k, map.next_value::<Json<'a>>()?));
        }
        Ok(Json::Object(pairs))
    }
}

/// An object key, borrowed when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for KeyVisitor<'a> {
            type Value = Key<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        d.deserialize_str(KeyVisitor(std::marker::PhantomData))
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
    fn refuses_what_serde_json_refuses() {
        for bad in [&b"{"[..], b"[1,]", b"{\"a\" 1}", b"\"\xff\""] {
            assert!(Json::parse(bad).is_err());
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(Json::parse(deep.as_bytes()).is_err(), "nesting is limited");
    }
}
