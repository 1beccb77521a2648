//! The file operations of the spool, behind a trait so tests can count them or make them
//! fail (a full disk) without a real full disk.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;

/// What the spool does to its files once they are open. The defaults are the real thing.
pub trait Disk: Send + Sync {
    /// Writes `bytes` at the end of `file` (opened for appending) and syncs them: one
    /// `write` and one `fdatasync` per group of records.
    fn append(&self, file: &File, bytes: &[u8]) -> io::Result<()> {
        let mut out = file;
        out.write_all(bytes)?;
        file.sync_data()
    }

    /// Reads from `offset` into `buf`; returns how many bytes came (0 at the end).
    fn read_at(&self, file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        file.read_at(buf, offset)
    }

    /// Cuts `file` to `len` bytes (a torn tail, a failed write, an acknowledged file).
    fn truncate(&self, file: &File, len: u64) -> io::Result<()> {
        file.set_len(len)
    }
}

/// The real file system.
pub struct Fs;

impl Disk for Fs {}

/// Fills `buf` from `offset`, failing if the file ends first.
pub(super) fn read_exact_at(
    disk: &dyn Disk,
    file: &File,
    mut buf: &mut [u8],
    mut offset: u64,
) -> io::Result<()> {
    while !buf.is_empty() {
        match disk.read_at(file, buf, offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
