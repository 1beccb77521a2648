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
    /// What `/readyz` answers.
    pub readiness: Readiness,
    /// Where relay spans go (while traces are exported).
    pub tracer: std::sync::OnceLock<telemetry::SdkTracer>,
    /// Vertex AI keys and access tokens, by channel key.
    pub vertex_tokens: crate::credentials::VertexTokens,
    /// The control plane's task records (with a control plane only).
    pub tasks: std::sync::OnceLock<crate::tasks::TaskLookup>,
}

/// Whether the gateway should get new traffic: not while draining, and, when an operator set a
/// bound, not once its config has been cut off from the control plane for longer than that.
#[derive(Debug, Default)]
pub struct Readiness {
    draining: std::sync::atomic::AtomicBool,
    /// Unix milliseconds when the config stream was lost (0 while it delivers, or without a
    /// control plane).
    lost_at_ms: std::sync::atomic::AtomicU64,
    /// Seconds of lost stream after which the gateway is not ready (0: keep serving on the
    /// last snapshot, the default).
    max_stale_secs: std::sync::atomic::AtomicU64,
}

/// What `/readyz` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadyState {
    Ready,
    Draining,
    /// The config stream has been lost for this many seconds, past the bound.
    Stale(u64),
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

impl Readiness {
    pub fn set_max_stale_secs(&self, secs: u64) {
        self.max_stale_secs.store(secs, Ordering::Relaxed);
    }

    /// SIGTERM arrived: load balancers should stop sending new requests.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::Release);
    }

    /// The config stream delivers.
    pub fn stream_up(&self) {
        self.lost_at_ms.store(0, Ordering::Release);
    }

    /// The config stream was lost (the first loss counts until it is back).
    pub fn stream_lost(&self) {
        let _ = self.lost_at_ms.compare_exchange(
            0,
            now_ms().max(1),
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    /// Seconds since the config stream was lost (0 while it delivers).
    pub fn stale_secs(&self) -> u64 {
        match self.lost_at_ms.load(Ordering::Acquire) {
            0 => 0,
            lost => now_ms().saturating_sub(lost) / 1000,
        }
    }

    pub fn state(&self) -> ReadyState {
        if self.draining.load(Ordering::Acquire) {
            return ReadyState::Draining;
        }
        let bound = self.max_stale_secs.load(Ordering::Relaxed);
        let stale = self.stale_secs();
        if bound > 0 && self.lost_at_ms.load(Ordering::Acquire) != 0 && stale >= bound {
            return ReadyState::Stale(stale);
        }
        ReadyState::Ready
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_follows_draining_and_a_lost_stream_past_the_bound() {
        let r = Readiness::default();
        assert_eq!(r.state(), ReadyState::Ready);
        r.stream_lost();
        assert_eq!(
            r.state(),
            ReadyState::Ready,
            "no bound: serve on the last snapshot"
        );
        r.set_max_stale_secs(1);
        r.lost_at_ms.store(now_ms() - 5_000, Ordering::Release);
        assert!(matches!(r.state(), ReadyState::Stale(s) if s >= 5));
        r.stream_lost();
        assert!(r.stale_secs() >= 5, "the first loss counts");
        r.stream_up();
        assert_eq!(r.state(), ReadyState::Ready);
        r.start_draining();
        assert_eq!(r.state(), ReadyState::Draining);
    }
}
