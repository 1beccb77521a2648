//! Channels: statuses, known types, key lists, and the input rules of spec 2 §5.4.

use crate::i18n::Msg;

pub const STATUS_ENABLED: i64 = 1;
pub const STATUS_DISABLED: i64 = 2;
pub const STATUS_AUTO_DISABLED: i64 = 3;

pub const PRIORITY_MIN: i64 = -999;

/// Channel type numbers in use (new-api numbering; 28–30 and 32 are unused).
pub fn is_known_type(channel_type: i64) -> bool {
    (1..=58).contains(&channel_type) && ![28, 29, 30, 32].contains(&channel_type)
}

/// Types whose `other` field is a region: plain text or a JSON object of model → region.
pub const TYPE_VERTEX: i64 = 41;

/// Keys of a multi-key input: one per line, or comma-separated; blanks dropped. Vertex keys
/// (JSON service accounts) are never split.
pub fn split_keys(channel_type: i64, raw: &str) -> Vec<String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Vec::new();
    }
    if channel_type == TYPE_VERTEX || raw.starts_with('{') || raw.starts_with('[') {
        return vec![raw.to_string()];
    }
    raw.split(['\n', ','])
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .collect()
}

/// A comma list with blanks and duplicates dropped (models, groups).
pub fn normalize_list(raw: &str) -> String {
    let mut items: Vec<&str> = Vec::new();
    for item in raw
        .split([',', '\n'])
        .map(str::trim)
        .filter(|i| !i.is_empty())
    {
        if !items.contains(&item) {
            items.push(item);
        }
    }
    items.join(",")
}

/// An optional JSON-object field (`model_mapping`, `setting`, …): empty, or an object.
pub fn check_json_object(field: &str, value: &str) -> Result<(), Msg> {
    if value.trim().is_empty() {
        return Ok(());
    }
    match serde_json::from_str::<serde_json::Value>(value) {
        Ok(serde_json::Value::Object(_)) => Ok(()),
        _ => Err(Msg::ChannelJsonInvalid {
            field: field.to_string(),
        }),
    }
}

/// `other` of a Vertex channel: plain region text or a JSON object.
pub fn check_region(other: &str) -> Result<(), Msg> {
    let other = other.trim();
    if other.starts_with('{')
        && serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(other).is_err()
    {
        return Err(Msg::ChannelRegionInvalid);
    }
    Ok(())
}

pub fn check_priority(priority: i64) -> Result<(), Msg> {
    if priority < PRIORITY_MIN {
        Err(Msg::ChannelPriorityInvalid)
    } else {
        Ok(())
    }
}

pub fn check_weight(weight: i64) -> Result<(), Msg> {
    if weight < 0 {
        Err(Msg::ChannelWeightInvalid)
    } else {
        Ok(())
    }
}

/// A base URL without trailing slashes.
pub fn normalize_base_url(raw: &str) -> String {
    raw.trim().trim_end_matches('/').to_string()
}

/// Where a channel sends its key: the base URL, the header override (compared as JSON, so
/// reformatting is no change) and the `proxy` of its settings. An update that changes any of
/// them must carry the key again, so a key cannot be redirected by someone who could not read it.
#[derive(Debug, PartialEq)]
pub struct KeyDestination {
    base_url: String,
    headers: serde_json::Value,
    proxy: String,
}

impl KeyDestination {
    pub fn of(base_url: &str, header_override: &str, setting: &str) -> Self {
        let json = |raw: &str| {
            let raw = raw.trim();
            if raw.is_empty() {
                serde_json::Value::Null
            } else {
                serde_json::from_str(raw).unwrap_or_else(|_| serde_json::Value::String(raw.into()))
            }
        };
        let proxy = match json(setting).get("proxy") {
            Some(serde_json::Value::String(p)) => p.trim().to_string(),
            Some(serde_json::Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        KeyDestination {
            base_url: normalize_base_url(base_url),
            headers: match json(header_override) {
                serde_json::Value::Object(map) if map.is_empty() => serde_json::Value::Null,
                other => other,
            },
            proxy,
        }
    }
}

/// The reason an automatic disable records in `other_info`.
pub fn other_info(reason: &str, time: i64) -> String {
    serde_json::json!({"status_reason": reason, "status_time": time}).to_string()
}

/// `other_info` of a channel a check switched back on at `time` (Unix seconds).
pub fn enabled_info(time: i64) -> String {
    serde_json::json!({"enabled_time": time}).to_string()
}

/// When a check last switched the channel back on, from its `other_info`.
pub fn enabled_time(other_info: &str) -> Option<i64> {
    serde_json::from_str::<serde_json::Value>(other_info)
        .ok()?
        .get("enabled_time")?
        .as_i64()
}

/// When tests and balance checks may switch a channel off or on (the monitoring options).
#[derive(Debug, Clone, Default)]
pub struct HealthPolicy {
    pub auto_disable: bool,
    pub auto_enable: bool,
    /// Slower answers than this disable a channel (`ChannelDisableThreshold`, seconds → ms).
    pub threshold_ms: i64,
    /// Upstream statuses that disable a channel (`AutomaticDisableStatusCodes`).
    pub disable_statuses: Vec<(u16, u16)>,
    /// Error texts that disable a channel (`AutomaticDisableKeywords`, lower-cased).
    pub keywords: Vec<String>,
}

impl HealthPolicy {
    /// The monitoring options as a policy.
    pub fn from_options(options: &crate::domain::options::Options) -> Self {
        HealthPolicy {
            auto_disable: options.bool("AutomaticDisableChannelEnabled"),
            auto_enable: options.bool("AutomaticEnableChannelEnabled"),
            threshold_ms: (options.f64("ChannelDisableThreshold") * 1000.0) as i64,
            disable_statuses: parse_status_ranges(options.get("AutomaticDisableStatusCodes")),
            keywords: options
                .get("AutomaticDisableKeywords")
                .lines()
                .map(|k| k.trim().to_lowercase())
                .filter(|k| !k.is_empty())
                .collect(),
        }
    }
}

/// Parses `401,500-503` into ranges (entries that do not parse are skipped; the option is
/// validated when saved).
pub fn parse_status_ranges(raw: &str) -> Vec<(u16, u16)> {
    raw.split(',')
        .filter_map(|part| {
            let part = part.trim();
            match part.split_once('-') {
                Some((a, b)) => Some((a.trim().parse().ok()?, b.trim().parse().ok()?)),
                None => part.parse().ok().map(|c| (c, c)),
            }
        })
        .collect()
}

/// What a check concluded about a channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Keep,
    /// Switch to auto-disabled (3) with this reason.
    Disable(String),
    /// Switch an auto-disabled channel back on.
    Enable,
}

/// How a test ended: elapsed milliseconds, or the upstream status (if any) and error text.
pub type TestOutcome = Result<i64, (Option<u16>, String)>;

/// Applies the monitoring rules to a test of a channel with `status` and `auto_ban`.
pub fn judge(policy: &HealthPolicy, auto_ban: bool, status: i64, outcome: &TestOutcome) -> Verdict {
    let may_disable = policy.auto_disable && auto_ban && status == STATUS_ENABLED;
    match outcome {
        Ok(elapsed) if may_disable && policy.threshold_ms > 0 && *elapsed > policy.threshold_ms => {
            Verdict::Disable(format!(
                "response time {elapsed} ms exceeds the threshold of {} ms",
                policy.threshold_ms
            ))
        }
        Ok(_) if policy.auto_enable && status == STATUS_AUTO_DISABLED => Verdict::Enable,
        Ok(_) => Verdict::Keep,
        Err((code, message)) if may_disable => {
            let by_status = code.is_some_and(|c| {
                policy
                    .disable_statuses
                    .iter()
                    .any(|(a, b)| (*a..=*b).contains(&c))
            });
            let lower = message.to_lowercase();
            let by_keyword = policy
                .keywords
                .iter()
                .any(|k| !k.is_empty() && lower.contains(k));
            if by_status || by_keyword {
                Verdict::Disable(message.chars().take(300).collect())
            } else {
                Verdict::Keep
            }
        }
        Err(_) => Verdict::Keep,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_split_on_lines_and_commas_except_json() {
        assert_eq!(split_keys(1, "a\nb, c\n\n"), vec!["a", "b", "c"]);
        assert_eq!(split_keys(1, "  "), Vec::<String>::new());
        assert_eq!(
            split_keys(41, "{\"type\":\"service_account\",\"a\":1}").len(),
            1
        );
    }

    #[test]
    fn key_destination_changes_with_address_headers_or_proxy() {
        let base = KeyDestination::of(
            "https://api.example.com",
            "{\"X-A\": \"1\"}",
            "{\"proxy\": \"socks5://p:1080\", \"force_format\": true}",
        );
        let same = KeyDestination::of(
            "https://api.example.com/ ",
            "{ \"X-A\":\"1\" }",
            "{\"force_format\": false, \"proxy\": \"socks5://p:1080\"}",
        );
        assert_eq!(base, same, "formatting and other settings are no change");
        for changed in [
            KeyDestination::of(
                "https://evil.example",
                "{\"X-A\": \"1\"}",
                "{\"proxy\": \"socks5://p:1080\"}",
            ),
            KeyDestination::of(
                "https://api.example.com",
                "{\"X-A\": \"2\"}",
                "{\"proxy\": \"socks5://p:1080\"}",
            ),
            KeyDestination::of(
                "https://api.example.com",
                "{\"X-A\": \"1\"}",
                "{\"proxy\": \"http://q\"}",
            ),
            KeyDestination::of("https://api.example.com", "{\"X-A\": \"1\"}", ""),
        ] {
            assert_ne!(base, changed);
        }
        assert_eq!(
            KeyDestination::of("", "", ""),
            KeyDestination::of("", "{}", "{}")
        );
    }

    #[test]
    fn field_rules() {
        assert_eq!(normalize_list("gpt-4o, ,gpt-4o\nclaude"), "gpt-4o,claude");
        assert!(check_json_object("model_mapping", "").is_ok());
        assert!(check_json_object("model_mapping", "{\"a\":\"b\"}").is_ok());
        assert!(check_json_object("model_mapping", "[1]").is_err());
        assert!(check_json_object("setting", "{oops").is_err());
        assert!(check_region("us-central1").is_ok());
        assert!(check_region("{\"default\":\"us-east5\"}").is_ok());
        assert_eq!(check_region("{bad"), Err(Msg::ChannelRegionInvalid));
        assert!(check_priority(-999).is_ok() && check_priority(-1000).is_err());
        assert!(check_weight(0).is_ok() && check_weight(-1).is_err());
        assert_eq!(
            normalize_base_url(" https://api.example.com/// "),
            "https://api.example.com"
        );
        assert!(
            is_known_type(1)
                && is_known_type(58)
                && !is_known_type(29)
                && !is_known_type(0)
                && !is_known_type(99)
        );
    }
}
