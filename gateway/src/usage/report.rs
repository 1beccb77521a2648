//! The control-plane usage sink, write-ahead: every record goes from the request path
//! through a bounded queue to the spool writer, which appends it to the on-disk spool with
//! one fsync per group ([`super::writer`], [`super::spool`]). The reporter reads durable
//! records back in batches, sends them on the `usage.v1.UsageService.Report` stream and
//! releases them from the spool once acknowledged; a restart resumes from the spool.
//!
//! A SIGKILL loses at most the records accepted but not yet synced: those of the group
//! being committed (records of the last [`COMMIT_EVERY`] plus one fsync), never more than
//! the queue capacity (`--usage-queue`). Records the gateway cannot keep (queue full, spool
//! bound, disk errors) are counted in `gateway_usage_records_dropped_total{reason}`; client
//! requests never wait for the disk or the control plane.

use std::sync::Arc;
use std::time::Duration;

use prometheus::{IntCounterVec, IntGauge};
use proto::usage::v1 as pb;
use proto::usage::v1::usage_service_client::UsageServiceClient;
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::time::Instant;
use tonic::codegen::InterceptedService;
use tonic::transport::Channel;

use super::drops::{DropReason, Drops};
use super::spool::Batch;
pub use super::spool::{Spool, SpoolError};
pub use super::writer::COMMIT_EVERY;
use super::writer::{self, Queue, WriterHandle};
use super::{UsageRecord, UsageSink};
use crate::billing::Carry;
use crate::billing::carry::RecordKey;
use crate::config::watch::{Auth, Backoff};

/// Most records in one batch. The control plane's cost is largely per batch (a transaction,
/// its options, the config version, a config push): with 500, one gateway at 27 k req/s
/// outran it by 14 k records a second in the bench (its core shared with the load), while
/// with 2 000 it kept up. Its ingest bench on SQLite measured about 2.8 ms a batch besides
/// the records (commit, fsync, statements, context switches): 1.4 µs a record at 2 000,
/// 0.7 µs at 4 000. Under load a batch leaves at 4 000 records or after [`LINGER`].
const BATCH: usize = 4000;
/// About the most bytes of spooled lines in one batch: a full batch of typical records (about
/// 450 bytes a line) fits, one of records with long logged texts is cut short. (The control
/// plane accepts messages up to 256 MiB; a record's wire form is smaller than its JSON line.)
const BATCH_BYTES: u64 = 4 << 20;
/// How long a partial batch waits for more records.
const LINGER: Duration = Duration::from_millis(200);
/// How long an ack may take before the stream is reopened and the batch sent again.
const ACK_TIMEOUT: Duration = Duration::from_secs(10);
/// After the deadline of `flush_and_stop`, how long the reporter gets to notice it.
const STOP_GRACE: Duration = Duration::from_secs(1);

/// Problems delivering usage.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("control plane: {0}")]
    Rpc(#[from] tonic::Status),
    #[error("no ack for batch {0}")]
    NoAck(u64),
    #[error(transparent)]
    Spool(#[from] SpoolError),
    #[error("spool task: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// A spool record in wire form, as the reporter sends it.
pub fn to_wire(r: UsageRecord) -> pb::UsageRecord {
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
        ip: r.ip,
        channel_failures: r
            .channel_failures
            .into_iter()
            .map(|f| pb::ChannelFailure {
                channel_id: f.channel_id,
                key_index: f.key_index,
                status: u32::from(f.status),
                message: f.message,
            })
            .collect(),
        task: r.task.map(|t| pb::TaskSubmit {
            platform: t.platform,
            task_id: t.task_id,
            action: t.action,
            prompt: t.prompt,
            code: i32::try_from(t.code).unwrap_or(0),
            description: t.description,
            properties: t.properties,
        }),
    }
}

type Client = UsageServiceClient<InterceptedService<Channel, Auth>>;

/// The sink handed to the relay: a non-blocking push into the bounded queue of the spool
/// writer (no file I/O, no lock held across I/O).
pub struct ReportSink {
    queue: Queue,
    carry: Arc<Carry>,
}

impl ReportSink {
    /// Charges `record` to the carry and queues it for the spool; `Err` (counted) when it
    /// had to be dropped because the queue is full or the writer stopped.
    pub fn offer(&self, record: UsageRecord) -> Result<(), DropReason> {
        let r = &record;
        self.carry
            .charged(&r.request_id, r.user_id, r.token_id, r.quota);
        self.queue.push(record)
    }

    /// Records accepted and not yet durable.
    pub fn unsynced(&self) -> usize {
        self.queue.pending()
    }
}

impl UsageSink for ReportSink {
    fn carry(&self) -> Option<Arc<Carry>> {
        Some(self.carry.clone())
    }

    fn record(&self, record: UsageRecord) {
        let _ = self.offer(record);
    }
}

/// Stops the reporter: the queue goes to the spool, then the spool to the control plane.
pub struct ReportHandle {
    writer: WriterHandle,
    stop: Option<oneshot::Sender<Instant>>,
    done: Option<oneshot::Receiver<()>>,
    spool: Arc<Spool>,
}

impl ReportHandle {
    /// Writes what is queued to the spool, then delivers what the spool holds within
    /// `timeout`; the rest stays on disk for the next start.
    pub async fn flush_and_stop(mut self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        self.writer.stop(deadline).await;
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(deadline);
        }
        if let Some(done) = self.done.take()
            && tokio::time::timeout_at(deadline + STOP_GRACE, done)
                .await
                .is_err()
        {
            tracing::warn!("usage reporter still busy at the deadline; the spool keeps the rest");
        }
    }

    /// Records waiting in the spool (durable, not yet acknowledged).
    pub fn spool_depth(&self) -> usize {
        self.spool.depth()
    }

    /// Records dropped so far, by reason.
    pub fn drops(&self) -> &Arc<Drops> {
        self.spool.drops()
    }

    /// Keeps `gauge` set to the spool depth from now on.
    pub fn attach_spool_gauge(&self, gauge: IntGauge) {
        self.spool.attach_gauge(gauge);
    }

    /// Counts dropped records in `counter` (label `reason`) from now on, and those so far.
    pub fn attach_drop_counter(&self, counter: IntCounterVec) {
        self.spool.drops().attach(counter);
    }
}

/// Starts the spool writer and the reporter (on the current runtime). At most `capacity`
/// records wait in memory for the disk.
pub fn start(
    channel: Channel,
    auth: Auth,
    gateway_id: String,
    spool: Spool,
    capacity: usize,
) -> (ReportSink, ReportHandle) {
    let spool = Arc::new(spool);
    // Records spooled by an earlier run are spent until the control plane reflects them.
    let carry = Arc::new(Carry::default());
    let charged = spool.for_each_pending(|r| {
        carry.charged(&r.request_id, r.user_id, r.token_id, r.quota);
    });
    if let Err(err) = charged {
        tracing::error!(error = %err, "cannot read the usage spool at start");
    }
    let wake = Arc::new(Notify::new());
    let (queue, writer) = writer::spawn(
        spool.clone(),
        capacity,
        wake.clone(),
        crate::sched::governor(),
    );
    let (stop_tx, stop_rx) = oneshot::channel();
    let (done_tx, done_rx) = oneshot::channel();
    let reporter = Reporter {
        client: UsageServiceClient::with_interceptor(channel, auth),
        gateway_id,
        spool: spool.clone(),
        carry: carry.clone(),
        wake,
        next_batch: 1,
        stream: None,
    };
    tokio::spawn(async move {
        reporter.run(stop_rx).await;
        let _ = done_tx.send(());
    });
    (
        ReportSink { queue, carry },
        ReportHandle {
            writer,
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
    /// Notified by the spool writer after every group.
    wake: Arc<Notify>,
    next_batch: u64,
    stream: Option<Open>,
}

impl Reporter {
    async fn run(mut self, mut stop: oneshot::Receiver<Instant>) {
        let mut backoff = Backoff::new();
        let mut healthy = true;
        // When the last batch left: under load the next one leaves full or a LINGER later,
        // not as soon as the previous ack is in (a round trip's few records a batch, each
        // with the control plane's whole cost of a transaction).
        let mut last_batch: Option<Instant> = None;
        loop {
            if let Some(sent) = last_batch.filter(|_| healthy)
                && let Err(deadline) = self.linger(sent + LINGER, &mut stop).await
            {
                return self.shutdown(deadline).await;
            }
            // The spool left by an earlier run goes first, right after start.
            let outcome = match self.read().await {
                Ok(Some(batch)) => {
                    last_batch = Some(Instant::now());
                    tokio::select! {
                        r = self.deliver(batch) => r,
                        d = &mut stop => {
                            // The batch in flight stays in the spool: sent again on a new stream.
                            self.stream = None;
                            return self.shutdown(d.ok()).await;
                        }
                    }
                }
                Ok(None) => {
                    last_batch = None;
                    tokio::select! {
                        () = self.wake.notified() => {}
                        d = &mut stop => return self.shutdown(d.ok()).await,
                    }
                    // A partial batch lingers for more records.
                    if healthy
                        && let Err(deadline) = self.linger(Instant::now() + LINGER, &mut stop).await
                    {
                        return self.shutdown(deadline).await;
                    }
                    continue;
                }
                Err(err) => Err(err),
            };
            match outcome {
                Ok(_) => {
                    if !healthy {
                        tracing::info!("usage reporting resumed");
                    }
                    healthy = true;
                    backoff.reset();
                }
                Err(err) => {
                    if healthy {
                        tracing::warn!(error = %err, "usage reporting paused; records stay in the spool");
                    }
                    healthy = false;
                    tokio::select! {
                        () = tokio::time::sleep(backoff.next_wait()) => {}
                        d = &mut stop => return self.shutdown(d.ok()).await,
                    }
                }
            }
        }
    }

    /// Waits until a full batch is spooled or `deadline` passed; `Err` with the stop's deadline
    /// when asked to stop meanwhile.
    async fn linger(
        &self,
        deadline: Instant,
        stop: &mut oneshot::Receiver<Instant>,
    ) -> Result<(), Option<Instant>> {
        while self.spool.depth() < BATCH {
            tokio::select! {
                () = self.wake.notified() => {}
                () = tokio::time::sleep_until(deadline) => break,
                d = &mut *stop => return Err(d.ok()),
            }
        }
        Ok(())
    }

    /// The oldest durable records not yet acknowledged.
    async fn read(&self) -> Result<Option<Batch>, ReportError> {
        let spool = self.spool.clone();
        Ok(tokio::task::spawn_blocking(move || spool.read_batch(BATCH, BATCH_BYTES)).await??)
    }

    /// Sends `batch` and, once acknowledged, releases it from the spool; returns the
    /// records delivered.
    async fn deliver(&mut self, mut batch: Batch) -> Result<usize, ReportError> {
        let records = batch.take_records();
        let n = records.len();
        if n > 0 {
            self.send(records).await?;
        }
        let spool = self.spool.clone();
        tokio::task::spawn_blocking(move || spool.ack(&batch)).await?;
        Ok(n)
    }

    /// Sends one batch and waits for its ack (reopening the stream when needed). A batch
    /// that fails is read from the spool again.
    async fn send(&mut self, records: Vec<UsageRecord>) -> Result<(), ReportError> {
        let batch_id = self.next_batch;
        self.next_batch += 1;
        let keys: Vec<RecordKey> = records
            .iter()
            .map(|r| RecordKey::of(&r.request_id))
            .collect();
        let batch = pb::ReportBatch {
            batch_id,
            gateway_id: self.gateway_id.clone(),
            records: records.into_iter().map(to_wire).collect(),
        };
        match self.send_on_stream(batch).await {
            Ok(ack) => {
                self.carry.acknowledged_keys(ack.config_version, keys);
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

    /// Delivers what the spool holds until `deadline`, it is empty or the control plane
    /// fails; the rest stays on disk.
    async fn shutdown(mut self, deadline: Option<Instant>) {
        let deadline = deadline.unwrap_or_else(Instant::now);
        let mut delivered = 0;
        loop {
            let step = async {
                match self.read().await? {
                    Some(batch) => self.deliver(batch).await.map(Some),
                    None => Ok(None),
                }
            };
            match tokio::time::timeout_at(deadline, step).await {
                Ok(Ok(Some(n))) => delivered += n,
                Ok(Ok(None)) | Err(_) => break,
                Ok(Err(err)) => {
                    tracing::warn!(error = %err, "usage delivery stopped");
                    break;
                }
            }
        }
        tracing::info!(
            delivered,
            spooled = self.spool.depth(),
            "usage reporter stopped"
        );
    }
}
