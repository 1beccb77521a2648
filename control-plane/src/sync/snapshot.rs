//! The snapshot builder: reads what gateways need (users, tokens by key hash, channels with
//! decrypted keys, prices, relay options) into `config.v1` messages, whole or as a delta.

use std::collections::{BTreeSet, HashMap};

use proto::config::v1 as pb;

use crate::domain::channel_keys::KeyStates;
use crate::domain::channels::{STATUS_ENABLED, split_keys};
use crate::domain::options::Options;
use crate::state::AppState;
use crate::store::channels::ChannelRecord;
use crate::store::config_changes::{self, Change, GatewayToken, GatewayUser};

/// Channel status of an enabled channel (2: disabled by hand, 3: disabled automatically).
const CHANNEL_ENABLED: i32 = 1;

/// Why a snapshot or delta could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(transparent)]
    Db(#[from] sqlx::Error),
}

/// The whole configuration, labelled with `version` (read before the tables, so any change
/// made while reading is sent again as a delta).
pub async fn snapshot(state: &AppState, version: i64) -> Result<pb::Snapshot, SyncError> {
    let db = state.db();
    let users = config_changes::users(db, None).await?;
    let tokens = config_changes::tokens(db, None).await?;
    let channels = config_changes::channels(db, None).await?;
    let options = state.options().await?;
    Ok(pb::Snapshot {
        version: u64::try_from(version).unwrap_or(0),
        tokens: tokens.into_iter().map(token).collect(),
        users: users.into_iter().map(user).collect(),
        channels: channels.iter().map(|c| channel(state, c)).collect(),
        pricing: Some(pricing(&options)),
        options: Some(relay_options(&options)),
    })
}

/// The entities named by `changes`, read as they are now: live ones as upserts, missing or
/// deleted ones as deletes. Several changes of one entity become one upsert (balances that
/// moved with every request travel once per batch).
pub async fn delta(
    state: &AppState,
    from_version: i64,
    version: i64,
    changes: &[Change],
) -> Result<pb::Delta, SyncError> {
    let mut ids: HashMap<&str, BTreeSet<i64>> = HashMap::new();
    let mut options_changed = false;
    for c in changes {
        if c.entity == "option" {
            options_changed = true;
        } else {
            ids.entry(c.entity.as_str()).or_default().extend(c.ids());
        }
    }
    let ids_of = |entity: &str| -> Vec<i64> {
        ids.get(entity)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default()
    };
    let db = state.db();
    let (user_ids, token_ids, channel_ids) = (ids_of("user"), ids_of("token"), ids_of("channel"));
    let users = config_changes::users(db, Some(&user_ids)).await?;
    let tokens = config_changes::tokens(db, Some(&token_ids)).await?;
    let channels = config_changes::channels(db, Some(&channel_ids)).await?;
    // (a set: a delta names up to a few thousand ids)
    let gone = |wanted: &[i64], found: BTreeSet<i64>| -> Vec<i64> {
        wanted
            .iter()
            .copied()
            .filter(|id| !found.contains(id))
            .collect()
    };
    let mut out = pb::Delta {
        from_version: u64::try_from(from_version).unwrap_or(0),
        version: u64::try_from(version).unwrap_or(0),
        delete_users: gone(&user_ids, users.iter().map(|u| u.id).collect()),
        delete_tokens: gone(&token_ids, tokens.iter().map(|t| t.id).collect()),
        delete_channels: gone(&channel_ids, channels.iter().map(|c| c.id).collect()),
        upsert_users: users.into_iter().map(user).collect(),
        upsert_tokens: tokens.into_iter().map(token).collect(),
        upsert_channels: channels.iter().map(|c| channel(state, c)).collect(),
        ..Default::default()
    };
    if options_changed {
        let options = state.options().await?;
        out.pricing = Some(pricing(&options));
        out.options = Some(relay_options(&options));
    }
    Ok(out)
}

fn user(u: GatewayUser) -> pb::User {
    pb::User {
        id: u.id,
        username: u.username,
        status: i32::try_from(u.status).unwrap_or_default(),
        group: u.group,
        quota: u.quota,
        role: i32::try_from(u.role).unwrap_or_default(),
        used_quota: u.used_quota,
        accept_unpriced: serde_json::from_str::<serde_json::Value>(&u.setting)
            .ok()
            .and_then(|s| s.get("accept_unset_model_ratio_model")?.as_bool())
            .unwrap_or(false),
    }
}

fn token(t: GatewayToken) -> pb::Token {
    pb::Token {
        id: t.id,
        key_hash: t.key_hash,
        user_id: t.user_id,
        name: t.name,
        status: i32::try_from(t.status).unwrap_or_default(),
        expired_time: t.expired_time,
        remain_quota: t.remain_quota,
        unlimited_quota: t.unlimited_quota != 0,
        model_limits_enabled: t.model_limits_enabled != 0,
        model_limits: split_list(&t.model_limits, &[',']),
        allow_ips: split_list(&t.allow_ips, &['\n', ',']),
        group: t.group,
        used_quota: t.used_quota,
        rate_limit_enabled: t.rate_limit_enabled != 0,
        rate_limit_period: t.rate_limit_period,
        rate_limit_count: t.rate_limit_count,
        rate_limit_success: t.rate_limit_success,
    }
}

/// A channel with its keys decrypted: every key of a multi-key channel, and the first one
/// again in `key` for gateways that know one key only. Only enabled channels carry keys (a
/// gateway never uses a disabled one); a key that cannot be decrypted leaves the channel
/// disabled.
fn channel(state: &AppState, c: &ChannelRecord) -> pb::Channel {
    let status = i32::try_from(c.status).unwrap_or_default();
    let (keys, status) = if status != CHANNEL_ENABLED {
        (Vec::new(), status)
    } else {
        match state.cipher().decrypt(&c.key_enc) {
            Ok(plain) => (split_keys(c.channel_type, &plain), status),
            Err(err) => {
                tracing::warn!(channel_id = c.id, error = %err, "channel key cannot be decrypted; sent disabled");
                (Vec::new(), 2)
            }
        }
    };
    // Disabled keys of a multi-key channel stay out; the others keep their index.
    let states = KeyStates::parse(&c.key_status);
    let (key_indexes, keys): (Vec<u32>, Vec<String>) = keys
        .into_iter()
        .enumerate()
        .map(|(i, k)| (u32::try_from(i).unwrap_or(u32::MAX), k))
        .filter(|(i, _)| states.status(*i) == STATUS_ENABLED)
        .unzip();
    let key = keys.first().cloned().unwrap_or_default();
    pb::Channel {
        id: c.id,
        r#type: i32::try_from(c.channel_type).unwrap_or_default(),
        name: c.name.clone(),
        base_url: c.base_url.clone(),
        key,
        models: split_list(&c.models, &[',']),
        groups: split_list(&c.group, &[',']),
        priority: c.priority,
        weight: u32::try_from(c.weight).unwrap_or(0),
        model_mapping: string_map(&c.model_mapping),
        status_code_mapping: status_map(c.id, &c.status_code_mapping),
        status,
        headers: string_map(&c.header_override),
        openai_organization: c.openai_organization.clone(),
        keys,
        key_indexes,
        multi_key_mode: c.multi_key_mode.clone(),
        max_concurrency: max_concurrency(&c.setting),
        other: c.other.clone(),
        param_override: c.param_override.clone(),
        header_override: c.header_override.clone(),
        setting: c.setting.clone(),
        model_prefix: c.model_prefix.trim().to_owned(),
        max_input_tokens: c.max_input_tokens.max(0),
    }
}

/// `max_concurrency` of a channel's setting JSON (0 when absent or not a positive number).
fn max_concurrency(setting: &str) -> i64 {
    serde_json::from_str::<serde_json::Value>(setting)
        .ok()
        .and_then(|v| v.get("max_concurrency")?.as_i64())
        .unwrap_or(0)
        .max(0)
}

fn pricing(o: &Options) -> pb::Pricing {
    pb::Pricing {
        model_ratio: number_map(o, "ModelRatio"),
        completion_ratio: number_map(o, "CompletionRatio"),
        cache_ratio: number_map(o, "CacheRatio"),
        model_price: number_map(o, "ModelPrice"),
        group_ratio: number_map(o, "GroupRatio"),
        user_usable_groups: string_map(o.get("UserUsableGroups")),
        group_group_ratio: group_group_ratio(o),
        create_cache_ratio: number_map(o, "CreateCacheRatio"),
    }
}

fn relay_options(o: &Options) -> pb::RelayOptions {
    pb::RelayOptions {
        retry_times: u32::try_from(o.i64("RetryTimes")).unwrap_or(0),
        quota_per_unit: o.i64("QuotaPerUnit"),
        pre_consumed_quota: Some(o.i64("PreConsumedQuota")),
        retryable_status_codes: o.get("AutomaticRetryStatusCodes").to_string(),
        claude_default_max_tokens: whole_numbers(o, "claude.default_max_tokens"),
        claude_thinking_adapter: o.bool("claude.thinking_adapter_enabled"),
        claude_thinking_budget_share: o.f64("claude.thinking_adapter_budget_tokens_percentage"),
        gemini_safety_settings: string_map(o.get("gemini.safety_settings")),
        gemini_thinking_adapter: o.bool("gemini.thinking_adapter_enabled"),
        gemini_thinking_budget_share: o.f64("gemini.thinking_adapter_budget_tokens_percentage"),
        completion_allowance: whole_numbers(o, "CompletionAllowance"),
        user_concurrency: Some(o.i64("UserConcurrencyLimit")),
        group_concurrency: whole_numbers(o, "GroupConcurrencyLimit"),
        model_rate_limit_enabled: o.bool("ModelRequestRateLimitEnabled"),
        model_rate_limit_count: o.i64("ModelRequestRateLimitCount"),
        model_rate_limit_success: o.i64("ModelRequestRateLimitSuccessCount"),
        model_rate_limit_minutes: o.i64("ModelRequestRateLimitDurationMinutes"),
        model_rate_limit_group: rate_limit_pairs(o.get("ModelRequestRateLimitGroup")),
        group_model_rate_limit: group_model_limits(o.get("GroupModelRateLimit")),
        hide_upstream_error: o.bool("global.hide_upstream_error_enabled"),
        self_use_mode: o.bool("SelfUseModeEnabled"),
        pass_through_request: o.bool("global.pass_through_request_enabled"),
        claude_model_headers: model_headers(o),
        gemini_versions: string_map(o.get("gemini.version_settings")),
        gemini_image_models: string_list(o, "gemini.supported_imagine_models"),
        gemini_thinking_budget_models: string_list(o, "gemini.models_supported_thinking_budget"),
        stream_ping_seconds: if o.bool("general_setting.ping_interval_enabled") {
            u32::try_from(o.i64("general_setting.ping_interval_seconds").max(1)).unwrap_or(60)
        } else {
            0
        },
        block_browser_extension: o.bool("global.block_browser_extension_enabled"),
        sensitive_check_prompt: o.bool("CheckSensitiveEnabled")
            && o.bool("CheckSensitiveOnPromptEnabled"),
        sensitive_check_completion: o.bool("CheckSensitiveEnabled")
            && o.bool("CheckSensitiveOnCompletionEnabled"),
        sensitive_stop: o.bool("StopOnSensitiveEnabled"),
        log_chat_content: o.bool("LogChatContentEnabled"),
        worker_url: o.get("WorkerUrl").trim().trim_end_matches('/').to_owned(),
        worker_key: o.get("WorkerValidKey").to_owned(),
        mj_notify: o.bool("MjNotifyEnabled"),
        mj_account_filter: o.bool("MjAccountFilterEnabled"),
        mj_mode_clear: o.bool("MjModeClearEnabled"),
        mj_action_check: o.bool("MjActionCheckSuccessEnabled"),
        mj_forward_url: o.bool("MjForwardUrlEnabled"),
        server_address: o
            .get("ServerAddress")
            .trim()
            .trim_end_matches('/')
            .to_owned(),
        stream_cache_queue: u32::try_from(o.i64("StreamCacheQueueLength").clamp(0, 64))
            .unwrap_or(0),
        sensitive_words: if o.bool("CheckSensitiveEnabled") {
            o.get("SensitiveWords")
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect()
        } else {
            Vec::new()
        },
        ..Default::default()
    }
}

/// `claude.model_headers_settings`: `{"model": {"header": "value" or ["v1", "v2"]}}`; header
/// names or values that could not go on the wire, and the credentials' own headers, are dropped.
fn model_headers(o: &Options) -> HashMap<String, pb::HeaderSet> {
    const RESERVED: [&str; 5] = [
        "authorization",
        "x-api-key",
        "host",
        "content-length",
        "content-type",
    ];
    let serde_json::Value::Object(models) = o.json("claude.model_headers_settings") else {
        return HashMap::new();
    };
    models
        .into_iter()
        .filter_map(|(model, headers)| {
            let headers: HashMap<String, String> = headers
                .as_object()?
                .iter()
                .filter_map(|(name, value)| {
                    let value = match value {
                        serde_json::Value::String(s) => s.clone(),
                        serde_json::Value::Array(items) => items
                            .iter()
                            .filter_map(serde_json::Value::as_str)
                            .collect::<Vec<_>>()
                            .join(", "),
                        _ => return None,
                    };
                    let name = name.trim().to_ascii_lowercase();
                    let valid = http::HeaderName::from_bytes(name.as_bytes()).is_ok()
                        && http::HeaderValue::from_str(&value).is_ok()
                        && !RESERVED.contains(&name.as_str());
                    valid.then_some((name, value))
                })
                .collect();
            (!headers.is_empty()).then_some((model, pb::HeaderSet { headers }))
        })
        .collect()
}

/// A JSON array option's strings.
fn string_list(o: &Options, key: &str) -> Vec<String> {
    match o.json(key) {
        serde_json::Value::Array(items) => items
            .iter()
            .filter_map(serde_json::Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// `{"group": [count, success]}` stored as text; entries of another shape are dropped.
fn rate_limit_pairs(raw: &str) -> HashMap<String, pb::RateLimitPair> {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(raw) else {
        return HashMap::new();
    };
    map.into_iter()
        .filter_map(|(group, v)| match v.as_array().map(Vec::as_slice) {
            Some([count, success]) => Some((
                group,
                pb::RateLimitPair {
                    count: count.as_i64()?.max(0),
                    success: success.as_i64()?.max(0),
                },
            )),
            _ => None,
        })
        .collect()
}

/// `GroupModelRateLimit`: `{"group": {"model or *": [rpm, tpm]}}`; entries of another shape
/// are skipped (the option is validated when saved).
fn group_model_limits(raw: &str) -> HashMap<String, pb::ModelRateLimits> {
    let Ok(serde_json::Value::Object(groups)) = serde_json::from_str::<serde_json::Value>(raw)
    else {
        return HashMap::new();
    };
    groups
        .into_iter()
        .filter_map(|(group, models)| {
            let by_model = models
                .as_object()?
                .iter()
                .filter_map(|(model, pair)| match pair.as_array().map(Vec::as_slice) {
                    Some([rpm, tpm]) => Some((
                        model.clone(),
                        pb::RpmTpm {
                            rpm: rpm.as_i64()?.max(0),
                            tpm: tpm.as_i64()?.max(0),
                        },
                    )),
                    _ => None,
                })
                .collect();
            Some((group, pb::ModelRateLimits { by_model }))
        })
        .collect()
}

/// Items of a list stored as separated text, trimmed, empties dropped.
fn split_list(raw: &str, separators: &[char]) -> Vec<String> {
    raw.split(separators)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// A JSON object stored as text, as strings (numbers and booleans written out; others dropped).
fn string_map(raw: &str) -> HashMap<String, String> {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(raw) else {
        return HashMap::new();
    };
    map.into_iter()
        .filter_map(|(k, v)| match v {
            serde_json::Value::String(s) => Some((k, s)),
            serde_json::Value::Number(n) => Some((k, n.to_string())),
            serde_json::Value::Bool(b) => Some((k, b.to_string())),
            _ => None,
        })
        .collect()
}

/// A status code mapping with only HTTP statuses on both sides (gateways reject a snapshot
/// with anything else, so one bad entry must not stop every gateway's config).
fn status_map(channel_id: i64, raw: &str) -> HashMap<String, String> {
    let status = |s: &str| {
        s.trim()
            .parse::<u16>()
            .ok()
            .filter(|n| (100..=599).contains(n))
    };
    string_map(raw)
        .into_iter()
        .filter_map(|(from, to)| match (status(&from), status(&to)) {
            (Some(f), Some(t)) => Some((f.to_string(), t.to_string())),
            _ => {
                tracing::warn!(
                    channel_id,
                    "status code mapping entry ignored: not HTTP statuses"
                );
                None
            }
        })
        .collect()
}

/// A JSON object option of numbers.
/// A JSON object option of counts: its entries of at least 1, as integers.
fn whole_numbers(o: &Options, key: &str) -> HashMap<String, i64> {
    number_map(o, key)
        .into_iter()
        .filter(|(_, n)| *n >= 1.0)
        .map(|(k, n)| (k, n as i64))
        .collect()
}

/// `GroupGroupRatio`: by the user's group, the ratios of the groups it uses.
fn group_group_ratio(o: &Options) -> HashMap<String, pb::GroupRatios> {
    match o.json("GroupGroupRatio") {
        serde_json::Value::Object(map) => map
            .into_iter()
            .filter_map(|(user_group, ratios)| {
                let ratios = ratios
                    .as_object()?
                    .iter()
                    .filter_map(|(g, r)| Some((g.clone(), r.as_f64()?)))
                    .collect();
                Some((user_group, pb::GroupRatios { ratios }))
            })
            .collect(),
        _ => HashMap::new(),
    }
}

fn number_map(o: &Options, key: &str) -> HashMap<String, f64> {
    match o.json(key) {
        serde_json::Value::Object(map) => map
            .into_iter()
            .filter_map(|(k, v)| v.as_f64().map(|n| (k, n)))
            .collect(),
        _ => HashMap::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_fields_become_lists_and_maps() {
        assert_eq!(split_list("a, b,,c", &[',']), vec!["a", "b", "c"]);
        assert_eq!(
            split_list("10.0.0.1\n10.0.0.0/8", &['\n', ',']),
            vec!["10.0.0.1", "10.0.0.0/8"]
        );
        let m = string_map(r#"{"429": 500, "a": "b", "x": [1]}"#);
        assert_eq!(m.get("429").map(String::as_str), Some("500"));
        assert_eq!(m.get("a").map(String::as_str), Some("b"));
        assert!(!m.contains_key("x"));
        assert!(string_map("not json").is_empty());
        let statuses = status_map(1, r#"{"429": "500", "404": "x", "abc": 500, "200": 99}"#);
        assert_eq!(statuses.len(), 1);
        assert_eq!(statuses.get("429").map(String::as_str), Some("500"));
    }

    #[test]
    fn limits_and_group_ratios_become_maps() {
        let limits =
            group_model_limits(r#"{"default": {"gpt-4o": [60, 1000], "x": [1]}, "bad": 3}"#);
        let default = &limits["default"].by_model;
        assert_eq!((default["gpt-4o"].rpm, default["gpt-4o"].tpm), (60, 1000));
        assert!(!default.contains_key("x") && !limits.contains_key("bad"));
        assert_eq!(
            max_concurrency(r#"{"max_concurrency": 3, "proxy": "x"}"#),
            3
        );
        assert_eq!(max_concurrency(r#"{"max_concurrency": -2}"#), 0);
        assert_eq!(max_concurrency(""), 0);
        let options = Options::from_stored(
            [(
                "GroupGroupRatio".to_owned(),
                r#"{"vip": {"default": 0.5, "bad": "x"}}"#.to_owned(),
            )]
            .into(),
        );
        let ratios = group_group_ratio(&options);
        assert_eq!(ratios["vip"].ratios.get("default"), Some(&0.5));
        assert!(!ratios["vip"].ratios.contains_key("bad"));
    }

    #[test]
    fn claude_model_headers_keep_only_what_can_go_on_the_wire() {
        let options = Options::from_stored(
            [
                (
                    "claude.model_headers_settings".to_owned(),
                    r#"{"claude-x": {"anthropic-beta": ["a-1", "b-2"], "X-Api-Key": "stolen",
                        "bad name": "v", "x-ok": "fine", "x-nl": "a\nb", "x-num": 3},
                        "claude-empty": {"authorization": "x"}, "claude-bad": 7}"#
                        .to_owned(),
                ),
                (
                    "gemini.supported_imagine_models".to_owned(),
                    r#"["gemini-img", " ", 3]"#.to_owned(),
                ),
            ]
            .into(),
        );
        let headers = model_headers(&options);
        assert_eq!(headers.len(), 1, "{headers:?}");
        let set = &headers["claude-x"].headers;
        assert_eq!(
            set.get("anthropic-beta").map(String::as_str),
            Some("a-1, b-2")
        );
        assert_eq!(set.get("x-ok").map(String::as_str), Some("fine"));
        assert_eq!(set.len(), 2, "{set:?}");
        assert_eq!(
            string_list(&options, "gemini.supported_imagine_models"),
            vec!["gemini-img"]
        );
    }

    #[test]
    fn answer_checks_follow_the_sensitive_word_switches() {
        let options = |pairs: &[(&str, &str)]| {
            Options::from_stored(
                pairs
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
            )
        };
        let on = relay_options(&options(&[
            ("CheckSensitiveEnabled", "true"),
            ("CheckSensitiveOnCompletionEnabled", "true"),
            ("StopOnSensitiveEnabled", "true"),
            ("StreamCacheQueueLength", "500"),
            ("SensitiveWords", "a\nb"),
            ("LogChatContentEnabled", "true"),
            ("WorkerUrl", "https://worker.example/fetch/"),
            ("WorkerValidKey", "k-1"),
        ]));
        assert_eq!(on.worker_url, "https://worker.example/fetch");
        assert_eq!(on.worker_key, "k-1");
        assert!(on.sensitive_check_completion && on.sensitive_stop && on.log_chat_content);
        assert_eq!(on.stream_cache_queue, 64);
        assert_eq!(on.sensitive_words, ["a", "b"]);
        let master_off = relay_options(&options(&[
            ("CheckSensitiveOnCompletionEnabled", "true"),
            ("SensitiveWords", "a"),
        ]));
        assert!(!master_off.sensitive_check_completion);
        assert!(master_off.sensitive_words.is_empty());
    }
}
