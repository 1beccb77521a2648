//! Model prices: the default table (our own, from providers' public list prices in USD per
//! million tokens) and how it becomes the ratio options (ratio = input price / 2; completion ratio
//! = output price / input price; cache ratio = cached-input price / input price).

use std::collections::BTreeMap;

/// One model's public list price (USD per 1M tokens).
struct ListPrice {
    model: &'static str,
    input: f64,
    output: f64,
    cached_input: Option<f64>,
}

const fn p(model: &'static str, input: f64, output: f64, cached_input: Option<f64>) -> ListPrice {
    ListPrice {
        model,
        input,
        output,
        cached_input,
    }
}

static LIST_PRICES: &[ListPrice] = &[
    p("gpt-4o", 2.50, 10.00, Some(1.25)),
    p("gpt-4o-mini", 0.15, 0.60, Some(0.075)),
    p("gpt-4.1", 2.00, 8.00, Some(0.50)),
    p("gpt-4.1-mini", 0.40, 1.60, Some(0.10)),
    p("gpt-4.1-nano", 0.10, 0.40, Some(0.025)),
    p("gpt-5", 1.25, 10.00, Some(0.125)),
    p("gpt-5-mini", 0.25, 2.00, Some(0.025)),
    p("gpt-5-nano", 0.05, 0.40, Some(0.005)),
    p("o3", 2.00, 8.00, Some(0.50)),
    p("o4-mini", 1.10, 4.40, Some(0.275)),
    p("gpt-3.5-turbo", 0.50, 1.50, None),
    p("text-embedding-3-small", 0.02, 0.02, None),
    p("text-embedding-3-large", 0.13, 0.13, None),
    p("claude-sonnet-4-20250514", 3.00, 15.00, Some(0.30)),
    p("claude-sonnet-4-5", 3.00, 15.00, Some(0.30)),
    p("claude-opus-4-1", 15.00, 75.00, Some(1.50)),
    p("claude-haiku-4-5", 1.00, 5.00, Some(0.10)),
    p("claude-3-5-haiku-20241022", 0.80, 4.00, Some(0.08)),
    p("gemini-2.5-pro", 1.25, 10.00, Some(0.31)),
    p("gemini-2.5-flash", 0.30, 2.50, Some(0.075)),
    p("gemini-2.0-flash", 0.10, 0.40, Some(0.025)),
    p("deepseek-chat", 0.27, 1.10, Some(0.07)),
    p("deepseek-reasoner", 0.55, 2.19, Some(0.14)),
    p("grok-4", 3.00, 15.00, Some(0.75)),
];

/// Models billed per request (USD per call).
static PER_REQUEST: &[(&str, f64)] = &[("dall-e-3", 0.04), ("gpt-image-1", 0.04)];

/// Rounds away float noise (ratios are shown to people).
fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn to_json(map: BTreeMap<&str, f64>) -> String {
    serde_json::to_string(&map).unwrap_or_else(|_| "{}".into())
}

/// The default `ModelRatio` option.
pub fn default_model_ratio() -> String {
    to_json(
        LIST_PRICES
            .iter()
            .map(|l| (l.model, round(l.input / 2.0)))
            .collect(),
    )
}

/// The default `CompletionRatio` option.
pub fn default_completion_ratio() -> String {
    to_json(
        LIST_PRICES
            .iter()
            .map(|l| (l.model, round(l.output / l.input)))
            .collect(),
    )
}

/// The default `CacheRatio` option.
pub fn default_cache_ratio() -> String {
    to_json(
        LIST_PRICES
            .iter()
            .filter_map(|l| l.cached_input.map(|c| (l.model, round(c / l.input))))
            .collect(),
    )
}

/// The default `ModelPrice` option.
pub fn default_model_price() -> String {
    to_json(PER_REQUEST.iter().copied().collect())
}

/// The pricing options and their defaults.
pub fn defaults() -> [(&'static str, String); 4] {
    [
        ("ModelRatio", default_model_ratio()),
        ("CompletionRatio", default_completion_ratio()),
        ("CacheRatio", default_cache_ratio()),
        ("ModelPrice", default_model_price()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_follow_list_prices() {
        let ratio: serde_json::Value =
            serde_json::from_str(&default_model_ratio()).unwrap_or_default();
        assert_eq!(ratio["gpt-4o"], 1.25);
        assert_eq!(ratio["gpt-4o-mini"], 0.075);
        assert_eq!(ratio["claude-sonnet-4-20250514"], 1.5);
        let completion: serde_json::Value =
            serde_json::from_str(&default_completion_ratio()).unwrap_or_default();
        assert_eq!(completion["gpt-4o"], 4.0);
        assert_eq!(completion["gpt-5"], 8.0);
        let cache: serde_json::Value =
            serde_json::from_str(&default_cache_ratio()).unwrap_or_default();
        assert_eq!(cache["gpt-4o"], 0.5);
        assert!(cache.get("gpt-3.5-turbo").is_none());
        let price: serde_json::Value =
            serde_json::from_str(&default_model_price()).unwrap_or_default();
        assert_eq!(price["dall-e-3"], 0.04);
    }

    #[test]
    fn every_model_is_listed_once() {
        let mut names: Vec<_> = LIST_PRICES.iter().map(|l| l.model).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }
}
