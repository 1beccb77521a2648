//! The records of the spool's latest appends, kept in memory until the reporter takes them:
//! a run of whole lines, each with its file and byte range, contiguous from the first to
//! the last. The file stays the truth: whatever is not here (older, skipped when full, left
//! after a failed delivery) is read back from it.

use std::collections::VecDeque;

use crate::usage::UsageRecord;

/// Most records kept; appends past it are read back from the file instead. Two of the
/// reporter's full batches: one in flight, the next one filling meanwhile.
const CAPACITY: usize = 8192;

struct Line {
    segment: u64,
    start: u64,
    end: u64,
    record: UsageRecord,
}

/// See the module documentation.
#[derive(Default)]
pub(super) struct Recent {
    lines: VecDeque<Line>,
}

impl Recent {
    /// Keeps the records just written to `segment` from byte `start` on, given with the
    /// offset each line ends at, when they continue the run (or start a new one) and as far
    /// as there is room.
    pub fn extend(
        &mut self,
        segment: u64,
        start: u64,
        records: impl IntoIterator<Item = (u64, UsageRecord)>,
    ) {
        if let Some(last) = self.lines.back()
            && (last.segment != segment || last.end != start)
        {
            return;
        }
        let mut start = start;
        for (end, record) in records {
            if self.lines.len() >= CAPACITY {
                return;
            }
            self.lines.push_back(Line {
                segment,
                start,
                end,
                record,
            });
            start = end;
        }
    }

    /// The records of `segment` from byte `from` on, when the run begins exactly there: at
    /// most `max_records`, and about `max_bytes` of lines (at least one); with the offset
    /// where the last one ends. They leave the run.
    pub fn take(
        &mut self,
        segment: u64,
        from: u64,
        max_records: usize,
        max_bytes: u64,
    ) -> Option<(Vec<UsageRecord>, u64)> {
        // Lines the reader is already past cannot be read again from here.
        while self
            .lines
            .front()
            .is_some_and(|l| l.segment == segment && l.start < from)
        {
            self.lines.pop_front();
        }
        let first = self.lines.front()?;
        if first.segment != segment || first.start != from {
            return None;
        }
        // Sized up front: records are large, and growing the vector one by one moves them.
        let capacity = self.lines.len().min(max_records.max(1));
        let (mut records, mut end, mut bytes) = (Vec::with_capacity(capacity), from, 0u64);
        while records.len() < max_records.max(1) && (records.is_empty() || bytes < max_bytes) {
            let Some(line) = self.lines.front() else {
                break;
            };
            if line.segment != segment || line.start != end {
                break;
            }
            bytes += line.end - line.start;
            end = line.end;
            if let Some(line) = self.lines.pop_front() {
                records.push(line.record);
            }
        }
        Some((records, end))
    }

    /// Where the run begins when it is further on in `segment` than `from`: a read of the
    /// file from `from` stops there.
    pub fn starts_within(&self, segment: u64, from: u64) -> Option<u64> {
        self.lines
            .front()
            .filter(|l| l.segment == segment && l.start > from)
            .map(|l| l.start)
    }

    /// Forgets the records of files no longer in `live`.
    pub fn keep_segments(&mut self, live: &[Option<u64>]) {
        self.lines.retain(|l| live.contains(&Some(l.segment)));
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.lines.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str) -> UsageRecord {
        UsageRecord {
            request_id: id.into(),
            ..UsageRecord::default()
        }
    }

    fn ids(records: &[UsageRecord]) -> Vec<&str> {
        records.iter().map(|r| r.request_id.as_str()).collect()
    }

    #[test]
    fn takes_a_run_from_its_exact_start_within_the_limits() {
        let mut recent = Recent::default();
        recent.extend(1, 100, [(110, rec("a")), (130, rec("b")), (140, rec("c"))]);
        assert!(recent.take(1, 90, 10, 1 << 20).is_none(), "begins later");
        assert!(recent.take(2, 100, 10, 1 << 20).is_none(), "another file");
        assert_eq!(recent.starts_within(1, 90), Some(100));
        let (got, end) = recent.take(1, 100, 2, 1 << 20).unwrap_or_default();
        assert_eq!((ids(&got), end), (vec!["a", "b"], 130));
        let (got, end) = recent.take(1, 130, 10, 1 << 20).unwrap_or_default();
        assert_eq!((ids(&got), end), (vec!["c"], 140));
        assert_eq!(recent.len(), 0);
    }

    #[test]
    fn byte_limit_still_gives_one_record() {
        let mut recent = Recent::default();
        recent.extend(1, 0, [(50, rec("a")), (60, rec("b"))]);
        let (got, end) = recent.take(1, 0, 10, 1).unwrap_or_default();
        assert_eq!((ids(&got), end), (vec!["a"], 50));
    }

    #[test]
    fn a_gap_is_never_bridged() {
        let mut recent = Recent::default();
        recent.extend(1, 0, [(10, rec("a"))]);
        recent.extend(1, 20, [(30, rec("after-a-gap"))]);
        recent.extend(2, 0, [(10, rec("other-file"))]);
        assert_eq!(recent.len(), 1);
        let (got, _) = recent.take(1, 0, 10, 1 << 20).unwrap_or_default();
        assert_eq!(ids(&got), vec!["a"]);
        // Empty again: a new run may start anywhere.
        recent.extend(2, 0, [(10, rec("new-run"))]);
        assert_eq!(recent.len(), 1);
    }

    #[test]
    fn lines_already_passed_and_dead_files_are_dropped() {
        let mut recent = Recent::default();
        recent.extend(1, 0, [(10, rec("a")), (20, rec("b"))]);
        let (got, end) = recent.take(1, 10, 10, 1 << 20).unwrap_or_default();
        assert_eq!((ids(&got), end), (vec!["b"], 20));
        recent.extend(1, 20, [(30, rec("c"))]);
        recent.keep_segments(&[Some(2), None]);
        assert_eq!(recent.len(), 0);
    }

    #[test]
    fn room_is_bounded() {
        let mut recent = Recent::default();
        recent.extend(1, 0, (1..=CAPACITY as u64 + 10).map(|i| (i * 10, rec("x"))));
        assert_eq!(recent.len(), CAPACITY);
    }
}
