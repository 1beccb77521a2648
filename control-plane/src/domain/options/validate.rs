//! Validation and normalisation of option values (spec 1 §5, spec 2 §5.1).

use regex::Regex;

use super::Options;
use super::registry::{OptionKind, spec};
use crate::i18n::Msg;

/// Checks `raw` for `key` and returns the value to store (trimmed, trailing slashes stripped from
/// addresses, numbers canonical). `current` is the configuration before this change.
pub fn normalize(key: &str, raw: &str, current: &Options) -> Result<String, Msg> {
    let spec = spec(key).ok_or_else(|| Msg::UnknownOption {
        key: key.chars().take(64).collect(),
    })?;
    let key_owned = || key.to_string();
    let value = match spec.kind {
        OptionKind::Bool => match raw.trim() {
            "true" => "true".to_string(),
            "false" => "false".to_string(),
            _ => return Err(Msg::OptionNotBoolean { key: key_owned() }),
        },
        OptionKind::Int { min, max } => {
            let n: i64 = raw
                .trim()
                .parse()
                .map_err(|_| Msg::OptionNotInteger { key: key_owned() })?;
            check_range(key, n as f64, min as f64, max as f64)?;
            n.to_string()
        }
        OptionKind::Float { min, max } => {
            let n: f64 = raw
                .trim()
                .parse()
                .ok()
                .filter(|n: &f64| n.is_finite())
                .ok_or_else(|| Msg::OptionNotNumber { key: key_owned() })?;
            if key == "RebatePercentage" && !(0.0..=100.0).contains(&n) {
                return Err(Msg::RebateOutOfRange);
            }
            check_range(key, n, min, max)?;
            raw.trim().to_string()
        }
        OptionKind::Text => raw.to_string(),
        OptionKind::Url => normalize_url(key, raw)?,
        OptionKind::JsonObject => {
            let parsed: Result<serde_json::Map<String, serde_json::Value>, _> =
                serde_json::from_str(raw);
            match parsed {
                Ok(map) => {
                    check_shape(key, &map)?;
                    raw.to_string()
                }
                Err(_) if key == "TopupGroupRatio" => return Err(Msg::TopupGroupRatioNotJson),
                Err(_) => return Err(Msg::OptionNotJson { key: key_owned() }),
            }
        }
        OptionKind::JsonArray => {
            serde_json::from_str::<Vec<serde_json::Value>>(raw)
                .map_err(|_| Msg::OptionNotJson { key: key_owned() })?;
            raw.to_string()
        }
        OptionKind::OneOf(allowed) => {
            let v = raw.trim();
            if !allowed.contains(&v) {
                return Err(Msg::OptionNotInList {
                    key: key_owned(),
                    allowed: allowed.join(", "),
                });
            }
            v.to_string()
        }
        OptionKind::DomainList => normalize_domains(raw)?,
        OptionKind::SensitiveWords => normalize_sensitive_words(raw)?,
        OptionKind::StatusRanges => normalize_status_ranges(key, raw)?,
    };
    if key == "PayAddress" && !value.is_empty() && current.get("ServerAddress").is_empty() {
        return Err(Msg::ServerAddressFirst);
    }
    Ok(value)
}

/// A pair of non-negative whole numbers.
fn is_pair(v: &serde_json::Value) -> bool {
    v.as_array()
        .is_some_and(|a| a.len() == 2 && a.iter().all(|n| n.as_i64().is_some_and(|n| n >= 0)))
}

/// The shapes of the rate-limit objects: `ModelRequestRateLimitGroup` maps groups to
/// `[all, successful]`, `GroupModelRateLimit` groups to models to `[rpm, tpm]`.
fn check_shape(key: &str, map: &serde_json::Map<String, serde_json::Value>) -> Result<(), Msg> {
    let (ok, expected) = match key {
        "ModelRequestRateLimitGroup" => {
            (map.values().all(is_pair), r#"{"group": [all, successful]}"#)
        }
        "GroupModelRateLimit" => (
            map.values()
                .all(|models| models.as_object().is_some_and(|m| m.values().all(is_pair))),
            r#"{"group": {"model or *": [rpm, tpm]}}"#,
        ),
        "GroupGroupRatio" => (
            map.values().all(|groups| {
                groups.as_object().is_some_and(|g| {
                    g.values()
                        .all(|r| r.as_f64().is_some_and(|r| r.is_finite() && r >= 0.0))
                })
            }),
            r#"{"user group": {"using group": ratio}}"#,
        ),
        _ => return Ok(()),
    };
    if ok {
        Ok(())
    } else {
        Err(Msg::OptionBadShape {
            key: key.to_string(),
            expected,
        })
    }
}

fn check_range(key: &str, n: f64, min: f64, max: f64) -> Result<(), Msg> {
    if n < min {
        if max == f64::MAX || max == i64::MAX as f64 {
            return Err(Msg::OptionBelowMin {
                key: key.to_string(),
                min: min as i64,
            });
        }
        return Err(out_of_range(key, min, max));
    }
    if n > max {
        return Err(out_of_range(key, min, max));
    }
    Ok(())
}

fn out_of_range(key: &str, min: f64, max: f64) -> Msg {
    Msg::OptionOutOfRange {
        key: key.to_string(),
        min: min.to_string(),
        max: max.to_string(),
    }
}

fn normalize_url(key: &str, raw: &str) -> Result<String, Msg> {
    let trimmed = raw.trim().trim_end_matches('/');
    if trimmed.is_empty() {
        return Ok(String::new());
    }
    let lower = trimmed.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(Msg::UrlMustBeHttp {
            key: key.to_string(),
        });
    }
    Ok(trimmed.to_string())
}

fn domain_pattern() -> Regex {
    #[allow(clippy::unwrap_used)] // a literal pattern, checked by the tests below
    Regex::new(r"^(?i)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$").unwrap()
}

fn normalize_domains(raw: &str) -> Result<String, Msg> {
    let pattern = domain_pattern();
    let mut seen: Vec<String> = Vec::new();
    for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if !pattern.is_match(part) {
            return Err(Msg::EmailDomainFormat {
                domain: part.chars().take(64).collect(),
            });
        }
        let lower = part.to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(Msg::EmailDomainDuplicate { domain: lower });
        }
        seen.push(lower);
    }
    Ok(seen.join(","))
}

fn normalize_sensitive_words(raw: &str) -> Result<String, Msg> {
    let mut lines = Vec::new();
    for line in raw.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(pattern) = line.strip_prefix("regex:")
            && Regex::new(pattern).is_err()
        {
            return Err(Msg::SensitiveWordRegex {
                line: line.chars().take(64).collect(),
            });
        }
        lines.push(line);
    }
    Ok(lines.join("\n"))
}

fn normalize_status_ranges(key: &str, raw: &str) -> Result<String, Msg> {
    let invalid = || Msg::StatusRangesInvalid {
        key: key.to_string(),
    };
    let code = |s: &str| -> Result<u16, Msg> {
        s.trim()
            .parse::<u16>()
            .ok()
            .filter(|c| (100..=599).contains(c))
            .ok_or_else(invalid)
    };
    let mut parts = Vec::new();
    for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((from, to)) => {
                let (from, to) = (code(from)?, code(to)?);
                if from > to {
                    return Err(invalid());
                }
                parts.push(format!("{from}-{to}"));
            }
            None => parts.push(code(part)?.to_string()),
        }
    }
    Ok(parts.join(","))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn defaults() -> Options {
        Options::from_stored(HashMap::new())
    }

    #[test]
    fn booleans_and_numbers() {
        let o = defaults();
        assert_eq!(
            normalize("RegisterEnabled", "false", &o),
            Ok("false".into())
        );
        assert!(matches!(
            normalize("RegisterEnabled", "yes", &o),
            Err(Msg::OptionNotBoolean { .. })
        ));
        assert!(matches!(
            normalize("RetryTimes", "x", &o),
            Err(Msg::OptionNotInteger { .. })
        ));
        assert!(matches!(
            normalize("MinTopUp", "0", &o),
            Err(Msg::OptionBelowMin { min: 1, .. })
        ));
        assert!(matches!(
            normalize("CheckInQuota", "-1", &o),
            Err(Msg::OptionBelowMin { min: 0, .. })
        ));
        assert!(matches!(
            normalize("QuotaRemindThreshold", "-5", &o),
            Err(Msg::OptionBelowMin { .. })
        ));
        assert!(matches!(
            normalize("ChannelDisableThreshold", "-0.5", &o),
            Err(Msg::OptionBelowMin { .. })
        ));
        assert_eq!(normalize("CheckInMaxQuota", " 0 ", &o), Ok("0".into()));
    }

    #[test]
    fn rate_limit_objects_have_their_shape() {
        let o = defaults();
        let ok = r#"{"default": {"gpt-4o": [60, 100000], "*": [120, 0]}}"#;
        assert_eq!(normalize("GroupModelRateLimit", ok, &o), Ok(ok.into()));
        for bad in [
            r#"{"default": [60, 100]}"#,
            r#"{"default": {"gpt-4o": [60]}}"#,
            r#"{"default": {"gpt-4o": [-1, 5]}}"#,
        ] {
            assert!(
                matches!(
                    normalize("GroupModelRateLimit", bad, &o),
                    Err(Msg::OptionBadShape { .. })
                ),
                "{bad}"
            );
        }
        assert!(normalize("ModelRequestRateLimitGroup", r#"{"vip": [10, 5]}"#, &o).is_ok());
        assert!(matches!(
            normalize("ModelRequestRateLimitGroup", r#"{"vip": {"a": 1}}"#, &o),
            Err(Msg::OptionBadShape { .. })
        ));
    }

    #[test]
    fn rebate_percentage_is_0_to_100() {
        let o = defaults();
        assert_eq!(
            normalize("RebatePercentage", "100.1", &o),
            Err(Msg::RebateOutOfRange)
        );
        assert_eq!(
            normalize("RebatePercentage", "-1", &o),
            Err(Msg::RebateOutOfRange)
        );
        assert_eq!(normalize("RebatePercentage", "12.5", &o), Ok("12.5".into()));
        assert!(matches!(
            normalize("RebatePercentage", "abc", &o),
            Err(Msg::OptionNotNumber { .. })
        ));
    }

    #[test]
    fn json_options_must_parse() {
        let o = defaults();
        assert_eq!(
            normalize("TopupGroupRatio", "{bad", &o),
            Err(Msg::TopupGroupRatioNotJson)
        );
        assert_eq!(
            normalize("TopupGroupRatio", r#"{"vip":0.9}"#, &o),
            Ok(r#"{"vip":0.9}"#.into())
        );
        assert!(matches!(
            normalize("GroupRatio", "[1]", &o),
            Err(Msg::OptionNotJson { .. })
        ));
        assert!(matches!(
            normalize("Chats", "{}", &o),
            Err(Msg::OptionNotJson { .. })
        ));
        assert!(normalize("Chats", r#"[{"ChatGPT":"https://x"}]"#, &o).is_ok());
    }

    #[test]
    fn addresses_lose_trailing_slashes_and_need_http() {
        let o = defaults();
        assert_eq!(
            normalize("ServerAddress", "https://gw.example.com///", &o),
            Ok("https://gw.example.com".into())
        );
        assert_eq!(
            normalize("WorkerUrl", "http://w/", &o),
            Ok("http://w".into())
        );
        assert_eq!(
            normalize("WeChatServerAddress", "https://wx/", &o),
            Ok("https://wx".into())
        );
        assert!(matches!(
            normalize("oidc.well_known", "ftp://x", &o),
            Err(Msg::UrlMustBeHttp { .. })
        ));
        assert!(
            normalize(
                "oidc.well_known",
                "https://id.example.com/.well-known/openid-configuration",
                &o
            )
            .is_ok()
        );
    }

    #[test]
    fn pay_address_needs_server_address_first() {
        let mut o = defaults();
        assert_eq!(
            normalize("PayAddress", "https://pay.example.com/", &o),
            Err(Msg::ServerAddressFirst)
        );
        o.set("ServerAddress", "https://gw.example.com".into());
        assert_eq!(
            normalize("PayAddress", "https://pay.example.com/", &o),
            Ok("https://pay.example.com".into())
        );
        assert_eq!(normalize("PayAddress", "", &defaults()), Ok(String::new()));
    }

    #[test]
    fn email_whitelist_rules() {
        let o = defaults();
        assert_eq!(
            normalize("EmailDomainWhitelist", "gmail.com, Example.org ,", &o),
            Ok("gmail.com,example.org".into())
        );
        assert!(matches!(
            normalize("EmailDomainWhitelist", "gmail.com,not a domain", &o),
            Err(Msg::EmailDomainFormat { .. })
        ));
        assert!(matches!(
            normalize("EmailDomainWhitelist", "@gmail.com", &o),
            Err(Msg::EmailDomainFormat { .. })
        ));
        assert!(matches!(
            normalize("EmailDomainWhitelist", "qq.com,QQ.com", &o),
            Err(Msg::EmailDomainDuplicate { .. })
        ));
    }

    #[test]
    fn sensitive_words_regexes_must_compile() {
        let o = defaults();
        assert_eq!(
            normalize("SensitiveWords", "foo\n\n regex:ba+r \n", &o),
            Ok("foo\nregex:ba+r".into())
        );
        assert!(matches!(
            normalize("SensitiveWords", "regex:(unclosed", &o),
            Err(Msg::SensitiveWordRegex { .. })
        ));
    }

    #[test]
    fn status_ranges_and_word_lists() {
        let o = defaults();
        assert_eq!(
            normalize("AutomaticRetryStatusCodes", "429, 500-503", &o),
            Ok("429,500-503".into())
        );
        assert!(matches!(
            normalize("AutomaticRetryStatusCodes", "503-500", &o),
            Err(Msg::StatusRangesInvalid { .. })
        ));
        assert!(matches!(
            normalize("AutomaticRetryStatusCodes", "700", &o),
            Err(Msg::StatusRangesInvalid { .. })
        ));
        assert!(matches!(
            normalize("DataExportDefaultTime", "month", &o),
            Err(Msg::OptionNotInList { .. })
        ));
        assert!(matches!(
            normalize("NoSuchKey", "1", &o),
            Err(Msg::UnknownOption { .. })
        ));
    }
}
