//! The gateway's fleet-budget calls to Redis, read from its admin `/metrics` around a run: how
//! many requests waited for a grant (a Redis round trip on their way upstream, a source of
//! tail latency) and how many top-ups ran in the background, where no request waits.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::http::Conn;

/// The counter of grants a request waited for.
const WAITED: &str = "gateway_fleet_budget_grants_total";
/// The counter of background top-ups.
const TOP_UPS: &str = "gateway_fleet_budget_top_ups_total";

/// The two counters at one moment, or their rise over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetCalls {
    /// Requests that waited for a grant from Redis.
    pub waited: u64,
    /// Top-ups made in the background.
    pub top_ups: u64,
}

impl BudgetCalls {
    /// The gateway's counters now; `None` when its admin port does not answer with both.
    pub fn read(admin: &str) -> Option<BudgetCalls> {
        let mut conn = Conn::new(admin, Duration::from_secs(5));
        let answer = conn.send("GET", "/metrics", &[], b"").ok()?;
        if answer.status != 200 {
            return None;
        }
        parse(&answer.text())
    }

    /// What rose from `before` to `self`.
    pub fn since(self, before: BudgetCalls) -> BudgetCalls {
        BudgetCalls {
            waited: self.waited.saturating_sub(before.waited),
            top_ups: self.top_ups.saturating_sub(before.top_ups),
        }
    }
}

/// Both counters from a Prometheus text exposition (every sample of each summed, whatever its
/// labels); `None` when either is missing.
fn parse(text: &str) -> Option<BudgetCalls> {
    let (mut waited, mut top_ups) = (None, None);
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((series, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let name = series.split('{').next().unwrap_or(series).trim();
        let slot = match name {
            WAITED => &mut waited,
            TOP_UPS => &mut top_ups,
            _ => continue,
        };
        // Counters are written as integers or as floats with no fraction.
        let Ok(v) = value.trim().parse::<f64>() else {
            continue;
        };
        if v.is_finite() && v >= 0.0 {
            *slot = Some(slot.unwrap_or(0) + v as u64);
        }
    }
    Some(BudgetCalls {
        waited: waited?,
        top_ups: top_ups?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_counters_are_read_and_their_samples_summed() {
        let text = "# HELP gateway_fleet_budget_grants_total Grants.\n\
                    # TYPE gateway_fleet_budget_grants_total counter\n\
                    gateway_fleet_budget_grants_total 14\n\
                    gateway_fleet_budget_top_ups_total{subject=\"user\"} 120\n\
                    gateway_fleet_budget_top_ups_total{subject=\"token\"} 11\n\
                    gateway_fleet_budget_redis_fallbacks_total 3\n";
        assert_eq!(
            parse(text),
            Some(BudgetCalls {
                waited: 14,
                top_ups: 131
            })
        );
    }

    #[test]
    fn a_gateway_without_the_counters_reports_nothing() {
        assert_eq!(parse("gateway_fleet_budget_grants_total 2\n"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn a_run_reports_what_rose() {
        let before = BudgetCalls {
            waited: 14,
            top_ups: 131,
        };
        let after = BudgetCalls {
            waited: 14,
            top_ups: 155,
        };
        assert_eq!(
            after.since(before),
            BudgetCalls {
                waited: 0,
                top_ups: 24
            }
        );
        // A restarted gateway starts its counters again: nothing negative.
        assert_eq!(before.since(after).waited, 0);
    }
}
