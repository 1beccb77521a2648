//! Billing of the media endpoints (reference §3.3, §3.4), in integer quota units. Every
//! endpoint settles through one of two measures:
//!
//! * **Images** (`/v1/images/*`): fixed-price models cost
//!   `model_price × QuotaPerUnit × group_ratio × size_ratio × quality_ratio × n`.
//!   Ratio-priced models with the upstream's token `usage` (gpt-image-1) cost the text formula
//!   over it, `(input_tokens + output_tokens × completion_ratio) × model_ratio × group_ratio`;
//!   without usage, each image is charged as a per-call price of
//!   `model_ratio / 2 × QuotaPerUnit` (the reference's per-call rule, §3.3), so
//!   `model_ratio / 2 × QuotaPerUnit × group_ratio × size_ratio × quality_ratio × n`.
//! * **Tokens** (everything else): fixed-price models cost
//!   `model_price × QuotaPerUnit × group_ratio` per call; ratio-priced ones
//!   `(prompt + completion × completion_ratio) × model_ratio × group_ratio` (at least 1), where
//!   the tokens are: TTS the input's characters (completion 0); transcription the upstream's
//!   `usage` tokens when it sends them (gpt-4o-transcribe), else the audio's duration at
//!   1000 tokens a minute, `ceil(seconds × 1000 / 60)`; rerank the upstream's usage tokens or
//!   the local estimate of query and documents; moderations the local estimate of the input.

use crate::billing::{self, Price};
use adapters::openai::Usage;

/// Audio tokens a minute of audio counts (reference §3.4, whisper).
pub const AUDIO_TOKENS_PER_MINUTE: f64 = 1000.0;

/// What one media request is charged for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Measure {
    Images {
        n: i64,
        size_ratio: f64,
        quality_ratio: f64,
        /// The upstream's token usage (gpt-image-1).
        usage: Option<Usage>,
    },
    Tokens(Usage),
}

/// Tokens of `seconds` of audio: `ceil(seconds × 1000 / 60)`.
pub fn audio_tokens(seconds: f64) -> i64 {
    let t = (seconds.max(0.0) * AUDIO_TOKENS_PER_MINUTE / 60.0).ceil();
    if t.is_finite() { t as i64 } else { 0 }
}

/// Prompt-only usage of `tokens`.
pub fn prompt_usage(tokens: i64) -> Usage {
    Usage {
        prompt_tokens: tokens.max(0),
        ..Usage::default()
    }
}

fn to_quota(x: f64) -> i64 {
    if x.is_finite() {
        x.round().clamp(0.0, i64::MAX as f64) as i64
    } else {
        0
    }
}

/// The quota of a finished (or, with estimated figures, a planned) media request.
pub fn quota(price: &Price, measure: &Measure, qpu: i64) -> i64 {
    match (*price, measure) {
        (
            Price::Fixed { price, group_ratio },
            Measure::Images {
                n,
                size_ratio,
                quality_ratio,
                ..
            },
        ) => to_quota(price * qpu as f64 * group_ratio * size_ratio * quality_ratio * *n as f64),
        (Price::Ratio { .. }, Measure::Images { usage: Some(u), .. }) => {
            billing::quota(price, u, qpu)
        }
        (
            Price::Ratio {
                model_ratio,
                group_ratio,
                ..
            },
            Measure::Images {
                n,
                size_ratio,
                quality_ratio,
                usage: None,
            },
        ) => to_quota(
            model_ratio / 2.0 * qpu as f64 * group_ratio * size_ratio * quality_ratio * *n as f64,
        ),
        (_, Measure::Tokens(u)) => billing::quota(price, u, qpu),
    }
}

/// The usage written to the record for `measure`.
pub fn record_usage(measure: &Measure) -> Usage {
    match measure {
        Measure::Images { usage, .. } => usage.unwrap_or_default(),
        Measure::Tokens(u) => *u,
    }
}

/// Size ratio of an image (reference §3.3): DALL·E sizes 256² 0.4, 512² 0.45, 1024² 1,
/// 1024×1792 and 1792×1024 2; every other size (and every other model) 1.
pub fn size_ratio(model: &str, size: Option<&str>) -> f64 {
    if !model.starts_with("dall-e") {
        return 1.0;
    }
    match size.unwrap_or("1024x1024") {
        "256x256" => 0.4,
        "512x512" => 0.45,
        "1024x1792" | "1792x1024" => 2.0,
        _ => 1.0,
    }
}

/// Quality ratio (reference §3.3): DALL·E 3 `hd` doubles the price of a square image and
/// adds half to the tall and wide ones; everything else 1.
pub fn quality_ratio(model: &str, size: Option<&str>, quality: Option<&str>) -> f64 {
    if !model.starts_with("dall-e-3") || quality != Some("hd") {
        return 1.0;
    }
    match size {
        Some("1024x1792" | "1792x1024") => 1.5,
        _ => 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QPU: i64 = 500_000;

    fn ratio(model_ratio: f64, completion_ratio: f64, group_ratio: f64) -> Price {
        Price::Ratio {
            model_ratio,
            completion_ratio,
            cache_ratio: 1.0,
            cache_creation_ratio: 1.25,
            group_ratio,
        }
    }

    #[test]
    fn images_by_price_size_quality_and_count() {
        let fixed = Price::Fixed {
            price: 0.04,
            group_ratio: 1.5,
        };
        let m = |model: &str, size: &str, quality: Option<&str>, n: i64| Measure::Images {
            n,
            size_ratio: size_ratio(model, Some(size)),
            quality_ratio: quality_ratio(model, Some(size), quality),
            usage: None,
        };
        // 0.04 × 500000 × 1.5 × 1 × 1 × 2 = 60000
        assert_eq!(
            quota(&fixed, &m("dall-e-3", "1024x1024", None, 2), QPU),
            60_000
        );
        // hd square: × 2
        assert_eq!(
            quota(&fixed, &m("dall-e-3", "1024x1024", Some("hd"), 1), QPU),
            60_000
        );
        // hd tall: size 2 × quality 1.5 = 3
        assert_eq!(
            quota(&fixed, &m("dall-e-3", "1024x1792", Some("hd"), 1), QPU),
            90_000
        );
        // dall-e-2 256²: 0.4
        assert_eq!(
            quota(&fixed, &m("dall-e-2", "256x256", Some("hd"), 1), QPU),
            12_000
        );
        assert_eq!(size_ratio("gpt-image-1", Some("256x256")), 1.0);
        // Ratio-priced without usage: ratio / 2 × QPU per image.
        let r = ratio(2.5, 4.0, 1.0);
        assert_eq!(
            quota(&r, &m("gpt-image-1", "1024x1024", None, 2), QPU),
            1_250_000
        );
        // With usage: the text formula, (100 + 4160 × 4) × 2.5 = 41850.
        let with_usage = Measure::Images {
            n: 1,
            size_ratio: 1.0,
            quality_ratio: 1.0,
            usage: Some(Usage {
                prompt_tokens: 100,
                completion_tokens: 4160,
                ..Usage::default()
            }),
        };
        assert_eq!(quota(&r, &with_usage, QPU), 41_850);
    }

    #[test]
    fn tokens_by_ratio_or_per_call() {
        // tts-1: ratio 7.5, 12 characters: 12 × 7.5 = 90.
        assert_eq!(
            quota(
                &ratio(7.5, 1.0, 1.0),
                &Measure::Tokens(prompt_usage(12)),
                QPU
            ),
            90
        );
        // whisper-1: ratio 15, 3 s = ceil(50) tokens: 750.
        assert_eq!(audio_tokens(3.0), 50);
        assert_eq!(audio_tokens(3.01), 51);
        assert_eq!(
            quota(
                &ratio(15.0, 1.0, 1.0),
                &Measure::Tokens(prompt_usage(audio_tokens(3.0))),
                QPU
            ),
            750
        );
        let per_call = Price::Fixed {
            price: 0.002,
            group_ratio: 1.0,
        };
        assert_eq!(
            quota(&per_call, &Measure::Tokens(prompt_usage(999)), QPU),
            1000
        );
        // At least 1 when priced.
        assert_eq!(
            quota(
                &ratio(0.0001, 1.0, 1.0),
                &Measure::Tokens(prompt_usage(1)),
                QPU
            ),
            1
        );
    }
}
