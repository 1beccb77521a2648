//! Pieces for reading JSON straight into typed structs with the value tree's leniency: a
//! scalar read as `Value::as_i64` reads it, a struct read only from a JSON object, a string
//! borrowed from the text when it has no escapes. A typed read that these cannot settle
//! fails, and its caller falls back to the value tree.

use std::borrow::Cow;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A scalar read loosely: a bool, an integer that fits `i64`, or something else (skipped).
#[derive(Debug, Default, PartialEq, Eq)]
pub enum Loose {
    Bool(bool),
    Int(i64),
    #[default]
    Other,
}

impl Loose {
    /// The integer, or 0 (what `Value::as_i64(..).unwrap_or(0)` gives).
    pub fn int(&self) -> i64 {
        match self {
            Loose::Int(n) => *n,
            _ => 0,
        }
    }
}

impl<'de> de::Deserialize<'de> for Loose {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Loose, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Loose;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Loose, E> {
                Ok(Loose::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Loose, E> {
                Ok(Loose::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Loose, E> {
                Ok(i64::try_from(v).map_or(Loose::Other, Loose::Int))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Loose, E> {
                Ok(Loose::Other)
            }
            fn visit_str<E>(self, _: &str) -> Result<Loose, E> {
                Ok(Loose::Other)
            }
            fn visit_unit<E>(self) -> Result<Loose, E> {
                Ok(Loose::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Loose, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Loose::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Loose, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Loose::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// A struct read from a JSON object only (a derived struct also takes an array, which the
/// value tree would not read as one): anything else is an error, and the caller falls back.
pub struct Object<T>(pub T);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Object<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Object<T>, D::Error> {
        struct Visit<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Visit<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Object<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Object)
            }
        }
        d.deserialize_map(Visit(std::marker::PhantomData))
    }
}

/// A JSON string (or object key) borrowed from the text when it has no escapes, owned
/// otherwise. (`Cow<str>`'s own `Deserialize` always copies, even with `#[serde(borrow)]`
/// when inside an `Option`.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text<'a>(pub Cow<'a, str>);

impl Text<'_> {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> de::Deserialize<'de> for Text<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TextVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(s)))
            }
        }
        d.deserialize_str(TextVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::borrow::Cow;

    use super::Text;

    #[derive(serde::Deserialize)]
    struct Holder<'a> {
        #[serde(borrow, default)]
        text: Option<Text<'a>>,
    }

    #[test]
    fn text_borrows_unless_it_has_escapes_even_inside_an_option() {
        let plain: Holder<'_> = serde_json::from_str(r#"{"text":"plain é"}"#).unwrap();
        assert!(matches!(plain.text.unwrap().0, Cow::Borrowed("plain é")));
        let escaped: Holder<'_> = serde_json::from_str(r#"{"text":"a\nb"}"#).unwrap();
        let escaped = escaped.text.unwrap();
        assert!(matches!(escaped.0, Cow::Owned(_)));
        assert_eq!(escaped.as_str(), "a\nb");
        let null: Holder<'_> = serde_json::from_str(r#"{"text":null}"#).unwrap();
        assert!(null.text.is_none());
        assert!(serde_json::from_str::<Holder<'_>>(r#"{"text":5}"#).is_err());
        // What `Text` is for: `Cow`'s own impl copies inside an `Option`.
        #[derive(serde::Deserialize)]
        struct CowHolder<'a> {
            #[serde(borrow)]
            text: Option<Cow<'a, str>>,
        }
        let cow: CowHolder<'_> = serde_json::from_str(r#"{"text":"plain"}"#).unwrap();
        assert!(matches!(cow.text.unwrap(), Cow::Owned(_)));
    }
}
