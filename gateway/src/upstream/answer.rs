//! Reading an HTTP/1.1 answer from a plain connection: its head (past informational answers),
//! then its body in pieces by its framing (a length, chunks, or up to the close), and whether
//! the connection may carry another request afterwards. Bounded: the head, each chunk-size line
//! and the trailers have limits; a piece is a slice of the read buffer, never a copy.

use std::mem::MaybeUninit;

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use tokio::io::{AsyncRead, AsyncReadExt};

/// Most bytes of an answer's head.
const MAX_HEAD: usize = 64 * 1024;
/// Most header lines of an answer's head.
const MAX_HEADERS: usize = 128;
/// Most bytes of one chunk-size line (with its extensions).
const MAX_SIZE_LINE: usize = 4 * 1024;
/// Most bytes of a chunked body's trailers.
const MAX_TRAILERS: usize = 16 * 1024;
/// The read buffer's room asked for before each read.
const READ_ROOM: usize = 8 * 1024;

/// Why an answer could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    /// The connection closed before the first byte of an answer: a pooled connection the
    /// server had closed, so the request may be sent again on another.
    #[error("the connection closed before an answer")]
    ClosedBeforeAnswer,
    #[error("the connection closed in the middle of the answer")]
    Truncated,
    #[error("malformed answer head: {0}")]
    Head(&'static str),
    #[error("malformed chunked body: {0}")]
    Chunked(&'static str),
    #[error("reading the answer: {0}")]
    Io(#[from] std::io::Error),
}

/// An answer's head, with how its body is framed.
#[derive(Debug)]
pub struct Head {
    pub status: StatusCode,
    pub headers: HeaderMap,
    /// How the body is delimited.
    pub body: Framing,
    /// Whether the connection may carry another request once the body has been read.
    pub reusable: bool,
}

/// How an answer's body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// This many bytes (zero for answers without a body).
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// Everything up to the server's close.
    UntilClose,
}

/// Reads into `buf` once; `Ok(false)` when the connection closed.
async fn fill<S: AsyncRead + Unpin>(io: &mut S, buf: &mut BytesMut) -> Result<bool, AnswerError> {
    buf.reserve(READ_ROOM);
    Ok(io.read_buf(buf).await? > 0)
}

/// Reads an answer's head from `io` (with `buf` holding what was read and not used yet),
/// skipping informational (1xx) answers. On return `buf` starts with the body's first bytes.
pub async fn read_head<S: AsyncRead + Unpin>(
    io: &mut S,
    buf: &mut BytesMut,
) -> Result<Head, AnswerError> {
    let mut first = true;
    loop {
        match parse_head(buf)? {
            Some(head) if head.status.is_informational() => first = false,
            Some(head) => return Ok(head),
            None => {
                if buf.len() >= MAX_HEAD {
                    return Err(AnswerError::Head("head too large"));
                }
                if !fill(io, buf).await? {
                    return Err(if first && buf.is_empty() {
                        AnswerError::ClosedBeforeAnswer
                    } else {
                        AnswerError::Truncated
                    });
                }
            }
        }
    }
}

/// Parses a complete head at the start of `buf` and takes it out; `None` when more bytes are
/// needed.
fn parse_head(buf: &mut BytesMut) -> Result<Option<Head>, AnswerError> {
    if buf.is_empty() {
        return Ok(None);
    }
    // Left uninitialised: the parser writes the lines it finds (4 KiB not cleared per answer).
    let mut lines = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut parsed = httparse::Response::new(&mut []);
    let parser = httparse::ParserConfig::default();
    let length = match parser.parse_response_with_uninit_headers(&mut parsed, buf, &mut lines) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => return Err(AnswerError::Head("too many headers")),
        Err(_) => return Err(AnswerError::Head("not an HTTP/1.x answer")),
    };
    let code = parsed.code.ok_or(AnswerError::Head("no status"))?;
    let status = StatusCode::from_u16(code).map_err(|_| AnswerError::Head("bad status"))?;
    let http11 = parsed.version == Some(1);
    let mut headers = HeaderMap::with_capacity(parsed.headers.len());
    let (mut length_header, mut chunked, mut encoded, mut close) = (None, false, false, !http11);
    for line in parsed.headers.iter() {
        let name = HeaderName::from_bytes(line.name.as_bytes())
            .map_err(|_| AnswerError::Head("bad header name"))?;
        let value = HeaderValue::from_bytes(line.value)
            .map_err(|_| AnswerError::Head("bad header value"))?;
        if name == http::header::CONTENT_LENGTH {
            let n = content_length(line.value).ok_or(AnswerError::Head("bad Content-Length"))?;
            if length_header.is_some_and(|m| m != n) {
                return Err(AnswerError::Head("conflicting Content-Length"));
            }
            length_header = Some(n);
        } else if name == http::header::TRANSFER_ENCODING {
            encoded = true;
            // Only the last coding says whether the body is chunked.
            chunked = last_token(line.value).eq_ignore_ascii_case(b"chunked");
        } else if name == http::header::CONNECTION {
            let tokens = line.value.split(|b| *b == b',');
            for token in tokens.map(<[u8]>::trim_ascii) {
                if token.eq_ignore_ascii_case(b"close") {
                    close = true;
                } else if token.eq_ignore_ascii_case(b"keep-alive") && !http11 {
                    close = false;
                }
            }
        }
        headers.append(name, value);
    }
    let _ = buf.split_to(length);
    let no_body = status.is_informational()
        || status == StatusCode::NO_CONTENT
        || status == StatusCode::NOT_MODIFIED;
    let body = if no_body {
        Framing::Length(0)
    } else if encoded {
        // A length beside a transfer coding is ignored, and the connection not trusted again.
        close |= length_header.is_some();
        if chunked {
            Framing::Chunked
        } else {
            Framing::UntilClose
        }
    } else {
        length_header.map_or(Framing::UntilClose, Framing::Length)
    };
    let reusable = !close && body != Framing::UntilClose;
    Ok(Some(Head {
        status,
        headers,
        body,
        reusable,
    }))
}

/// A `Content-Length` value: ASCII digits only (no sign, no spaces inside), no overflow.
fn content_length(value: &[u8]) -> Option<u64> {
    let digits = value.trim_ascii();
    if digits.is_empty() || digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    digits.iter().try_fold(0u64, |n, d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

/// The last comma-separated token of a header value, without spaces or parameters.
fn last_token(value: &[u8]) -> &[u8] {
    let last = value.rsplit(|b| *b == b',').next().unwrap_or_default();
    last.split(|b| *b == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii()
}

/// Reads a body in pieces by its framing; each piece is taken out of the read buffer.
#[derive(Debug)]
pub struct BodyReader {
    state: State,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// This many bytes left.
    Length(u64),
    /// A chunk-size line next.
    ChunkSize,
    /// This many bytes left of the current chunk.
    ChunkData(u64),
    /// The CRLF after a chunk's data.
    ChunkEnd,
    /// Trailer lines up to the empty line.
    Trailers,
    UntilClose,
    Done,
}

/// What one step of a body's decoding gave.
enum Step {
    Piece(Bytes),
    /// More bytes must be read first.
    More,
    /// The body has ended.
    End,
}

impl BodyReader {
    pub fn new(framing: Framing) -> BodyReader {
        let state = match framing {
            Framing::Length(0) => State::Done,
            Framing::Length(n) => State::Length(n),
            Framing::Chunked => State::ChunkSize,
            Framing::UntilClose => State::UntilClose,
        };
        BodyReader { state }
    }

    /// Whether the body has been read to its end.
    pub fn done(&self) -> bool {
        self.state == State::Done
    }

    /// The next piece of the body (`None` at its end), reading from `io` when `buf` holds no
    /// more of it.
    pub async fn next<S: AsyncRead + Unpin>(
        &mut self,
        io: &mut S,
        buf: &mut BytesMut,
    ) -> Result<Option<Bytes>, AnswerError> {
        loop {
            match self.step(buf)? {
                Step::Piece(piece) => return Ok(Some(piece)),
                Step::End => return Ok(None),
                Step::More => {
                    if !fill(io, buf).await? {
                        if self.state == State::UntilClose {
                            self.state = State::Done;
                            return Ok(None);
                        }
                        return Err(AnswerError::Truncated);
                    }
                }
            }
        }
    }

    /// Decodes what `buf` holds as far as it goes.
    fn step(&mut self, buf: &mut BytesMut) -> Result<Step, AnswerError> {
        loop {
            match self.state {
                State::Done => return Ok(Step::End),
                State::Length(left) | State::ChunkData(left) => {
                    if buf.is_empty() {
                        return Ok(Step::More);
                    }
                    let n = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
                    let left = left - n as u64;
                    self.state = match self.state {
                        State::Length(_) if left == 0 => State::Done,
                        State::Length(_) => State::Length(left),
                        _ if left == 0 => State::ChunkEnd,
                        _ => State::ChunkData(left),
                    };
                    return Ok(Step::Piece(buf.split_to(n).freeze()));
                }
                State::UntilClose => {
                    if buf.is_empty() {
                        return Ok(Step::More);
                    }
                    return Ok(Step::Piece(buf.split().freeze()));
                }
                State::ChunkSize => {
                    let Some(end) = line_end(buf, MAX_SIZE_LINE, "chunk-size line too long")?
                    else {
                        return Ok(Step::More);
                    };
                    let size = chunk_size(&buf[..end])?;
                    let _ = buf.split_to(end + 2);
                    self.state = if size == 0 {
                        State::Trailers
                    } else {
                        State::ChunkData(size)
                    };
                }
                State::ChunkEnd => {
                    if buf.len() < 2 {
                        return Ok(Step::More);
                    }
                    if &buf[..2] != b"\r\n" {
                        return Err(AnswerError::Chunked("no CRLF after a chunk"));
                    }
                    let _ = buf.split_to(2);
                    self.state = State::ChunkSize;
                }
                State::Trailers => {
                    let Some(end) = line_end(buf, MAX_TRAILERS, "trailers too long")? else {
                        return Ok(Step::More);
                    };
                    let _ = buf.split_to(end + 2);
                    if end == 0 {
                        self.state = State::Done;
                    }
                }
            }
        }
    }
}

/// Where the line at the start of `buf` ends (its CRLF), `None` when it has not all arrived;
/// an error when it is longer than `max`.
fn line_end(buf: &[u8], max: usize, too_long: &'static str) -> Result<Option<usize>, AnswerError> {
    match memchr::memchr(b'\n', buf) {
        Some(lf) if lf > 0 && buf[lf - 1] == b'\r' && lf - 1 <= max => Ok(Some(lf - 1)),
        Some(_) if buf.len() > max => Err(AnswerError::Chunked(too_long)),
        Some(_) => Err(AnswerError::Chunked("a line not ended by CRLF")),
        None if buf.len() > max => Err(AnswerError::Chunked(too_long)),
        None => Ok(None),
    }
}

/// A chunk-size line's size: hexadecimal digits, then optional extensions after `;`.
fn chunk_size(line: &[u8]) -> Result<u64, AnswerError> {
    let digits = line
        .split(|b| *b == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii_end();
    if digits.is_empty() || digits.len() > 15 {
        return Err(AnswerError::Chunked("bad chunk size"));
    }
    digits.iter().try_fold(0u64, |n, d| {
        let v = char::from(*d)
            .to_digit(16)
            .ok_or(AnswerError::Chunked("bad chunk size"))?;
        Ok(n * 16 + u64::from(v))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Reads `wire` delivered in reads of `step` bytes: the head, then the whole body.
    async fn read_all(wire: &[u8], step: usize) -> Result<(Head, Vec<u8>, bool), AnswerError> {
        let (mut client, mut server) = tokio::io::duplex(64);
        let wire = wire.to_vec();
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            for piece in wire.chunks(step) {
                if server.write_all(piece).await.is_err() {
                    return;
                }
                tokio::task::yield_now().await;
            }
        });
        let mut buf = BytesMut::new();
        let head = read_head(&mut client, &mut buf).await?;
        let mut reader = BodyReader::new(head.body);
        let mut body = Vec::new();
        while let Some(piece) = reader.next(&mut client, &mut buf).await? {
            assert!(!piece.is_empty());
            body.extend_from_slice(&piece);
        }
        let clean = reader.done() && buf.is_empty();
        Ok((head, body, clean))
    }

    #[tokio::test]
    async fn lengths_and_chunks_read_the_same_in_any_split() {
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: 1\r\n\r\n";
        let length = b"HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\nhello, world";
        for step in [1, 2, 3, 7, 64, 1000] {
            let (head, body, clean) = read_all(chunked, step).await.unwrap();
            assert_eq!(
                (head.status.as_u16(), head.body, head.reusable),
                (200, Framing::Chunked, true)
            );
            assert_eq!(head.headers["content-type"], "text/event-stream");
            assert_eq!(
                (body.as_slice(), clean),
                (&b"hello, world"[..], true),
                "step {step}"
            );
            let (head, body, clean) = read_all(length, step).await.unwrap();
            assert_eq!((head.body, head.reusable), (Framing::Length(12), true));
            assert_eq!(
                (body.as_slice(), clean),
                (&b"hello, world"[..], true),
                "step {step}"
            );
        }
    }

    #[tokio::test]
    async fn informational_answers_are_skipped_and_empty_bodies_end_at_once() {
        let wire = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n";
        let (head, body, clean) = read_all(wire, 5).await.unwrap();
        assert_eq!((head.status.as_u16(), body.len(), clean), (204, 0, true));
        let wire = b"HTTP/1.1 304 Not Modified\r\ncontent-length: 10\r\n\r\n";
        let (head, body, _) = read_all(wire, 100).await.unwrap();
        assert_eq!(
            (head.status.as_u16(), head.body, body.len()),
            (304, Framing::Length(0), 0)
        );
    }

    #[tokio::test]
    async fn bodies_to_the_close_and_closing_servers_are_never_reused() {
        let cases: [(&[u8], Framing); 4] = [
            (b"HTTP/1.1 200 OK\r\n\r\nall of it", Framing::UntilClose),
            (
                b"HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 9\r\n\r\nall of it",
                Framing::Length(9),
            ),
            (
                b"HTTP/1.0 200 OK\r\nContent-Length: 9\r\n\r\nall of it",
                Framing::Length(9),
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nall of it",
                Framing::UntilClose,
            ),
        ];
        for (wire, framing) in cases {
            let (head, body, _) = read_all(wire, 4).await.unwrap();
            assert_eq!((head.body, head.reusable), (framing, false));
            assert_eq!(body, b"all of it");
        }
        let kept = b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok";
        assert!(read_all(kept, 100).await.unwrap().0.reusable);
        // A transfer coding beside a length: chunked wins, and the connection is not kept.
        let both = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n";
        let (head, body, _) = read_all(both, 100).await.unwrap();
        assert_eq!(
            (head.body, head.reusable, body.as_slice()),
            (Framing::Chunked, false, &b"ok"[..])
        );
    }

    #[tokio::test]
    async fn malformed_and_cut_answers_are_errors() {
        let bad: [&[u8]; 10] = [
            b"SSH-2.0-OpenSSH\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
            b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokX\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nok\r\n0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
        ];
        for wire in bad {
            let read = read_all(wire, 3).await;
            assert!(read.is_err(), "{}", String::from_utf8_lossy(wire));
        }
        let cut = read_all(b"HTTP/1.1 200 OK\r\nContent-Le", 100).await;
        assert!(matches!(cut, Err(AnswerError::Truncated)), "{cut:?}");
        let none = read_all(b"", 100).await;
        assert!(
            matches!(none, Err(AnswerError::ClosedBeforeAnswer)),
            "{none:?}"
        );
        let many = format!(
            "HTTP/1.1 200 OK\r\n{}\r\n",
            "a: b\r\n".repeat(MAX_HEADERS + 1)
        );
        assert!(read_all(many.as_bytes(), 4096).await.is_err());
        let huge = format!("HTTP/1.1 200 OK\r\nx: {}\r\n\r\n", "a".repeat(MAX_HEAD));
        let huge = read_all(huge.as_bytes(), 4096).await;
        assert!(
            matches!(huge, Err(AnswerError::Head("head too large"))),
            "{huge:?}"
        );
        let long_size = format!(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;{}\r\n",
            "e".repeat(MAX_SIZE_LINE + 10)
        );
        assert!(read_all(long_size.as_bytes(), 512).await.is_err());
    }

    #[test]
    fn a_piece_is_a_slice_of_the_read_buffer() {
        let mut buf = BytesMut::from(&b"0123456789rest"[..]);
        let at = buf.as_ptr();
        let mut reader = BodyReader::new(Framing::Length(10));
        let Ok(Step::Piece(piece)) = reader.step(&mut buf) else {
            panic!("a piece");
        };
        assert_eq!((piece.as_ptr(), &piece[..]), (at, &b"0123456789"[..]));
        assert!(reader.done());
        assert_eq!(&buf[..], b"rest");
    }
}
