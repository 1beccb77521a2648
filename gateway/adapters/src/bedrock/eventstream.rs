//! The AWS event-stream binary framing (`application/vnd.amazon.eventstream`): an
//! incremental decoder that takes bytes split anywhere and returns whole messages, checking
//! both CRCs and a size bound; and the encoder tests use.
//!
//! A message: total length (u32 BE), headers length (u32 BE), CRC32 of those 8 bytes; the
//! headers (name length u8, name, type u8, value); the payload; CRC32 of everything before.

use bytes::{Buf, Bytes, BytesMut};

/// The largest message accepted by default (AWS caps messages far lower; 16 MiB bounds the
/// memory one stream may hold).
pub const DEFAULT_MAX_MESSAGE: usize = 16 << 20;

/// Prelude (12 bytes) plus the message CRC (4).
const OVERHEAD: usize = 16;

/// A typed header value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderValue {
    Bool(bool),
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
    Bytes(Bytes),
    String(String),
    /// Milliseconds since the epoch.
    Timestamp(i64),
    Uuid([u8; 16]),
}

/// One decoded message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub headers: Vec<(String, HeaderValue)>,
    pub payload: Bytes,
}

impl Message {
    /// A string header's value (`:event-type`, `:message-type`, `:exception-type`…).
    pub fn header_str(&self, name: &str) -> Option<&str> {
        self.headers.iter().find_map(|(n, v)| match v {
            HeaderValue::String(s) if n == name => Some(s.as_str()),
            _ => None,
        })
    }
}

/// Why a stream cannot be read further.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventStreamError {
    #[error("event-stream message of {0} bytes exceeds the limit of {1}")]
    TooLarge(usize, usize),
    #[error("event-stream prelude CRC mismatch")]
    PreludeCrc,
    #[error("event-stream message CRC mismatch")]
    MessageCrc,
    #[error("malformed event-stream message: {0}")]
    Malformed(&'static str),
}

/// Incremental decoder. After an error the stream is out of step: every later call returns
/// the same error.
#[derive(Debug)]
pub struct Decoder {
    buf: BytesMut,
    max: usize,
    failed: Option<EventStreamError>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new(DEFAULT_MAX_MESSAGE)
    }
}

impl Decoder {
    /// A decoder refusing messages longer than `max_message` bytes.
    pub fn new(max_message: usize) -> Self {
        Decoder {
            buf: BytesMut::new(),
            max: max_message.max(OVERHEAD),
            failed: None,
        }
    }

    /// Adds bytes; returns the messages they complete, in order. Holds at most one
    /// unfinished message (up to the limit) between calls.
    pub fn feed(&mut self, data: &[u8]) -> Result<Vec<Message>, EventStreamError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        self.buf.extend_from_slice(data);
        let mut out = Vec::new();
        loop {
            match self.next_message() {
                Ok(Some(m)) => out.push(m),
                Ok(None) => return Ok(out),
                Err(e) => {
                    self.failed = Some(e.clone());
                    self.buf = BytesMut::new();
                    return Err(e);
                }
            }
        }
    }

    /// Bytes of an unfinished message held.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    fn next_message(&mut self) -> Result<Option<Message>, EventStreamError> {
        if self.buf.len() < 12 {
            return Ok(None);
        }
        let total = be32(&self.buf[0..4]) as usize;
        let headers_len = be32(&self.buf[4..8]) as usize;
        if crc32fast::hash(&self.buf[0..8]) != be32(&self.buf[8..12]) {
            return Err(EventStreamError::PreludeCrc);
        }
        if total > self.max {
            return Err(EventStreamError::TooLarge(total, self.max));
        }
        if total < OVERHEAD || headers_len > total - OVERHEAD {
            return Err(EventStreamError::Malformed("lengths out of range"));
        }
        if self.buf.len() < total {
            return Ok(None);
        }
        let mut msg = self.buf.split_to(total).freeze();
        if crc32fast::hash(&msg[..total - 4]) != be32(&msg[total - 4..]) {
            return Err(EventStreamError::MessageCrc);
        }
        msg.truncate(total - 4);
        msg.advance(12);
        let mut headers_bytes = msg.split_to(headers_len);
        let headers = parse_headers(&mut headers_bytes)?;
        Ok(Some(Message {
            headers,
            payload: msg,
        }))
    }
}

fn be32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    u32::from_be_bytes(a)
}

fn take(b: &mut Bytes, n: usize) -> Result<Bytes, EventStreamError> {
    if b.len() < n {
        return Err(EventStreamError::Malformed("header runs past its block"));
    }
    Ok(b.split_to(n))
}

fn take_array<const N: usize>(b: &mut Bytes) -> Result<[u8; N], EventStreamError> {
    let bytes = take(b, N)?;
    let mut a = [0u8; N];
    a.copy_from_slice(&bytes);
    Ok(a)
}

fn parse_headers(b: &mut Bytes) -> Result<Vec<(String, HeaderValue)>, EventStreamError> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let [name_len] = take_array::<1>(b)?;
        let name = take(b, usize::from(name_len))?;
        let name = String::from_utf8(name.to_vec())
            .map_err(|_| EventStreamError::Malformed("header name is not UTF-8"))?;
        let [kind] = take_array::<1>(b)?;
        let value =
            match kind {
                0 => HeaderValue::Bool(true),
                1 => HeaderValue::Bool(false),
                2 => HeaderValue::Byte(i8::from_be_bytes(take_array(b)?)),
                3 => HeaderValue::Short(i16::from_be_bytes(take_array(b)?)),
                4 => HeaderValue::Int(i32::from_be_bytes(take_array(b)?)),
                5 => HeaderValue::Long(i64::from_be_bytes(take_array(b)?)),
                6 | 7 => {
                    let len = usize::from(u16::from_be_bytes(take_array(b)?));
                    let v = take(b, len)?;
                    if kind == 6 {
                        HeaderValue::Bytes(v)
                    } else {
                        HeaderValue::String(String::from_utf8(v.to_vec()).map_err(|_| {
                            EventStreamError::Malformed("string header is not UTF-8")
                        })?)
                    }
                }
                8 => HeaderValue::Timestamp(i64::from_be_bytes(take_array(b)?)),
                9 => HeaderValue::Uuid(take_array(b)?),
                _ => return Err(EventStreamError::Malformed("unknown header type")),
            };
        out.push((name, value));
    }
    Ok(out)
}

/// Encodes a message with string headers (what Bedrock sends); for tests and fixtures.
pub fn encode(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (name, value) in headers {
        h.push(name.len() as u8);
        h.extend_from_slice(name.as_bytes());
        h.push(7);
        h.extend_from_slice(&(value.len() as u16).to_be_bytes());
        h.extend_from_slice(value.as_bytes());
    }
    let total = (OVERHEAD + h.len() + payload.len()) as u32;
    let mut out = Vec::with_capacity(total as usize);
    out.extend_from_slice(&total.to_be_bytes());
    out.extend_from_slice(&(h.len() as u32).to_be_bytes());
    let prelude_crc = crc32fast::hash(&out);
    out.extend_from_slice(&prelude_crc.to_be_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn event(kind: &str, payload: &str) -> Vec<u8> {
        encode(
            &[
                (":event-type", kind),
                (":content-type", "application/json"),
                (":message-type", "event"),
            ],
            payload.as_bytes(),
        )
    }

    fn stream() -> Vec<u8> {
        let mut all = event("chunk", r#"{"bytes":"eyJ0eXBlIjoicGluZyJ9"}"#);
        all.extend(encode(&[], b""));
        all.extend(event("messageStop", r#"{"stopReason":"end_turn"}"#));
        all
    }

    #[test]
    fn decodes_a_stream_split_at_every_byte_boundary() {
        let all = stream();
        let whole = Decoder::default().feed(&all).unwrap();
        assert_eq!(whole.len(), 3);
        assert_eq!(whole[0].header_str(":event-type"), Some("chunk"));
        assert_eq!(&whole[2].payload[..], br#"{"stopReason":"end_turn"}"#);
        assert!(whole[1].headers.is_empty() && whole[1].payload.is_empty());
        for split in 0..=all.len() {
            let mut d = Decoder::default();
            let mut got = d.feed(&all[..split]).unwrap();
            got.extend(d.feed(&all[split..]).unwrap());
            assert_eq!(got, whole, "split at {split}");
            assert_eq!(d.pending(), 0);
        }
        let mut d = Decoder::default();
        let mut got = Vec::new();
        for b in &all {
            got.extend(d.feed(std::slice::from_ref(b)).unwrap());
        }
        assert_eq!(got, whole);
    }

    #[test]
    fn reads_every_header_type() {
        // A message built by hand with one header of each type.
        let mut h = Vec::new();
        let mut add = |name: &str, kind: u8, value: &[u8]| {
            h.push(name.len() as u8);
            h.extend_from_slice(name.as_bytes());
            h.push(kind);
            h.extend_from_slice(value);
        };
        add("t", 0, &[]);
        add("f", 1, &[]);
        add("b", 2, &[0xff]);
        add("s", 3, &(-2i16).to_be_bytes());
        add("i", 4, &7i32.to_be_bytes());
        add("l", 5, &(-9i64).to_be_bytes());
        add("y", 6, &[0, 2, 1, 2]);
        add("z", 7, &[0, 1, b'x']);
        add("ts", 8, &1000i64.to_be_bytes());
        add("u", 9, &[7; 16]);
        let total = (16 + h.len() + 1) as u32;
        let mut m = total.to_be_bytes().to_vec();
        m.extend_from_slice(&(h.len() as u32).to_be_bytes());
        let c = crc32fast::hash(&m);
        m.extend_from_slice(&c.to_be_bytes());
        m.extend_from_slice(&h);
        m.push(b'!');
        let c = crc32fast::hash(&m);
        m.extend_from_slice(&c.to_be_bytes());
        let got = Decoder::default().feed(&m).unwrap();
        let values: Vec<HeaderValue> = got[0].headers.iter().map(|(_, v)| v.clone()).collect();
        assert_eq!(
            values,
            [
                HeaderValue::Bool(true),
                HeaderValue::Bool(false),
                HeaderValue::Byte(-1),
                HeaderValue::Short(-2),
                HeaderValue::Int(7),
                HeaderValue::Long(-9),
                HeaderValue::Bytes(Bytes::from_static(&[1, 2])),
                HeaderValue::String("x".into()),
                HeaderValue::Timestamp(1000),
                HeaderValue::Uuid([7; 16]),
            ]
        );
        assert_eq!(&got[0].payload[..], b"!");
    }

    #[test]
    fn refuses_bad_crcs_oversized_and_malformed_messages() {
        let good = event("chunk", "{}");
        let mut bad_msg = good.clone();
        let n = bad_msg.len();
        bad_msg[n - 6] ^= 1;
        let mut d = Decoder::default();
        assert_eq!(d.feed(&bad_msg), Err(EventStreamError::MessageCrc));
        assert_eq!(
            d.feed(&good),
            Err(EventStreamError::MessageCrc),
            "stays failed"
        );
        let mut bad_prelude = good.clone();
        bad_prelude[9] ^= 1;
        assert_eq!(
            Decoder::default().feed(&bad_prelude),
            Err(EventStreamError::PreludeCrc)
        );
        // The size is refused from the prelude, before the body arrives.
        let big = encode(&[], &[b'x'; 100]);
        assert_eq!(
            Decoder::new(64).feed(&big[..12]),
            Err(EventStreamError::TooLarge(116, 64))
        );
        // Headers length larger than the message.
        let mut m = 20u32.to_be_bytes().to_vec();
        m.extend_from_slice(&10u32.to_be_bytes());
        let c = crc32fast::hash(&m);
        m.extend_from_slice(&c.to_be_bytes());
        assert!(matches!(
            Decoder::default().feed(&m),
            Err(EventStreamError::Malformed(_))
        ));
        // A header whose value runs past the header block.
        let mut m = encode(&[("a", "b")], b"");
        m[12 + 3] = 0;
        m[12 + 4] = 9;
        let n = m.len();
        let c = crc32fast::hash(&m[..n - 4]);
        m[n - 4..].copy_from_slice(&c.to_be_bytes());
        assert!(matches!(
            Decoder::default().feed(&m),
            Err(EventStreamError::Malformed(_))
        ));
    }
}
