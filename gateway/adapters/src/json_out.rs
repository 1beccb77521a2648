//! Pieces the encoders serialise without building `serde_json::Value`s: JSON text the IR
//! holds (tool-call arguments, tool results) written as it is when it is an object.

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// JSON text written as given when it is an object, as `{}` otherwise (empty, not JSON, or
/// another kind of value): what providers want for tool-call arguments.
#[derive(Debug, Clone, Copy)]
pub struct ObjectText<'a>(Option<&'a RawValue>);

impl<'a> ObjectText<'a> {
    pub fn of(text: &'a str) -> Self {
        ObjectText(
            serde_json::from_str::<&RawValue>(text)
                .ok()
                .filter(|raw| raw.get().starts_with('{')),
        )
    }
}

impl Serialize for ObjectText<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(raw) => raw.serialize(s),
            None => serde_json::Map::new().serialize(s),
        }
    }
}

/// Owned JSON text that is an object, checked once (`None` for anything else).
pub fn owned_object(text: String) -> Option<Box<RawValue>> {
    RawValue::from_string(text)
        .ok()
        .filter(|raw| raw.get().starts_with('{'))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{ObjectText, owned_object};

    #[test]
    fn objects_as_given_anything_else_empty() {
        let out = |t: &str| serde_json::to_string(&ObjectText::of(t)).unwrap();
        assert_eq!(out(r#"{"b":1, "a":[2]}"#), r#"{"b":1, "a":[2]}"#);
        assert_eq!(out(r#"  {"a":1}"#), r#"{"a":1}"#);
        for other in ["", "[1]", "\"x\"", "{", "null", "{} trailing"] {
            assert_eq!(out(other), "{}", "{other:?}");
        }
        assert!(owned_object(r#"{"ok":true}"#.to_owned()).is_some());
        assert!(owned_object("42".to_owned()).is_none());
    }
}
