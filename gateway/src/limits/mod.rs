//! Request rate limits: a token's `rate_limit_*` and the user's model request limit
//! (`ModelRequestRateLimit*`), each a sliding window over all requests and over successful
//! ones. Counted in Redis when the gateway has one (`--redis-url`), so every gateway of the
//! fleet sees the same counts; in this process otherwise, and while Redis is down or slow
//! (local counting takes over at once, Redis is tried again every second).

mod local;
mod redis_backend;
mod rules;

use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use arc_swap::ArcSwapOption;
use prometheus::{IntCounter, IntGauge};

pub use rules::{Rule, Scope, rules_for};

use local::Windows;
use redis_backend::RedisLimits;

/// How long a Redis call may take before local counting answers instead.
pub const REDIS_BUDGET: Duration = Duration::from_millis(50);
/// After a Redis failure, local counting is used for this long before Redis is tried again.
pub const RETRY_REDIS_AFTER: Duration = Duration::from_secs(1);

/// A request refused by a limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "rate limit reached: {} {} {}{} per {} s; retry in {} s",
    match .scope { Scope::Token => "this token allows", Scope::User => "each user may make" },
    .max,
    if *.success_only { "successful " } else { "" },
    if *.max == 1 { "request" } else { "requests" },
    .window.as_secs(),
    .retry_after.as_secs()
)]
pub struct Denied {
    pub scope: Scope,
    /// The limit's number of requests per window.
    pub max: u32,
    /// Whether the limit counts successful requests only.
    pub success_only: bool,
    pub window: Duration,
    /// When a request would pass again (at least one second).
    pub retry_after: Duration,
}

impl Denied {
    /// The headers of the 429 answer: `Retry-After` and the `x-ratelimit-*` OpenAI sends.
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        let secs = self.retry_after.as_secs().max(1);
        vec![
            ("retry-after", secs.to_string()),
            ("x-ratelimit-limit-requests", self.max.to_string()),
            ("x-ratelimit-remaining-requests", "0".to_owned()),
            ("x-ratelimit-reset-requests", format!("{secs}s")),
        ]
    }
}

/// An admitted request: dropped without [`Admission::succeeded`], its provisional success is
/// taken back (the request failed, or ended before an answer).
pub struct Admission {
    limits: Arc<Limits>,
    success_rules: Vec<Rule>,
    member: String,
    succeeded: bool,
}

impl std::fmt::Debug for Admission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admission")
            .field("member", &self.member)
            .field("success_rules", &self.success_rules)
            .finish_non_exhaustive()
    }
}

impl Admission {
    /// The request succeeded: it stays counted as a success.
    pub fn succeeded(mut self) {
        self.succeeded = true;
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        if !self.succeeded && !self.success_rules.is_empty() {
            self.limits.release(
                std::mem::take(&mut self.success_rules),
                std::mem::take(&mut self.member),
            );
        }
    }
}

/// Metrics the limits report.
#[derive(Clone)]
pub struct LimitMetrics {
    /// 1 while limits are counted in Redis, 0 while counted locally.
    pub redis_up: IntGauge,
    /// Times Redis failed or was too slow and local counting took over.
    pub fallbacks: IntCounter,
}

/// The limits of a gateway: local windows, and Redis when configured.
pub struct Limits {
    local: Windows,
    redis: ArcSwapOption<RedisLimits>,
    /// Until when Redis is skipped after a failure.
    skip_redis_until: Mutex<Option<Instant>>,
    metrics: Option<LimitMetrics>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::new(None)
    }
}

impl Limits {
    pub fn new(metrics: Option<LimitMetrics>) -> Self {
        Limits {
            local: Windows::default(),
            redis: ArcSwapOption::empty(),
            skip_redis_until: Mutex::new(None),
            metrics,
        }
    }

    /// Counts in the Redis at `url` from now on (the connection is made in the background;
    /// until it is up, and whenever it fails, counting is local).
    pub fn use_redis(self: &Arc<Self>, url: &str) -> Result<(), redis::RedisError> {
        let backend = RedisLimits::new(url)?;
        self.redis.store(Some(Arc::new(backend)));
        Ok(())
    }

    /// Admits a request under every rule of `rules` and counts it, or says which limit it
    /// reached; `member` names the request (unique: its request id). A request counts as
    /// successful from its admission (so clients that wait for each answer are held exactly
    /// to a success limit); the [`Admission`] takes that back unless the request succeeds.
    pub async fn admit(
        self: &Arc<Self>,
        rules: &[Rule],
        member: &str,
    ) -> Result<Admission, Denied> {
        let admission = Admission {
            limits: self.clone(),
            success_rules: rules
                .iter()
                .filter(|r| r.max_success > 0)
                .cloned()
                .collect(),
            member: member.to_owned(),
            succeeded: false,
        };
        if rules.is_empty() {
            return Ok(admission);
        }
        if let Some(redis) = self.redis_now() {
            match tokio::time::timeout(REDIS_BUDGET, redis.admit(rules, member)).await {
                Ok(Ok(answer)) => {
                    self.redis_ok();
                    return answer.map(|()| admission);
                }
                Ok(Err(e)) => self.redis_failed(&e.to_string()),
                Err(_) => self.redis_failed("no answer within the budget"),
            }
        }
        self.local.admit(rules, member, Instant::now())?;
        Ok(admission)
    }

    /// Takes back the provisional success of a request that failed.
    fn release(self: &Arc<Self>, rules: Vec<Rule>, member: String) {
        self.local.release(&rules, &member);
        let Some(redis) = self.redis_now() else {
            return;
        };
        let this = self.clone();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            match tokio::time::timeout(REDIS_BUDGET, redis.release(&rules, &member)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => this.redis_failed(&e.to_string()),
                Err(_) => this.redis_failed("no answer within the budget"),
            }
        });
    }

    /// The Redis backend, unless none is configured or it failed less than a second ago.
    fn redis_now(&self) -> Option<Arc<RedisLimits>> {
        let redis = self.redis.load_full()?;
        let mut skip = self
            .skip_redis_until
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        match *skip {
            Some(until) if Instant::now() < until => None,
            Some(_) => {
                *skip = None;
                Some(redis)
            }
            None => Some(redis),
        }
    }

    fn redis_ok(&self) {
        if let Some(m) = &self.metrics
            && m.redis_up.get() != 1
        {
            m.redis_up.set(1);
            tracing::info!("rate limits: counting in Redis");
        }
    }

    fn redis_failed(&self, why: &str) {
        *self
            .skip_redis_until
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(Instant::now() + RETRY_REDIS_AFTER);
        if let Some(m) = &self.metrics {
            m.fallbacks.inc();
            if m.redis_up.get() != 0 {
                m.redis_up.set(0);
            }
        }
        tracing::warn!(
            error = why,
            "rate limits: Redis unavailable; counting locally on this gateway for now"
        );
    }
}
