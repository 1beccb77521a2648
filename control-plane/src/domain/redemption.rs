//! Redemption codes: shape of keys, creation rules (spec 2 §3.5, §4.4, §5.6), and whether a code
//! can be redeemed now.

use super::secrets;
use crate::i18n::Msg;

pub const KEY_LEN: usize = 32;
/// A custom code is at least this long: codes are bearer secrets worth money, and a short one
/// can be guessed.
pub const CUSTOM_KEY_MIN: usize = 16;
pub const CREATE_MAX: i64 = 100;
pub const UNLIMITED_USES: i64 = -1;

pub const STATUS_UNUSED: i64 = 1;
pub const STATUS_DISABLED: i64 = 2;
pub const STATUS_USED: i64 = 3;

/// A new random code.
pub fn new_key() -> String {
    secrets::random_alphanumeric(KEY_LEN)
}

/// A custom code: 16 to 32 of letters, digits, `-`, `_`.
pub fn check_custom_key(key: &str) -> Result<(), Msg> {
    let len = key.chars().count();
    if len < CUSTOM_KEY_MIN {
        return Err(Msg::RedemptionKeyTooShort {
            min: CUSTOM_KEY_MIN,
        });
    }
    let valid = len <= KEY_LEN
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if valid {
        Ok(())
    } else {
        Err(Msg::RedemptionKeyInvalid)
    }
}

/// Validity window: when both ends are set (non-zero), the start is before the end.
pub fn check_window(valid_from: i64, valid_until: i64) -> Result<(), Msg> {
    if valid_from < 0
        || valid_until < 0
        || (valid_from > 0 && valid_until > 0 && valid_from >= valid_until)
    {
        return Err(Msg::RedemptionWindowInvalid);
    }
    Ok(())
}

/// A quota for a code: a positive integer.
pub fn check_quota(quota: i64) -> Result<(), Msg> {
    if quota > 0 {
        Ok(())
    } else {
        Err(Msg::RedemptionQuotaInvalid)
    }
}

/// `max_uses`: blank, 0 or -1 mean unlimited; otherwise a positive count.
pub fn normalize_max_uses(max_uses: Option<i64>) -> i64 {
    match max_uses {
        Some(n) if n > 0 => n,
        _ => UNLIMITED_USES,
    }
}

/// The name a code gets when none is given: its value, e.g. `$0.20`.
pub fn default_name(quota: i64, quota_per_unit: i64) -> String {
    super::quota::format_usd(quota, quota_per_unit)
}

/// What the redeemer needs to know of a code.
pub struct CodeState {
    pub status: i64,
    pub is_gift: bool,
    pub max_uses: i64,
    pub used_count: i64,
    pub valid_from: i64,
    pub valid_until: i64,
}

/// Whether a code can be redeemed at `now` (before any per-user check).
pub fn check_redeemable(code: &CodeState, now: i64) -> Result<(), Msg> {
    match code.status {
        STATUS_USED => return Err(Msg::RedemptionUsed),
        STATUS_DISABLED => return Err(Msg::RedemptionDisabled),
        STATUS_UNUSED => {}
        _ => return Err(Msg::RedemptionInvalid),
    }
    if code.valid_from > 0 && now < code.valid_from {
        return Err(Msg::RedemptionNotYetValid);
    }
    if code.valid_until > 0 && now >= code.valid_until {
        return Err(Msg::RedemptionExpired);
    }
    if code.is_gift && code.max_uses != UNLIMITED_USES && code.used_count >= code.max_uses {
        return Err(Msg::GiftUsedUp);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(status: i64, is_gift: bool, max_uses: i64, used_count: i64) -> CodeState {
        CodeState {
            status,
            is_gift,
            max_uses,
            used_count,
            valid_from: 100,
            valid_until: 200,
        }
    }

    #[test]
    fn redeemable_states() {
        assert!(check_redeemable(&code(1, false, -1, 0), 150).is_ok());
        assert_eq!(
            check_redeemable(&code(3, false, -1, 1), 150),
            Err(Msg::RedemptionUsed)
        );
        assert_eq!(
            check_redeemable(&code(2, false, -1, 0), 150),
            Err(Msg::RedemptionDisabled)
        );
        assert_eq!(
            check_redeemable(&code(1, false, -1, 0), 99),
            Err(Msg::RedemptionNotYetValid)
        );
        assert_eq!(
            check_redeemable(&code(1, false, -1, 0), 200),
            Err(Msg::RedemptionExpired)
        );
        assert_eq!(
            check_redeemable(&code(1, true, 2, 2), 150),
            Err(Msg::GiftUsedUp)
        );
        assert!(check_redeemable(&code(1, true, -1, 1000), 150).is_ok());
    }

    #[test]
    fn creation_rules() {
        assert_eq!(check_window(200, 100), Err(Msg::RedemptionWindowInvalid));
        assert_eq!(check_window(100, 100), Err(Msg::RedemptionWindowInvalid));
        assert!(
            check_window(0, 100).is_ok()
                && check_window(100, 0).is_ok()
                && check_window(1, 2).is_ok()
        );
        assert!(check_quota(0).is_err() && check_quota(1).is_ok());
        assert_eq!(normalize_max_uses(None), -1);
        assert_eq!(normalize_max_uses(Some(0)), -1);
        assert_eq!(normalize_max_uses(Some(5)), 5);
        assert!(check_custom_key("GIFT-2026_summer-A").is_ok());
        assert_eq!(
            check_custom_key("GIFT-2026_a"),
            Err(Msg::RedemptionKeyTooShort { min: 16 })
        );
        assert_eq!(
            check_custom_key("has space in the middle"),
            Err(Msg::RedemptionKeyInvalid)
        );
        assert_eq!(
            check_custom_key(&"x".repeat(33)),
            Err(Msg::RedemptionKeyInvalid)
        );
        assert_eq!(new_key().len(), 32);
    }

    #[test]
    fn default_names_are_dollar_amounts() {
        assert_eq!(default_name(100_000, 500_000), "$0.20");
        assert_eq!(default_name(500_000, 500_000), "$1.00");
        assert_eq!(default_name(1, 500_000), "$0.000002");
        assert_eq!(default_name(750_000, 500_000), "$1.50");
    }
}
