//! Prometheus metrics of the control plane (served at `/metrics` on `--admin-listen`): names
//! live here only.

use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, Opts, Registry,
    TextEncoder,
};

pub const USAGE_RECORDS: &str = "control_plane_usage_records_total";
pub const USAGE_REJECTED: &str = "control_plane_usage_rejected_total";
pub const GATEWAYS_REFUSED: &str = "control_plane_gateway_refused_total";
pub const PASSWORD_HASHES: &str = "control_plane_password_hashes_total";
pub const AUTH_THROTTLED: &str = "control_plane_auth_throttled_total";
pub const CHANNELS_AUTO_DISABLED: &str = "control_plane_channels_auto_disabled_total";
pub const CHANNEL_KEYS_AUTO_DISABLED: &str = "control_plane_channel_keys_auto_disabled_total";
pub const USAGE_BATCHES: &str = "control_plane_usage_batches_total";
pub const USAGE_LAG: &str = "control_plane_usage_ingest_lag_seconds";
pub const CONFIG_VERSION: &str = "control_plane_config_version";
pub const CONFIG_PUSH: &str = "control_plane_config_push_seconds";
pub const GATEWAYS_CONNECTED: &str = "control_plane_gateways_connected";
pub const JOB_RUNS: &str = "control_plane_job_runs_total";
pub const HTTP_REQUESTS: &str = "control_plane_http_requests_total";
pub const HTTP_SECONDS: &str = "control_plane_http_request_duration_seconds";

/// Buckets of latencies measured in the process (seconds).
const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// Buckets of the ingest lag (seconds; records carry whole seconds).
const LAG_BUCKETS: &[f64] = &[1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0, 1800.0, 7200.0];

/// The control plane's metrics in their own registry (tests run several in one process).
pub struct Metrics {
    registry: Registry,
    /// Usage records ingested, by outcome (inserted, duplicate, rejected).
    pub usage_records: IntCounterVec,
    /// Usage records refused, by reason code.
    pub usage_rejected: IntCounterVec,
    /// gRPC calls refused for missing or wrong gateway credentials, by reason.
    pub gateways_refused: IntCounterVec,
    /// Password hashes computed, by operation (hash, verify).
    pub password_hashes: IntCounterVec,
    /// Credential attempts refused with 429, by endpoint (login, register, …).
    pub auth_throttled: IntCounterVec,
    /// Channels disabled because of upstream failures that gateways reported.
    pub channels_auto_disabled: prometheus::IntCounter,
    /// Keys of multi-key channels disabled because of reported upstream failures.
    pub channel_keys_auto_disabled: prometheus::IntCounter,
    /// Usage batches received, by outcome (committed, failed).
    pub usage_batches: IntCounterVec,
    /// Seconds from a record's creation at its gateway to its ingest.
    pub usage_lag: Histogram,
    /// The newest stable config version.
    pub config_version: IntGauge,
    /// Seconds from a new stable version (or a gateway's connect) to its message handed to a
    /// gateway's stream, by kind (snapshot, delta).
    pub config_push: HistogramVec,
    /// Config streams open (gateways connected to this replica).
    pub gateways_connected: IntGauge,
    /// Background job runs, by task (the job's name: `job` is Prometheus's target label) and
    /// outcome (ok, failed).
    pub job_runs: IntCounterVec,
    /// HTTP requests, by method, route template and status class.
    pub http_requests: IntCounterVec,
    /// HTTP request latency (to the response head), by method and route template.
    pub http_seconds: HistogramVec,
}

impl Metrics {
    pub fn new() -> Result<Self, prometheus::Error> {
        let registry = Registry::new();
        let usage_records = IntCounterVec::new(
            Opts::new(USAGE_RECORDS, "Usage records received from gateways"),
            &["outcome"],
        )?;
        let usage_rejected = IntCounterVec::new(
            Opts::new(USAGE_REJECTED, "Usage records refused by ingest"),
            &["reason"],
        )?;
        let gateways_refused = IntCounterVec::new(
            Opts::new(
                GATEWAYS_REFUSED,
                "gRPC calls refused for gateway credentials",
            ),
            &["reason"],
        )?;
        let password_hashes = IntCounterVec::new(
            Opts::new(PASSWORD_HASHES, "Password hashes computed"),
            &["op"],
        )?;
        let auth_throttled = IntCounterVec::new(
            Opts::new(AUTH_THROTTLED, "Credential attempts refused past a limit"),
            &["action"],
        )?;
        registry.register(Box::new(password_hashes.clone()))?;
        registry.register(Box::new(auth_throttled.clone()))?;
        registry.register(Box::new(usage_records.clone()))?;
        registry.register(Box::new(usage_rejected.clone()))?;
        registry.register(Box::new(gateways_refused.clone()))?;
        let channels_auto_disabled = prometheus::IntCounter::new(
            CHANNELS_AUTO_DISABLED,
            "Channels disabled because of upstream failures reported by gateways",
        )?;
        registry.register(Box::new(channels_auto_disabled.clone()))?;
        let channel_keys_auto_disabled = prometheus::IntCounter::new(
            CHANNEL_KEYS_AUTO_DISABLED,
            "Keys of multi-key channels disabled because of upstream failures reported by gateways",
        )?;
        registry.register(Box::new(channel_keys_auto_disabled.clone()))?;
        let usage_batches = IntCounterVec::new(
            Opts::new(USAGE_BATCHES, "Usage batches received from gateways"),
            &["outcome"],
        )?;
        registry.register(Box::new(usage_batches.clone()))?;
        let usage_lag = Histogram::with_opts(
            HistogramOpts::new(
                USAGE_LAG,
                "Seconds from a usage record's creation at its gateway to its ingest",
            )
            .buckets(LAG_BUCKETS.to_vec()),
        )?;
        registry.register(Box::new(usage_lag.clone()))?;
        let config_version = IntGauge::new(CONFIG_VERSION, "The newest stable config version")?;
        registry.register(Box::new(config_version.clone()))?;
        let config_push = HistogramVec::new(
            HistogramOpts::new(
                CONFIG_PUSH,
                "Seconds from a new config version (or a gateway's connect) to its message sent",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &["kind"],
        )?;
        registry.register(Box::new(config_push.clone()))?;
        let gateways_connected =
            IntGauge::new(GATEWAYS_CONNECTED, "Gateways' config streams open")?;
        registry.register(Box::new(gateways_connected.clone()))?;
        let job_runs = IntCounterVec::new(
            Opts::new(JOB_RUNS, "Background job runs"),
            &["task", "outcome"],
        )?;
        registry.register(Box::new(job_runs.clone()))?;
        let http_requests = IntCounterVec::new(
            Opts::new(HTTP_REQUESTS, "HTTP requests served"),
            &["method", "route", "status"],
        )?;
        registry.register(Box::new(http_requests.clone()))?;
        let http_seconds = HistogramVec::new(
            HistogramOpts::new(HTTP_SECONDS, "HTTP request latency to the response head")
                .buckets(LATENCY_BUCKETS.to_vec()),
            &["method", "route"],
        )?;
        registry.register(Box::new(http_seconds.clone()))?;
        Ok(Metrics {
            usage_batches,
            usage_lag,
            config_version,
            config_push,
            gateways_connected,
            job_runs,
            http_requests,
            http_seconds,
            registry,
            usage_records,
            usage_rejected,
            channels_auto_disabled,
            channel_keys_auto_disabled,
            gateways_refused,
            password_hashes,
            auth_throttled,
        })
    }

    /// Counts one run of a background job.
    pub fn job_ran(&self, job: &str, ok: bool) {
        let outcome = if ok { "ok" } else { "failed" };
        self.job_runs.with_label_values(&[job, outcome]).inc();
    }

    /// The text exposition format.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        if let Err(err) = TextEncoder::new().encode(&self.registry.gather(), &mut out) {
            tracing::warn!(error = %err, "encoding metrics failed");
        }
        String::from_utf8(out).unwrap_or_default()
    }
}
