//! Shared state of a running gateway: config snapshot, usage sink, metrics, upstream client.

use std::sync::Arc;

use crate::config::ConfigStore;
use crate::metrics::Metrics;
use crate::upstream::Upstream;
use crate::usage::UsageSink;

/// Everything the request path shares, behind one `Arc`.
pub struct GatewayState {
    pub config: ConfigStore,
    pub sink: Arc<dyn UsageSink>,
    pub metrics: Metrics,
    pub upstream: Upstream,
}
