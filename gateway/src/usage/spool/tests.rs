//! Spool tests, and a file-operation double ([`FaultyDisk`]) the writer's tests share.
#![allow(clippy::unwrap_used)]

use std::fs::File;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use super::*;

/// The real file system, except that it counts reads and can be full (a write lands half,
/// then fails with "no space") or hang (until released).
#[derive(Default)]
pub(crate) struct FaultyDisk {
    pub full: AtomicBool,
    pub reads: AtomicUsize,
    pub appends: AtomicUsize,
    hung: Mutex<bool>,
    released: Condvar,
}

impl FaultyDisk {
    pub fn hang(&self, on: bool) {
        let mut hung = self.hung.lock().unwrap();
        *hung = on;
        self.released.notify_all();
    }
}

impl Disk for FaultyDisk {
    fn append(&self, file: &File, bytes: &[u8]) -> io::Result<()> {
        self.appends.fetch_add(1, Ordering::SeqCst);
        let mut hung = self.hung.lock().unwrap();
        while *hung {
            hung = self.released.wait(hung).unwrap();
        }
        drop(hung);
        if self.full.load(Ordering::SeqCst) {
            let mut out = file;
            out.write_all(&bytes[..bytes.len() / 2])?;
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "no space left on device",
            ));
        }
        Fs.append(file, bytes)
    }

    fn read_at(&self, file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        Fs.read_at(file, buf, offset)
    }
}

pub(crate) fn rec(id: &str) -> UsageRecord {
    UsageRecord {
        request_id: id.into(),
        user_id: 1,
        token_id: 2,
        quota: 3,
        other: "x".repeat(100),
        ..Default::default()
    }
}

fn recs(prefix: &str, n: usize) -> Vec<UsageRecord> {
    (0..n).map(|i| rec(&format!("{prefix}{i}"))).collect()
}

fn pending_ids(spool: &Spool) -> Vec<String> {
    let mut ids = Vec::new();
    spool.for_each_pending(|r| ids.push(r.request_id)).unwrap();
    ids
}

fn line_bytes(r: &UsageRecord) -> u64 {
    serde_json::to_vec(r).unwrap().len() as u64 + 1
}

#[test]
fn torn_last_line_loses_only_itself_and_the_next_append_is_whole() {
    let dir = tempfile::tempdir().unwrap();
    let spool = Spool::open(dir.path()).unwrap();
    assert_eq!(spool.append(recs("a", 3)), 3);
    drop(spool);
    // A crash mid-write: half a record, no newline.
    let path = dir.path().join(ACTIVE);
    let torn = serde_json::to_vec(&rec("torn")).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(&torn[..torn.len() / 2]).unwrap();
    drop(f);

    let spool = Spool::open(dir.path()).unwrap();
    assert_eq!(spool.depth(), 3);
    assert_eq!(spool.drops().count(DropReason::Unreadable), 1);
    assert_eq!(spool.append(vec![rec("next")]), 1);
    assert_eq!(pending_ids(&spool), ["a0", "a1", "a2", "next"]);
    // Every line of the file is a whole record.
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.ends_with('\n'));
    for line in text.lines() {
        serde_json::from_str::<UsageRecord>(line).unwrap();
    }
}

#[test]
fn unreadable_lines_are_skipped_counted_and_released() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = Vec::new();
    for id in ["good0", "", "good1"] {
        if id.is_empty() {
            text.extend_from_slice(b"{\"request_id\": garbage\n");
        } else {
            serde_json::to_writer(&mut text, &rec(id)).unwrap();
            text.push(b'\n');
        }
    }
    std::fs::write(dir.path().join(ACTIVE), &text).unwrap();
    let spool = Spool::open(dir.path()).unwrap();
    assert_eq!(spool.depth(), 3);
    let batch = spool.read_batch(100, 1 << 20).unwrap().unwrap();
    let ids: Vec<_> = batch
        .records
        .iter()
        .map(|r| r.request_id.as_str())
        .collect();
    assert_eq!(ids, ["good0", "good1"]);
    spool.ack(&batch);
    assert_eq!(spool.depth(), 0);
    assert_eq!(spool.drops().count(DropReason::Unreadable), 1);
    assert!(spool.read_batch(100, 1 << 20).unwrap().is_none());
}

#[test]
fn depth_is_counted_in_memory_without_rereading_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let disk = Arc::new(FaultyDisk::default());
    let spool = Spool::open_with(dir.path(), DEFAULT_MAX_BYTES, disk.clone()).unwrap();
    let gauge = IntGauge::new("depth", "depth").unwrap();
    spool.attach_gauge(gauge.clone());
    let opened_with = disk.reads.load(Ordering::SeqCst);
    for i in 0..50 {
        assert_eq!(spool.append(recs(&format!("g{i}-"), 4)), 4);
    }
    assert_eq!(spool.depth(), 200);
    assert_eq!(gauge.get(), 200);
    assert_eq!(
        disk.reads.load(Ordering::SeqCst),
        opened_with,
        "appends read nothing back"
    );
    // Delivery reads each line once and lowers the depth by what was acknowledged.
    let batch = spool.read_batch(150, 1 << 30).unwrap().unwrap();
    assert_eq!(batch.records.len(), 150);
    spool.ack(&batch);
    assert_eq!(spool.depth(), 50);
    assert_eq!(gauge.get(), 50);
    assert_eq!(pending_ids(&spool)[0], "g37-2");
    drop(spool);
    // A restart counts the lines with one scan. Acknowledged lines still in the file (less
    // than SEAL_BYTES of them) are counted, and sent again: ingest is idempotent.
    let spool = Spool::open(dir.path()).unwrap();
    assert_eq!(spool.depth(), 200);
}

#[test]
fn acknowledged_records_leave_the_files() {
    let dir = tempfile::tempdir().unwrap();
    // A small bound makes the active file go aside after a quarter of it is acknowledged.
    let one = line_bytes(&rec("a0"));
    let spool = Spool::bounded(dir.path(), one * 40).unwrap();
    assert_eq!(spool.append(recs("a", 20)), 20);
    let first = spool.read_batch(12, 1 << 20).unwrap().unwrap();
    spool.append(recs("b", 5));
    spool.ack(&first);
    // Sealed aside (12 acknowledged ≥ 10 lines' worth), the rest still pending.
    assert!(dir.path().join(SEALED).exists());
    assert_eq!(spool.depth(), 13);
    assert_eq!(spool.append(recs("c", 2)), 2);
    let mut seen = Vec::new();
    while let Some(batch) = spool.read_batch(7, 1 << 20).unwrap() {
        seen.extend(batch.records.iter().map(|r| r.request_id.clone()));
        spool.ack(&batch);
    }
    assert_eq!(seen.len(), 15);
    assert_eq!(seen[0], "a12");
    assert_eq!(seen[14], "c1");
    assert_eq!(spool.depth(), 0);
    assert!(!dir.path().join(SEALED).exists());
    assert_eq!(spool.bytes(), 0, "a wholly acknowledged file is emptied");
    assert_eq!(std::fs::metadata(dir.path().join(ACTIVE)).unwrap().len(), 0);
}

#[test]
fn size_bound_drops_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let one = line_bytes(&rec("a0"));
    let spool = Spool::bounded(dir.path(), one * 10).unwrap();
    assert_eq!(spool.append(recs("a", 4)), 4);
    assert_eq!(spool.append(recs("b", 8)), 6, "only what fits");
    assert_eq!(spool.append(recs("c", 3)), 0);
    assert_eq!(spool.depth(), 10);
    assert_eq!(spool.drops().count(DropReason::SpoolFull), 5);
    assert!(spool.bytes() <= one * 10);
    // Delivered records make room again.
    let batch = spool.read_batch(10, 1 << 20).unwrap().unwrap();
    spool.ack(&batch);
    assert_eq!(spool.append(recs("d", 2)), 2);
    assert_eq!(pending_ids(&spool), ["d0", "d1"]);
}

#[test]
fn a_full_disk_drops_and_counts_then_writes_again() {
    let dir = tempfile::tempdir().unwrap();
    let disk = Arc::new(FaultyDisk::default());
    let spool = Spool::open_with(dir.path(), DEFAULT_MAX_BYTES, disk.clone()).unwrap();
    assert_eq!(spool.append(recs("a", 2)), 2);
    disk.full.store(true, Ordering::SeqCst);
    assert_eq!(spool.append(recs("lost", 3)), 0);
    assert_eq!(spool.append(recs("lost-again", 1)), 0);
    assert_eq!(spool.drops().count(DropReason::Disk), 4);
    assert_eq!(spool.depth(), 2);
    disk.full.store(false, Ordering::SeqCst);
    assert_eq!(spool.append(recs("b", 2)), 2);
    assert_eq!(pending_ids(&spool), ["a0", "a1", "b0", "b1"]);
    // The half-written groups left nothing behind.
    let text = std::fs::read_to_string(dir.path().join(ACTIVE)).unwrap();
    assert_eq!(text.lines().count(), 4);
    drop(spool);
    let spool = Spool::open(dir.path()).unwrap();
    assert_eq!(spool.depth(), 4);
    assert_eq!(spool.drops().count(DropReason::Unreadable), 0);
}

#[test]
fn a_restart_reads_the_file_set_aside_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut old = Vec::new();
    for id in ["old0", "old1"] {
        serde_json::to_writer(&mut old, &rec(id)).unwrap();
        old.push(b'\n');
    }
    std::fs::write(dir.path().join(SEALED), &old).unwrap();
    let spool = Spool::open(dir.path()).unwrap();
    spool.append(vec![rec("new")]);
    assert_eq!(spool.depth(), 3);
    let batch = spool.read_batch(10, 1 << 20).unwrap().unwrap();
    assert_eq!(batch.records.len(), 2);
    spool.ack(&batch);
    assert!(!dir.path().join(SEALED).exists());
    assert_eq!(pending_ids(&spool), ["new"]);
}

fn batch_ids(batch: &Batch) -> Vec<&str> {
    batch
        .records
        .iter()
        .map(|r| r.request_id.as_str())
        .collect()
}

#[test]
fn records_in_memory_equal_what_the_file_gives_back() {
    let dir = tempfile::tempdir().unwrap();
    let spool = Spool::open(dir.path()).unwrap();
    let mut written = recs("m", 5);
    written[2].content = "quote \" newline \n unicode é 中".into();
    written[3].channel_failures = vec![crate::usage::ChannelFailure {
        channel_id: 4,
        key_index: 1,
        status: 502,
        message: "bad gateway".into(),
    }];
    assert_eq!(spool.append(written.clone()), 5);
    let from_memory = spool.read_batch(100, 1 << 20).unwrap().unwrap();
    // The same lines read and parsed by a second spool over the same folder.
    let from_file = Spool::open(dir.path())
        .unwrap()
        .read_batch(100, 1 << 20)
        .unwrap()
        .unwrap();
    assert_eq!(from_memory.records, written);
    assert_eq!(from_file.records, written);
    assert_eq!(
        (from_memory.end, from_memory.lines, from_memory.segment),
        (from_file.end, from_file.lines, from_file.segment)
    );
}

#[test]
fn a_batch_not_acknowledged_is_read_again_from_the_file_then_memory_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let disk = Arc::new(FaultyDisk::default());
    let spool = Spool::open_with(dir.path(), DEFAULT_MAX_BYTES, disk.clone()).unwrap();
    spool.append(recs("a", 3));
    spool.append(recs("b", 2));
    let reads_at_open = disk.reads.load(Ordering::SeqCst);
    let first = spool.read_batch(3, 1 << 20).unwrap().unwrap();
    assert_eq!(batch_ids(&first), ["a0", "a1", "a2"]);
    assert_eq!(
        disk.reads.load(Ordering::SeqCst),
        reads_at_open,
        "nothing read back"
    );
    assert_eq!(spool.lock().recent.len(), 2);
    // Delivery failed: the same lines again, now from the file, up to where memory begins.
    let again = spool.read_batch(100, 1 << 20).unwrap().unwrap();
    assert_eq!(batch_ids(&again), ["a0", "a1", "a2"]);
    assert_eq!(again.end, first.end);
    spool.ack(&again);
    let rest = spool.read_batch(100, 1 << 20).unwrap().unwrap();
    assert_eq!(batch_ids(&rest), ["b0", "b1"]);
    assert_eq!(spool.lock().recent.len(), 0, "taken from memory");
    spool.ack(&rest);
    assert_eq!(spool.depth(), 0);
    assert!(spool.read_batch(100, 1 << 20).unwrap().is_none());
    // Emptied and renumbered: a new run in memory.
    spool.append(recs("c", 1));
    assert_eq!(spool.lock().recent.len(), 1);
    let next = spool.read_batch(100, 1 << 20).unwrap().unwrap();
    assert_eq!(batch_ids(&next), ["c0"]);
}

#[test]
fn a_write_that_failed_leaves_nothing_in_memory_and_later_records_still_arrive_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let disk = Arc::new(FaultyDisk::default());
    let spool = Spool::open_with(dir.path(), DEFAULT_MAX_BYTES, disk.clone()).unwrap();
    assert_eq!(spool.append(recs("a", 2)), 2);
    disk.full.store(true, Ordering::SeqCst);
    assert_eq!(spool.append(recs("lost", 2)), 0);
    assert_eq!(
        spool.lock().recent.len(),
        2,
        "the failed write's records are not kept"
    );
    disk.full.store(false, Ordering::SeqCst);
    assert_eq!(spool.append(recs("b", 2)), 2);
    assert_eq!(
        spool.lock().recent.len(),
        4,
        "the run continues after the cut"
    );
    let mut ids = Vec::new();
    while let Some(batch) = spool.read_batch(1, 1 << 20).unwrap() {
        ids.extend(batch_ids(&batch).iter().map(|s| s.to_string()));
        spool.ack(&batch);
    }
    assert_eq!(ids, ["a0", "a1", "b0", "b1"]);
}
