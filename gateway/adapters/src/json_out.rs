//! Pieces the encoders serialise without building `serde_json::Value`s: JSON text the IR
//! holds (tool-call arguments, tool results) written as it is when it is an object, and JSON
//! strings escaped eight bytes at a time (for bodies and records written by hand).

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

/// A JSON string, escaped as `serde_json` escapes: `"`, `\`, and the control characters
/// (`\b \f \n \r \t`, the rest as `\u00XX`); everything else, UTF-8 included, as it is.
pub fn string(s: &str, out: &mut Vec<u8>) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 8)
        && let Ok(word) = <[u8; 8]>::try_from(chunk)
    {
        let mask = escape_mask(u64::from_le_bytes(word));
        if mask == 0 {
            i += 8;
            continue;
        }
        // The lowest flagged byte is one to escape (see `escape_mask`): jump to it.
        let at = i + (mask.trailing_zeros() / 8) as usize;
        if let Some(escape) = escape_of(bytes[at]) {
            out.extend_from_slice(&bytes[start..at]);
            escape.write(out);
            start = at + 1;
        }
        i = at + 1;
    }
    for (at, &b) in bytes.iter().enumerate().skip(i) {
        if let Some(escape) = escape_of(b) {
            out.extend_from_slice(&bytes[start..at]);
            escape.write(out);
            start = at + 1;
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` (little-endian) that may be a control character, `"`
/// or `\`: zero when none is; otherwise the lowest flagged byte is always one of them (a
/// borrow only runs upwards, so only bytes above a real one can be flagged wrongly).
fn escape_mask(word: u64) -> u64 {
    let zeros = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    below_space | zeros(word ^ (ONES * u64::from(b'"'))) | zeros(word ^ (ONES * u64::from(b'\\')))
}

enum Escape {
    Short(u8),
    Unicode(u8),
}

impl Escape {
    fn write(self, out: &mut Vec<u8>) {
        match self {
            Escape::Short(c) => out.extend_from_slice(&[b'\\', c]),
            Escape::Unicode(b) => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 0xf)],
                ]);
            }
        }
    }
}

fn escape_of(b: u8) -> Option<Escape> {
    Some(match b {
        b'"' => Escape::Short(b'"'),
        b'\\' => Escape::Short(b'\\'),
        b'\n' => Escape::Short(b'n'),
        b'\r' => Escape::Short(b'r'),
        b'\t' => Escape::Short(b't'),
        0x08 => Escape::Short(b'b'),
        0x0c => Escape::Short(b'f'),
        0..0x20 => Escape::Unicode(b),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{ObjectText, escape_mask, escape_of, owned_object};

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

    #[test]
    fn the_word_mask_finds_every_byte_to_escape_and_its_lowest_flag_is_one() {
        // Every pair of bytes in every pair of positions of a word.
        let interesting: Vec<u8> = (0u8..0x22)
            .chain([b'\\', b'/', b'a', 0x7f, 0x80, 0xff])
            .collect();
        for &x in &interesting {
            for &y in &interesting {
                for i in 0..8 {
                    for j in 0..8 {
                        let mut word = [b'a'; 8];
                        word[i] = x;
                        word[j] = y;
                        let mask = escape_mask(u64::from_le_bytes(word));
                        let first = word.iter().position(|&b| escape_of(b).is_some());
                        match first {
                            None => assert_eq!(mask, 0, "{word:?}"),
                            Some(at) => {
                                assert_eq!(mask.trailing_zeros() / 8, at as u32, "{word:?}")
                            }
                        }
                    }
                }
            }
        }
    }
}
