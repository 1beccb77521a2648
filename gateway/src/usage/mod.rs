//! Usage records: one per request (success or failure) with the log fields of spec 3 §3,
//! handed to a pluggable sink (the control plane's Report stream through a write-ahead
//! on-disk spool, a JSON-lines file, in-memory for tests).

pub mod drops;
pub(crate) mod line;
pub mod report;
pub mod spool;
mod writer;

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// Log type of a successful, billed request.
pub const LOG_CONSUME: i32 = 2;
/// Log type of a failed request.
pub const LOG_ERROR: i32 = 6;

/// An asynchronous task a request submitted (reported with its usage record).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskReport {
    /// `mj` or `suno`.
    pub platform: String,
    /// The provider's task id.
    pub task_id: String,
    pub action: String,
    pub prompt: String,
    /// The submission's answer code (Midjourney-Proxy).
    pub code: i64,
    pub description: String,
    /// JSON object.
    pub properties: String,
}

/// One request's usage, in the shape of a log row.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageRecord {
    pub request_id: String,
    pub created_at: i64,
    #[serde(rename = "type")]
    pub kind: i32,
    pub user_id: i64,
    pub username: String,
    pub token_id: i64,
    pub token_name: String,
    pub group: String,
    pub model_name: String,
    /// Channel id (0 when none was reached).
    pub channel: i64,
    pub channel_name: String,
    /// Seconds.
    pub use_time: i64,
    pub is_stream: bool,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub quota: i64,
    /// Error message for failed requests.
    pub content: String,
    /// HTTP status sent to the client.
    pub status: u16,
    /// JSON string: ratios, frt, mapped model, channels tried, …
    pub other: String,
    /// The client's address (empty when unknown).
    #[serde(default)]
    pub ip: String,
    /// Upstream attempts that failed, in order (the control plane disables channels by them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channel_failures: Vec<ChannelFailure>,
    /// The asynchronous task the request submitted, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskReport>,
}

/// One failed upstream attempt of a request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelFailure {
    pub channel_id: i64,
    /// Which key of the channel (its index in the channel's whole key list).
    #[serde(default)]
    pub key_index: u32,
    /// The upstream's HTTP status (0: no answer).
    pub status: u16,
    /// The upstream's error message, at most [`ChannelFailure::MAX_MESSAGE`] bytes.
    pub message: String,
}

impl ChannelFailure {
    pub const MAX_MESSAGE: usize = 500;
}

/// Where usage records go. Must not block for long: it is called on the request path.
pub trait UsageSink: Send + Sync {
    fn record(&self, record: UsageRecord);

    /// The carry of charges this sink reports until the control plane reflects them (see
    /// [`crate::billing::carry`]); `None` for sinks whose records never come back as config.
    fn carry(&self) -> Option<std::sync::Arc<crate::billing::Carry>> {
        None
    }
}

/// Appends one JSON object per line to a file, from a writer thread so the request path
/// never waits on the disk (records are flushed whenever the queue runs empty).
pub struct JsonLinesSink {
    queue: std::sync::mpsc::Sender<UsageRecord>,
}

impl JsonLinesSink {
    /// Opens (creating or appending) the file and starts its writer thread.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        let (tx, rx) = std::sync::mpsc::channel::<UsageRecord>();
        std::thread::Builder::new().name("usage-jsonl".into()).spawn(move || {
            crate::sched::background();
            let mut out = std::io::BufWriter::new(file);
            while let Ok(first) = rx.recv() {
                // Records of the next few milliseconds join this batch: sleeping rather than
                // waiting on the queue spares the request path a wake-up per record.
                std::thread::sleep(writer::COMMIT_EVERY);
                let mut batch = vec![first];
                batch.extend(rx.try_iter());
                let mut line = Vec::new();
                for record in batch {
                    line.clear();
                    line::write(&record, &mut line);
                    line.push(b'\n');
                    if let Err(e) = out.write_all(&line) {
                        tracing::error!(error = %e, request_id = record.request_id, "cannot write usage record");
                    }
                }
                if let Err(e) = out.flush() {
                    tracing::error!(error = %e, "cannot flush usage records");
                }
            }
        })?;
        Ok(JsonLinesSink { queue: tx })
    }
}

impl UsageSink for JsonLinesSink {
    fn record(&self, record: UsageRecord) {
        if let Err(e) = self.queue.send(record) {
            tracing::error!(
                request_id = e.0.request_id,
                "usage writer stopped; record lost"
            );
        }
    }
}

/// Keeps records in memory (tests).
#[derive(Default)]
pub struct MemorySink {
    records: Mutex<Vec<UsageRecord>>,
}

impl MemorySink {
    /// A copy of every record so far.
    pub fn records(&self) -> Vec<UsageRecord> {
        match self.records.lock() {
            Ok(r) => r.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }
}

impl UsageSink for MemorySink {
    fn record(&self, record: UsageRecord) {
        match self.records.lock() {
            Ok(mut r) => r.push(record),
            Err(p) => p.into_inner().push(record),
        }
    }
}

/// Discards records (when no sink is configured).
pub struct NullSink;

impl UsageSink for NullSink {
    fn record(&self, _record: UsageRecord) {}
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn json_lines_sink_appends_records() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("usage.jsonl");
        let sink = JsonLinesSink::open(&path).unwrap();
        for i in 0..2 {
            sink.record(UsageRecord {
                request_id: format!("r{i}"),
                kind: LOG_CONSUME,
                ..Default::default()
            });
        }
        let mut text = String::new();
        for _ in 0..200 {
            text = std::fs::read_to_string(&path).unwrap();
            if text.lines().count() == 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let rows: Vec<UsageRecord> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].request_id, "r1");
        assert!(text.contains("\"type\":2"));
    }
}
