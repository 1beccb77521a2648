//! One spool file: JSON lines appended at its end, read back by offset. Its durable length
//! (whole, synced lines) and acknowledged prefix are tracked in memory; the file is scanned
//! once, when it is opened.

use std::fs::{File, OpenOptions};
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::disk::{Disk, read_exact_at};

/// Bytes read at a time.
const CHUNK: usize = 256 * 1024;

/// An open spool file and what is known about it.
pub(super) struct Segment {
    pub path: PathBuf,
    /// Opened for reading and appending (shared with readers outside the spool's lock).
    pub file: Arc<File>,
    /// Changes whenever the file is replaced or emptied, so a stale read cannot be acked.
    pub id: u64,
    /// Durable bytes: everything before is whole lines, synced.
    pub len: u64,
    /// Lines in `len`.
    pub lines: u64,
    /// The acknowledged prefix (a line boundary), and its lines.
    pub acked_len: u64,
    pub acked_lines: u64,
}

/// What opening a file found.
pub(super) struct Opened {
    pub segment: Segment,
    /// Bytes of a torn last line (a crash mid-write) cut from the end.
    pub torn_bytes: u64,
}

impl Segment {
    /// Opens `path` (creating it), counts its lines in one pass and cuts a torn last line,
    /// so the next append starts on a line of its own.
    pub fn open(path: &Path, id: u64, disk: &dyn Disk) -> io::Result<Opened> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)?;
        let size = file.metadata()?.len();
        let (len, lines) = scan(disk, &file, size)?;
        if len < size {
            disk.truncate(&file, len)?;
        }
        Ok(Opened {
            segment: Segment {
                path: path.to_owned(),
                file: Arc::new(file),
                id,
                len,
                lines,
                acked_len: 0,
                acked_lines: 0,
            },
            torn_bytes: size - len,
        })
    }

    /// Whether every durable line is acknowledged.
    pub fn fully_acked(&self) -> bool {
        self.acked_len == self.len
    }
}

/// The end of the last whole line within the first `size` bytes, and the number of lines.
fn scan(disk: &dyn Disk, file: &File, size: u64) -> io::Result<(u64, u64)> {
    let mut buf = vec![0u8; CHUNK];
    let (mut offset, mut end, mut lines) = (0u64, 0u64, 0u64);
    while offset < size {
        let n = usize::try_from(size - offset).map_or(CHUNK, |left| left.min(CHUNK));
        read_exact_at(disk, file, &mut buf[..n], offset)?;
        for (i, b) in buf[..n].iter().enumerate() {
            if *b == b'\n' {
                lines += 1;
                end = offset + i as u64 + 1;
            }
        }
        offset += n as u64;
    }
    Ok((end, lines))
}

/// Calls `f` with each whole line (without its `\n`) in `[from, to)`, in order, until it
/// breaks; returns the offset after the last line passed to `f` and how many were passed.
pub(super) fn for_each_line(
    disk: &dyn Disk,
    file: &File,
    from: u64,
    to: u64,
    mut f: impl FnMut(&[u8]) -> ControlFlow<()>,
) -> io::Result<(u64, u64)> {
    let (mut consumed, mut lines) = (from, 0u64);
    let mut next_read = from;
    // Bytes from `consumed` on that were read but not yet passed to `f`.
    let mut buf: Vec<u8> = Vec::new();
    while next_read < to {
        let n = usize::try_from(to - next_read).map_or(CHUNK, |left| left.min(CHUNK));
        let old = buf.len();
        buf.resize(old + n, 0);
        read_exact_at(disk, file, &mut buf[old..], next_read)?;
        next_read += n as u64;
        let mut start = 0;
        while let Some(i) = buf[start..].iter().position(|b| *b == b'\n') {
            let line = &buf[start..start + i];
            start += i + 1;
            consumed += i as u64 + 1;
            lines += 1;
            if f(line).is_break() {
                return Ok((consumed, lines));
            }
        }
        buf.drain(..start);
    }
    if !buf.is_empty() {
        // `to` was not a line boundary (the file changed under the spool): what is left
        // counts as one (unreadable) line, so the range is always consumed.
        consumed += buf.len() as u64;
        lines += 1;
        let _ = f(&buf);
    }
    Ok((consumed, lines))
}
