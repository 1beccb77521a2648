//! Request rate limits: a token's `rate_limit_*` and the user's model request limit
//! (`ModelRequestRateLimit*`), each a sliding window over all requests and over successful
//! ones. Counted in Redis when the gateway has one (`--redis-url`), so every gateway of the
//! fleet sees the same counts; in this process otherwise, and while Redis is down or slow
//! (local counting takes over at once, Redis is tried again every second).

mod local;
mod redis_backend;
mod rules;
mod slots;
mod tokens;

use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use arc_swap::ArcSwapOption;
use prometheus::{IntCounter, IntGauge};

pub use rules::{Applicable, Rule, Scope, rules_for};
pub use tokens::TokenRule;

use local::Windows;
use redis_backend::RedisLimits;
use slots::LocalSlots;
use tokens::TokenWindows;

/// How long a Redis call may take before local counting answers instead (the default of
/// `--redis-timeout-ms`).
pub const REDIS_BUDGET: Duration = Duration::from_millis(50);
/// After a Redis failure, local counting is used for this long before Redis is tried again.
pub const RETRY_REDIS_AFTER: Duration = Duration::from_secs(1);

/// A request refused by a limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "rate limit reached: {} {} {}{} per {} s; retry in {} s",
    match .scope {
        Scope::Token => "this token allows",
        Scope::User => "each user may make",
        Scope::Model => "each user of this group may use this model for",
    },
    .max,
    if *.success_only { "successful " } else { "" },
    match (*.tokens, *.max == 1) {
        (true, _) => "tokens",
        (false, true) => "request",
        (false, false) => "requests",
    },
    .window.as_secs(),
    .retry_after.as_secs()
)]
pub struct Denied {
    pub scope: Scope,
    /// The limit's number of requests (or tokens) per window.
    pub max: u64,
    /// Whether the limit counts tokens (else requests).
    pub tokens: bool,
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
        let (limit, remaining, reset) = if self.tokens {
            (
                "x-ratelimit-limit-tokens",
                "x-ratelimit-remaining-tokens",
                "x-ratelimit-reset-tokens",
            )
        } else {
            (
                "x-ratelimit-limit-requests",
                "x-ratelimit-remaining-requests",
                "x-ratelimit-reset-requests",
            )
        };
        vec![
            ("retry-after", secs.to_string()),
            (limit, self.max.to_string()),
            (remaining, "0".to_owned()),
            (reset, format!("{secs}s")),
        ]
    }
}

/// An admitted request: dropped without [`Admission::succeeded`], its provisional success is
/// taken back (the request failed, or ended before an answer).
pub struct Admission {
    limits: Arc<Limits>,
    success_rules: Vec<Rule>,
    token_rules: Vec<TokenRule>,
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
    pub fn succeeded(self) {
        self.succeeded_with_tokens(0);
    }

    /// The request succeeded having used `tokens` (counted under its tokens-per-minute
    /// limits).
    pub fn succeeded_with_tokens(mut self, tokens: u64) {
        self.succeeded = true;
        if tokens > 0 && !self.token_rules.is_empty() {
            self.limits
                .add_tokens(std::mem::take(&mut self.token_rules), tokens);
        }
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

/// Where a channel slot was taken.
enum Held {
    Nothing,
    Local,
    Redis(Arc<RedisLimits>),
}

/// A request in flight to a channel with a concurrency limit; freed when dropped.
pub struct ChannelSlot {
    limits: Arc<Limits>,
    channel: i64,
    member: String,
    held: Held,
}

impl std::fmt::Debug for ChannelSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelSlot")
            .field("channel", &self.channel)
            .finish_non_exhaustive()
    }
}

impl Drop for ChannelSlot {
    fn drop(&mut self) {
        match std::mem::replace(&mut self.held, Held::Nothing) {
            Held::Nothing => {}
            Held::Local => self.limits.local_slots.free(self.channel),
            Held::Redis(redis) => {
                let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                    return;
                };
                let (limits, channel, member) = (
                    self.limits.clone(),
                    self.channel,
                    std::mem::take(&mut self.member),
                );
                runtime.spawn(async move {
                    let call = redis.free_slot(channel, &member);
                    match tokio::time::timeout(limits.budget(), call).await {
                        Ok(Ok(())) => {}
                        Ok(Err(e)) => limits.redis_failed(&e.to_string()),
                        Err(_) => limits.redis_failed("no answer within the budget"),
                    }
                });
            }
        }
    }
}

/// The refusal of a tokens-per-minute rule.
fn token_denied(rule: &TokenRule, retry_after: Duration) -> Denied {
    Denied {
        scope: Scope::Model,
        max: rule.max,
        tokens: true,
        success_only: false,
        window: Duration::from_secs(tokens::BUCKET_SECS * tokens::BUCKETS),
        retry_after,
    }
}

fn unix_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
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
    local_tokens: TokenWindows,
    local_slots: LocalSlots,
    redis: ArcSwapOption<RedisLimits>,
    /// Until when Redis is skipped after a failure.
    skip_redis_until: Mutex<Option<Instant>>,
    metrics: Option<LimitMetrics>,
    /// How long a Redis call may take (see [`REDIS_BUDGET`]).
    budget: std::sync::atomic::AtomicU64,
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
            local_tokens: TokenWindows::default(),
            local_slots: LocalSlots::default(),
            redis: ArcSwapOption::empty(),
            skip_redis_until: Mutex::new(None),
            metrics,
            budget: std::sync::atomic::AtomicU64::new(REDIS_BUDGET.as_millis() as u64),
        }
    }

    /// How long a Redis call may take before local counting answers instead.
    pub fn set_redis_budget(&self, budget: Duration) {
        let ms = u64::try_from(budget.as_millis()).unwrap_or(u64::MAX).max(1);
        self.budget.store(ms, std::sync::atomic::Ordering::Relaxed);
    }

    fn budget(&self) -> Duration {
        Duration::from_millis(self.budget.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Counts in the Redis at `url` from now on (the connection is made in the background;
    /// until it is up, and whenever it fails, counting is local).
    pub fn use_redis(self: &Arc<Self>, url: &str) -> Result<(), redis::RedisError> {
        let backend = Arc::new(RedisLimits::new(url)?);
        self.redis.store(Some(backend.clone()));
        // Counting moves to Redis once it answers a ping (on a connection of the ping's own:
        // the one requests use is opened by the first of them, on the relay's runtime).
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let this = self.clone();
            runtime.spawn(async move {
                loop {
                    match tokio::time::timeout(Duration::from_secs(2), backend.ping()).await {
                        Ok(Ok(())) => return this.redis_ok(),
                        Ok(Err(e)) => {
                            tracing::debug!(error = %e, "rate limits: Redis not reachable yet")
                        }
                        Err(_) => tracing::debug!("rate limits: Redis did not answer yet"),
                    }
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            });
        }
        Ok(())
    }

    /// Admits a request under every rule of `rules` (requests) and `token_rules` (tokens
    /// per minute) and counts it, or says which limit it reached; `member` names the request
    /// (unique: its request id). A request counts as successful from its admission (so
    /// clients that wait for each answer are held exactly to a success limit); the
    /// [`Admission`] takes that back unless the request succeeds, and adds the tokens it used.
    pub async fn admit(
        self: &Arc<Self>,
        rules: &Applicable,
        member: &str,
    ) -> Result<Admission, Denied> {
        let admission = Admission {
            limits: self.clone(),
            success_rules: rules
                .requests
                .iter()
                .filter(|r| r.max_success > 0)
                .cloned()
                .collect(),
            token_rules: rules.tokens.clone(),
            member: member.to_owned(),
            succeeded: false,
        };
        if rules.is_empty() {
            return Ok(admission);
        }
        let now_secs = unix_secs();
        if let Some(redis) = self.redis_now() {
            let call = redis.admit(&rules.requests, &rules.tokens, member, now_secs);
            match tokio::time::timeout(self.budget(), call).await {
                Ok(Ok(answer)) => {
                    self.redis_ok();
                    return answer.map(|()| admission);
                }
                Ok(Err(e)) => self.redis_failed(&e.to_string()),
                Err(_) => self.redis_failed("no answer within the budget"),
            }
        }
        if let Err((i, retry_after)) = self.local_tokens.check(&rules.tokens, now_secs) {
            return Err(token_denied(&rules.tokens[i], retry_after));
        }
        self.local.admit(&rules.requests, member, Instant::now())?;
        Ok(admission)
    }

    /// Takes one of `max` in-flight slots of `channel` for an attempt of request `request_id`
    /// (across the fleet with Redis, on this gateway without or while it is away); `None` when
    /// the channel is full. The slot is freed when the answer is dropped. Nothing is allocated
    /// for a channel without a limit.
    pub async fn channel_slot(
        self: &Arc<Self>,
        channel: i64,
        max: u32,
        request_id: &str,
    ) -> Option<ChannelSlot> {
        if max == 0 {
            return Some(ChannelSlot {
                limits: self.clone(),
                channel,
                member: String::new(),
                held: Held::Nothing,
            });
        }
        if let Some(redis) = self.redis_now() {
            let member = format!("{request_id}:{channel}");
            match tokio::time::timeout(self.budget(), redis.take_slot(channel, max, &member)).await
            {
                Ok(Ok(taken)) => {
                    self.redis_ok();
                    return taken.then(|| ChannelSlot {
                        limits: self.clone(),
                        channel,
                        member,
                        held: Held::Redis(redis),
                    });
                }
                Ok(Err(e)) => self.redis_failed(&e.to_string()),
                Err(_) => self.redis_failed("no answer within the budget"),
            }
        }
        self.local_slots.take(channel, max).then(|| ChannelSlot {
            limits: self.clone(),
            channel,
            member: String::new(),
            held: Held::Local,
        })
    }

    /// Counts `tokens` under `rules` (a request that ended).
    fn add_tokens(self: &Arc<Self>, rules: Vec<TokenRule>, tokens: u64) {
        let now_secs = unix_secs();
        let Some(redis) = self.redis_now() else {
            self.local_tokens.add(&rules, tokens, now_secs);
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.local_tokens.add(&rules, tokens, now_secs);
            return;
        };
        let this = self.clone();
        runtime.spawn(async move {
            let call = redis.add_tokens(&rules, tokens, now_secs);
            match tokio::time::timeout(this.budget(), call).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    this.redis_failed(&e.to_string());
                    this.local_tokens.add(&rules, tokens, now_secs);
                }
                Err(_) => {
                    this.redis_failed("no answer within the budget");
                    this.local_tokens.add(&rules, tokens, now_secs);
                }
            }
        });
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
            match tokio::time::timeout(this.budget(), redis.release(&rules, &member)).await {
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
