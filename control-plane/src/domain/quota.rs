//! Quota arithmetic for display: quota units shown as dollars (500 000 units = $1 by default).

/// `quota` as a dollar amount: at least two decimals, at most six, e.g. `$0.20`, `$0.000002`.
pub fn format_usd(quota: i64, quota_per_unit: i64) -> String {
    let dollars = quota as f64 / quota_per_unit.max(1) as f64;
    let text = format!("{dollars:.6}");
    let (whole, decimals) = text.split_once('.').unwrap_or((&text, ""));
    let decimals = decimals.trim_end_matches('0');
    let decimals = format!("{decimals:0<2}");
    format!("${whole}.{decimals}")
}

#[cfg(test)]
mod tests {
    use super::*;

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
