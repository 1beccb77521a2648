//! The client's request body, read whole: the size cap enforced from a declared length and
//! again while reading, `Expect: 100-continue` answered, and a `Content-Encoding` (gzip,
//! deflate, br, zstd) decoded as the bytes arrive, the same cap applying to the decoded size
//! so that a compression bomb stops at the cap instead of expanding.

use std::io::{self, Write};

use bytes::{Bytes, BytesMut};
use http::HeaderMap;
use pingora::proxy::Session;

use crate::error::RequestError;

/// Largest window a zstd body may ask for: 2^23 = 8 MiB, RFC 9659's bound for the HTTP
/// `zstd` coding (the library's default would allow 128 MiB per request).
const ZSTD_WINDOW_LOG_MAX: u32 = 23;
/// Output buffer of the brotli decoder (its window, at most 16 MiB, is the stream's).
const BROTLI_BUFFER: usize = 32 << 10;

/// Reads the body of `session`: at most `cap` bytes as sent and at most `cap` decoded.
pub async fn read(session: &mut Session, cap: usize) -> Result<Bytes, RequestError> {
    let headers = &session.req_header().headers;
    // An unknown coding is refused before anything is read.
    let encoding = Encoding::of(headers)?;
    let declared = headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<usize>().ok());
    if declared.is_some_and(|n| n > cap) {
        return Err(RequestError::BodyTooLarge { limit: cap });
    }
    let expects_continue = headers
        .get(http::header::EXPECT)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    if expects_continue {
        // curl and others wait for this before sending a large body.
        session
            .write_continue_response()
            .await
            .map_err(|e| RequestError::ReadBody(e.to_string()))?;
    }
    let mut body = BodyBuf::new(encoding, cap, declared)?;
    while let Some(chunk) = session
        .read_request_body()
        .await
        .map_err(|e| RequestError::ReadBody(e.to_string()))?
    {
        body.push(&chunk)?;
    }
    body.finish()
}

/// A request body coding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Identity,
    Gzip,
    /// The zlib format, as HTTP's `deflate` is defined.
    Deflate,
    Brotli,
    Zstd,
}

impl Encoding {
    /// The coding named by `Content-Encoding`: one of the known ones, or none. Lists of
    /// codings (which clients do not send) and unknown names are refused.
    pub fn of(headers: &HeaderMap) -> Result<Encoding, RequestError> {
        let mut values = headers.get_all(http::header::CONTENT_ENCODING).iter();
        let Some(value) = values.next() else {
            return Ok(Encoding::Identity);
        };
        let name = String::from_utf8_lossy(value.as_bytes()).trim().to_owned();
        let unsupported = || RequestError::UnsupportedEncoding(name.clone());
        if values.next().is_some() {
            return Err(unsupported());
        }
        match name.to_ascii_lowercase().as_str() {
            "" | "identity" => Ok(Encoding::Identity),
            "gzip" | "x-gzip" => Ok(Encoding::Gzip),
            "deflate" => Ok(Encoding::Deflate),
            "br" => Ok(Encoding::Brotli),
            "zstd" => Ok(Encoding::Zstd),
            _ => Err(unsupported()),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Encoding::Identity => "identity",
            Encoding::Gzip => "gzip",
            Encoding::Deflate => "deflate",
            Encoding::Brotli => "br",
            Encoding::Zstd => "zstd",
        }
    }
}

/// Where bytes (decoded or not) collect: at most `cap` of them.
struct Capped {
    buf: BytesMut,
    cap: usize,
    over: bool,
}

impl Write for Capped {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.buf.len() + data.len() > self.cap {
            self.over = true;
            return Err(io::Error::other("the body is larger than the cap"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A decoder writing into [`Capped`]: push-based, so each received chunk is decoded at once
/// and nothing beyond the cap is ever produced.
enum Sink {
    Identity(Capped),
    Gzip(flate2::write::MultiGzDecoder<Capped>),
    Deflate(flate2::write::ZlibDecoder<Capped>),
    Brotli(Box<brotli_decompressor::DecompressorWriter<Capped>>),
    Zstd(Box<zstd::stream::write::Decoder<'static, Capped>>),
}

/// A body being received.
pub struct BodyBuf {
    encoding: Encoding,
    sink: Sink,
    /// Bytes as sent.
    wire: usize,
    cap: usize,
}

impl BodyBuf {
    /// An empty body; `declared` (the `Content-Length`) sizes a plain body's buffer at once.
    pub fn new(
        encoding: Encoding,
        cap: usize,
        declared: Option<usize>,
    ) -> Result<BodyBuf, RequestError> {
        let capped = |initial: usize| Capped {
            buf: BytesMut::with_capacity(initial),
            cap,
            over: false,
        };
        let sink = match encoding {
            Encoding::Identity => Sink::Identity(capped(declared.unwrap_or(0).min(cap))),
            Encoding::Gzip => Sink::Gzip(flate2::write::MultiGzDecoder::new(capped(0))),
            Encoding::Deflate => Sink::Deflate(flate2::write::ZlibDecoder::new(capped(0))),
            Encoding::Brotli => Sink::Brotli(Box::new(
                brotli_decompressor::DecompressorWriter::new(capped(0), BROTLI_BUFFER),
            )),
            Encoding::Zstd => {
                let setup = |e: io::Error| RequestError::BadEncoding {
                    encoding: "zstd",
                    reason: e.to_string(),
                };
                let mut raw = zstd::stream::raw::Decoder::new().map_err(setup)?;
                raw.set_parameter(zstd::stream::raw::DParameter::WindowLogMax(
                    ZSTD_WINDOW_LOG_MAX,
                ))
                .map_err(setup)?;
                Sink::Zstd(Box::new(zstd::stream::write::Decoder::with_decoder(
                    capped(0),
                    raw,
                )))
            }
        };
        Ok(BodyBuf {
            encoding,
            sink,
            wire: 0,
            cap,
        })
    }

    /// Adds a received chunk (decoded at once when the body is encoded).
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), RequestError> {
        self.wire += chunk.len();
        if self.wire > self.cap {
            return Err(RequestError::BodyTooLarge { limit: self.cap });
        }
        let written = match &mut self.sink {
            Sink::Identity(c) => c.write_all(chunk),
            Sink::Gzip(d) => d.write_all(chunk),
            Sink::Deflate(d) => d.write_all(chunk),
            Sink::Brotli(d) => d.write_all(chunk),
            Sink::Zstd(d) => d.write_all(chunk),
        };
        written.map_err(|e| self.error(&e))
    }

    /// The whole body, once the stream is complete.
    pub fn finish(mut self) -> Result<Bytes, RequestError> {
        let finished = match &mut self.sink {
            Sink::Identity(_) => Ok(()),
            Sink::Gzip(d) => d.try_finish(),
            Sink::Deflate(d) => d.try_finish(),
            Sink::Brotli(d) => d.close(),
            Sink::Zstd(d) => d.do_finish(),
        };
        finished.map_err(|e| self.error(&e))?;
        Ok(self.collected().buf.split().freeze())
    }

    fn collected(&mut self) -> &mut Capped {
        match &mut self.sink {
            Sink::Identity(c) => c,
            Sink::Gzip(d) => d.get_mut(),
            Sink::Deflate(d) => d.get_mut(),
            Sink::Brotli(d) => d.get_mut(),
            Sink::Zstd(d) => d.get_mut(),
        }
    }

    /// A decoder's failure: the cap reached, or a corrupt stream.
    fn error(&mut self, e: &io::Error) -> RequestError {
        let cap = self.cap;
        if self.collected().over {
            return RequestError::BodyTooLarge { limit: cap };
        }
        RequestError::BadEncoding {
            encoding: self.encoding.name(),
            reason: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn brotli(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut e = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
            e.write_all(data).unwrap();
        }
        out
    }

    fn zstd(data: &[u8]) -> Vec<u8> {
        zstd::encode_all(data, 3).unwrap()
    }

    fn all(data: &[u8]) -> [(Encoding, Vec<u8>); 4] {
        [
            (Encoding::Gzip, gzip(data)),
            (Encoding::Deflate, deflate(data)),
            (Encoding::Brotli, brotli(data)),
            (Encoding::Zstd, zstd(data)),
        ]
    }

    /// Decodes `packed` fed in chunks of `chunk` bytes.
    fn decode(
        encoding: Encoding,
        packed: &[u8],
        cap: usize,
        chunk: usize,
    ) -> Result<Bytes, RequestError> {
        let mut body = BodyBuf::new(encoding, cap, None)?;
        for c in packed.chunks(chunk) {
            body.push(c)?;
        }
        body.finish()
    }

    #[test]
    fn encodings_are_named_by_the_header() {
        let of = |v: &[&str]| {
            let mut h = HeaderMap::new();
            for v in v {
                h.append(
                    http::header::CONTENT_ENCODING,
                    http::HeaderValue::from_str(v).unwrap(),
                );
            }
            Encoding::of(&h)
        };
        assert_eq!(of(&[]).unwrap(), Encoding::Identity);
        assert_eq!(of(&["identity"]).unwrap(), Encoding::Identity);
        assert_eq!(of(&[" GZIP "]).unwrap(), Encoding::Gzip);
        assert_eq!(of(&["x-gzip"]).unwrap(), Encoding::Gzip);
        assert_eq!(of(&["deflate"]).unwrap(), Encoding::Deflate);
        assert_eq!(of(&["br"]).unwrap(), Encoding::Brotli);
        assert_eq!(of(&["zstd"]).unwrap(), Encoding::Zstd);
        for bad in [&["compress"][..], &["gzip, br"], &["gzip", "br"]] {
            assert!(matches!(of(bad), Err(RequestError::UnsupportedEncoding(_))));
        }
    }

    #[test]
    fn every_encoding_decodes_whatever_the_chunking() {
        let data = br#"{"model":"m","messages":[{"role":"user","content":"hello hello hello"}]}"#
            .repeat(500);
        for (encoding, packed) in all(&data) {
            for chunk in [1, 7, 4096, packed.len()] {
                let got = decode(encoding, &packed, 1 << 20, chunk).unwrap();
                assert_eq!(&got[..], &data[..], "{encoding:?} in chunks of {chunk}");
            }
        }
        // Concatenated gzip members are one body.
        let two = [gzip(b"{\"a\":"), gzip(b"1}")].concat();
        assert_eq!(
            &decode(Encoding::Gzip, &two, 100, 3).unwrap()[..],
            b"{\"a\":1}"
        );
        let plain = decode(Encoding::Identity, b"{}", 2, 1).unwrap();
        assert_eq!(&plain[..], b"{}");
    }

    #[test]
    fn the_cap_holds_for_the_decoded_size_and_stops_expansion() {
        let zeros = vec![b'0'; 4 << 20];
        for (encoding, packed) in all(&zeros) {
            assert!(packed.len() < 64 << 10, "{encoding:?}: {}", packed.len());
            let err = decode(encoding, &packed, 1 << 20, 1024).unwrap_err();
            assert!(
                matches!(err, RequestError::BodyTooLarge { limit } if limit == 1 << 20),
                "{encoding:?}: {err}"
            );
            // Exactly at the cap is fine.
            assert_eq!(
                decode(encoding, &packed, 4 << 20, 1 << 20).unwrap().len(),
                4 << 20
            );
        }
        // The bytes as sent count too.
        let err = decode(Encoding::Identity, &[b' '; 11], 10, 4).unwrap_err();
        assert!(matches!(err, RequestError::BodyTooLarge { limit: 10 }));
    }

    #[test]
    fn corrupt_truncated_or_trailing_streams_are_refused() {
        let data = b"{\"model\":\"m\",\"messages\":[]}".repeat(50);
        for (encoding, packed) in all(&data) {
            let bad = |bytes: &[u8]| match decode(encoding, bytes, 1 << 20, 16) {
                Err(RequestError::BadEncoding { encoding: name, .. }) => {
                    assert_eq!(name, encoding.name());
                }
                other => panic!("{encoding:?}: {other:?}"),
            };
            bad(b"this is not compressed at all, not even slightly");
            bad(&[packed.clone(), b"trailing junk".to_vec()].concat());
            if encoding != Encoding::Deflate {
                // zlib's own check does not catch a cut stream; the JSON parser will.
                bad(&packed[..packed.len() - 3]);
            }
        }
        // A zstd frame asking for a window beyond 8 MiB.
        let mut e = zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap();
        e.set_parameter(zstd::stream::raw::CParameter::WindowLog(25))
            .unwrap();
        e.include_contentsize(false).unwrap();
        e.write_all(&vec![7u8; 1 << 20]).unwrap();
        let big_window = e.finish().unwrap();
        assert!(matches!(
            decode(Encoding::Zstd, &big_window, 64 << 20, 1 << 16),
            Err(RequestError::BadEncoding { .. })
        ));
    }
}
