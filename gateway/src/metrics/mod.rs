//! Prometheus metrics of the gateway: names and label keys live here and nowhere else.
//! Labels are low-cardinality (endpoint, status class, error code, channel id); model, group
//! and channel labels are bounded: the first values seen keep their own label, later ones
//! share `other`.

mod memo;

use std::cell::OnceCell;
use std::sync::atomic::{AtomicU64, Ordering};

use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts,
    Registry, TextEncoder,
};

pub const REQUESTS: &str = "gateway_requests_total";
pub const REQUEST_DURATION: &str = "gateway_request_duration_seconds";
pub const TIME_TO_FIRST_TOKEN: &str = "gateway_time_to_first_token_seconds";
pub const UPSTREAM_ERRORS: &str = "gateway_upstream_errors_total";
pub const TOKENS: &str = "gateway_tokens_total";
pub const SNAPSHOT_VERSION: &str = "gateway_snapshot_version";
pub const SNAPSHOT_APPLIED: &str = "gateway_snapshot_applied_timestamp_seconds";
pub const CONFIG_STREAM_UP: &str = "gateway_config_stream_up";
pub const USAGE_SPOOL: &str = "gateway_usage_spool_records";
pub const USAGE_DROPPED: &str = "gateway_usage_records_dropped_total";
pub const UNRECORDED: &str = "gateway_unrecorded_requests_total";
pub const RATE_LIMIT_REDIS_UP: &str = "gateway_rate_limit_redis_up";
pub const RATE_LIMIT_FALLBACKS: &str = "gateway_rate_limit_redis_fallbacks_total";
pub const RATE_LIMITED: &str = "gateway_rate_limited_requests_total";
pub const FLEET_REDIS_UP: &str = "gateway_fleet_budget_redis_up";
pub const FLEET_FALLBACKS: &str = "gateway_fleet_budget_redis_fallbacks_total";
pub const FLEET_GRANTS: &str = "gateway_fleet_budget_grants_total";
pub const FLEET_TOP_UPS: &str = "gateway_fleet_budget_top_ups_total";
pub const IN_FLIGHT: &str = "gateway_in_flight_requests";
pub const CONFIG_STALE: &str = "gateway_config_stale_seconds";
pub const MODEL_REQUESTS: &str = "gateway_model_requests_total";
pub const CHANNEL_REQUESTS: &str = "gateway_channel_requests_total";
pub const MODEL_TOKENS: &str = "gateway_model_tokens_total";
pub const MODEL_QUOTA: &str = "gateway_model_quota_total";
pub const MODEL_TTFT: &str = "gateway_model_time_to_first_token_seconds";

/// How many distinct models, groups and channels get their own label.
const MAX_MODELS: usize = 64;
const MAX_GROUPS: usize = 16;
const MAX_CHANNELS: usize = 128;

/// A label whose distinct values are capped: the first `cap` values seen keep their own
/// label, later ones are `other` (the series of a scrape stay bounded whatever clients send).
pub struct BoundedLabel {
    seen: std::sync::RwLock<std::collections::HashSet<Box<str>>>,
    cap: usize,
}

impl BoundedLabel {
    pub fn new(cap: usize) -> BoundedLabel {
        BoundedLabel {
            seen: std::sync::RwLock::default(),
            cap,
        }
    }

    /// The label for `value` (`none` when empty).
    pub fn get<'a>(&self, value: &'a str) -> &'a str {
        if value.is_empty() {
            return "none";
        }
        if self.seen.read().is_ok_and(|s| s.contains(value)) {
            return value;
        }
        match self.seen.write() {
            Ok(s) if s.contains(value) => value,
            Ok(mut s) if s.len() < self.cap => {
                s.insert(value.into());
                value
            }
            _ => "other",
        }
    }
}

/// Request, token, quota and first-token metrics by model, group and channel.
pub struct ModelMetrics {
    models: BoundedLabel,
    groups: BoundedLabel,
    channels: BoundedLabel,
    requests: IntCounterVec,
    channel_requests: IntCounterVec,
    tokens: IntCounterVec,
    quota: IntCounterVec,
    ttft: HistogramVec,
}

impl ModelMetrics {
    fn new(registry: &Registry) -> Result<ModelMetrics, prometheus::Error> {
        let requests = IntCounterVec::new(
            Opts::new(
                MODEL_REQUESTS,
                "Requests answered, by model, group and status class",
            ),
            &["model", "group", "status_class"],
        )?;
        let channel_requests = IntCounterVec::new(
            Opts::new(
                CHANNEL_REQUESTS,
                "Requests answered, by the channel that answered last",
            ),
            &["channel_id", "status_class"],
        )?;
        let tokens = IntCounterVec::new(
            Opts::new(MODEL_TOKENS, "Tokens billed, by model"),
            &["model", "kind"],
        )?;
        let quota = IntCounterVec::new(
            Opts::new(MODEL_QUOTA, "Quota charged, by model"),
            &["model"],
        )?;
        let ttft = HistogramVec::new(
            HistogramOpts::new(
                MODEL_TTFT,
                "Time to the first upstream byte or event, by model",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &["model"],
        )?;
        registry.register(Box::new(requests.clone()))?;
        registry.register(Box::new(channel_requests.clone()))?;
        registry.register(Box::new(tokens.clone()))?;
        registry.register(Box::new(quota.clone()))?;
        registry.register(Box::new(ttft.clone()))?;
        Ok(ModelMetrics {
            models: BoundedLabel::new(MAX_MODELS),
            groups: BoundedLabel::new(MAX_GROUPS),
            channels: BoundedLabel::new(MAX_CHANNELS),
            requests,
            channel_requests,
            tokens,
            quota,
            ttft,
        })
    }

    /// The series of a model, group and channel answered with `class`.
    fn resolve(
        &self,
        (model, group, channel): (&str, &str, Option<i64>),
        class: &'static str,
    ) -> ModelSeries {
        let model = self.models.get(model);
        ModelSeries {
            requests: self
                .requests
                .with_label_values(&[model, self.groups.get(group), class]),
            channel_requests: channel.map(|id| {
                let id = id.to_string();
                self.channel_requests
                    .with_label_values(&[self.channels.get(&id), class])
            }),
            label: model.into(),
            prompt_tokens: OnceCell::new(),
            completion_tokens: OnceCell::new(),
            quota: OnceCell::new(),
            ttft: OnceCell::new(),
        }
    }
}

impl ModelMetrics {
    /// Counts `f` into a model's series.
    fn count(&self, m: &ModelSeries, f: &Finished<'_>) {
        m.requests.inc();
        if let Some(c) = &m.channel_requests {
            c.inc();
        }
        let label = &*m.label;
        for (series, kind, n) in [
            (&m.prompt_tokens, "prompt", f.prompt_tokens),
            (&m.completion_tokens, "completion", f.completion_tokens),
        ] {
            if n > 0 {
                series
                    .get_or_init(|| self.tokens.with_label_values(&[label, kind]))
                    .inc_by(n.unsigned_abs());
            }
        }
        if f.quota > 0 {
            m.quota
                .get_or_init(|| self.quota.with_label_values(&[label]))
                .inc_by(f.quota.unsigned_abs());
        }
        if let Some(t) = f.ttft_seconds {
            m.ttft
                .get_or_init(|| self.ttft.with_label_values(&[label]))
                .observe(t);
        }
    }
}

/// One finished request, as the metrics see it.
pub struct Finished<'a> {
    pub endpoint: &'static str,
    pub status: u16,
    /// The error code of a failed request.
    pub code: Option<&'static str>,
    pub stream: bool,
    /// Model, group and channel id, for a request with a caller that named a model.
    pub model: Option<(&'a str, &'a str, Option<i64>)>,
    pub elapsed_seconds: f64,
    pub ttft_seconds: Option<f64>,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub quota: i64,
}

/// The series one combination of labels counts into; the ones a request may not touch are
/// made when first counted (a scrape shows no series that never moved).
pub struct RequestSeries {
    requests: IntCounter,
    duration: Histogram,
    ttft: OnceCell<Histogram>,
    model: Option<ModelSeries>,
}

struct ModelSeries {
    requests: IntCounter,
    channel_requests: Option<IntCounter>,
    /// The model's label (its name, or `other` past the cap).
    label: Box<str>,
    prompt_tokens: OnceCell<IntCounter>,
    completion_tokens: OnceCell<IntCounter>,
    quota: OnceCell<IntCounter>,
    ttft: OnceCell<Histogram>,
}

pub const BREAKERS_OPEN: &str = "gateway_channel_breakers_open";
pub const BREAKER_OPENED: &str = "gateway_channel_breaker_opened_total";

const LATENCY_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0,
];

/// The gateway's metrics in their own registry (several gateways may share a process in tests).
pub struct Metrics {
    registry: Registry,
    /// Tells this instance's series apart in the per-thread memo.
    instance: u64,
    /// `tokens` by kind, resolved once.
    prompt_tokens: IntCounter,
    completion_tokens: IntCounter,
    pub requests: IntCounterVec,
    pub duration: HistogramVec,
    pub ttft: HistogramVec,
    pub upstream_errors: IntCounterVec,
    pub tokens: IntCounterVec,
    pub snapshot_version: IntGauge,
    /// Unix time the config in force was applied (its age: `time() -` this).
    pub snapshot_applied: IntGauge,
    /// 1 while the control plane's config stream delivers, 0 while it is away.
    pub config_stream_up: IntGauge,
    /// Usage records waiting in the on-disk spool.
    pub usage_spool: IntGauge,
    /// Usage records given up, by reason (queue_full, spool_full, disk, unreadable, closed).
    pub usage_dropped: IntCounterVec,
    /// Requests that write no log row (failed authentication, free calls), by reason.
    pub unrecorded: IntCounterVec,
    /// 1 while rate limits are counted in Redis, 0 while counted locally.
    pub rate_limit_redis_up: IntGauge,
    /// Times Redis failed or was too slow and local counting took over.
    pub rate_limit_fallbacks: prometheus::IntCounter,
    /// Requests refused by a rate limit, by scope (token, user).
    pub rate_limited: IntCounterVec,
    /// 1 while balances are spent within leases in Redis, 0 on this gateway's own figures.
    pub fleet_redis_up: IntGauge,
    /// Times Redis failed or was slow and balances were spent on this gateway's own figures.
    pub fleet_fallbacks: prometheus::IntCounter,
    /// Redis calls made to grow a lease of fleet budget.
    pub fleet_grants: prometheus::IntCounter,
    /// Redis calls made in the background to top up a lease a request left low.
    pub fleet_top_ups: prometheus::IntCounter,
    /// Relay requests being answered (read when scraped; the autoscaler's custom metric).
    pub in_flight: IntGauge,
    /// Seconds since the control plane's config stream was lost (0 while it delivers).
    pub config_stale_seconds: IntGauge,
    /// By model, group and channel (bounded labels).
    pub by_model: ModelMetrics,
    /// Channel keys whose circuit breaker is open (or due for a trial).
    pub breakers_open: IntGauge,
    /// Circuit breakers opened, by channel.
    pub breaker_opened: IntCounterVec,
}

impl Metrics {
    /// Notes a config of `version` put in force now.
    pub fn config_applied(&self, version: u64) {
        self.snapshot_version
            .set(i64::try_from(version).unwrap_or(i64::MAX));
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        self.snapshot_applied.set(now);
    }

    /// Creates and registers every metric.
    pub fn new() -> Result<Self, prometheus::Error> {
        let registry = Registry::new();
        let requests = IntCounterVec::new(
            Opts::new(REQUESTS, "Requests answered"),
            &["endpoint", "status_class", "code"],
        )?;
        let duration = HistogramVec::new(
            HistogramOpts::new(REQUEST_DURATION, "Request latency")
                .buckets(LATENCY_BUCKETS.to_vec()),
            &["endpoint", "stream"],
        )?;
        let ttft = HistogramVec::new(
            HistogramOpts::new(
                TIME_TO_FIRST_TOKEN,
                "Time to the first upstream byte or event",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &["endpoint", "stream"],
        )?;
        let upstream_errors = IntCounterVec::new(
            Opts::new(UPSTREAM_ERRORS, "Failed upstream attempts"),
            &["channel_id", "code"],
        )?;
        let tokens = IntCounterVec::new(Opts::new(TOKENS, "Tokens billed"), &["kind"])?;
        let snapshot_version = IntGauge::new(SNAPSHOT_VERSION, "Config snapshot version in force")?;
        registry.register(Box::new(requests.clone()))?;
        registry.register(Box::new(duration.clone()))?;
        registry.register(Box::new(ttft.clone()))?;
        registry.register(Box::new(upstream_errors.clone()))?;
        registry.register(Box::new(tokens.clone()))?;
        let config_stream_up = IntGauge::new(
            CONFIG_STREAM_UP,
            "Whether the control plane's config stream is connected",
        )?;
        let usage_spool = IntGauge::new(USAGE_SPOOL, "Usage records waiting in the spool")?;
        registry.register(Box::new(snapshot_version.clone()))?;
        let snapshot_applied = IntGauge::new(
            SNAPSHOT_APPLIED,
            "Unix time the config in force was applied (snapshot or delta)",
        )?;
        registry.register(Box::new(snapshot_applied.clone()))?;
        registry.register(Box::new(config_stream_up.clone()))?;
        registry.register(Box::new(usage_spool.clone()))?;
        let usage_dropped = IntCounterVec::new(
            Opts::new(USAGE_DROPPED, "Usage records dropped before delivery"),
            &["reason"],
        )?;
        registry.register(Box::new(usage_dropped.clone()))?;
        let unrecorded = IntCounterVec::new(
            Opts::new(UNRECORDED, "Requests answered without a log row, by reason"),
            &["reason"],
        )?;
        registry.register(Box::new(unrecorded.clone()))?;
        let rate_limit_redis_up = IntGauge::new(
            RATE_LIMIT_REDIS_UP,
            "Whether rate limits are counted in Redis (1) or on this gateway (0)",
        )?;
        let rate_limit_fallbacks = prometheus::IntCounter::new(
            RATE_LIMIT_FALLBACKS,
            "Times Redis failed or was slow and rate limits were counted locally",
        )?;
        let rate_limited = IntCounterVec::new(
            Opts::new(RATE_LIMITED, "Requests refused by a rate limit, by scope"),
            &["scope"],
        )?;
        registry.register(Box::new(rate_limit_redis_up.clone()))?;
        registry.register(Box::new(rate_limit_fallbacks.clone()))?;
        registry.register(Box::new(rate_limited.clone()))?;
        let fleet_redis_up = IntGauge::new(
            FLEET_REDIS_UP,
            "Whether balances are spent within leases in Redis (1) or on this gateway's figures (0)",
        )?;
        let fleet_fallbacks = prometheus::IntCounter::new(
            FLEET_FALLBACKS,
            "Times Redis failed or was slow and balances were spent on this gateway's figures",
        )?;
        registry.register(Box::new(fleet_redis_up.clone()))?;
        registry.register(Box::new(fleet_fallbacks.clone()))?;
        let fleet_grants = prometheus::IntCounter::new(
            FLEET_GRANTS,
            "Redis calls made to grow a lease of fleet budget (requests its lease did not cover)",
        )?;
        registry.register(Box::new(fleet_grants.clone()))?;
        let fleet_top_ups = prometheus::IntCounter::new(
            FLEET_TOP_UPS,
            "Redis calls made in the background to top up a lease of fleet budget that a request left low",
        )?;
        registry.register(Box::new(fleet_top_ups.clone()))?;
        let breakers_open = IntGauge::new(
            BREAKERS_OPEN,
            "Channel keys this gateway keeps out of routing after consecutive failures",
        )?;
        let breaker_opened = IntCounterVec::new(
            Opts::new(
                BREAKER_OPENED,
                "Channel circuit breakers opened, by channel",
            ),
            &["channel_id"],
        )?;
        registry.register(Box::new(breakers_open.clone()))?;
        let in_flight = IntGauge::new(IN_FLIGHT, "Relay requests being answered now")?;
        registry.register(Box::new(in_flight.clone()))?;
        let config_stale_seconds = IntGauge::new(
            CONFIG_STALE,
            "Seconds the config has been cut off from the control plane (0 while connected)",
        )?;
        registry.register(Box::new(config_stale_seconds.clone()))?;
        registry.register(Box::new(breaker_opened.clone()))?;
        static INSTANCES: AtomicU64 = AtomicU64::new(0);
        Ok(Metrics {
            instance: INSTANCES.fetch_add(1, Ordering::Relaxed),
            prompt_tokens: tokens.with_label_values(&["prompt"]),
            completion_tokens: tokens.with_label_values(&["completion"]),
            requests,
            duration,
            ttft,
            upstream_errors,
            tokens,
            snapshot_version,
            snapshot_applied,
            config_stream_up,
            usage_spool,
            usage_dropped,
            unrecorded,
            rate_limit_redis_up,
            rate_limit_fallbacks,
            rate_limited,
            fleet_redis_up,
            fleet_fallbacks,
            fleet_grants,
            fleet_top_ups,
            breakers_open,
            breaker_opened,
            in_flight,
            config_stale_seconds,
            by_model: ModelMetrics::new(&registry)?,
            registry,
        })
    }

    /// Counts one finished request: requests, latency, first token, tokens and quota, by
    /// endpoint and by model.
    pub fn count_finished(&self, f: &Finished<'_>) {
        let class = status_class(f.status);
        let view = memo::LabelsView {
            instance: self.instance,
            endpoint: f.endpoint,
            class,
            code: f.code,
            stream: f.stream,
            model: f.model,
        };
        let stream = if f.stream { "true" } else { "false" };
        let resolve = || RequestSeries {
            requests: self
                .requests
                .with_label_values(&[f.endpoint, class, f.code.unwrap_or("ok")]),
            duration: self.duration.with_label_values(&[f.endpoint, stream]),
            ttft: OnceCell::new(),
            model: f.model.map(|m| self.by_model.resolve(m, class)),
        };
        memo::with_series(view, resolve, |s| {
            s.requests.inc();
            s.duration.observe(f.elapsed_seconds);
            if let Some(t) = f.ttft_seconds {
                s.ttft
                    .get_or_init(|| self.ttft.with_label_values(&[f.endpoint, stream]))
                    .observe(t);
            }
            if f.quota > 0 || f.prompt_tokens > 0 {
                self.prompt_tokens
                    .inc_by(f.prompt_tokens.max(0).unsigned_abs());
                self.completion_tokens
                    .inc_by(f.completion_tokens.max(0).unsigned_abs());
            }
            if let Some(m) = &s.model {
                self.by_model.count(m, f);
            }
        });
    }

    /// The metrics [`crate::limits::Limits`] reports to.
    pub fn limit_metrics(&self) -> crate::limits::LimitMetrics {
        crate::limits::LimitMetrics {
            redis_up: self.rate_limit_redis_up.clone(),
            fallbacks: self.rate_limit_fallbacks.clone(),
        }
    }

    pub fn fleet_metrics(&self) -> crate::billing::fleet::FleetMetrics {
        crate::billing::fleet::FleetMetrics {
            redis_up: self.fleet_redis_up.clone(),
            fallbacks: self.fleet_fallbacks.clone(),
            grants: self.fleet_grants.clone(),
            top_ups: self.fleet_top_ups.clone(),
        }
    }

    /// The text exposition format.
    pub fn render(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if let Err(e) = TextEncoder::new().encode(&self.registry.gather(), &mut out) {
            tracing::error!(error = %e, "cannot encode metrics");
        }
        out
    }
}

/// "2xx", "4xx", … for a status.
pub fn status_class(status: u16) -> &'static str {
    match status / 100 {
        1 => "1xx",
        2 => "2xx",
        3 => "3xx",
        4 => "4xx",
        _ => "5xx",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    #[test]
    fn bounded_labels_share_other_past_the_cap() {
        let l = BoundedLabel::new(2);
        assert_eq!(l.get("a"), "a");
        assert_eq!(l.get("b"), "b");
        assert_eq!(l.get("c"), "other");
        assert_eq!(l.get("a"), "a");
        assert_eq!(l.get(""), "none");
    }

    fn finished<'a>(model: Option<(&'a str, &'a str, Option<i64>)>) -> Finished<'a> {
        Finished {
            endpoint: "chat_completions",
            status: 200,
            code: None,
            stream: false,
            model,
            elapsed_seconds: 0.02,
            ttft_seconds: Some(0.01),
            prompt_tokens: 5,
            completion_tokens: 7,
            quota: 12,
        }
    }

    fn text(m: &Metrics) -> String {
        String::from_utf8(m.render()).unwrap_or_default()
    }

    #[test]
    fn finished_requests_count_into_their_own_series() {
        let m = Metrics::new().expect("metrics");
        let model = String::from("gpt-test");
        for _ in 0..3 {
            m.count_finished(&finished(Some((&model, "default", Some(4)))));
        }
        m.count_finished(&Finished {
            status: 429,
            code: Some("rate_limited"),
            ttft_seconds: None,
            prompt_tokens: 0,
            completion_tokens: 0,
            quota: 0,
            ..finished(Some(("gpt-test", "vip", None)))
        });
        m.count_finished(&finished(None));
        let t = text(&m);
        for line in [
            r#"gateway_requests_total{code="ok",endpoint="chat_completions",status_class="2xx"} 4"#,
            r#"gateway_requests_total{code="rate_limited",endpoint="chat_completions",status_class="4xx"} 1"#,
            r#"gateway_request_duration_seconds_count{endpoint="chat_completions",stream="false"} 5"#,
            r#"gateway_time_to_first_token_seconds_count{endpoint="chat_completions",stream="false"} 4"#,
            r#"gateway_tokens_total{kind="prompt"} 20"#,
            r#"gateway_tokens_total{kind="completion"} 28"#,
            r#"gateway_model_requests_total{group="default",model="gpt-test",status_class="2xx"} 3"#,
            r#"gateway_model_requests_total{group="vip",model="gpt-test",status_class="4xx"} 1"#,
            r#"gateway_channel_requests_total{channel_id="4",status_class="2xx"} 3"#,
            r#"gateway_model_tokens_total{kind="prompt",model="gpt-test"} 15"#,
            r#"gateway_model_quota_total{model="gpt-test"} 36"#,
            r#"gateway_model_time_to_first_token_seconds_count{model="gpt-test"} 3"#,
        ] {
            assert!(t.contains(line), "missing {line} in\n{t}");
        }
    }

    #[test]
    fn instances_keep_their_own_series() {
        let (a, b) = (Metrics::new().expect("a"), Metrics::new().expect("b"));
        a.count_finished(&finished(Some(("m", "default", Some(1)))));
        a.count_finished(&finished(Some(("m", "default", Some(1)))));
        b.count_finished(&finished(Some(("m", "default", Some(1)))));
        let line = |n: u32| {
            format!(
                r#"gateway_model_requests_total{{group="default",model="m",status_class="2xx"}} {n}"#
            )
        };
        assert!(text(&a).contains(&line(2)));
        assert!(text(&b).contains(&line(1)));
    }

    #[test]
    fn series_never_moved_are_not_shown() {
        let m = Metrics::new().expect("metrics");
        m.count_finished(&Finished {
            ttft_seconds: None,
            quota: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            ..finished(Some(("quiet", "default", None)))
        });
        let t = text(&m);
        assert!(t.contains(
            r#"gateway_model_requests_total{group="default",model="quiet",status_class="2xx"} 1"#
        ));
        for absent in [
            "gateway_model_quota_total{",
            "gateway_model_tokens_total{",
            "gateway_model_time_to_first_token_seconds_count{",
            "gateway_time_to_first_token_seconds_count{",
        ] {
            assert!(!t.contains(absent), "{absent} shown in\n{t}");
        }
    }
}
