//! The spool writer: takes usage records off the request path through a bounded queue and
//! appends them to the spool from one thread, one write and one fsync per group (group
//! commit, at most one every [`COMMIT_EVERY`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tokio::sync::{Notify, oneshot};

use super::UsageRecord;
use super::drops::{DropReason, Drops};
use super::spool::Spool;
use crate::sched::Governor;

/// Groups are committed at most this often; records arriving meanwhile join the next group.
pub const COMMIT_EVERY: Duration = Duration::from_millis(10);
/// Most records in one group.
const GROUP_MAX: usize = 4096;

// Nearly every message is a record: boxing it would cost an allocation per request.
#[allow(clippy::large_enum_variant)]
enum Msg {
    Record(UsageRecord),
    Stop,
}

/// The request path's end of the queue: a push never blocks and never touches the disk.
pub struct Queue {
    tx: mpsc::Sender<Msg>,
    /// Records accepted and not yet durable (queued or in the group being written).
    pending: Arc<AtomicUsize>,
    capacity: usize,
    /// Pending records past which the writer (with every background thread) is promoted from
    /// idle priority: it is not getting the CPU it needs (see [`crate::sched`]).
    promote_at: usize,
    lag: Arc<QueueLag>,
    governor: &'static Governor,
    drops: Arc<Drops>,
}

/// How long the queue's oldest record has waited: the writer is behind (see [`crate::sched`])
/// when a record waits longer than [`crate::sched::LATE`].
struct QueueLag {
    pending: Arc<AtomicUsize>,
    epoch: Instant,
    /// Roughly when the oldest pending record arrived, in milliseconds since `epoch` (stamped
    /// when the queue turns non-empty, and at a commit that leaves records behind).
    oldest_ms: AtomicU64,
}

impl QueueLag {
    fn stamp_oldest(&self, at: Instant) {
        let ms = crate::sched::millis_since(self.epoch, at);
        self.oldest_ms.store(ms, Ordering::Release);
    }
}

impl crate::sched::Backlog for QueueLag {
    fn behind(&self, now: Instant, _mode: crate::sched::Mode) -> bool {
        if self.pending.load(Ordering::Acquire) == 0 {
            return false;
        }
        let waited = crate::sched::millis_since(self.epoch, now)
            .saturating_sub(self.oldest_ms.load(Ordering::Acquire));
        u128::from(waited) > crate::sched::LATE.as_millis()
    }
}

/// The promotion mark of a queue of `capacity` records: an eighth of it.
fn promote_at(capacity: usize) -> usize {
    (capacity / 8).max(1)
}

impl Queue {
    /// Hands `record` to the writer, or drops (and counts) it when `capacity` records are
    /// already waiting for the disk.
    pub fn push(&self, record: UsageRecord) -> Result<(), DropReason> {
        let before = self.pending.fetch_add(1, Ordering::AcqRel);
        if before == 0 {
            self.lag.stamp_oldest(Instant::now());
        } else if before == self.promote_at {
            self.governor.promote();
        }
        if before >= self.capacity {
            self.pending.fetch_sub(1, Ordering::AcqRel);
            self.drops.add(
                DropReason::QueueFull,
                1,
                &"the spool writer does not keep up with the disk",
            );
            return Err(DropReason::QueueFull);
        }
        if self.tx.send(Msg::Record(record)).is_err() {
            self.pending.fetch_sub(1, Ordering::AcqRel);
            self.drops
                .add(DropReason::Closed, 1, &"the spool writer has stopped");
            return Err(DropReason::Closed);
        }
        Ok(())
    }

    /// Records accepted and not yet durable.
    pub fn pending(&self) -> usize {
        self.pending.load(Ordering::Acquire)
    }
}

/// Stops the writer.
pub struct WriterHandle {
    tx: Option<mpsc::Sender<Msg>>,
    done: Option<oneshot::Receiver<()>>,
}

impl WriterHandle {
    /// Asks the writer to write what is queued and stop; waits for that until `deadline`.
    pub async fn stop(&mut self, deadline: tokio::time::Instant) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(Msg::Stop);
        }
        if let Some(done) = self.done.take()
            && tokio::time::timeout_at(deadline, done).await.is_err()
        {
            tracing::error!("the spool writer did not finish in time");
        }
    }
}

/// Starts the writer thread: records pushed into the returned queue (at most `capacity`
/// not yet durable) are appended to `spool`; `wake` is notified after every group. The thread
/// and the queue's backlog belong to `governor` (see [`crate::sched`]).
pub fn spawn(
    spool: Arc<Spool>,
    capacity: usize,
    wake: Arc<Notify>,
    governor: &'static Governor,
) -> (Queue, WriterHandle) {
    let (tx, rx) = mpsc::channel();
    let pending = Arc::new(AtomicUsize::new(0));
    let lag = Arc::new(QueueLag {
        pending: pending.clone(),
        epoch: Instant::now(),
        oldest_ms: AtomicU64::new(0),
    });
    // This queue's backlog promotes the background threads when they starve: from now on they
    // may run at idle priority.
    governor.watch(Box::new(lag.clone()));
    governor.engage();
    let (done_tx, done_rx) = oneshot::channel();
    let queue = Queue {
        tx: tx.clone(),
        pending: pending.clone(),
        capacity: capacity.max(1),
        promote_at: promote_at(capacity),
        lag: lag.clone(),
        governor,
        drops: spool.drops().clone(),
    };
    let writer = Writer {
        rx,
        spool,
        pending,
        lag,
        wake,
    };
    let spawned = std::thread::Builder::new()
        .name("usage-spool".into())
        .spawn(move || {
            governor.register_current();
            writer.run();
            let _ = done_tx.send(());
        });
    if let Err(err) = spawned {
        // The queue's receiver is gone with the closure: every push counts as dropped.
        tracing::error!(error = %err, "cannot start the usage spool writer");
    }
    let handle = WriterHandle {
        tx: Some(tx),
        done: Some(done_rx),
    };
    (queue, handle)
}

struct Writer {
    rx: mpsc::Receiver<Msg>,
    spool: Arc<Spool>,
    pending: Arc<AtomicUsize>,
    lag: Arc<QueueLag>,
    wake: Arc<Notify>,
}

impl Writer {
    fn run(self) {
        let mut last_commit: Option<Instant> = None;
        while let Ok(Msg::Record(first)) = self.rx.recv() {
            // The rest of the commit interval is slept, not waited on the queue: a push then
            // finds no writer waiting and never has to wake one (a futex wake and a context
            // switch per request otherwise). Whatever arrived meanwhile joins the group.
            let until = last_commit.map(|t| t + COMMIT_EVERY);
            if let Some(wait) = until.and_then(|u| u.checked_duration_since(Instant::now())) {
                std::thread::sleep(wait);
            }
            let mut group = vec![first];
            let mut stopping = false;
            while group.len() < GROUP_MAX {
                match self.rx.try_recv() {
                    Ok(Msg::Record(r)) => group.push(r),
                    Ok(Msg::Stop) => {
                        stopping = true;
                        break;
                    }
                    Err(_) => break,
                }
            }
            last_commit = Some(Instant::now());
            self.commit(group);
            if stopping {
                break;
            }
        }
        // Stopping: whatever is still queued goes in one last group.
        let mut rest: Vec<UsageRecord> = self
            .rx
            .try_iter()
            .filter_map(|m| match m {
                Msg::Record(r) => Some(r),
                Msg::Stop => None,
            })
            .collect();
        while !rest.is_empty() {
            let later = rest.split_off(rest.len().min(GROUP_MAX));
            self.commit(std::mem::replace(&mut rest, later));
        }
    }

    fn commit(&self, group: Vec<UsageRecord>) {
        if group.is_empty() {
            return;
        }
        let n = group.len();
        // Dropped records (bound, disk) are counted by the spool; either way they are no
        // longer waiting for the disk.
        let taken = Instant::now();
        self.spool.append(group);
        let left = self
            .pending
            .fetch_sub(n, Ordering::AcqRel)
            .saturating_sub(n);
        if left > 0 {
            // What arrived during the write is younger than the group.
            self.lag.stamp_oldest(taken);
        }
        self.wake.notify_one();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::usage::spool::DEFAULT_MAX_BYTES;
    use crate::usage::spool::tests::{FaultyDisk, rec};

    /// A governor of the test's own (the process's is shared by every test).
    fn governor() -> &'static Governor {
        Box::leak(Box::new(Governor::for_process()))
    }

    fn writer(capacity: usize) -> (Arc<FaultyDisk>, Arc<Spool>, Queue, WriterHandle) {
        let dir = tempfile::tempdir().unwrap().keep();
        let disk = Arc::new(FaultyDisk::default());
        let spool = Arc::new(Spool::open_with(&dir, DEFAULT_MAX_BYTES, disk.clone()).unwrap());
        let (queue, handle) = spawn(spool.clone(), capacity, Arc::new(Notify::new()), governor());
        (disk, spool, queue, handle)
    }

    /// Waits until the writer has taken care of every accepted record.
    fn settle(queue: &Queue) {
        while queue.pending() > 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn a_push_never_waits_for_a_hung_disk() {
        let (disk, spool, queue, _handle) = writer(64);
        disk.hang(true);
        let accepted = (0..1000)
            .filter(|i| queue.push(rec(&format!("r{i}"))).is_ok())
            .count();
        // Every push returned; what the disk cannot take yet waits in memory, up to 64.
        assert_eq!(accepted, 64);
        assert_eq!(spool.drops().count(DropReason::QueueFull), 936);
        disk.hang(false);
        settle(&queue);
        assert_eq!(spool.depth(), 64);
    }

    #[test]
    fn waiting_records_share_one_write_and_fsync() {
        let (disk, spool, queue, _handle) = writer(10_000);
        disk.hang(true);
        for i in 0..1000 {
            queue.push(rec(&format!("r{i}"))).unwrap();
        }
        // The first group is stuck in the disk; whatever it did not take waits behind it.
        while disk.appends.load(Ordering::SeqCst) == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        disk.hang(false);
        settle(&queue);
        assert_eq!(spool.depth(), 1000);
        // One group taken before the disk hung, one with everything that waited behind it.
        assert!(disk.appends.load(Ordering::SeqCst) <= 2);
    }

    #[test]
    fn a_failing_disk_counts_drops_and_the_writer_carries_on() {
        let (disk, spool, queue, _handle) = writer(1000);
        disk.full.store(true, Ordering::SeqCst);
        for i in 0..100 {
            queue.push(rec(&format!("lost{i}"))).unwrap();
        }
        settle(&queue);
        assert_eq!(spool.drops().count(DropReason::Disk), 100);
        assert_eq!(spool.depth(), 0);
        disk.full.store(false, Ordering::SeqCst);
        for i in 0..10 {
            queue.push(rec(&format!("kept{i}"))).unwrap();
        }
        settle(&queue);
        assert_eq!(spool.depth(), 10);
    }

    #[test]
    fn a_record_waiting_past_the_late_mark_is_a_backlog() {
        use crate::sched::{Backlog, LATE, Mode};
        let (disk, _spool, queue, _handle) = writer(100);
        assert!(!queue.lag.behind(Instant::now() + LATE * 10, Mode::Idle));
        disk.hang(true);
        let pushed = Instant::now();
        queue.push(rec("stuck")).unwrap();
        assert!(!queue.lag.behind(pushed, Mode::Idle));
        assert!(queue.lag.behind(pushed + LATE * 2, Mode::Idle));
        disk.hang(false);
        settle(&queue);
        assert!(!queue.lag.behind(pushed + LATE * 2, Mode::Idle));
    }

    #[test]
    fn with_every_core_busy_the_writer_is_promoted_and_keeps_up() {
        // Far below the promotion mark: only the watchdog can promote.
        let (_disk, spool, queue, _handle) = writer(1_000_000);
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinning = Arc::new(AtomicUsize::new(0));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let busy: Vec<_> = (0..cores)
            .map(|_| {
                let (stop, spinning) = (stop.clone(), spinning.clone());
                std::thread::spawn(move || {
                    spinning.fetch_add(1, Ordering::SeqCst);
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        while spinning.load(Ordering::SeqCst) < cores {
            std::thread::yield_now();
        }
        let adaptive = queue.governor.mode() == crate::sched::Mode::Idle;
        // More work than idle priority's sliver of a busy core gets done in seconds.
        for i in 0..20_000 {
            queue.push(rec(&format!("r{i}"))).unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while queue.pending() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        stop.store(true, Ordering::Relaxed);
        for b in busy {
            b.join().unwrap();
        }
        // At idle priority the writer would wait for an idle core that never comes; the
        // watchdog saw the records wait and promoted it (where idle priority is used at all).
        assert_eq!(queue.pending(), 0);
        assert_eq!(spool.depth(), 20_000);
        if adaptive {
            assert_eq!(queue.governor.mode(), crate::sched::Mode::Batch);
        }
    }

    #[tokio::test]
    async fn stopping_writes_what_is_queued() {
        let (disk, spool, queue, mut handle) = writer(10_000);
        disk.hang(true);
        for i in 0..500 {
            queue.push(rec(&format!("r{i}"))).unwrap();
        }
        disk.hang(false);
        handle
            .stop(tokio::time::Instant::now() + Duration::from_secs(30))
            .await;
        assert_eq!(spool.depth(), 500);
        assert_eq!(queue.pending(), 0);
        assert_eq!(queue.push(rec("late")), Err(DropReason::Closed));
        assert_eq!(spool.drops().count(DropReason::Closed), 1);
    }
}
