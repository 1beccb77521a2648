//! Prometheus metrics of the control plane (served at `/metrics`): names live here only.

use prometheus::{Encoder, IntCounterVec, Opts, Registry, TextEncoder};

pub const USAGE_RECORDS: &str = "control_plane_usage_records_total";
pub const USAGE_REJECTED: &str = "control_plane_usage_rejected_total";
pub const GATEWAYS_REFUSED: &str = "control_plane_gateway_refused_total";

/// The control plane's metrics in their own registry (tests run several in one process).
pub struct Metrics {
    registry: Registry,
    /// Usage records ingested, by outcome (inserted, duplicate, rejected).
    pub usage_records: IntCounterVec,
    /// Usage records refused, by reason code.
    pub usage_rejected: IntCounterVec,
    /// gRPC calls refused for missing or wrong gateway credentials, by reason.
    pub gateways_refused: IntCounterVec,
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
        registry.register(Box::new(usage_records.clone()))?;
        registry.register(Box::new(usage_rejected.clone()))?;
        registry.register(Box::new(gateways_refused.clone()))?;
        Ok(Metrics {
            registry,
            usage_records,
            usage_rejected,
            gateways_refused,
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
