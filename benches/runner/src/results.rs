//! What a run records: one entry per measured point (every repetition kept), the machine and
//! the targets, saved as JSON next to the report and read back by `--render`.

use serde::{Deserialize, Deserializer, Serialize};

use crate::budget_calls::BudgetCalls;
use crate::stats::median;
use crate::streams::Streams;
use crate::targets::{Kind, Workload};

/// One repetition of one point.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    pub requests: u64,
    pub errors: u64,
    pub rps: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// CPU time of the measured process tree / completed requests.
    pub cpu_us_per_req: f64,
    /// The control plane's CPU per request (gateway only: usage ingest, config feed).
    pub control_plane_us_per_req: Option<f64>,
    /// The mock's CPU per request (the load core's share).
    pub mock_us_per_req: f64,
    pub peak_rss_kib: u64,
    /// 1-minute load average at the end of the run.
    pub load_avg: f64,
    /// The gateway's fleet-budget calls to Redis during the run (gateway targets with an
    /// admin port; `None` for the others).
    pub budget_calls: Option<BudgetCalls>,
    /// Share of the run's wall time the hypervisor took from the busier of the target's and the
    /// load generator's CPUs (steal time, in %). `None` where the kernel reports none (and in
    /// results saved before it was recorded).
    #[serde(default)]
    pub steal_pct: Option<f64>,
}

/// A load point (target × workload × concurrency or rate), repeated.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Point {
    pub target: Kind,
    #[serde(deserialize_with = "workload_label")]
    pub workload: Label,
    /// Connections (closed loop) or the most oha may use (open loop).
    pub conns: usize,
    /// Requests/s asked for (open loop only).
    pub rate: Option<u64>,
    pub runs: Vec<Run>,
}

impl Point {
    /// Median over the repetitions of one figure.
    pub fn med(&self, f: impl Fn(&Run) -> f64) -> f64 {
        median(self.runs.iter().map(f))
    }

    /// Smallest and largest value of one figure over the repetitions.
    pub fn range(&self, f: impl Fn(&Run) -> f64) -> (f64, f64) {
        self.runs
            .iter()
            .map(f)
            .fold((f64::NAN, f64::NAN), |(lo, hi), x| (lo.min(x), hi.max(x)))
    }
}

/// A workload's label. Named so that serde does not take the field for data borrowed from the
/// input (it does so for a written-out `&str`), which a `'static` label cannot be.
pub type Label = &'static str;

/// A workload's label read back from a results file, as the label the runner writes.
fn workload_label<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let label = String::deserialize(d)?;
    Workload::label_of(&label)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown workload {label:?}")))
}

/// The run number of a streams point recorded before streams were repeated.
fn first_run() -> usize {
    1
}

/// Memory held per in-flight request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InFlight {
    pub target: Kind,
    pub conns: usize,
    pub idle_rss_kib: u64,
    pub peak_rss_kib: u64,
    pub requests: u64,
    pub errors: u64,
    pub load_avg: f64,
}

impl InFlight {
    pub fn kib_per_request(&self) -> f64 {
        self.peak_rss_kib.saturating_sub(self.idle_rss_kib) as f64 / self.conns as f64
    }
}

/// Many paced streams held open at once.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StreamsPoint {
    pub target: Kind,
    /// Which repetition (from 1); the targets take turns within each. Files written before
    /// streams were repeated hold one run and no number.
    #[serde(default = "first_run")]
    pub run: usize,
    pub idle_rss_kib: u64,
    pub peak_rss_kib: u64,
    /// CPU time of the measured process over the whole run, in seconds.
    pub cpu_seconds: f64,
    pub streams: Streams,
    pub load_avg: f64,
    /// The gateway's fleet-budget calls to Redis over the run (`None` for other targets).
    pub budget_calls: Option<BudgetCalls>,
}

impl StreamsPoint {
    pub fn kib_per_stream(&self) -> f64 {
        self.peak_rss_kib.saturating_sub(self.idle_rss_kib) as f64
            / self.streams.peak_open.max(1) as f64
    }
}

/// A target's memory at rest: ready, before any request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IdleRss {
    pub target: Kind,
    pub rss_kib: u64,
    /// From process start to ready (gateway: first snapshot loaded), in seconds.
    pub ready_seconds: Option<f64>,
}

/// The gateway with many tokens: its setup, memory, throughput beside the plain gateway's,
/// with balance churn, and how fast a new token reaches it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Scale {
    /// Tokens created in its control plane besides the benchmark's own.
    pub tokens: usize,
    /// Creating them through the REST API: seconds, calls, client threads.
    pub setup_seconds: f64,
    pub setup_calls: usize,
    pub setup_threads: usize,
    /// From starting the gateway to its first snapshot (with the tokens) loaded.
    pub ready_seconds: f64,
    pub idle_rss_kib: u64,
    /// The plain gateway's idle RSS in the same run (idle scenario), when measured.
    pub plain_idle_rss_kib: Option<u64>,
    /// Created tokens (a random sample) that the gateway answered 200, of those tried.
    pub keys_verified: usize,
    pub keys_tried: usize,
    /// Closed-loop non-stream rows: plain gateway, many tokens, many tokens with churn.
    pub points: Vec<ScalePoint>,
    pub churn: Option<Churn>,
    pub propagation: Option<Propagation>,
}

/// Requests spread over many users, beside the plain gateway's one user.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Users {
    /// Users created in its control plane, one unlimited token each.
    pub users: usize,
    /// Creating them through the REST API (a user, a sign-in and a token each): seconds, client
    /// threads.
    pub setup_seconds: f64,
    pub setup_threads: usize,
    /// From starting the gateway to its first snapshot loaded.
    pub ready_seconds: f64,
    /// Seeded keys answered 200 through the gateway (every one is tried).
    pub keys_verified: usize,
    /// Closed-loop non-stream rows: the plain gateway (one user), then requests over the users.
    pub points: Vec<ScalePoint>,
}

/// One closed-loop row of the scale table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScalePoint {
    pub label: String,
    pub tokens: usize,
    pub churn: bool,
    pub conns: usize,
    pub runs: Vec<Run>,
}

impl ScalePoint {
    pub fn med(&self, f: impl Fn(&Run) -> f64) -> f64 {
        median(self.runs.iter().map(f))
    }
}

/// Balance edits made through the REST API while the gateway was loaded.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Churn {
    /// Edits a second asked for.
    pub rate: f64,
    pub token_edits: u64,
    pub user_edits: u64,
    pub failed: u64,
    pub seconds: f64,
    /// Median time of one edit call, ms.
    pub call_p50_ms: f64,
}

impl Churn {
    pub fn done_per_second(&self) -> f64 {
        (self.token_edits + self.user_edits) as f64 / self.seconds.max(1e-9)
    }
}

/// New tokens created through the REST API until the gateway accepts them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Propagation {
    pub samples: usize,
    /// Waited before the first sample for the control plane and the gateway to go quiet
    /// (usage of the load before ingested), in seconds.
    pub quiet_after_seconds: f64,
    /// False when they were still busy at the end of the wait.
    pub quiet: bool,
    /// Samples the gateway never accepted within the time limit.
    pub failed: usize,
    pub poll_ms: f64,
    /// From before the `POST /api/token/` to the first 200 through the gateway.
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// The `POST /api/token/` call alone.
    pub api_p50_ms: f64,
    pub api_p99_ms: f64,
    /// From the API's answer to the first 200.
    pub after_api_p50_ms: f64,
    pub after_api_p99_ms: f64,
}

/// A target that was measured, or why it was not.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetInfo {
    pub target: Kind,
    pub version: String,
    pub skipped: Option<String>,
}

/// Settings of the run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Settings {
    pub quick: bool,
    pub seconds: u64,
    pub runs: usize,
    pub concurrency: Vec<usize>,
    pub rate: u64,
    pub in_flight: usize,
    pub streams: usize,
    /// New streams opened per second (recorded since 2026-12-04; 5 000 before).
    #[serde(default = "five_thousand")]
    pub streams_per_second: usize,
    pub stream_chunks: u32,
    pub stream_delay_ms: u32,
    pub target_cpu: usize,
    pub load_cpu: usize,
    /// The most steal time (% of a CPU) an open-loop round may see and count as quiet
    /// (`--max-steal-pct`; `None` in results saved before it was recorded: every round counts).
    #[serde(default)]
    pub max_steal_pct: Option<f64>,
}

/// The streams scenario's opening rate before it was a setting.
fn five_thousand() -> usize {
    5000
}

/// Everything a run produced. Scenarios added after a file was written read as not measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Results {
    pub started_utc: String,
    pub finished_utc: String,
    pub machine: Vec<(String, String)>,
    pub settings: Settings,
    pub targets: Vec<TargetInfo>,
    #[serde(default)]
    pub notes: Vec<String>,
    pub closed: Vec<Point>,
    pub open: Vec<Point>,
    #[serde(default)]
    pub in_flight: Vec<InFlight>,
    #[serde(default)]
    pub streams: Vec<StreamsPoint>,
    #[serde(default)]
    pub idle: Vec<IdleRss>,
    #[serde(default)]
    pub body16k: Vec<Point>,
    pub scale: Option<Scale>,
    pub users: Option<Users>,
}

impl Results {
    /// A quick run's settings and nothing measured yet (the report's tests fill in points).
    #[cfg(test)]
    pub fn empty_quick_run() -> Results {
        Results {
            started_utc: "2026-11-29T00:00:00Z".into(),
            finished_utc: String::new(),
            machine: vec![],
            settings: Settings {
                quick: true,
                seconds: 2,
                runs: 1,
                concurrency: vec![50],
                rate: 5000,
                in_flight: 1000,
                streams: 1000,
                streams_per_second: 5000,
                stream_chunks: 6,
                stream_delay_ms: 500,
                target_cpu: 1,
                load_cpu: 0,
                max_steal_pct: None,
            },
            targets: vec![],
            notes: vec![],
            closed: vec![],
            open: vec![],
            in_flight: vec![],
            streams: vec![],
            idle: vec![],
            body16k: vec![],
            scale: None,
            users: None,
        }
    }

    /// The closed-loop point of `target` for `workload` at `conns`.
    pub fn closed(&self, target: Kind, workload: &str, conns: usize) -> Option<&Point> {
        self.closed
            .iter()
            .find(|p| p.target == target && p.workload == workload && p.conns == conns)
    }
}
