//! NDJSON (one JSON object per line, Ollama's stream format) reframed as SSE `data:` events,
//! so the SSE-based stream transcoder runs unchanged over an Ollama stream.

use bytes::{Bytes, BytesMut};

/// Longest line held while waiting for its end (bytes).
pub const MAX_LINE: usize = 1 << 20;

/// Why an NDJSON stream cannot be reframed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NdjsonError {
    #[error("NDJSON line longer than {0} bytes")]
    LineTooLong(usize),
}

/// Splits upstream bytes into lines (across any chunk boundary) and writes each non-blank
/// line as `data: {line}\n\n` (a trailing `\r` dropped). At most `max_line` bytes of an
/// unfinished line are held.
#[derive(Debug)]
pub struct NdjsonToSse {
    buf: BytesMut,
    /// Bytes of `buf` already searched for a newline.
    scanned: usize,
    max_line: usize,
}

impl Default for NdjsonToSse {
    fn default() -> Self {
        Self::new(MAX_LINE)
    }
}

impl NdjsonToSse {
    pub fn new(max_line: usize) -> Self {
        NdjsonToSse {
            buf: BytesMut::new(),
            scanned: 0,
            max_line,
        }
    }

    /// Feeds upstream bytes; returns the SSE frames of the lines they complete.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Bytes, NdjsonError> {
        self.buf.extend_from_slice(chunk);
        let mut out = BytesMut::new();
        while let Some(pos) = memchr::memchr(b'\n', &self.buf[self.scanned..]) {
            let line = self.buf.split_to(self.scanned + pos + 1);
            self.scanned = 0;
            frame(&line, &mut out);
        }
        self.scanned = self.buf.len();
        if self.buf.len() > self.max_line {
            return Err(NdjsonError::LineTooLong(self.max_line));
        }
        Ok(out.freeze())
    }

    /// The frame of a last line the upstream did not end with a newline (empty if none).
    pub fn finish(&mut self) -> Bytes {
        let line = self.buf.split();
        self.scanned = 0;
        let mut out = BytesMut::new();
        frame(&line, &mut out);
        out.freeze()
    }

    /// Whether bytes of an unfinished line are held.
    pub fn has_pending(&self) -> bool {
        !self.buf.iter().all(u8::is_ascii_whitespace)
    }
}

/// Appends `data: {line}\n\n` for a line (its `\n`/`\r\n` and surrounding blanks trimmed)
/// unless it is blank.
fn frame(line: &[u8], out: &mut BytesMut) {
    let line = line.trim_ascii();
    if line.is_empty() {
        return;
    }
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(line);
    out.extend_from_slice(b"\n\n");
}
