//! Billing: price lookup, the pre-consume estimate and the settlement formula of the
//! reference (§3.2, §3.3, §3.5), in integer quota units.

pub mod carry;
mod concurrency;
pub mod fleet;
pub mod leases;
mod ledger;
mod stream_budget;
#[cfg(test)]
mod test_support;

pub use carry::Carry;
pub use concurrency::{Concurrency, Slot};
pub use ledger::{Refused, Reservation, reserve, reserve_carried};
pub use stream_budget::{PromptTokens, StreamBudget};

use crate::config::Pricing;
use crate::error::BillingError;
use adapters::openai::Usage;

/// How a model is priced for one request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Price {
    /// Token-based: ratio 1 = $2 per 1M input tokens.
    Ratio {
        model_ratio: f64,
        completion_ratio: f64,
        cache_ratio: f64,
        /// Prompt tokens written to the provider's cache (Claude cache creation).
        cache_creation_ratio: f64,
        group_ratio: f64,
    },
    /// Fixed USD per request.
    Fixed { price: f64, group_ratio: f64 },
}

/// Looks up the price of `model` for a user of `user_group` using `group`
/// (GroupGroupRatio first, then GroupRatio, then 1).
pub fn price_for(
    pricing: &Pricing,
    model: &str,
    user_group: &str,
    group: &str,
) -> Result<Price, BillingError> {
    let group_ratio = pricing
        .group_group_ratio
        .get(user_group)
        .and_then(|r| r.get(group))
        .or_else(|| pricing.group_ratio.get(group))
        .copied()
        .unwrap_or(1.0);
    if let Some(price) = pricing.model_price.get(model) {
        return Ok(Price::Fixed {
            price: *price,
            group_ratio,
        });
    }
    let model_ratio = *pricing
        .model_ratio
        .get(model)
        .ok_or_else(|| BillingError::NotPriced(model.to_owned()))?;
    Ok(Price::Ratio {
        model_ratio,
        completion_ratio: pricing.completion_ratio.get(model).copied().unwrap_or(1.0),
        cache_ratio: pricing.cache_ratio.get(model).copied().unwrap_or(1.0),
        cache_creation_ratio: pricing
            .create_cache_ratio
            .get(model)
            .copied()
            .unwrap_or(DEFAULT_CACHE_CREATION_RATIO),
        group_ratio,
    })
}

/// Price of a cache write relative to input when no `CreateCacheRatio` is set (Anthropic's
/// 5-minute cache writes cost 1.25 × input).
pub const DEFAULT_CACHE_CREATION_RATIO: f64 = 1.25;

fn to_quota(x: f64) -> i64 {
    if x.is_finite() {
        x.round().clamp(0.0, i64::MAX as f64) as i64
    } else {
        0
    }
}

/// Amount reserved before relaying: `(max(prompt_estimate, pre_consumed_tokens) +
/// max_tokens) × model_ratio × group_ratio`, or the fixed price.
pub fn pre_quota(
    price: &Price,
    prompt_estimate: i64,
    max_tokens: Option<i64>,
    pre_consumed_tokens: i64,
    qpu: i64,
) -> i64 {
    match *price {
        Price::Ratio {
            model_ratio,
            group_ratio,
            ..
        } => {
            let tokens = prompt_estimate
                .max(pre_consumed_tokens)
                .saturating_add(max_tokens.unwrap_or(0));
            to_quota(tokens as f64 * model_ratio * group_ratio)
        }
        Price::Fixed { price, group_ratio } => to_quota(price * qpu as f64 * group_ratio),
    }
}

/// Quota of a finished request.
pub fn quota(price: &Price, usage: &Usage, qpu: i64) -> i64 {
    match *price {
        Price::Ratio {
            model_ratio,
            completion_ratio,
            cache_ratio,
            cache_creation_ratio,
            group_ratio,
        } => {
            if usage.prompt_tokens + usage.completion_tokens == 0 {
                return 0;
            }
            let prompt = usage.prompt_tokens.max(0);
            let cached = usage.cached_tokens.clamp(0, prompt);
            let written = usage.cache_creation_tokens.clamp(0, prompt - cached);
            let base_prompt = (prompt - cached - written) as f64;
            let prompt_part =
                base_prompt + cached as f64 * cache_ratio + written as f64 * cache_creation_ratio;
            let ratio = model_ratio * group_ratio;
            let q =
                to_quota((prompt_part + usage.completion_tokens as f64 * completion_ratio) * ratio);
            if ratio != 0.0 && q <= 0 { 1 } else { q }
        }
        Price::Fixed { price, group_ratio } => to_quota(price * qpu as f64 * group_ratio),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]
    use super::*;

    #[test]
    fn ratio_formula_matches_reference() {
        // gpt-4o: ratio 1.25, completion 4, cache 0.5; group 1.
        let p = Price::Ratio {
            model_ratio: 1.25,
            completion_ratio: 4.0,
            cache_ratio: 0.5,
            cache_creation_ratio: 1.25,
            group_ratio: 1.0,
        };
        let u = Usage {
            prompt_tokens: 1000,
            completion_tokens: 100,
            cached_tokens: 200,
            cache_creation_tokens: 0,
        };
        // (800 + 200×0.5 + 100×4) × 1.25 = 1625
        assert_eq!(quota(&p, &u, 500_000), 1625);
        // Claude: 1000 prompt tokens of which 200 read from and 400 written to the cache:
        // (400 + 200×0.5 + 400×1.25 + 100×4) × 1.25 = 1750
        let claude = Usage {
            cache_creation_tokens: 400,
            ..u
        };
        assert_eq!(quota(&p, &claude, 500_000), 1750);
        assert_eq!(quota(&p, &Usage::default(), 500_000), 0);
        let tiny = Price::Ratio {
            model_ratio: 0.001,
            completion_ratio: 1.0,
            cache_ratio: 1.0,
            cache_creation_ratio: 1.25,
            group_ratio: 1.0,
        };
        assert_eq!(
            quota(
                &tiny,
                &Usage {
                    prompt_tokens: 1,
                    completion_tokens: 0,
                    cached_tokens: 0,
                    cache_creation_tokens: 0,
                },
                500_000
            ),
            1
        );
        assert_eq!(pre_quota(&p, 10, Some(100), 500, 500_000), 750);
    }

    #[test]
    fn group_group_ratio_overrides_group_ratio() {
        let mut pricing = Pricing::default();
        pricing.model_price.insert("m".into(), 1.0);
        pricing.group_ratio.insert("default".into(), 2.0);
        pricing.group_group_ratio.insert(
            "vip".into(),
            [("default".to_owned(), 0.5)].into_iter().collect(),
        );
        let ratio = |user: &str, using: &str| match price_for(&pricing, "m", user, using) {
            Ok(Price::Fixed { group_ratio, .. }) => group_ratio,
            other => panic!("{other:?}"),
        };
        assert_eq!(ratio("vip", "default"), 0.5);
        assert_eq!(ratio("default", "default"), 2.0);
        assert_eq!(ratio("default", "unknown"), 1.0);
        assert!(matches!(
            price_for(&pricing, "x", "default", "default"),
            Err(BillingError::NotPriced(_))
        ));
    }

    #[test]
    fn fixed_price_uses_quota_per_unit_and_group() {
        let p = Price::Fixed {
            price: 0.04,
            group_ratio: 0.5,
        };
        assert_eq!(quota(&p, &Usage::default(), 500_000), 10_000);
        assert_eq!(pre_quota(&p, 0, None, 500, 500_000), 10_000);
    }
}
