//! Inbound JSON bodies as bytes: the limits checked before any parser builds a value tree
//! (nesting depth, element and object counts), and top-level members replaced in place so a
//! body passed on is never re-serialised.

use std::ops::Range;

use bytes::Bytes;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::ParseError;

/// Deepest nesting of arrays and objects accepted (serde_json itself stops at 128).
pub const MAX_DEPTH: usize = 100;
/// Most array items and object members in one body. Each costs at least a 32-byte value
/// slot where a value tree is built.
pub const MAX_ELEMENTS: usize = 1_000_000;
/// Most objects in one body: an object is the costly node of a value tree (a map node of
/// about 640 bytes however few members it has), so `[{"a":0},…]` would otherwise turn a few
/// megabytes of JSON into hundreds.
pub const MAX_OBJECTS: usize = 100_000;

/// Checks `body` against [`MAX_DEPTH`], [`MAX_ELEMENTS`] and [`MAX_OBJECTS`] in one pass over
/// the bytes (strings skipped with memchr). It does not validate the JSON: the parser that
/// follows does.
pub fn check_limits(body: &[u8]) -> Result<(), ParseError> {
    let mut depth = 0usize;
    let mut elements = 0usize;
    let mut objects = 0usize;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'"' => {
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &body[i.min(body.len())..]) {
                        // Unterminated: the parser reports it.
                        None => return Ok(()),
                        Some(k) if body[i + k] == b'\\' => i += k + 2,
                        Some(k) => {
                            i += k;
                            break;
                        }
                    }
                }
            }
            open @ (b'[' | b'{') => {
                depth += 1;
                // A container's first item, or the container itself at the top.
                elements += 1;
                if open == b'{' {
                    objects += 1;
                }
                if depth > MAX_DEPTH {
                    return Err(ParseError::Invalid(format!(
                        "the JSON body is nested deeper than {MAX_DEPTH} levels"
                    )));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' => elements += 1,
            _ => {}
        }
        i += 1;
    }
    if elements > MAX_ELEMENTS {
        return Err(ParseError::Invalid(format!(
            "the JSON body has more than {MAX_ELEMENTS} elements"
        )));
    }
    if objects > MAX_OBJECTS {
        return Err(ParseError::Invalid(format!(
            "the JSON body has more than {MAX_OBJECTS} objects"
        )));
    }
    Ok(())
}

/// Where the value of a top-level member starts and ends in the body.
pub type Span = Range<usize>;

/// The span of `raw` (a sub-slice of `base`) within `base`.
pub fn span_in(base: &[u8], raw: &RawValue) -> Span {
    let start = (raw.get().as_ptr() as usize).saturating_sub(base.as_ptr() as usize);
    start..start + raw.get().len()
}

/// The span of the value of the top-level member `key` of the object `body` (`None` when it
/// has none). A key given twice is refused: which one a provider would read is anyone's guess.
pub fn member_span(body: &[u8], key: &str) -> Result<Option<Span>, ParseError> {
    struct Find<'k> {
        key: &'k str,
        base: usize,
    }
    impl<'de> Visitor<'de> for Find<'_> {
        type Value = Option<Span>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Span>, A::Error> {
            let mut found = None;
            while let Some(k) = map.next_key_seed(KeyIs(self.key))? {
                if k {
                    let raw: &RawValue = map.next_value()?;
                    if found.is_some() {
                        return Err(de::Error::custom(format_args!(
                            "duplicate field `{}`",
                            self.key
                        )));
                    }
                    let start = (raw.get().as_ptr() as usize).saturating_sub(self.base);
                    found = Some(start..start + raw.get().len());
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    let found = de::Deserializer::deserialize_map(
        &mut de,
        Find {
            key,
            base: body.as_ptr() as usize,
        },
    )
    .and_then(|f| de.end().map(|()| f))
    .map_err(|e| ParseError::MalformedJson(e.to_string()))?;
    Ok(found)
}

/// A map key compared with an expected name without allocating.
pub struct KeyIs<'k>(pub &'k str);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
    type Value = bool;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIs<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        Ok(v == self.0)
    }
}

/// `raw` with each span replaced by its bytes (spans must not overlap; an empty span
/// inserts).
pub fn splice(raw: &[u8], mut edits: Vec<(Span, Vec<u8>)>) -> Bytes {
    edits.sort_by_key(|(span, _)| span.start);
    let grown: usize = edits.iter().map(|(_, b)| b.len()).sum();
    let mut out = Vec::with_capacity(raw.len() + grown);
    let mut at = 0;
    for (span, bytes) in edits {
        let start = span.start.clamp(at, raw.len());
        out.extend_from_slice(&raw[at..start]);
        out.extend_from_slice(&bytes);
        at = span.end.clamp(start, raw.len());
    }
    out.extend_from_slice(&raw[at..]);
    Bytes::from(out)
}

/// [`splice`] as the pieces of the result: slices of `raw` (shared, not copied) between the
/// edits' bytes, empty pieces left out.
pub fn splice_chunks(raw: &Bytes, mut edits: Vec<(Span, Vec<u8>)>) -> Vec<Bytes> {
    edits.sort_by_key(|(span, _)| span.start);
    let mut chunks = Vec::with_capacity(2 * edits.len() + 1);
    let mut at = 0;
    for (span, bytes) in edits {
        let start = span.start.clamp(at, raw.len());
        chunks.push(raw.slice(at..start));
        chunks.push(Bytes::from(bytes));
        at = span.end.clamp(start, raw.len());
    }
    chunks.push(raw.slice(at..));
    chunks.retain(|c| !c.is_empty());
    chunks
}

/// `body` with its top-level member `key` set to the string `value`: the value's bytes are
/// replaced, the rest is untouched; a body without the member gets it first.
pub fn set_string_member(body: &[u8], key: &str, value: &str) -> Result<Bytes, ParseError> {
    let quoted = json_string(value);
    let edit = match member_span(body, key)? {
        Some(span) => (span, quoted),
        None => {
            let mut member = json_string(key);
            member.push(b':');
            member.extend_from_slice(&quoted);
            insert_first(body, member)
        }
    };
    Ok(splice(body, vec![edit]))
}

/// The edit that makes `member` (`"key":value`) the first member of the object `body`.
pub fn insert_first(body: &[u8], mut member: Vec<u8>) -> (Span, Vec<u8>) {
    let open = body.iter().position(|b| *b == b'{').map_or(0, |p| p + 1);
    let empty = body[open..]
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_none_or(|b| *b == b'}');
    if !empty {
        member.push(b',');
    }
    (open..open, member)
}

/// `s` as a JSON string literal.
pub fn json_string(s: &str) -> Vec<u8> {
    // Serialising a str cannot fail.
    serde_json::to_vec(s).unwrap_or_else(|_| b"\"\"".to_vec())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn limits_count_depth_elements_and_objects_outside_strings() {
        assert!(check_limits(br#"{"a":[1,2,{"b":"[[[[,,,,{{{{\"]]]"}]}"#).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(check_limits(deep.as_bytes()).is_ok());
        let deeper = format!("[{deep}]");
        let err = check_limits(deeper.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("nested deeper than 100"), "{err}");
        let many = format!("[{}0]", "0,".repeat(MAX_ELEMENTS));
        let err = check_limits(many.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("elements"), "{err}");
        let fine = format!("[{}0]", "0,".repeat(MAX_ELEMENTS - 2));
        assert!(check_limits(fine.as_bytes()).is_ok());
        let objects = format!("[{}{{}}]", "{},".repeat(MAX_OBJECTS));
        let err = check_limits(objects.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("objects"), "{err}");
        // Escaped quotes and backslashes do not end a string.
        assert!(check_limits(br#"["\\", "\"[[[", "x"]"#).is_ok());
        assert!(check_limits(b"\"unterminated \\").is_ok());
    }

    #[test]
    fn member_span_finds_the_top_level_value_only() {
        let body = br#" { "messages": [{"model": "inner"}], "model" : "gpt-4o" , "x": 1 }"#;
        let span = member_span(body, "model").unwrap().unwrap();
        assert_eq!(&body[span], br#""gpt-4o""#);
        assert_eq!(member_span(body, "nope").unwrap(), None);
        assert!(member_span(br#"{"model":"a","model":"b"}"#, "model").is_err());
        assert!(member_span(br#"[1]"#, "model").is_err());
        assert!(member_span(br#"{"model":"a"} x"#, "model").is_err());
    }

    #[test]
    fn members_are_replaced_or_inserted_in_place() {
        let body = br#"{"model":"a","messages":[{"content":"caf\u00e9 \"q\""}],"z":1.50}"#;
        let out = set_string_member(body, "model", "b/\"c\"").unwrap();
        assert_eq!(
            &out[..],
            br#"{"model":"b/\"c\"","messages":[{"content":"caf\u00e9 \"q\""}],"z":1.50}"#
        );
        let out = set_string_member(br#" {"contents":[]}"#, "model", "m").unwrap();
        assert_eq!(&out[..], br#" {"model":"m","contents":[]}"#);
        let raw = Bytes::from_static(br#"{"a":1,"b":2}"#);
        let edits = || {
            vec![
                (5..6, b"10".to_vec()),
                (0..0, Vec::new()),
                (11..12, b"3".to_vec()),
            ]
        };
        let chunks = splice_chunks(&raw, edits());
        assert_eq!(chunks.concat(), splice(&raw, edits()).to_vec());
        assert_eq!(chunks.concat(), br#"{"a":10,"b":3}"#.to_vec());
        assert!(chunks.iter().all(|c| !c.is_empty()));
        let out = set_string_member(b"{ }", "model", "m").unwrap();
        assert_eq!(&out[..], br#"{"model":"m" }"#);
    }
}
