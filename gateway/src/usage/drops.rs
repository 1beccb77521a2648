//! Usage records the gateway had to give up, by reason: counted exactly (and exported as
//! `gateway_usage_records_dropped_total{reason}` once a counter is attached), logged at
//! most once per reason every few seconds.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use prometheus::IntCounterVec;

/// At most one log line per reason this often (the count covers the silent ones).
const LOG_EVERY: Duration = Duration::from_secs(10);

/// Why records were dropped (the metric's `reason` label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// The queue to the spool writer was full: the disk does not keep up.
    QueueFull,
    /// The spool reached its size bound (the control plane has been away a long time).
    SpoolFull,
    /// Writing or syncing the spool failed (disk full, I/O error).
    Disk,
    /// A spooled line could not be read back (a torn tail after a crash, corruption).
    Unreadable,
    /// The reporter was already stopped.
    Closed,
}

impl DropReason {
    const ALL: [DropReason; 5] = [
        DropReason::QueueFull,
        DropReason::SpoolFull,
        DropReason::Disk,
        DropReason::Unreadable,
        DropReason::Closed,
    ];

    /// The `reason` label value.
    pub fn label(self) -> &'static str {
        match self {
            DropReason::QueueFull => "queue_full",
            DropReason::SpoolFull => "spool_full",
            DropReason::Disk => "disk",
            DropReason::Unreadable => "unreadable",
            DropReason::Closed => "closed",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

#[derive(Default)]
struct Inner {
    counter: Option<IntCounterVec>,
    total: [u64; 5],
    /// Dropped since the last log line.
    unlogged: [u64; 5],
    last_log: [Option<Instant>; 5],
}

/// The drop counts of one reporter (shared by the sink, the spool writer and the reporter).
#[derive(Default)]
pub struct Drops {
    inner: Mutex<Inner>,
}

impl Drops {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Counts `n` records dropped for `reason`; `cause` goes into the (rate-limited) log line.
    pub fn add(&self, reason: DropReason, n: u64, cause: &dyn std::fmt::Display) {
        if n == 0 {
            return;
        }
        let i = reason.index();
        let now = Instant::now();
        let log = {
            let mut inner = self.lock();
            inner.total[i] += n;
            inner.unlogged[i] += n;
            if let Some(c) = &inner.counter {
                c.with_label_values(&[reason.label()]).inc_by(n);
            }
            let due = inner.last_log[i].is_none_or(|t| now.duration_since(t) >= LOG_EVERY);
            if due {
                inner.last_log[i] = Some(now);
                Some((std::mem::take(&mut inner.unlogged[i]), inner.total[i]))
            } else {
                None
            }
        };
        if let Some((records, total)) = log {
            let reason = reason.label();
            tracing::error!(reason, records, total, cause = %cause, "usage records dropped");
        }
    }

    /// Records dropped for `reason` so far.
    pub fn count(&self, reason: DropReason) -> u64 {
        self.lock().total[reason.index()]
    }

    /// Exports the counts to `counter` (label `reason`) from now on, including those so far.
    pub fn attach(&self, counter: IntCounterVec) {
        let mut inner = self.lock();
        for reason in DropReason::ALL {
            let n = inner.total[reason.index()];
            // Creates every series, so dashboards see zeros rather than nothing.
            counter.with_label_values(&[reason.label()]).inc_by(n);
        }
        inner.counter = Some(counter);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use prometheus::Opts;

    #[test]
    fn counts_before_and_after_attaching() {
        let drops = Drops::default();
        drops.add(DropReason::Disk, 3, &"no space");
        drops.add(DropReason::Disk, 2, &"no space");
        let counter = IntCounterVec::new(Opts::new("d", "d"), &["reason"]).unwrap();
        drops.attach(counter.clone());
        drops.add(DropReason::QueueFull, 1, &"full");
        assert_eq!(counter.with_label_values(&["disk"]).get(), 5);
        assert_eq!(counter.with_label_values(&["queue_full"]).get(), 1);
        assert_eq!(counter.with_label_values(&["spool_full"]).get(), 0);
        assert_eq!(drops.count(DropReason::Disk), 5);
    }
}
