//! One pass over an OpenAI request body that builds no value tree: the fields the gateway
//! acts on are read, the text of messages, prompts and inputs goes to the token estimator as
//! it is parsed, and everything else is skipped (it goes upstream as the client's bytes).

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::Endpoint;
use crate::loose::Loose;
use crate::raw_json::{self, Span};
use crate::tokens::Estimator;

/// What the pass found.
#[derive(Debug, Default)]
pub(super) struct Scan {
    /// The top-level `model`, when it is a string.
    pub model: Option<String>,
    pub model_span: Option<Span>,
    pub stream: bool,
    pub stream_options_span: Option<Span>,
    pub include_usage: bool,
    /// The largest of `max_tokens`, `max_completion_tokens` and `max_output_tokens`.
    pub max_tokens: Option<i64>,
    /// Message, prompt and input text, and tool definitions.
    pub text: Estimator,
    /// Framing tokens: a few per message and per tool.
    pub overhead: i64,
}

/// Reads `raw`; the error is serde_json's message.
pub(super) fn scan(endpoint: Endpoint, raw: &[u8]) -> Result<Scan, serde_json::Error> {
    let mut out = Scan::default();
    let mut de = serde_json::Deserializer::from_slice(raw);
    de::Deserializer::deserialize_map(
        &mut de,
        Body {
            endpoint,
            base: raw,
            out: &mut out,
        },
    )?;
    de.end()?;
    Ok(out)
}

/// The top-level members the pass reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Model,
    Stream,
    StreamOptions,
    MaxTokens(&'static str),
    Messages,
    /// `prompt` (completions) or `input` (embeddings): text or a list of texts.
    Content(&'static str),
    Tools,
    Other,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Model => "model",
            Field::Stream => "stream",
            Field::StreamOptions => "stream_options",
            Field::MaxTokens(name) | Field::Content(name) => name,
            Field::Messages => "messages",
            Field::Tools => "tools",
            Field::Other => "",
        }
    }
}

struct FieldSeed(Endpoint);

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Field;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Field, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed {
    type Value = Field;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
        let chat = self.0 == Endpoint::ChatCompletions;
        Ok(match v {
            "model" => Field::Model,
            "stream" => Field::Stream,
            "stream_options" => Field::StreamOptions,
            "max_tokens" => Field::MaxTokens("max_tokens"),
            "max_completion_tokens" => Field::MaxTokens("max_completion_tokens"),
            "max_output_tokens" => Field::MaxTokens("max_output_tokens"),
            "messages" if chat => Field::Messages,
            "tools" if chat => Field::Tools,
            "prompt" if self.0 == Endpoint::Completions => Field::Content("prompt"),
            "input" if self.0 == Endpoint::Embeddings => Field::Content("input"),
            _ => Field::Other,
        })
    }
}

struct Body<'a, 'r> {
    endpoint: Endpoint,
    base: &'r [u8],
    out: &'a mut Scan,
}

impl<'de> Visitor<'de> for Body<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let out = self.out;
        // Fields read twice would be read differently by different parsers: refused.
        let mut seen: Vec<Field> = Vec::new();
        while let Some(field) = map.next_key_seed(FieldSeed(self.endpoint))? {
            if field != Field::Other {
                if seen.contains(&field) {
                    return Err(de::Error::custom(format_args!(
                        "duplicate field `{}`",
                        field.name()
                    )));
                }
                seen.push(field);
            }
            match field {
                Field::Model => {
                    let raw: &RawValue = map.next_value()?;
                    out.model_span = Some(raw_json::span_in(self.base, raw));
                    out.model = serde_json::from_str::<String>(raw.get()).ok();
                }
                Field::Stream => out.stream = map.next_value::<Loose>()? == Loose::Bool(true),
                Field::StreamOptions => {
                    let raw: &RawValue = map.next_value()?;
                    let options = raw.get().as_bytes();
                    out.stream_options_span = Some(raw_json::span_in(self.base, raw));
                    out.include_usage = raw_json::member_span(options, "include_usage")
                        .ok()
                        .flatten()
                        .is_some_and(|s| &options[s] == b"true");
                }
                Field::MaxTokens(_) => {
                    if let Loose::Int(n) = map.next_value::<Loose>()? {
                        out.max_tokens = Some(out.max_tokens.map_or(n, |m| m.max(n)));
                    }
                }
                Field::Messages => map.next_value_seed(Picking(Messages(&mut *out)))?,
                Field::Content(_) => content::<A::Error>(map.next_value()?, &mut out.text)?,
                Field::Tools => map.next_value_seed(Picking(Tools(&mut *out)))?,
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Reads the kinds of value it cares about; any other kind is skipped.
trait Pick<'de>: Sized {
    fn string(self, _text: &str) {}
    fn seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        skip_seq(seq)
    }
    fn map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        skip_map(map)
    }
}

/// A [`Pick`] as a serde seed and visitor.
struct Picking<P>(P);

impl<'de, P: Pick<'de>> DeserializeSeed<'de> for Picking<P> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, P: Pick<'de>> Visitor<'de> for Picking<P> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.string(v);
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.0.seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        self.0.map(map)
    }
}

/// `messages`: three framing tokens per message and three for the reply.
struct Messages<'a>(&'a mut Scan);

impl<'de> Pick<'de> for Messages<'_> {
    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            let Some(()) = seq.next_element_seed(Picking(Message(&mut *self.0)))? else {
                break;
            };
            self.0.overhead += 3;
            self.0.text.push_char('\n');
        }
        self.0.overhead += 3;
        Ok(())
    }
}

/// One message: its `content`, and a token for a `name`.
struct Message<'a>(&'a mut Scan);

impl<'de> Pick<'de> for Message<'_> {
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<MessageKey>()? {
            match key {
                MessageKey::Content => {
                    content::<A::Error>(map.next_value()?, &mut self.0.text)?;
                }
                MessageKey::Name => {
                    self.0.overhead += 1;
                    map.next_value::<IgnoredAny>()?;
                }
                MessageKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

enum MessageKey {
    Content,
    Name,
    Other,
}

impl<'de> de::Deserialize<'de> for MessageKey {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<MessageKey, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MessageKey;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E>(self, v: &str) -> Result<MessageKey, E> {
                Ok(match v {
                    "content" => MessageKey::Content,
                    "name" => MessageKey::Name,
                    _ => MessageKey::Other,
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// Text, or a list of texts and `{"text": …}` parts (each followed by a space). Taken as the
/// raw JSON and unescaped piece by piece into the estimator: serde_json would first copy an
/// escaped string whole (a 28 MiB message, 28 MiB more).
fn content<E: de::Error>(raw: &RawValue, text: &mut Estimator) -> Result<(), E> {
    let json = raw.get();
    match json.as_bytes().first() {
        Some(b'"') => push_string(json, text),
        Some(b'[') => {
            let mut de = serde_json::Deserializer::from_str(json);
            de::Deserializer::deserialize_seq(&mut de, Parts(text)).map_err(E::custom)?;
        }
        _ => {}
    }
    Ok(())
}

/// The items of a content list.
struct Parts<'a>(&'a mut Estimator);

impl<'de> Visitor<'de> for Parts<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(part) = seq.next_element::<&RawValue>()? {
            let json = part.get();
            match json.as_bytes().first() {
                Some(b'"') => push_string(json, self.0),
                Some(b'{') => {
                    // A part's `text` (a part naming it twice counts for nothing).
                    if let Ok(Some(span)) = raw_json::member_span(json.as_bytes(), "text")
                        && let Some(value) = json.get(span)
                        && value.starts_with('"')
                    {
                        push_string(value, self.0);
                    }
                }
                _ => {}
            }
            self.0.push_char(' ');
        }
        Ok(())
    }
}

/// Pushes the text of the JSON string literal `json` (quotes included, valid JSON):
/// unescaped runs as they are, each escape as its character.
fn push_string(json: &str, text: &mut Estimator) {
    let inner = json
        .strip_prefix('"')
        .and_then(|j| j.strip_suffix('"'))
        .unwrap_or(json);
    let mut rest = inner;
    while let Some(at) = memchr::memchr(b'\\', rest.as_bytes()) {
        text.push(&rest[..at]);
        let escape = &rest[at + 1..];
        let (c, used) = match escape.as_bytes().first() {
            Some(b'n') => ('\n', 1),
            Some(b't') => ('\t', 1),
            Some(b'r') => ('\r', 1),
            Some(b'b') => ('\u{8}', 1),
            Some(b'f') => ('\u{c}', 1),
            Some(b'u') => unicode_escape(escape),
            Some(other) => (char::from(*other), 1),
            None => break,
        };
        text.push_char(c);
        rest = escape.get(used..).unwrap_or("");
    }
    text.push(rest);
}

/// The character of `u` escape(s) at the start of `escape` (after the backslash), and the
/// bytes they take; a lone surrogate is U+FFFD.
fn unicode_escape(escape: &str) -> (char, usize) {
    let hex = |s: Option<&str>| s.and_then(|h| u32::from_str_radix(h, 16).ok());
    let Some(first) = hex(escape.get(1..5)) else {
        return (char::REPLACEMENT_CHARACTER, escape.len().min(5));
    };
    if (0xD800..0xDC00).contains(&first)
        && escape.get(5..7) == Some("\\u")
        && let Some(second) = hex(escape.get(7..11))
        && (0xDC00..0xE000).contains(&second)
    {
        let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
        return (char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER), 11);
    }
    (
        char::from_u32(first).unwrap_or(char::REPLACEMENT_CHARACTER),
        5,
    )
}

/// `tools`: eight framing tokens each, and their definitions' JSON.
struct Tools<'a>(&'a mut Scan);

impl<'de> Pick<'de> for Tools<'_> {
    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(tool) = seq.next_element::<&RawValue>()? {
            self.0.overhead += 8;
            push_compact(&mut self.0.text, tool.get());
        }
        Ok(())
    }
}

/// Pushes JSON text without the whitespace between tokens, run by run (nothing copied).
fn push_compact(text: &mut Estimator, json: &str) {
    let mut in_string = false;
    let mut escaped = false;
    let mut run = 0;
    for (i, b) in json.bytes().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b.is_ascii_whitespace() {
            text.push(&json[run..i]);
            run = i + 1;
        } else if b == b'"' {
            in_string = true;
        }
    }
    text.push(&json[run..]);
}
