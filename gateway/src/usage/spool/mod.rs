//! The on-disk spool of usage records not yet acknowledged by the control plane: a
//! write-ahead log of JSON lines in two files. The spool writer appends to
//! `usage-spool.jsonl` (one write and one fsync per group); the reporter reads durable lines
//! back by offset, and once they are acknowledged releases them: an acknowledged file is
//! emptied, or renamed to `usage-spool.replaying` and deleted when all of it is acknowledged.
//! Depth and size are tracked in memory (one scan at open); the size is bounded. The records
//! of the latest appends stay in memory too ([`Recent`]), so that in steady state the
//! reporter is handed what was just written instead of reading and parsing it back.

mod disk;
mod recent;
mod segment;

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use prometheus::IntGauge;

pub use self::disk::{Disk, Fs};
use self::recent::Recent;
use self::segment::{Segment, for_each_line};
use super::UsageRecord;
use super::drops::{DropReason, Drops};

/// The file the writer appends to.
const ACTIVE: &str = "usage-spool.jsonl";
/// An earlier file, renamed aside, read before the active one and deleted once acknowledged.
const SEALED: &str = "usage-spool.replaying";
/// A usage record's typical line length, to size the append buffer.
const LINE_BYTES: usize = 640;
/// Default bound on the spool's files.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;
/// The active file is renamed aside once this much of it is acknowledged (or a quarter of
/// the bound, if smaller), so acknowledged lines do not pile up under steady traffic.
const SEAL_BYTES: u64 = 1 << 20;

/// Problems with the spool's files.
#[derive(Debug, thiserror::Error)]
pub enum SpoolError {
    #[error("spool {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SpoolError + '_ {
    move |source| SpoolError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Durable records read back for delivery, and where they end in their file.
#[derive(Debug)]
pub struct Batch {
    pub records: Vec<UsageRecord>,
    segment: u64,
    end: u64,
    /// Lines read (records plus unreadable ones).
    lines: u64,
    unreadable: u64,
}

struct Files {
    sealed: Option<Segment>,
    active: Segment,
    next_id: u64,
    /// A failed write may have left bytes past the active file's durable length.
    dirty: bool,
    /// Durable records of the latest appends, not yet read.
    recent: Recent,
}

impl Batch {
    /// The records, moved out (the batch still acknowledges its lines).
    pub fn take_records(&mut self) -> Vec<UsageRecord> {
        std::mem::take(&mut self.records)
    }
}

impl Files {
    fn bytes(&self) -> u64 {
        self.active.len + self.sealed.as_ref().map_or(0, |s| s.len)
    }

    fn segment_mut(&mut self, id: u64) -> Option<&mut Segment> {
        if self.active.id == id {
            return Some(&mut self.active);
        }
        self.sealed.as_mut().filter(|s| s.id == id)
    }
}

/// The spool of one reporter (shared by the spool writer and the reporter).
pub struct Spool {
    dir: PathBuf,
    max_bytes: u64,
    disk: Arc<dyn Disk>,
    files: Mutex<Files>,
    /// Lines not yet acknowledged, for readers that must not wait for the lock.
    depth: AtomicU64,
    /// Set to the depth after every change, once metrics are attached.
    gauge: OnceLock<IntGauge>,
    drops: Arc<Drops>,
}

impl Spool {
    /// The spool in `dir` (created when missing), bounded to [`DEFAULT_MAX_BYTES`].
    pub fn open(dir: &Path) -> Result<Spool, SpoolError> {
        Spool::bounded(dir, DEFAULT_MAX_BYTES)
    }

    /// The spool in `dir`, whose files may hold at most `max_bytes`; past it, records are
    /// dropped (and counted).
    pub fn bounded(dir: &Path, max_bytes: u64) -> Result<Spool, SpoolError> {
        Spool::open_with(dir, max_bytes, Arc::new(Fs))
    }

    /// [`Spool::bounded`] over `disk`'s file operations.
    pub fn open_with(dir: &Path, max_bytes: u64, disk: Arc<dyn Disk>) -> Result<Spool, SpoolError> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let drops = Arc::new(Drops::default());
        let open = |name: &str, id: u64| -> Result<Segment, SpoolError> {
            let path = dir.join(name);
            let opened = Segment::open(&path, id, disk.as_ref()).map_err(io_err(&path))?;
            if opened.torn_bytes > 0 {
                tracing::warn!(file = %path.display(), bytes = opened.torn_bytes, "torn last spool line cut");
                drops.add(DropReason::Unreadable, 1, &"torn last line");
            }
            Ok(opened.segment)
        };
        let sealed_path = dir.join(SEALED);
        let sealed = if sealed_path.exists() {
            Some(open(SEALED, 0)?).filter(|s| s.lines > 0)
        } else {
            None
        };
        let active = open(ACTIVE, 1)?;
        if sealed.is_none() && sealed_path.exists() {
            std::fs::remove_file(&sealed_path).map_err(io_err(&sealed_path))?;
        }
        sync_dir(dir);
        let depth = active.lines + sealed.as_ref().map_or(0, |s| s.lines);
        Ok(Spool {
            dir: dir.to_owned(),
            max_bytes,
            disk,
            files: Mutex::new(Files {
                sealed,
                active,
                next_id: 2,
                dirty: false,
                recent: Recent::default(),
            }),
            depth: AtomicU64::new(depth),
            gauge: OnceLock::new(),
            drops,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Files> {
        match self.files.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Records waiting in the spool (durable, not yet acknowledged).
    pub fn depth(&self) -> usize {
        usize::try_from(self.depth.load(Ordering::Acquire)).unwrap_or(usize::MAX)
    }

    /// Bytes in the spool's files (acknowledged lines not yet released included).
    pub fn bytes(&self) -> u64 {
        self.lock().bytes()
    }

    /// The drop counts of this spool's reporter.
    pub fn drops(&self) -> &Arc<Drops> {
        &self.drops
    }

    /// Keeps `gauge` set to the depth from now on.
    pub fn attach_gauge(&self, gauge: IntGauge) {
        let _ = self.gauge.set(gauge);
        let _files = self.lock();
        self.publish();
    }

    /// Sets the gauge; called with the lock held, so the last value set is the last depth.
    fn publish(&self) {
        if let Some(g) = self.gauge.get() {
            g.set(i64::try_from(self.depth.load(Ordering::Acquire)).unwrap_or(i64::MAX));
        }
    }

    /// Appends `records` with one write and one sync; returns how many are durable. Records
    /// past the size bound, or in a write that failed, are dropped and counted. Durable
    /// records are kept in memory for the reader, as far as [`Recent`] has room.
    pub fn append(&self, records: Vec<UsageRecord>) -> usize {
        // Room for a typical line each (about half a kilobyte), so the buffer rarely grows.
        let mut buf = Vec::with_capacity(records.len() * LINE_BYTES);
        let mut lines = Vec::with_capacity(records.len());
        for r in records {
            super::line::write(&r, &mut buf);
            buf.push(b'\n');
            lines.push((buf.len(), r));
        }
        let mut files = self.lock();
        let room = self.max_bytes.saturating_sub(files.bytes());
        let fit = lines.partition_point(|(end, _)| *end as u64 <= room);
        self.drops.add(
            DropReason::SpoolFull,
            (lines.len() - fit) as u64,
            &format_args!("spool bound of {} bytes reached", self.max_bytes),
        );
        if fit == 0 {
            return 0;
        }
        lines.truncate(fit);
        let bytes = &buf[..lines[fit - 1].0];
        let written = self.write(&mut files, bytes);
        if let Err(err) = written {
            drop(files);
            self.drops.add(DropReason::Disk, fit as u64, &err);
            return 0;
        }
        let (segment, start) = (files.active.id, files.active.len);
        files.active.len += bytes.len() as u64;
        files.active.lines += fit as u64;
        files.recent.extend(
            segment,
            start,
            lines
                .into_iter()
                .map(|(end, record)| (start + end as u64, record)),
        );
        self.depth.fetch_add(fit as u64, Ordering::AcqRel);
        self.publish();
        fit
    }

    /// Writes whole lines at the durable end of the active file, or leaves it as it was.
    fn write(&self, files: &mut Files, bytes: &[u8]) -> Result<(), SpoolError> {
        let active = &files.active;
        let err = io_err(&active.path);
        if files.dirty {
            self.disk.truncate(&active.file, active.len).map_err(err)?;
            files.dirty = false;
        }
        let active = &files.active;
        if let Err(e) = self.disk.append(&active.file, bytes) {
            // Cut what part of the write landed, so the next append starts on a whole line.
            files.dirty = self.disk.truncate(&active.file, active.len).is_err();
            return Err(io_err(&active.path)(e));
        }
        Ok(())
    }

    /// Reads the oldest durable records not yet acknowledged: at most `max_records`, and
    /// about `max_bytes` of lines (at least one). `None` when there are none. Records still
    /// in memory are taken from there; the file is read (and parsed) only for the others.
    pub fn read_batch(
        &self,
        max_records: usize,
        max_bytes: u64,
    ) -> Result<Option<Batch>, SpoolError> {
        let (file, path, id, from, to) = {
            let mut files = self.lock();
            let seg = match &files.sealed {
                Some(s) if !s.fully_acked() => s,
                _ if !files.active.fully_acked() => &files.active,
                _ => return Ok(None),
            };
            let (id, from, len) = (seg.id, seg.acked_len, seg.len);
            let (file, path) = (seg.file.clone(), seg.path.clone());
            if let Some((records, end)) = files.recent.take(id, from, max_records, max_bytes) {
                let lines = records.len() as u64;
                return Ok(Some(Batch {
                    records,
                    segment: id,
                    end,
                    lines,
                    unreadable: 0,
                }));
            }
            // Up to where the records in memory begin, if they are further on in this file.
            let to = files.recent.starts_within(id, from).unwrap_or(len);
            (file, path, id, from, to)
        };
        // The range is immutable until acknowledged: appends go past it, and only `ack`
        // (called by the reader itself) releases it.
        let mut records = Vec::new();
        let (mut unreadable, mut bytes) = (0u64, 0u64);
        let (end, lines) = for_each_line(self.disk.as_ref(), &file, from, to, |line| {
            bytes += line.len() as u64 + 1;
            match serde_json::from_slice::<UsageRecord>(line) {
                Ok(r) => records.push(r),
                Err(err) => {
                    tracing::warn!(error = %err, "unreadable spool line skipped");
                    unreadable += 1;
                }
            }
            if records.len() >= max_records || bytes >= max_bytes {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .map_err(io_err(&path))?;
        Ok(Some(Batch {
            records,
            segment: id,
            end,
            lines,
            unreadable,
        }))
    }

    /// `batch` was acknowledged (or held only unreadable lines): its lines leave the spool,
    /// and files wholly acknowledged are released.
    pub fn ack(&self, batch: &Batch) {
        let mut files = self.lock();
        let Some(seg) = files.segment_mut(batch.segment) else {
            return;
        };
        if batch.end <= seg.acked_len {
            return;
        }
        seg.acked_len = batch.end;
        seg.acked_lines += batch.lines;
        self.depth.fetch_sub(batch.lines, Ordering::AcqRel);
        self.publish();
        self.release(&mut files);
        drop(files);
        self.drops.add(
            DropReason::Unreadable,
            batch.unreadable,
            &"unreadable spool lines",
        );
    }

    /// Deletes an acknowledged sealed file; empties or seals an acknowledged active one.
    fn release(&self, files: &mut Files) {
        self.release_files(files);
        // Records of a file emptied and renumbered are no longer anywhere to be read.
        let live = [Some(files.active.id), files.sealed.as_ref().map(|s| s.id)];
        files.recent.keep_segments(&live);
    }

    fn release_files(&self, files: &mut Files) {
        if files.sealed.as_ref().is_some_and(Segment::fully_acked)
            && let Some(sealed) = files.sealed.take()
            && let Err(err) = std::fs::remove_file(&sealed.path)
        {
            // Renaming the next file aside replaces it; a restart re-sends it (harmless).
            tracing::warn!(file = %sealed.path.display(), error = %err, "cannot delete delivered spool file");
        }
        if files.sealed.is_some() || files.active.acked_len == 0 {
            return;
        }
        let seal_at = SEAL_BYTES.min(self.max_bytes / 4).max(1);
        if files.active.fully_acked() {
            let active = &mut files.active;
            match self.disk.truncate(&active.file, 0) {
                Ok(()) => {
                    files.dirty = false;
                    active.len = 0;
                    active.lines = 0;
                    active.acked_len = 0;
                    active.acked_lines = 0;
                    active.id = files.next_id;
                    files.next_id += 1;
                }
                Err(err) => {
                    tracing::warn!(file = %active.path.display(), error = %err, "cannot empty delivered spool file");
                }
            }
        } else if files.active.acked_len >= seal_at
            && let Err(err) = self.seal(files)
        {
            tracing::warn!(error = %err, "cannot rename the spool file aside");
        }
    }

    /// Renames the active file aside and opens a new one.
    fn seal(&self, files: &mut Files) -> Result<(), SpoolError> {
        let active_path = self.dir.join(ACTIVE);
        let sealed_path = self.dir.join(SEALED);
        if files.dirty {
            self.disk
                .truncate(&files.active.file, files.active.len)
                .map_err(io_err(&active_path))?;
            files.dirty = false;
        }
        std::fs::rename(&active_path, &sealed_path).map_err(io_err(&sealed_path))?;
        let opened = match Segment::open(&active_path, files.next_id, self.disk.as_ref()) {
            Ok(o) => o,
            Err(e) => {
                if let Err(back) = std::fs::rename(&sealed_path, &active_path) {
                    tracing::error!(error = %back, "cannot rename the spool file back");
                }
                return Err(io_err(&active_path)(e));
            }
        };
        files.next_id += 1;
        let mut old = std::mem::replace(&mut files.active, opened.segment);
        old.path = sealed_path;
        files.sealed = Some(old);
        sync_dir(&self.dir);
        Ok(())
    }

    /// Calls `f` with every record waiting in the spool, oldest first (at start-up).
    pub fn for_each_pending(&self, mut f: impl FnMut(UsageRecord)) -> Result<(), SpoolError> {
        let ranges: Vec<_> = {
            let files = self.lock();
            files
                .sealed
                .iter()
                .chain([&files.active])
                .map(|s| (s.file.clone(), s.path.clone(), s.acked_len, s.len))
                .collect()
        };
        for (file, path, from, to) in ranges {
            for_each_line(self.disk.as_ref(), &file, from, to, |line| {
                if let Ok(r) = serde_json::from_slice::<UsageRecord>(line) {
                    f(r);
                }
                ControlFlow::Continue(())
            })
            .map_err(io_err(&path))?;
        }
        Ok(())
    }
}

/// Makes created and renamed names in `dir` durable (best effort: some file systems
/// cannot sync a folder, and the records themselves are synced already).
fn sync_dir(dir: &Path) {
    if let Err(err) = std::fs::File::open(dir).and_then(|d| d.sync_all()) {
        tracing::debug!(dir = %dir.display(), error = %err, "cannot sync the spool folder");
    }
}

#[cfg(test)]
pub(crate) mod tests;
