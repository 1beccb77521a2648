//! Quota arithmetic: quota units shown as dollars (500 000 units = $1 by default), and how an
//! administrator's edit changes a balance.

use crate::i18n::Msg;

/// `quota` as a dollar amount: at least two decimals, at most six, e.g. `$0.20`, `$0.000002`.
pub fn format_usd(quota: i64, quota_per_unit: i64) -> String {
    let dollars = quota as f64 / quota_per_unit.max(1) as f64;
    let text = format!("{dollars:.6}");
    let (whole, decimals) = text.split_once('.').unwrap_or((&text, ""));
    let decimals = decimals.trim_end_matches('0');
    let decimals = format!("{decimals:0<2}");
    format!("${whole}.{decimals}")
}

/// How an administrator's edit changes a balance that gateways keep changing meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaEdit {
    /// Not at all.
    Keep,
    /// To `to`, only if it still is `from` (compare-and-set).
    Set { from: i64, to: i64 },
    /// By `delta`, from whatever it is when the edit lands.
    Add(i64),
}

/// The change an edit asks for. `quota` is a new value, valid only together with `quota_before`
/// (the value the form was loaded with) unless it equals `current`; an unchanged value keeps the
/// balance as it is now, so saving a profile never writes back a stale balance. `quota_delta`
/// adds to the balance.
pub fn plan_edit(
    quota: Option<i64>,
    quota_before: Option<i64>,
    quota_delta: Option<i64>,
    current: i64,
) -> Result<QuotaEdit, Msg> {
    if quota.is_some_and(|q| q < 0) {
        return Err(Msg::QuotaNegative);
    }
    let set = match (quota, quota_before) {
        (Some(to), Some(from)) if to != from => Some((from, to)),
        (Some(to), None) if to != current => return Err(Msg::QuotaBeforeRequired),
        _ => None,
    };
    match (set, quota_delta.filter(|d| *d != 0)) {
        (Some(_), Some(_)) => Err(Msg::QuotaEditAmbiguous),
        (Some((from, to)), None) => Ok(QuotaEdit::Set { from, to }),
        (None, Some(delta)) => Ok(QuotaEdit::Add(delta)),
        (None, None) => Ok(QuotaEdit::Keep),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unchanged_quota_keeps_the_balance_as_it_is_now() {
        assert_eq!(plan_edit(None, None, None, 50), Ok(QuotaEdit::Keep));
        assert_eq!(
            plan_edit(Some(100), Some(100), None, 50),
            Ok(QuotaEdit::Keep)
        );
        assert_eq!(plan_edit(Some(50), None, None, 50), Ok(QuotaEdit::Keep));
        assert_eq!(
            plan_edit(Some(100), Some(100), Some(0), 50),
            Ok(QuotaEdit::Keep)
        );
    }

    #[test]
    fn a_new_quota_is_compare_and_set_and_a_delta_adds() {
        assert_eq!(
            plan_edit(Some(300), Some(100), None, 50),
            Ok(QuotaEdit::Set { from: 100, to: 300 })
        );
        assert_eq!(
            plan_edit(Some(300), None, None, 50),
            Err(Msg::QuotaBeforeRequired)
        );
        assert_eq!(
            plan_edit(None, None, Some(-20), 50),
            Ok(QuotaEdit::Add(-20))
        );
        assert_eq!(
            plan_edit(Some(100), Some(100), Some(5), 50),
            Ok(QuotaEdit::Add(5))
        );
        assert_eq!(
            plan_edit(Some(300), Some(100), Some(5), 50),
            Err(Msg::QuotaEditAmbiguous)
        );
        assert_eq!(
            plan_edit(Some(-1), Some(5), None, 5),
            Err(Msg::QuotaNegative)
        );
    }

    #[test]
    fn dollars_with_two_to_six_decimals() {
        assert_eq!(format_usd(100_000, 500_000), "$0.20");
        assert_eq!(format_usd(500_000, 500_000), "$1.00");
        assert_eq!(format_usd(1, 500_000), "$0.000002");
        assert_eq!(format_usd(750_000, 500_000), "$1.50");
        assert_eq!(format_usd(123_456_789, 500_000), "$246.913578");
        assert_eq!(format_usd(0, 0), "$0.00");
    }
}
