//! API tokens: key format, statuses, and the rules for token input (spec 2 §3.4, §4.3, §5.5).

use std::net::IpAddr;

use ipnet::IpNet;

use super::secrets;
use crate::i18n::Msg;

/// Length of a token key without its `sk-` prefix.
pub const KEY_LEN: usize = 48;
pub const KEY_PREFIX: &str = "sk-";
pub const NAME_MAX: usize = 50;
/// Most tokens one batch request may create.
pub const BATCH_MAX: i64 = 100;
/// Length of the random suffix that names the extra tokens of a batch.
pub const BATCH_SUFFIX_LEN: usize = 6;
/// `expired_time` of a token that never expires.
pub const NEVER_EXPIRES: i64 = -1;

pub const STATUS_ENABLED: i64 = 1;
pub const STATUS_DISABLED: i64 = 2;
pub const STATUS_EXPIRED: i64 = 3;
pub const STATUS_EXHAUSTED: i64 = 4;

/// A new random key (without prefix).
pub fn new_key() -> String {
    secrets::random_alphanumeric(KEY_LEN)
}

/// The lookup hash of a key as clients send it (`sk-…` or bare). The gateway finds tokens by this
/// value, so plain keys never need to leave the database.
pub fn key_hash(presented: &str) -> String {
    let bare = presented.trim();
    let bare = bare.strip_prefix(KEY_PREFIX).unwrap_or(bare);
    secrets::sha256_hex(bare)
}

/// Characters of a key (after `sk-`) shown at each end of its masked form.
pub const MASK_VISIBLE: usize = 4;
/// Stars standing for the hidden middle of a masked key (a fixed count: the length stays secret).
pub const MASK_STARS: usize = 10;

/// A key (bare) as lists show it: `sk-abcd**********wxyz`. Only the explicit key call returns
/// the whole key. Keys too short to keep both ends hidden show stars only.
pub fn mask_key(bare: &str) -> String {
    let chars: Vec<char> = bare.chars().collect();
    let stars = "*".repeat(MASK_STARS);
    if chars.len() < MASK_VISIBLE * 4 {
        return format!("{KEY_PREFIX}{stars}");
    }
    let head: String = chars[..MASK_VISIBLE].iter().collect();
    let tail: String = chars[chars.len() - MASK_VISIBLE..].iter().collect();
    format!("{KEY_PREFIX}{head}{stars}{tail}")
}

/// The status a token shows: an enabled token that has expired or used up its quota reads as
/// expired (3) or exhausted (4).
pub fn effective_status(
    status: i64,
    expired_time: i64,
    remain_quota: i64,
    unlimited: bool,
    now: i64,
) -> i64 {
    if status != STATUS_ENABLED {
        return status;
    }
    if expired_time != NEVER_EXPIRES && expired_time <= now {
        return STATUS_EXPIRED;
    }
    if !unlimited && remain_quota <= 0 {
        return STATUS_EXHAUSTED;
    }
    STATUS_ENABLED
}

/// A token name: required, at most 50 characters.
pub fn check_name(name: &str) -> Result<(), Msg> {
    if name.trim().is_empty() {
        return Err(Msg::TokenNameRequired);
    }
    if name.chars().count() > NAME_MAX {
        return Err(Msg::TokenNameTooLong { max: NAME_MAX });
    }
    Ok(())
}

/// An expiry: -1 (never) or a moment in epoch seconds.
pub fn check_expiry(expired_time: i64) -> Result<(), Msg> {
    if expired_time == NEVER_EXPIRES || expired_time > 0 {
        Ok(())
    } else {
        Err(Msg::ExpiryInvalid)
    }
}

/// Whether a token may be (re-)enabled with these values.
pub fn check_enable(
    expired_time: i64,
    remain_quota: i64,
    unlimited: bool,
    now: i64,
) -> Result<(), Msg> {
    if expired_time != NEVER_EXPIRES && expired_time <= now {
        return Err(Msg::TokenExpiredCannotEnable);
    }
    if !unlimited && remain_quota <= 0 {
        return Err(Msg::TokenExhaustedCannotEnable);
    }
    Ok(())
}

/// The allow list: one IP or CIDR per line; blank lines dropped. Returns the normalised list.
pub fn normalize_allow_ips(raw: &str) -> Result<String, Msg> {
    let mut entries = Vec::new();
    for line in raw.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let valid = line.parse::<IpAddr>().is_ok() || line.parse::<IpNet>().is_ok();
        if !valid {
            return Err(Msg::AllowIpInvalid {
                entry: line.chars().take(64).collect(),
            });
        }
        entries.push(line);
    }
    Ok(entries.join("\n"))
}

/// Model limits: a comma list with blanks and duplicates dropped.
pub fn normalize_model_limits(raw: &str) -> String {
    let mut models: Vec<&str> = Vec::new();
    for model in raw.split(',').map(str::trim).filter(|m| !m.is_empty()) {
        if !models.contains(&model) {
            models.push(model);
        }
    }
    models.join(",")
}

/// Rate-limit fields: period at least one second, counts not negative.
pub fn check_rate_limit(period: i64, count: i64, success: i64) -> Result<(), Msg> {
    if period < 1 || count < 0 || success < 0 {
        return Err(Msg::RateLimitInvalid);
    }
    Ok(())
}

/// Names for a batch: the first token keeps `name`, the others get `name-xxxxxx`; every
/// name, suffix included, stays within [`NAME_MAX`] (so each can be saved again as is).
pub fn batch_names(name: &str, count: i64) -> Result<Vec<String>, Msg> {
    if !(1..=BATCH_MAX).contains(&count) {
        return Err(Msg::BatchCountInvalid { max: BATCH_MAX });
    }
    let room = NAME_MAX - BATCH_SUFFIX_LEN - 1;
    if count > 1 && name.chars().count() > room {
        return Err(Msg::TokenNameTooLong { max: room });
    }
    Ok((0..count)
        .map(|i| {
            if i == 0 {
                name.to_string()
            } else {
                format!("{name}-{}", secrets::random_alphanumeric(BATCH_SUFFIX_LEN))
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_keys_keep_only_both_ends() {
        let key = "abcdEFGH1234567890abcdefghijklmnopqrstuvwxyzWXYZ";
        assert_eq!(mask_key(key), "sk-abcd**********WXYZ");
        assert!(!mask_key(key).contains("EFGH"));
        assert_eq!(mask_key(&new_key()).len(), 3 + 4 + 10 + 4);
        assert_eq!(mask_key("short"), "sk-**********");
        assert_eq!(mask_key(""), "sk-**********");
    }

    #[test]
    fn keys_and_hashes() {
        let key = new_key();
        assert_eq!(key.len(), 48);
        assert_eq!(key_hash(&format!("sk-{key}")), key_hash(&key));
        assert_ne!(key_hash(&key), key_hash(&new_key()));
    }

    #[test]
    fn effective_status_reads_expired_and_exhausted() {
        assert_eq!(effective_status(1, -1, 10, false, 100), STATUS_ENABLED);
        assert_eq!(effective_status(1, 50, 10, false, 100), STATUS_EXPIRED);
        assert_eq!(effective_status(1, -1, 0, false, 100), STATUS_EXHAUSTED);
        assert_eq!(effective_status(1, -1, 0, true, 100), STATUS_ENABLED);
        assert_eq!(effective_status(2, 50, 0, false, 100), STATUS_DISABLED);
    }

    #[test]
    fn input_rules() {
        assert_eq!(check_name(" "), Err(Msg::TokenNameRequired));
        assert!(check_name(&"n".repeat(51)).is_err());
        assert_eq!(check_expiry(0), Err(Msg::ExpiryInvalid));
        assert_eq!(check_expiry(-5), Err(Msg::ExpiryInvalid));
        assert!(check_expiry(-1).is_ok() && check_expiry(1_900_000_000).is_ok());
        assert_eq!(
            check_enable(50, 10, false, 100),
            Err(Msg::TokenExpiredCannotEnable)
        );
        assert_eq!(
            check_enable(-1, 0, false, 100),
            Err(Msg::TokenExhaustedCannotEnable)
        );
        assert!(check_enable(-1, 0, true, 100).is_ok());
        assert_eq!(
            normalize_allow_ips("10.0.0.1\n\n 192.168.0.0/16 \n::1"),
            Ok("10.0.0.1\n192.168.0.0/16\n::1".into())
        );
        assert!(matches!(
            normalize_allow_ips("10.0.0.1\nnot-an-ip"),
            Err(Msg::AllowIpInvalid { .. })
        ));
        assert_eq!(
            normalize_model_limits("gpt-4o, ,gpt-4o,claude"),
            "gpt-4o,claude"
        );
        assert_eq!(check_rate_limit(0, 1, 1), Err(Msg::RateLimitInvalid));
    }

    #[test]
    fn batch_naming() {
        let names = batch_names("ci", 3).unwrap_or_default();
        assert_eq!(names.len(), 3);
        assert_eq!(names[0], "ci");
        assert!(names[1].starts_with("ci-") && names[1].len() == 9);
        assert_ne!(names[1], names[2]);
        assert!(batch_names("ci", 0).is_err());
        let longest = "n".repeat(NAME_MAX - BATCH_SUFFIX_LEN - 1);
        assert!(
            batch_names(&longest, 2)
                .is_ok_and(|names| names.iter().all(|n| n.chars().count() <= NAME_MAX))
        );
        assert_eq!(
            batch_names(&format!("{longest}x"), 2),
            Err(Msg::TokenNameTooLong { max: 43 })
        );
        assert!(batch_names(&"n".repeat(NAME_MAX), 1).is_ok());
        assert!(batch_names("ci", 101).is_err());
    }
}
