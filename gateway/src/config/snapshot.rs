//! The validated in-memory snapshot: tokens by key hash, users with live balances,
//! channels, the routing table group → model → priority tiers, prices and options.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::num::NonZeroI64;
use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::time::Duration;

use ipnet::IpNet;
use proto::config::v1 as pb;

use super::ConfigError;
use super::channel_setting::ChannelSetting;
use super::keys::{ChannelKeys, KeyMode};
use super::token_index::TokenIndex;
use adapters::provider::{self, ProviderSpec};
use adapters::shaping::{ChannelShaping, HeaderOverride, ShapingError, ShapingSource};

/// A map by model or group name, looked up several times per request: hashed with foldhash
/// (seeded per process), not SipHash. Its keys come from the config, never from a client.
pub type NameMap<V> = HashMap<String, V, hashbrown::DefaultHashBuilder>;

/// A token key's SHA-256 (of the key without `sk-`): what the token index is keyed by.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyHash(pub(super) [u8; 32]);

impl KeyHash {
    /// The hash of a key as a client sends it (without `sk-`).
    pub fn of_key(key: &str) -> KeyHash {
        use sha2::Digest;
        KeyHash(sha2::Sha256::digest(key.as_bytes()).into())
    }

    /// 64 hex digits, either case.
    pub fn from_hex(hex_digits: &str) -> Option<KeyHash> {
        let mut bytes = [0; 32];
        hex::decode_to_slice(hex_digits, &mut bytes).ok()?;
        Some(KeyHash(bytes))
    }
}

impl std::fmt::Debug for KeyHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyHash({}…)", hex::encode(&self.0[..4]))
    }
}

/// A token, with its remaining quota as a live atomic balance. Kept compact (120 bytes, plus
/// its name): a deployment holds one per key, and what is rare (model limits, a rate limit)
/// costs a pointer when absent.
#[derive(Debug)]
pub struct TokenEntry {
    pub id: i64,
    pub user_id: i64,
    pub name: Box<str>,
    pub status: i32,
    /// Unix seconds; `None` never expires.
    pub expires_at: Option<NonZeroI64>,
    pub unlimited: bool,
    pub remain: AtomicI64,
    /// The control plane's figure of `remain` in this snapshot (before this gateway's own
    /// unreflected spending was taken from it).
    pub cp_remain: i64,
    pub used: AtomicI64,
    /// `Some` when model limits are enabled.
    pub model_limits: Option<Box<HashSet<String>>>,
    pub allow_ips: Box<[IpNet]>,
    /// Shared by every token of the group (see `intern`).
    pub group: Arc<str>,
    /// `Some` when the token's rate limit is enabled.
    pub rate_limit: Option<Box<TokenRateLimit>>,
}

/// A token's request rate limit (0: no limit of that kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenRateLimit {
    pub period_secs: i64,
    /// All requests, failures included.
    pub count: i64,
    /// Successful requests.
    pub success: i64,
}

/// The per-user model request limit (`ModelRequestRateLimit*`; 0: no limit of that kind).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelRateLimit {
    pub count: i64,
    pub success: i64,
    pub minutes: i64,
    /// (count, success) by group, replacing the two above.
    pub by_group: HashMap<String, (i64, i64)>,
}

/// A user, with its wallet as a live atomic balance.
#[derive(Debug)]
pub struct UserEntry {
    pub id: i64,
    pub username: String,
    pub status: i32,
    pub group: String,
    pub role: i32,
    pub quota: AtomicI64,
    /// The control plane's figure of `quota` in this snapshot (before this gateway's own
    /// unreflected spending was taken from it).
    pub cp_quota: i64,
    pub used: AtomicI64,
    /// Models without a price are allowed at zero cost for this user.
    pub accept_unpriced: bool,
}

/// A channel the gateway can relay to.
#[derive(Debug)]
pub struct ChannelEntry {
    pub id: i64,
    pub name: String,
    pub spec: &'static ProviderSpec,
    pub base_url: String,
    /// Secrets: never logged (Debug is implemented by hand).
    pub keys: ChannelKeys,
    pub enabled: bool,
    pub priority: i64,
    pub weight: u32,
    pub model_mapping: HashMap<String, String>,
    pub status_code_mapping: HashMap<u16, u16>,
    pub organization: String,
    /// Requests in flight to this channel across the fleet (0: no limit).
    pub max_concurrency: u32,
    /// The channel's `other` (Azure's api-version, Vertex's region).
    pub other: String,
    pub setting: ChannelSetting,
    /// Added to the model name sent upstream (not doubled).
    pub model_prefix: String,
    /// Requests whose prompt estimate is larger fail over (0: no limit).
    pub max_input_tokens: i64,
    /// Param and header override, system prompt, field policy; a channel whose rules cannot
    /// be read keeps the error, and each attempt on it fails over.
    pub shaping: Result<Arc<ChannelShaping>, ShapingError>,
}

impl ChannelEntry {
    /// Where this channel's calls go.
    pub fn site(&self) -> provider::Site<'_> {
        provider::Site {
            spec: self.spec,
            base_url: &self.base_url,
            other: &self.other,
            responses_version: &self.setting.azure_responses_version,
            gemini_version: "",
        }
    }
}

/// Channels of one priority inside a (group, model) route.
#[derive(Debug, Clone)]
pub struct Tier {
    pub priority: i64,
    pub channels: Vec<Arc<ChannelEntry>>,
}

/// A set of HTTP statuses given as ranges (`"429,500-503"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusSet(Vec<(u16, u16)>);

impl StatusSet {
    /// new-api's default AutomaticRetryStatusCodes.
    pub const DEFAULT: &'static str = "100-199,300-399,401-407,409-499,500-503,505-523,525-599";

    /// Parses ranges; an empty string means the default set.
    pub fn parse(text: &str) -> Result<StatusSet, ConfigError> {
        let text = if text.trim().is_empty() {
            Self::DEFAULT
        } else {
            text
        };
        let bad = || ConfigError::Invalid(format!("bad status code ranges {text:?}"));
        let mut ranges = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (lo, hi) = part.split_once('-').unwrap_or((part, part));
            let lo: u16 = lo.trim().parse().map_err(|_| bad())?;
            let hi: u16 = hi.trim().parse().map_err(|_| bad())?;
            ranges.push((lo, hi));
        }
        Ok(StatusSet(ranges))
    }

    /// Whether `status` is in the set (statuses outside 100-599 always are).
    pub fn contains(&self, status: u16) -> bool {
        !(100..=599).contains(&status)
            || self.0.iter().any(|(lo, hi)| (*lo..=*hi).contains(&status))
    }
}

/// Prices and ratios.
#[derive(Debug, Clone, Default)]
pub struct Pricing {
    pub model_ratio: NameMap<f64>,
    pub completion_ratio: NameMap<f64>,
    pub cache_ratio: NameMap<f64>,
    /// CreateCacheRatio: cache writes relative to input (1.25 when absent).
    pub create_cache_ratio: NameMap<f64>,
    pub model_price: NameMap<f64>,
    pub group_ratio: NameMap<f64>,
    pub usable_groups: HashSet<String>,
    /// user group → using group → ratio, replacing `group_ratio` where present.
    pub group_group_ratio: NameMap<NameMap<f64>>,
}

/// Relay options with defaults applied.
#[derive(Debug, Clone)]
pub struct Options {
    pub retry_times: u32,
    pub quota_per_unit: i64,
    pub pre_consumed_tokens: i64,
    pub retryable: StatusSet,
    pub connect_timeout: Duration,
    pub first_byte_timeout: Duration,
    pub stream_idle_timeout: Duration,
    pub max_body_bytes: usize,
    pub force_stream_usage: bool,
    /// Settings of the Claude and Gemini protocols.
    pub providers: ProviderOptions,
    /// Completion tokens reserved without max_tokens, by model ("default").
    pub completion_allowance: NameMap<i64>,
    /// In-flight requests per user (0: no limit), and the same by group.
    pub user_concurrency: i64,
    pub group_concurrency: HashMap<String, i64>,
    /// `Some` when the per-user model request limit is enabled.
    pub model_rate_limit: Option<ModelRateLimit>,
    /// Requests and tokens per minute one user may use, by group, then model (`*`: others).
    pub group_model_limits: HashMap<String, HashMap<String, (i64, i64)>>,
    /// Whether prompts are searched for [`Options::sensitive_words`].
    pub sensitive_check_prompt: bool,
    pub sensitive_words: Arc<crate::edge::content::SensitiveWords>,
    /// Whether answers are searched for them (masked, or refused with `sensitive_stop`).
    pub sensitive_check_completion: bool,
    pub sensitive_stop: bool,
    /// Events a checked stream holds back (`StreamCacheQueueLength`).
    pub stream_cache_queue: usize,
    /// Prompt and answer text kept in the log row (`LogChatContentEnabled`).
    pub log_chat_content: bool,
    /// Where client image URLs are fetched (`WorkerUrl`, `WorkerValidKey`), when set.
    pub image_worker: Option<Arc<ImageWorker>>,
    /// Midjourney submissions keep `notifyHook` (`MjNotifyEnabled`).
    pub mj_notify: bool,
    /// … keep `accountFilter` (`MjAccountFilterEnabled`).
    pub mj_account_filter: bool,
    /// … have `--fast`, `--relax`, `--turbo` taken out of their prompt (`MjModeClearEnabled`).
    pub mj_mode_clear: bool,
    /// Actions need a finished task of the caller's to build on (`MjActionCheckSuccessEnabled`).
    pub mj_action_check: bool,
    /// Drawings' images are shown through the gateway's proxy (`MjForwardUrlEnabled`).
    pub mj_forward_url: bool,
    /// `ServerAddress` (no trailing slash).
    pub server_address: String,
    /// Clients get a generic message instead of the upstream's error text.
    pub hide_upstream_error: bool,
    /// Requests whose Origin is a browser extension are refused.
    pub block_browser_extension: bool,
    /// Upstream silence in a started stream after which the client gets `: PING`.
    pub stream_ping: Option<Duration>,
    /// Models without a price are allowed at zero cost (`SelfUseModeEnabled`).
    pub self_use_mode: bool,
    /// Same-dialect requests go upstream as the client's bytes, unchanged
    /// (`global.pass_through_request_enabled`).
    pub pass_through_request: bool,
}

/// Completion tokens reserved for a request without max_tokens when no option says.
pub const DEFAULT_COMPLETION_ALLOWANCE: i64 = 4096;
/// In-flight requests per user when no option says.
pub const DEFAULT_USER_CONCURRENCY: i64 = 256;

impl Options {
    /// Completion tokens to reserve for `model` when the client set no max_tokens.
    pub fn completion_allowance(&self, model: &str) -> i64 {
        self.completion_allowance
            .get(model)
            .or_else(|| self.completion_allowance.get("default"))
            .copied()
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_COMPLETION_ALLOWANCE)
    }

    /// How many requests a user of `group` may have in flight (`None`: no limit).
    pub fn concurrency_limit(&self, group: &str) -> Option<u32> {
        let n = self
            .group_concurrency
            .get(group)
            .copied()
            .unwrap_or(self.user_concurrency);
        (n > 0).then(|| u32::try_from(n).unwrap_or(u32::MAX))
    }
}

/// Options of the non-OpenAI provider protocols (`claude.*`, `gemini.*`).
#[derive(Debug, Clone, Default)]
pub struct ProviderOptions {
    /// max_tokens for Claude when the client sent none, by upstream model ("default").
    pub claude_default_max_tokens: HashMap<String, i64>,
    pub claude_thinking_adapter: bool,
    pub claude_thinking_budget_share: f64,
    /// Threshold by harm category ("default" for the rest).
    pub gemini_safety_settings: HashMap<String, String>,
    pub gemini_thinking_adapter: bool,
    pub gemini_thinking_budget_share: f64,
    /// Extra headers of Claude requests, by upstream model.
    pub claude_model_headers: HashMap<String, Vec<(http::HeaderName, http::HeaderValue)>>,
    /// Gemini API version by model ("default" for the rest).
    pub gemini_versions: HashMap<String, String>,
    /// Gemini models asked for image output.
    pub gemini_image_models: Vec<String>,
    /// Gemini models that take a thinking budget (empty: every model).
    pub gemini_thinking_budget_models: Vec<String>,
}

impl ProviderOptions {
    /// The Gemini API version for `model` (`v1beta` unless configured).
    pub fn gemini_version(&self, model: &str) -> &str {
        self.gemini_versions
            .get(model)
            .or_else(|| self.gemini_versions.get("default"))
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
            .unwrap_or("v1beta")
    }

    /// Whether `model` should answer with images too.
    pub fn gemini_image_output(&self, model: &str) -> bool {
        self.gemini_image_models.iter().any(|m| m == model)
    }

    /// Whether `model` takes a thinking budget.
    pub fn gemini_takes_budget(&self, model: &str) -> bool {
        self.gemini_thinking_budget_models.is_empty()
            || self
                .gemini_thinking_budget_models
                .iter()
                .any(|m| m == model)
    }

    /// Claude's max_tokens for `model` when the client gave none.
    pub fn claude_max_tokens(&self, model: &str) -> i64 {
        self.claude_default_max_tokens
            .get(model)
            .or_else(|| self.claude_default_max_tokens.get("default"))
            .copied()
            .filter(|n| *n > 0)
            .unwrap_or(8192)
    }
}

/// The operator's fetching worker (`WorkerUrl`, `WorkerValidKey`).
#[derive(Debug)]
pub struct ImageWorker {
    pub url: String,
    pub key: super::Secret,
}

/// The worker, when its address is an http(s) URL.
fn image_worker(url: &str, key: &str) -> Option<Arc<ImageWorker>> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    let valid = (lower.starts_with("https://") || lower.starts_with("http://"))
        && url.parse::<http::Uri>().is_ok();
    valid.then(|| {
        Arc::new(ImageWorker {
            url: url.to_owned(),
            key: super::Secret(key.to_owned()),
        })
    })
}

/// An API version that can go into a URL path: `v1`, `v1beta`, `v1alpha`, … (letters, digits,
/// dots, dashes).
fn valid_api_version(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 32
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
}

fn share_or(share: f64, default: f64) -> f64 {
    if share.is_finite() && (0.1..=1.0).contains(&share) {
        share
    } else {
        default
    }
}

/// Channels by id.
pub type Channels = Arc<HashMap<i64, Arc<ChannelEntry>>>;
/// group → model → tiers, highest priority first.
pub type Routes = Arc<NameMap<NameMap<Vec<Tier>>>>;

/// Everything the request path reads, immutable once built. Tokens and users are persistent
/// maps of per-entity `Arc`s: the snapshot after a delta shares every entry the delta did not
/// touch (and their live balances) with the one before, so applying it costs what it changes.
#[derive(Debug)]
pub struct Snapshot {
    pub version: u64,
    /// Tokens by key hash and by id. (B-tree maps: a hash trie's sparse nodes cost several
    /// times the entries they hold; see `benches/token_memory.rs`.)
    pub tokens: TokenIndex,
    pub users: imbl::OrdMap<i64, Arc<UserEntry>>,
    pub channels: Channels,
    pub routes: Routes,
    pub pricing: Arc<Pricing>,
    pub options: Arc<Options>,
}

/// Channels of one route by priority (ascending).
type TierMap = BTreeMap<i64, Vec<Arc<ChannelEntry>>>;

fn ms_or(ms: u64, default_ms: u64) -> Duration {
    Duration::from_millis(if ms == 0 { default_ms } else { ms })
}

fn options(raw: Option<&pb::RelayOptions>) -> Result<Options, ConfigError> {
    let d = pb::RelayOptions::default();
    let o = raw.unwrap_or(&d);
    Ok(Options {
        retry_times: o.retry_times,
        quota_per_unit: if o.quota_per_unit > 0 {
            o.quota_per_unit
        } else {
            500_000
        },
        pre_consumed_tokens: o.pre_consumed_quota.unwrap_or(500).max(0),
        retryable: StatusSet::parse(&o.retryable_status_codes)?,
        connect_timeout: ms_or(o.connect_timeout_ms, 10_000),
        first_byte_timeout: ms_or(o.first_byte_timeout_ms, 300_000),
        stream_idle_timeout: ms_or(o.stream_idle_timeout_ms, 300_000),
        max_body_bytes: if o.max_request_body_bytes == 0 {
            32 << 20
        } else {
            usize::try_from(o.max_request_body_bytes).unwrap_or(usize::MAX)
        },
        force_stream_usage: o.force_stream_usage.unwrap_or(true),
        completion_allowance: names(o.completion_allowance.clone()),
        user_concurrency: o.user_concurrency.unwrap_or(DEFAULT_USER_CONCURRENCY),
        group_concurrency: o.group_concurrency.clone(),
        model_rate_limit: o.model_rate_limit_enabled.then(|| ModelRateLimit {
            count: o.model_rate_limit_count,
            success: o.model_rate_limit_success,
            minutes: o.model_rate_limit_minutes,
            by_group: o
                .model_rate_limit_group
                .iter()
                .map(|(g, p)| (g.clone(), (p.count, p.success)))
                .collect(),
        }),
        group_model_limits: o
            .group_model_rate_limit
            .iter()
            .map(|(group, limits)| {
                let by_model = limits
                    .by_model
                    .iter()
                    .map(|(m, l)| (m.clone(), (l.rpm.max(0), l.tpm.max(0))))
                    .collect();
                (group.clone(), by_model)
            })
            .collect(),
        hide_upstream_error: o.hide_upstream_error,
        block_browser_extension: o.block_browser_extension,
        self_use_mode: o.self_use_mode,
        pass_through_request: o.pass_through_request,
        stream_ping: (o.stream_ping_seconds > 0)
            .then(|| Duration::from_secs(u64::from(o.stream_ping_seconds))),
        sensitive_check_prompt: o.sensitive_check_prompt && !o.sensitive_words.is_empty(),
        sensitive_check_completion: o.sensitive_check_completion && !o.sensitive_words.is_empty(),
        sensitive_stop: o.sensitive_stop,
        stream_cache_queue: usize::try_from(o.stream_cache_queue).unwrap_or(0),
        log_chat_content: o.log_chat_content,
        image_worker: image_worker(&o.worker_url, &o.worker_key),
        mj_notify: o.mj_notify,
        mj_account_filter: o.mj_account_filter,
        mj_mode_clear: o.mj_mode_clear,
        mj_action_check: o.mj_action_check,
        mj_forward_url: o.mj_forward_url,
        server_address: o.server_address.clone(),
        sensitive_words: crate::edge::content::SensitiveWords::shared(&o.sensitive_words),
        providers: ProviderOptions {
            claude_default_max_tokens: o.claude_default_max_tokens.clone(),
            claude_thinking_adapter: o.claude_thinking_adapter,
            claude_thinking_budget_share: share_or(o.claude_thinking_budget_share, 0.8),
            gemini_safety_settings: o.gemini_safety_settings.clone(),
            gemini_thinking_adapter: o.gemini_thinking_adapter,
            gemini_thinking_budget_share: share_or(o.gemini_thinking_budget_share, 0.6),
            claude_model_headers: o
                .claude_model_headers
                .iter()
                .map(|(model, set)| {
                    let headers = set
                        .headers
                        .iter()
                        .filter_map(|(n, v)| {
                            Some((
                                http::HeaderName::from_bytes(n.as_bytes()).ok()?,
                                http::HeaderValue::from_str(v).ok()?,
                            ))
                        })
                        .collect();
                    (model.clone(), headers)
                })
                .collect(),
            gemini_versions: o
                .gemini_versions
                .iter()
                .filter(|(_, v)| valid_api_version(v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            gemini_image_models: o.gemini_image_models.clone(),
            gemini_thinking_budget_models: o.gemini_thinking_budget_models.clone(),
        },
    })
}

pub(super) fn token(t: &pb::Token) -> Result<TokenEntry, ConfigError> {
    let allow_ips = t
        .allow_ips
        .iter()
        .flat_map(|s| s.split(['\n', ',']))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<IpNet>()
                .or_else(|_| s.parse::<std::net::IpAddr>().map(IpNet::from))
                .map_err(|_| {
                    ConfigError::Invalid(format!("token {}: bad allow_ips entry {s:?}", t.id))
                })
        })
        .collect::<Result<Box<[_]>, _>>()?;
    Ok(TokenEntry {
        id: t.id,
        user_id: t.user_id,
        name: t.name.as_str().into(),
        status: t.status,
        expires_at: NonZeroI64::new(t.expired_time.max(0)),
        unlimited: t.unlimited_quota,
        remain: AtomicI64::new(t.remain_quota),
        cp_remain: t.remain_quota,
        used: AtomicI64::new(t.used_quota),
        model_limits: t
            .model_limits_enabled
            .then(|| Box::new(t.model_limits.iter().map(|m| m.trim().to_owned()).collect())),
        allow_ips,
        group: super::intern::group(&t.group),
        rate_limit: t.rate_limit_enabled.then(|| {
            Box::new(TokenRateLimit {
                period_secs: t.rate_limit_period,
                count: t.rate_limit_count,
                success: t.rate_limit_success,
            })
        }),
    })
}

fn channel(c: &pb::Channel) -> Result<Option<ChannelEntry>, ConfigError> {
    let Some(spec) = provider::lookup(c.r#type) else {
        tracing::warn!(
            channel_id = c.id,
            channel_type = c.r#type,
            "channel type not served by this gateway; skipped"
        );
        return Ok(None);
    };
    let mut status_code_mapping = HashMap::new();
    for (from, to) in &c.status_code_mapping {
        let parse = |s: &str| {
            s.trim()
                .parse::<u16>()
                .ok()
                .filter(|n| (100..=599).contains(n))
                .ok_or_else(|| {
                    ConfigError::Invalid(format!(
                        "channel {}: bad status_code_mapping {from:?}→{to:?}",
                        c.id
                    ))
                })
        };
        status_code_mapping.insert(parse(from)?, parse(to)?);
    }
    let shaping = shaping(c).map(Arc::new);
    if let Err(e) = &shaping {
        tracing::warn!(channel_id = c.id, code = e.code(), error = %e, "channel shaping rules cannot be used: its requests fail over");
    }
    Ok(Some(ChannelEntry {
        id: c.id,
        name: c.name.clone(),
        spec,
        base_url: c.base_url.clone(),
        keys: ChannelKeys::new(
            &c.key,
            &c.keys,
            &c.key_indexes,
            KeyMode::parse(&c.multi_key_mode),
        ),
        enabled: c.status == pb::CHANNEL_ENABLED,
        priority: c.priority,
        weight: c.weight,
        model_mapping: c.model_mapping.clone(),
        status_code_mapping,
        organization: c.openai_organization.clone(),
        max_concurrency: u32::try_from(c.max_concurrency.max(0)).unwrap_or(u32::MAX),
        other: c.other.clone(),
        setting: ChannelSetting::parse(&c.setting),
        model_prefix: c.model_prefix.trim().to_owned(),
        max_input_tokens: c.max_input_tokens.max(0),
        shaping,
    }))
}

/// The channel's shaping rules: its `header_override` text, or (snapshots and config files
/// that carry only the header map) the map.
fn shaping(c: &pb::Channel) -> Result<ChannelShaping, ShapingError> {
    let rules = ChannelShaping::parse(&ShapingSource {
        param_override: &c.param_override,
        header_override: &c.header_override,
        settings: &c.setting,
    })?;
    if !c.header_override.trim().is_empty() || c.headers.is_empty() {
        return Ok(rules);
    }
    let mut pairs: Vec<(&str, &str)> = c
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    pairs.sort_unstable();
    Ok(rules.with_header_override(HeaderOverride::from_pairs(pairs)?))
}

/// A token's key hash as the index keeps it (the message has 64 hex digits).
pub(super) fn key_hash(t: &pb::Token) -> Result<KeyHash, ConfigError> {
    KeyHash::from_hex(t.key_hash.trim()).ok_or_else(|| {
        ConfigError::Invalid(format!("token {}: key_hash must be 64 hex digits", t.id))
    })
}

pub(super) fn user(u: &pb::User) -> UserEntry {
    UserEntry {
        id: u.id,
        username: u.username.clone(),
        status: u.status,
        group: if u.group.is_empty() {
            "default".to_owned()
        } else {
            u.group.clone()
        },
        role: u.role,
        quota: AtomicI64::new(u.quota),
        cp_quota: u.quota,
        used: AtomicI64::new(u.used_quota),
        accept_unpriced: u.accept_unpriced,
    }
}

/// The channels by id and the routing table group → model → tiers (highest priority first).
pub(super) fn routing<'a>(
    raw: impl IntoIterator<Item = &'a pb::Channel>,
) -> Result<(Channels, Routes), ConfigError> {
    let mut channels = HashMap::new();
    // group → model → priority → channels (BTreeMap orders priorities).
    let mut table: HashMap<String, HashMap<String, TierMap>> = HashMap::new();
    for c in raw {
        let Some(entry) = channel(c)? else { continue };
        let entry = Arc::new(entry);
        if channels.insert(c.id, entry.clone()).is_some() {
            return Err(ConfigError::Invalid(format!(
                "duplicate channel id {}",
                c.id
            )));
        }
        if !entry.enabled {
            continue;
        }
        let groups: Vec<&str> = if c.groups.is_empty() {
            vec!["default"]
        } else {
            c.groups.iter().map(String::as_str).collect()
        };
        for g in groups {
            for m in &c.models {
                table
                    .entry(g.trim().to_owned())
                    .or_default()
                    .entry(m.trim().to_owned())
                    .or_default()
                    .entry(entry.priority)
                    .or_default()
                    .push(entry.clone());
            }
        }
    }
    let routes = table
        .into_iter()
        .map(|(g, models)| {
            let models = models
                .into_iter()
                .map(|(m, tiers)| {
                    let tiers = tiers
                        .into_iter()
                        .rev()
                        .map(|(priority, channels)| Tier { priority, channels })
                        .collect();
                    (m, tiers)
                })
                .collect();
            (g, models)
        })
        .collect();
    Ok((Arc::new(channels), Arc::new(routes)))
}

pub(super) fn pricing(raw: Option<&pb::Pricing>) -> Pricing {
    let p = raw.cloned().unwrap_or_default();
    let mut group_ratio = names(p.group_ratio);
    if group_ratio.is_empty() {
        group_ratio.insert("default".to_owned(), 1.0);
    }
    Pricing {
        model_ratio: names(p.model_ratio),
        completion_ratio: names(p.completion_ratio),
        cache_ratio: names(p.cache_ratio),
        create_cache_ratio: names(p.create_cache_ratio),
        model_price: names(p.model_price),
        group_ratio,
        usable_groups: p.user_usable_groups.into_keys().collect(),
        group_group_ratio: p
            .group_group_ratio
            .into_iter()
            .map(|(g, r)| (g, names(r.ratios)))
            .collect(),
    }
}

/// `map` as a [`NameMap`].
fn names<V>(map: HashMap<String, V>) -> NameMap<V> {
    map.into_iter().collect()
}

pub(super) fn relay_options(raw: Option<&pb::RelayOptions>) -> Result<Arc<Options>, ConfigError> {
    options(raw).map(Arc::new)
}

impl Snapshot {
    /// Validates a raw snapshot and builds the indexes.
    pub fn build(raw: &pb::Snapshot) -> Result<Snapshot, ConfigError> {
        let mut tokens = TokenIndex::default();
        for t in &raw.tokens {
            tokens.insert(key_hash(t)?, Arc::new(token(t)?))?;
        }
        let mut users = imbl::OrdMap::new();
        for u in &raw.users {
            if users.insert(u.id, Arc::new(user(u))).is_some() {
                return Err(ConfigError::Invalid(format!("duplicate user id {}", u.id)));
            }
        }
        let (channels, routes) = routing(&raw.channels)?;
        Ok(Snapshot {
            version: raw.version,
            tokens,
            users,
            channels,
            routes,
            pricing: Arc::new(pricing(raw.pricing.as_ref())),
            options: relay_options(raw.options.as_ref())?,
        })
    }

    /// A token by its id.
    pub fn token_by_id(&self, id: i64) -> Option<&Arc<TokenEntry>> {
        self.tokens.by_id(id)
    }

    /// Priority tiers for a model in a group (empty when none).
    pub fn tiers(&self, group: &str, model: &str) -> &[Tier] {
        self.routes
            .get(group)
            .and_then(|m| m.get(model))
            .map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn status_sets_parse_ranges() {
        let d = StatusSet::parse("").unwrap();
        assert!(
            d.contains(429)
                && d.contains(500)
                && !d.contains(400)
                && !d.contains(504)
                && !d.contains(200)
        );
        let s = StatusSet::parse("429, 500-502").unwrap();
        assert!(s.contains(501) && !s.contains(503));
        assert!(StatusSet::parse("5xx").is_err());
    }

    #[test]
    fn routes_are_tiered_highest_first_and_skip_disabled() {
        let raw: pb::Snapshot = serde_json::from_value(serde_json::json!({
            "channels": [
                {"id": 1, "type": 1, "models": ["m"], "priority": 0, "status": 1},
                {"id": 2, "type": 1, "models": ["m"], "priority": 5, "status": 1, "groups": ["default", "vip"]},
                {"id": 3, "type": 1, "models": ["m"], "priority": 5, "status": 2},
                {"id": 4, "type": 15, "models": ["m"], "status": 1}
            ]
        }))
        .unwrap();
        let s = Snapshot::build(&raw).unwrap();
        let tiers = s.tiers("default", "m");
        assert_eq!(
            tiers.iter().map(|t| t.priority).collect::<Vec<_>>(),
            vec![5, 0]
        );
        assert_eq!(tiers[0].channels.len(), 1);
        assert_eq!(s.tiers("vip", "m").len(), 1);
        assert!(!s.channels.contains_key(&4));
        assert_eq!(s.options.pre_consumed_tokens, 500);
        assert_eq!(s.options.max_body_bytes, 32 << 20);
    }
}
