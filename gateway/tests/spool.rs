//! The usage reporter's write-ahead spool, end to end: delivery to a fake control plane,
//! restart from the spool, and the records a SIGKILL under load can lose (a child process,
//! this test binary run again, pushes records until it is killed).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::Path;
use std::pin::Pin;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gateway::config::watch::Auth;
use gateway::usage::UsageRecord;
use gateway::usage::UsageSink;
use gateway::usage::report::{self, COMMIT_EVERY, ReportHandle, ReportSink, Spool};
use proto::usage::v1 as pb;
use proto::usage::v1::usage_service_server::{UsageService, UsageServiceServer};
use tonic::codegen::tokio_stream::Stream;
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Response, Status, Streaming};

/// Set in the child process: the spool folder, the control plane URL and how to push.
const CHILD_ENV: &str = "GATEWAY_SPOOL_TEST_CHILD";
/// The child's queue capacity (`--usage-queue`): the stated bound on what a SIGKILL loses.
const QUEUE: usize = 5_000;

/// A control plane that acknowledges every batch and remembers the request ids.
#[derive(Clone, Default)]
struct FakeControlPlane {
    ids: Arc<Mutex<HashSet<String>>>,
}

type AckStream = Pin<Box<dyn Stream<Item = Result<pb::ReportAck, Status>> + Send>>;

#[tonic::async_trait]
impl UsageService for FakeControlPlane {
    type ReportStream = AckStream;

    async fn report(
        &self,
        request: Request<Streaming<pb::ReportBatch>>,
    ) -> Result<Response<AckStream>, Status> {
        let ids = self.ids.clone();
        let mut batches = request.into_inner();
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        tokio::spawn(async move {
            while let Ok(Some(batch)) = batches.message().await {
                let inserted = {
                    let mut ids = ids.lock().unwrap();
                    batch
                        .records
                        .iter()
                        .filter(|r| ids.insert(r.request_id.clone()))
                        .count()
                };
                let ack = pb::ReportAck {
                    batch_id: batch.batch_id,
                    inserted: inserted as u32,
                    duplicates: (batch.records.len() - inserted) as u32,
                    config_version: 1,
                    rejected: Vec::new(),
                };
                if tx.send(Ok(ack)).await.is_err() {
                    return;
                }
            }
        });
        Ok(Response::new(Box::pin(
            tonic::codegen::tokio_stream::wrappers::ReceiverStream::new(rx),
        )))
    }

    /// The spool never asks for tasks.
    async fn fetch_tasks(
        &self,
        _request: Request<pb::FetchTasksRequest>,
    ) -> Result<Response<pb::FetchTasksResponse>, Status> {
        Err(Status::unimplemented("no tasks here"))
    }
}

impl FakeControlPlane {
    /// Serves on a loopback port; returns its URL.
    async fn serve(&self) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let service = UsageServiceServer::new(self.clone());
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener)),
        );
        url
    }

    fn ids(&self) -> HashSet<String> {
        self.ids.lock().unwrap().clone()
    }
}

/// A URL where nothing listens.
const NOWHERE: &str = "http://127.0.0.1:1";

fn channel(url: &str) -> Channel {
    Endpoint::from_shared(url.to_owned())
        .unwrap()
        .connect_lazy()
}

fn start(url: &str, dir: &Path, queue: usize) -> (ReportSink, ReportHandle) {
    let spool = Spool::open(dir).unwrap();
    report::start(
        channel(url),
        Auth::new(None),
        "gw-spool-test".into(),
        spool,
        queue,
    )
}

fn record(i: u64) -> UsageRecord {
    UsageRecord {
        request_id: format!("k{i}"),
        kind: gateway::usage::LOG_CONSUME,
        user_id: 1,
        token_id: 2,
        model_name: "gpt-4o-mini".into(),
        prompt_tokens: 120,
        completion_tokens: 80,
        quota: 150,
        status: 200,
        other: r#"{"model_ratio":0.075,"completion_ratio":4,"group_ratio":1,"frt":312,"channels_tried":[3]}"#.into(),
        ..Default::default()
    }
}

fn spooled_ids(dir: &Path) -> HashSet<String> {
    let spool = Spool::open(dir).unwrap();
    let mut ids = HashSet::new();
    spool
        .for_each_pending(|r| {
            ids.insert(r.request_id);
        })
        .unwrap();
    ids
}

async fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..1000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_reach_the_control_plane_and_leave_the_spool() {
    let cp = FakeControlPlane::default();
    let url = cp.serve().await;
    let dir = tempfile::tempdir().unwrap();
    let (sink, handle) = start(&url, dir.path(), 10_000);
    for i in 0..3000 {
        sink.record(record(i));
    }
    wait_for("every record acknowledged", || cp.ids().len() == 3000).await;
    handle.flush_and_stop(Duration::from_secs(10)).await;
    assert_eq!(spooled_ids(dir.path()).len(), 0);
    let len = std::fs::metadata(dir.path().join("usage-spool.jsonl"))
        .unwrap()
        .len();
    assert_eq!(len, 0, "acknowledged records are released from the file");
    assert!(!dir.path().join("usage-spool.replaying").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_delivers_what_an_outage_left_in_the_spool() {
    let dir = tempfile::tempdir().unwrap();
    let (sink, handle) = start(NOWHERE, dir.path(), 10_000);
    for i in 0..1000 {
        sink.record(record(i));
    }
    handle.flush_and_stop(Duration::from_secs(2)).await;
    assert_eq!(spooled_ids(dir.path()).len(), 1000);

    let cp = FakeControlPlane::default();
    let url = cp.serve().await;
    let (sink, handle) = start(&url, dir.path(), 10_000);
    // Spooled records are spent until the control plane reflects them.
    let carry = sink.carry().unwrap();
    assert_eq!(carry.unreflected(), 1000);
    assert_eq!(carry.user_total(1), 1000 * 150);
    wait_for("the spool delivered", || cp.ids().len() == 1000).await;
    wait_for("the spool emptied", || handle.spool_depth() == 0).await;
    handle.flush_and_stop(Duration::from_secs(10)).await;
    assert!(spooled_ids(dir.path()).is_empty());
}

/// The child process: reports records as fast as told until it is killed, printing
/// `accepted N` once `record` has taken record N (and `dropped N` when it did not).
#[test]
fn spool_child_process() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let mut parts = spec.splitn(3, ' ');
    let (dir, url, pace) = (
        parts.next().unwrap().to_owned(),
        parts.next().unwrap().to_owned(),
        parts.next().unwrap().parse::<u64>().unwrap(),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let _guard = rt.enter();
    let (sink, _handle) = start(&url, Path::new(&dir), QUEUE);
    let mut out = std::io::stdout().lock();
    for i in 0u64.. {
        let taken = sink.offer(record(i)).is_ok();
        writeln!(out, "{} {i}", if taken { "accepted" } else { "dropped" }).unwrap();
        // `pace` records per millisecond (0: as fast as possible).
        if pace > 0 && i % pace == pace - 1 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

struct Killed {
    accepted: Vec<String>,
    dropped: usize,
}

/// Runs the child against `url`, kills it (SIGKILL) once it has had `kill_after` records
/// accepted, and returns what it reported.
fn run_child_and_kill(dir: &Path, url: &str, pace: u64, kill_after: usize) -> Killed {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args(["--exact", "spool_child_process", "--nocapture"])
        .env(CHILD_ENV, format!("{} {url} {pace}", dir.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut killed = Killed {
        accepted: Vec::new(),
        dropped: 0,
    };
    let mut kill = Some(child);
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(i) = line.strip_prefix("accepted ") {
            killed.accepted.push(format!("k{i}"));
        } else if line.starts_with("dropped ") {
            killed.dropped += 1;
        }
        if killed.accepted.len() == kill_after
            && let Some(mut child) = kill.take()
        {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }
    assert!(kill.is_none(), "the child ended before it was killed");
    killed
}

/// Kills a child under load and checks what it had accepted against what is durable: in
/// the spool, or acknowledged by the control plane.
async fn sigkill_loses_at_most_the_unsynced(cp: Option<&FakeControlPlane>, pace: u64) {
    let url = match cp {
        Some(cp) => cp.serve().await,
        None => NOWHERE.to_owned(),
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_owned();
    let killed = tokio::task::spawn_blocking(move || run_child_and_kill(&path, &url, pace, 60_000))
        .await
        .unwrap();
    let spooled = spooled_ids(dir.path());
    let acked = cp.map(FakeControlPlane::ids).unwrap_or_default();
    let lost = killed
        .accepted
        .iter()
        .filter(|id| !spooled.contains(*id) && !acked.contains(*id))
        .count();
    eprintln!(
        "SIGKILL under load (pace {}): accepted {}, dropped (queue full) {}, durable: spooled {} + acknowledged {}; lost {lost} (bound: queue {QUEUE}; commit interval {COMMIT_EVERY:?})",
        if pace == 0 {
            "unthrottled".to_owned()
        } else {
            format!("{pace}/ms")
        },
        killed.accepted.len(),
        killed.dropped,
        spooled.len(),
        acked.len(),
    );
    assert!(lost <= QUEUE, "lost {lost} records, more than {QUEUE}");
    assert!(!spooled.is_empty() || !acked.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_while_reporting_loses_at_most_the_unsynced_records() {
    let cp = FakeControlPlane::default();
    // About 20 000 records a second, delivered as they go.
    sigkill_loses_at_most_the_unsynced(Some(&cp), 20).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_flat_out_without_a_control_plane_loses_at_most_the_queue() {
    sigkill_loses_at_most_the_unsynced(None, 0).await;
}
