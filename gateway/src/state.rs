//! Shared state of a running gateway: config snapshot, usage sink, metrics, upstream client.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::billing::Carry;
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
    /// Relay requests being answered now (SIGTERM waits for them).
    pub in_flight: AtomicUsize,
    /// Spending not yet in the control plane's balances (with a control plane only).
    pub carry: Option<Arc<Carry>>,
    /// Relay requests each user has in flight (capped per group).
    pub concurrency: Arc<crate::billing::Concurrency>,
    /// Request rate limits (in Redis when configured).
    pub limits: Arc<crate::limits::Limits>,
    /// Balances shared by the fleet through Redis (with a control plane and Redis only).
    pub fleet: std::sync::OnceLock<Arc<crate::billing::fleet::Fleet>>,
    /// Circuit breakers of the channel keys that failed lately (this gateway's own).
    pub breakers: crate::routing::Breakers,
}

/// Counts one relay request as in flight until dropped.
pub struct InFlight<'a>(&'a AtomicUsize);

impl<'a> InFlight<'a> {
    pub fn enter(counter: &'a AtomicUsize) -> Self {
        counter.fetch_add(1, Ordering::AcqRel);
        InFlight(counter)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}
