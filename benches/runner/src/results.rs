//! What a run records: one entry per measured point (every repetition kept), the machine and
//! the targets, serialisable so the raw figures are saved next to the report.

use serde::Serialize;

use crate::stats::median;
use crate::streams::Streams;
use crate::targets::Kind;

/// One repetition of one point.
#[derive(Debug, Clone, Serialize)]
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
}

/// A load point (target × workload × concurrency or rate), repeated.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    pub target: Kind,
    pub workload: &'static str,
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

/// Memory held per in-flight request.
#[derive(Debug, Clone, Serialize)]
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
#[derive(Debug, Clone, Serialize)]
pub struct StreamsPoint {
    pub target: Kind,
    pub idle_rss_kib: u64,
    pub peak_rss_kib: u64,
    /// CPU time of the measured process over the whole run, in seconds.
    pub cpu_seconds: f64,
    pub streams: Streams,
    pub load_avg: f64,
}

impl StreamsPoint {
    pub fn kib_per_stream(&self) -> f64 {
        self.peak_rss_kib.saturating_sub(self.idle_rss_kib) as f64
            / self.streams.peak_open.max(1) as f64
    }
}

/// A target that was measured, or why it was not.
#[derive(Debug, Clone, Serialize)]
pub struct TargetInfo {
    pub target: Kind,
    pub version: String,
    pub skipped: Option<String>,
}

/// Settings of the run.
#[derive(Debug, Clone, Serialize)]
pub struct Settings {
    pub quick: bool,
    pub seconds: u64,
    pub runs: usize,
    pub concurrency: Vec<usize>,
    pub rate: u64,
    pub in_flight: usize,
    pub streams: usize,
    pub stream_chunks: u32,
    pub stream_delay_ms: u32,
    pub target_cpu: usize,
    pub load_cpu: usize,
}

/// Everything a run produced.
#[derive(Debug, Clone, Serialize)]
pub struct Results {
    pub started_utc: String,
    pub finished_utc: String,
    pub machine: Vec<(String, String)>,
    pub settings: Settings,
    pub targets: Vec<TargetInfo>,
    pub notes: Vec<String>,
    pub closed: Vec<Point>,
    pub open: Vec<Point>,
    pub in_flight: Vec<InFlight>,
    pub streams: Vec<StreamsPoint>,
}

impl Results {
    /// The closed-loop point of `target` for `workload` at `conns`.
    pub fn closed(&self, target: Kind, workload: &str, conns: usize) -> Option<&Point> {
        self.closed
            .iter()
            .find(|p| p.target == target && p.workload == workload && p.conns == conns)
    }
}
