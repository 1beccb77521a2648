//! The control-plane usage sink: records wait in a bounded queue, go out in batches on the
//! `usage.v1.UsageService.Report` stream and are dropped only when acknowledged. Batches
//! that cannot be delivered (control plane away, queue full, shutdown) are appended to an
//! on-disk spool that is replayed, oldest first, once the control plane answers again.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use prometheus::IntGauge;
use proto::usage::v1 as pb;
use proto::usage::v1::usage_service_client::UsageServiceClient;
use tokio::sync::{mpsc, oneshot};
use tonic::codegen::InterceptedService;
use tonic::transport::Channel;

use super::{UsageRecord, UsageSink};
use crate::billing::Carry;
use crate::config::watch::{Auth, Backoff};

/// Most records in one batch.
const BATCH: usize = 500;
/// How long a partial batch waits for more records.
const LINGER: Duration = Duration::from_millis(200);
/// How long an ack may take before the batch is spooled and the stream reopened.
const ACK_TIMEOUT: Duration = Duration::from_secs(10);

/// Problems delivering usage.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("control plane: {0}")]
    Rpc(#[from] tonic::Status),
    #[error("no ack for batch {0}")]
    NoAck(u64),
    #[error("spool {path}: {source}")]
    Spool {
        path: String,
        source: std::io::Error,
    },
}

/// The append-only spool file of undelivered records (one JSON record a line).
pub struct Spool {
    path: PathBuf,
    lock: Mutex<()>,
    /// Set to the depth after every change, once metrics are attached.
    gauge: OnceLock<IntGauge>,
}

impl Spool {
    /// A spool in `dir` (created when missing).
    pub fn open(dir: &Path) -> Result<Spool, ReportError> {
        std::fs::create_dir_all(dir).map_err(|source| ReportError::Spool {
            path: dir.display().to_string(),
            source,
        })?;
        Ok(Spool {
            path: dir.join("usage-spool.jsonl"),
            lock: Mutex::new(()),
            gauge: OnceLock::new(),
        })
    }

    fn err(&self, source: std::io::Error) -> ReportError {
        ReportError::Spool {
            path: self.path.display().to_string(),
            source,
        }
    }

    fn guard(&self) -> std::sync::MutexGuard<'_, ()> {
        match self.lock.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Appends records and syncs them to disk.
    pub fn append(&self, records: &[UsageRecord]) -> Result<(), ReportError> {
        if records.is_empty() {
            return Ok(());
        }
        let _g = self.guard();
        let mut buf = Vec::new();
        for r in records {
            if let Ok(line) = serde_json::to_vec(r) {
                buf.extend_from_slice(&line);
                buf.push(b'\n');
            }
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| self.err(e))?;
        f.write_all(&buf).map_err(|e| self.err(e))?;
        f.sync_data().map_err(|e| self.err(e))?;
        drop(_g);
        self.refresh();
        Ok(())
    }

    /// Publishes the current depth to the attached gauge.
    fn refresh(&self) {
        if let Some(g) = self.gauge.get() {
            g.set(i64::try_from(self.depth()).unwrap_or(i64::MAX));
        }
    }

    /// Takes every spooled record out (the file is renamed aside first, so records appended
    /// meanwhile stay for the next round). Returns the records and the taken file to delete
    /// once they are acknowledged.
    pub fn take(&self) -> Result<Option<(Vec<UsageRecord>, PathBuf)>, ReportError> {
        let _g = self.guard();
        let taken = self.path.with_extension("replaying");
        if !taken.exists() {
            if !self.path.exists() {
                return Ok(None);
            }
            std::fs::rename(&self.path, &taken).map_err(|e| self.err(e))?;
        }
        let file = std::fs::File::open(&taken).map_err(|e| self.err(e))?;
        let mut records = Vec::new();
        for line in std::io::BufReader::new(file).lines() {
            let line = line.map_err(|e| self.err(e))?;
            match serde_json::from_str::<UsageRecord>(&line) {
                Ok(r) => records.push(r),
                // A torn last line (crash mid-write) is skipped.
                Err(err) => tracing::warn!(error = %err, "unreadable spool line skipped"),
            }
        }
        Ok(Some((records, taken)))
    }

    /// Every spooled record (both files), left in place.
    pub fn peek(&self) -> Vec<UsageRecord> {
        let _g = self.guard();
        [self.path.with_extension("replaying"), self.path.clone()]
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .flat_map(|text| {
                text.lines()
                    .filter_map(|l| serde_json::from_str::<UsageRecord>(l).ok())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Number of records waiting on disk (both files).
    pub fn depth(&self) -> usize {
        let _g = self.guard();
        [self.path.clone(), self.path.with_extension("replaying")]
            .iter()
            .filter_map(|p| std::fs::read(p).ok())
            .map(|b| b.iter().filter(|c| **c == b'\n').count())
            .sum()
    }
}

fn to_wire(r: UsageRecord) -> pb::UsageRecord {
    pb::UsageRecord {
        request_id: r.request_id,
        created_at: r.created_at,
        r#type: r.kind,
        user_id: r.user_id,
        username: r.username,
        token_id: r.token_id,
        token_name: r.token_name,
        group: r.group,
        model_name: r.model_name,
        channel_id: r.channel,
        use_time: r.use_time,
        is_stream: r.is_stream,
        prompt_tokens: r.prompt_tokens,
        completion_tokens: r.completion_tokens,
        quota: r.quota,
        content: r.content,
        other: r.other,
        ip: String::new(),
    }
}

type Client = UsageServiceClient<InterceptedService<Channel, Auth>>;

/// The sink handed to the relay: a non-blocking push into the bounded queue.
pub struct ReportSink {
    queue: mpsc::Sender<UsageRecord>,
    spool: Arc<Spool>,
    carry: Arc<Carry>,
}

impl UsageSink for ReportSink {
    fn carry(&self) -> Option<Arc<Carry>> {
        Some(self.carry.clone())
    }

    fn record(&self, record: UsageRecord) {
        let r = &record;
        self.carry
            .charged(&r.request_id, r.user_id, r.token_id, r.quota);
        match self.queue.try_send(record) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(r) | mpsc::error::TrySendError::Closed(r)) => {
                let id = r.request_id.clone();
                if let Err(err) = self.spool.append(&[r]) {
                    tracing::error!(request_id = id, error = %err, "usage record lost");
                }
            }
        }
    }
}

/// Stops the reporter: flushes the queue (to the control plane, or to the spool).
pub struct ReportHandle {
    stop: Option<oneshot::Sender<Duration>>,
    done: Option<oneshot::Receiver<()>>,
    spool: Arc<Spool>,
}

impl ReportHandle {
    /// Delivers what is queued within `timeout`, spools the rest, and waits for that.
    pub async fn flush_and_stop(mut self, timeout: Duration) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(timeout);
        }
        if let Some(done) = self.done.take() {
            let _ = done.await;
        }
    }

    /// Records waiting in the spool.
    pub fn spool_depth(&self) -> usize {
        self.spool.depth()
    }

    /// Keeps `gauge` set to the spool depth from now on.
    pub fn attach_spool_gauge(&self, gauge: IntGauge) {
        let _ = self.spool.gauge.set(gauge);
        self.spool.refresh();
    }
}

/// Starts the reporter on the current runtime.
pub fn start(
    channel: Channel,
    auth: Auth,
    gateway_id: String,
    spool: Spool,
    capacity: usize,
) -> (ReportSink, ReportHandle) {
    let (queue, rx) = mpsc::channel(capacity.max(1));
    let spool = Arc::new(spool);
    // Records spooled by an earlier run are spent until the control plane reflects them.
    let carry = Arc::new(Carry::default());
    for r in spool.peek() {
        carry.charged(&r.request_id, r.user_id, r.token_id, r.quota);
    }
    let (stop_tx, stop_rx) = oneshot::channel();
    let (done_tx, done_rx) = oneshot::channel();
    let client = UsageServiceClient::with_interceptor(channel, auth);
    let reporter = Reporter {
        client,
        gateway_id,
        spool: spool.clone(),
        carry: carry.clone(),
        next_batch: 1,
        stream: None,
    };
    tokio::spawn(async move {
        reporter.run(rx, stop_rx).await;
        let _ = done_tx.send(());
    });
    (
        ReportSink {
            queue,
            spool: spool.clone(),
            carry,
        },
        ReportHandle {
            stop: Some(stop_tx),
            done: Some(done_rx),
            spool,
        },
    )
}

/// An open Report stream: batches go in, acks come out.
struct Open {
    tx: mpsc::Sender<pb::ReportBatch>,
    acks: tonic::Streaming<pb::ReportAck>,
}

struct Reporter {
    client: Client,
    gateway_id: String,
    spool: Arc<Spool>,
    carry: Arc<Carry>,
    next_batch: u64,
    stream: Option<Open>,
}

impl Reporter {
    async fn run(
        mut self,
        mut rx: mpsc::Receiver<UsageRecord>,
        mut stop: oneshot::Receiver<Duration>,
    ) {
        let mut backoff = Backoff::new();
        let mut healthy = true;
        // The spool left by an earlier run is replayed right after start.
        let mut first = true;
        loop {
            // Gather a batch: wait for the first record, then linger for more.
            let mut batch = Vec::new();
            let wait = if std::mem::take(&mut first) {
                Duration::ZERO
            } else if healthy {
                LINGER * 25
            } else {
                backoff.next_wait()
            };
            tokio::select! {
                r = rx.recv() => match r {
                    Some(r) => batch.push(r),
                    None => return,
                },
                t = &mut stop => {
                    self.shutdown(rx, t.unwrap_or(Duration::ZERO)).await;
                    return;
                }
                _ = tokio::time::sleep(wait) => {}
            }
            if !batch.is_empty() {
                let deadline = tokio::time::Instant::now() + LINGER;
                while batch.len() < BATCH {
                    match tokio::time::timeout_at(deadline, rx.recv()).await {
                        Ok(Some(r)) => batch.push(r),
                        _ => break,
                    }
                }
            }
            // Spooled records go first once the control plane answers.
            if let Err(err) = self.replay_spool().await {
                if healthy {
                    tracing::warn!(error = %err, "usage reporting paused; spooling to disk");
                }
                healthy = false;
                self.spool_or_log(&batch);
                continue;
            }
            if batch.is_empty() {
                healthy = true;
                backoff.reset();
                continue;
            }
            match self.send(&batch).await {
                Ok(()) => {
                    if !healthy {
                        tracing::info!("usage reporting resumed");
                    }
                    healthy = true;
                    backoff.reset();
                }
                Err(err) => {
                    if healthy {
                        tracing::warn!(error = %err, "usage reporting paused; spooling to disk");
                    }
                    healthy = false;
                    self.spool_or_log(&batch);
                }
            }
        }
    }

    fn spool_or_log(&self, batch: &[UsageRecord]) {
        if let Err(err) = self.spool.append(batch) {
            tracing::error!(error = %err, records = batch.len(), "usage records lost");
        }
    }

    /// Sends spooled records, oldest first; the spool file goes once all are acknowledged.
    async fn replay_spool(&mut self) -> Result<(), ReportError> {
        let Some((records, taken)) = self.spool.take()? else {
            return Ok(());
        };
        for chunk in records.chunks(BATCH) {
            self.send(chunk).await?;
        }
        std::fs::remove_file(&taken).map_err(|source| ReportError::Spool {
            path: taken.display().to_string(),
            source,
        })?;
        self.spool.refresh();
        if !records.is_empty() {
            tracing::info!(records = records.len(), "spooled usage delivered");
        }
        Ok(())
    }

    /// Sends one batch and waits for its ack (reopening the stream when needed).
    async fn send(&mut self, records: &[UsageRecord]) -> Result<(), ReportError> {
        let batch_id = self.next_batch;
        self.next_batch += 1;
        let batch = pb::ReportBatch {
            batch_id,
            gateway_id: self.gateway_id.clone(),
            records: records.iter().cloned().map(to_wire).collect(),
        };
        match self.send_on_stream(batch).await {
            Ok(ack) => {
                let ids = records.iter().map(|r| r.request_id.as_str());
                self.carry.acknowledged(ack.config_version, ids);
                Ok(())
            }
            Err(err) => {
                self.stream = None;
                Err(err)
            }
        }
    }

    async fn send_on_stream(
        &mut self,
        batch: pb::ReportBatch,
    ) -> Result<pb::ReportAck, ReportError> {
        if self.stream.is_none() {
            let (tx, rx) = mpsc::channel(4);
            let acks = self
                .client
                .report(tokio_stream::wrappers::ReceiverStream::new(rx))
                .await?
                .into_inner();
            self.stream = Some(Open { tx, acks });
        }
        let Some(open) = self.stream.as_mut() else {
            return Err(ReportError::NoAck(batch.batch_id));
        };
        let id = batch.batch_id;
        if open.tx.send(batch).await.is_err() {
            return Err(ReportError::NoAck(id));
        }
        loop {
            match tokio::time::timeout(ACK_TIMEOUT, open.acks.message()).await {
                Ok(Ok(Some(ack))) if ack.batch_id == id => return Ok(ack),
                // An ack of an earlier batch whose wait timed out: skip it.
                Ok(Ok(Some(_))) => continue,
                Ok(Ok(None)) | Err(_) => return Err(ReportError::NoAck(id)),
                Ok(Err(status)) => return Err(status.into()),
            }
        }
    }

    /// Delivers the queue within `timeout`; whatever is left goes to the spool.
    async fn shutdown(mut self, mut rx: mpsc::Receiver<UsageRecord>, timeout: Duration) {
        rx.close();
        let mut rest = Vec::new();
        while let Some(r) = rx.recv().await {
            rest.push(r);
        }
        let deadline = tokio::time::Instant::now() + timeout;
        let mut sent = 0;
        for chunk in rest.chunks(BATCH) {
            match tokio::time::timeout_at(deadline, self.send(chunk)).await {
                Ok(Ok(())) => sent += chunk.len(),
                _ => break,
            }
        }
        self.spool_or_log(&rest[sent..]);
        tracing::info!(
            delivered = sent,
            spooled = rest.len() - sent,
            "usage queue flushed"
        );
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn spool_keeps_records_until_taken_and_new_ones_after() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::open(dir.path()).unwrap();
        assert!(spool.take().unwrap().is_none());
        let rec = |id: &str| UsageRecord {
            request_id: id.into(),
            quota: 3,
            ..Default::default()
        };
        spool.append(&[rec("a"), rec("b")]).unwrap();
        assert_eq!(spool.depth(), 2);
        let (records, taken) = spool.take().unwrap().unwrap();
        assert_eq!(records.len(), 2);
        spool.append(&[rec("c")]).unwrap();
        // Until the taken file is removed (acked), taking again re-reads it.
        let (again, _) = spool.take().unwrap().unwrap();
        assert_eq!(again[1].request_id, "b");
        std::fs::remove_file(taken).unwrap();
        let (next, _) = spool.take().unwrap().unwrap();
        assert_eq!(next.len(), 1);
        assert_eq!(next[0].request_id, "c");
    }
}
