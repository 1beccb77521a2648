//! Whether a JSON Schema's text is one Gemini takes as it is: then a converted request sends
//! the client's text and skips building and cleaning a tree (see `benches/convert.rs`).
//!
//! Checked in one pass that allocates nothing but the names of `properties` and `required`.
//! "As it is" means cleaning it (`gemini/schema.rs`) would change nothing but the order of
//! keys: every object has a lowercase `type` (not `null`) and only keys the cleaner copies
//! unchanged (`description`, `properties`, `items` as one schema, `required` naming
//! properties, a non-empty `enum` of strings on a string, `nullable: true`, and the counts,
//! bounds, `pattern`, `example`, `default` and `propertyOrdering`), no key twice, and no
//! escapes in keys or names. Anything else (`format`, `anyOf`, `$ref`, `additionalProperties`,
//! …) answers `false`, and the schema is cleaned.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::schema::{KEPT, MAX_DEPTH};

/// Whether `text` (a tool's parameters) goes to Gemini unchanged: a clean object schema with
/// at least one property.
pub(super) fn takes_as_is(text: &str) -> bool {
    let mut de = serde_json::Deserializer::from_str(text);
    Check { depth: 0 }
        .deserialize(&mut de)
        .is_ok_and(|c| c.properties > 0)
        && de.end().is_ok()
}

/// One schema object at `depth`.
#[derive(Clone, Copy)]
struct Check {
    depth: usize,
}

/// What a checked schema object holds.
struct Checked {
    properties: usize,
}

/// The error that ends a check: the schema needs cleaning (the text itself is JSON, checked
/// when it was decoded).
fn unclean<E: de::Error>() -> E {
    E::custom("needs cleaning")
}

/// Keys of a clean schema besides [`KEPT`], in the bits of a `seen` mask after them.
const STRUCTURE: [&str; 6] = [
    "type",
    "properties",
    "items",
    "required",
    "enum",
    "nullable",
];

impl<'de> DeserializeSeed<'de> for Check {
    type Value = Checked;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Checked, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Check {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a schema object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        if self.depth > MAX_DEPTH {
            return Err(unclean());
        }
        let mut seen: u32 = 0;
        let mut ty: Option<&'de str> = None;
        let mut names: Vec<&'de str> = Vec::new();
        let mut has_properties = false;
        let mut required: Vec<&'de str> = Vec::new();
        let mut has_enum = false;
        while let Some(key) = map.next_key::<&'de str>()? {
            let bit = KEPT
                .iter()
                .chain(STRUCTURE.iter())
                .position(|k| *k == key)
                .ok_or_else(unclean)?;
            if seen & (1 << bit) != 0 {
                return Err(unclean());
            }
            seen |= 1 << bit;
            match key {
                "type" => {
                    let t = map.next_value::<&'de str>()?;
                    if t.bytes().any(|b| b.is_ascii_uppercase()) || t == "null" {
                        return Err(unclean());
                    }
                    ty = Some(t);
                }
                "properties" => {
                    has_properties = true;
                    names = map.next_value_seed(Properties { depth: self.depth })?;
                }
                "items" => {
                    map.next_value_seed(Check {
                        depth: self.depth + 1,
                    })?;
                }
                "required" => required = map.next_value::<Vec<&'de str>>()?,
                "enum" => {
                    has_enum = true;
                    if map.next_value_seed(Strings)? == 0 {
                        return Err(unclean());
                    }
                }
                "nullable" => {
                    if !map.next_value::<bool>()? {
                        return Err(unclean());
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let typed_right = match ty {
            Some(t) => !has_enum || t == "string",
            None => false,
        };
        let required_named =
            required.is_empty() || (has_properties && required.iter().all(|r| names.contains(r)));
        if typed_right && required_named {
            Ok(Checked {
                properties: names.len(),
            })
        } else {
            Err(unclean())
        }
    }
}

/// `properties`: each a clean schema; answers the names.
struct Properties {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Properties {
    type Value = Vec<&'de str>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Properties {
    type Value = Vec<&'de str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("properties")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut names = Vec::new();
        while let Some(name) = map.next_key::<&'de str>()? {
            if names.contains(&name) {
                return Err(unclean());
            }
            map.next_value_seed(Check {
                depth: self.depth + 1,
            })?;
            names.push(name);
        }
        Ok(names)
    }
}

/// `enum` values, all strings; answers how many.
struct Strings;

impl<'de> DeserializeSeed<'de> for Strings {
    type Value = usize;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Strings {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("strings")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut n = 0;
        while seq.next_element::<&'de str>()?.is_some() {
            n += 1;
        }
        Ok(n)
    }
}
