//! Prometheus metrics of the control plane (served at `/metrics`): names live here only.

use prometheus::{Encoder, IntCounterVec, Opts, Registry, TextEncoder};

pub const USAGE_RECORDS: &str = "control_plane_usage_records_total";
pub const USAGE_REJECTED: &str = "control_plane_usage_rejected_total";
pub const GATEWAYS_REFUSED: &str = "control_plane_gateway_refused_total";
pub const PASSWORD_HASHES: &str = "control_plane_password_hashes_total";
pub const AUTH_THROTTLED: &str = "control_plane_auth_throttled_total";
pub const CHANNELS_AUTO_DISABLED: &str = "control_plane_channels_auto_disabled_total";
pub const CHANNEL_KEYS_AUTO_DISABLED: &str = "control_plane_channel_keys_auto_disabled_total";

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
        Ok(Metrics {
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

    /// The text exposition format.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        if let Err(err) = TextEncoder::new().encode(&self.registry.gather(), &mut out) {
            tracing::warn!(error = %err, "encoding metrics failed");
        }
        String::from_utf8(out).unwrap_or_default()
    }
}
