//! What an upstream's answer to a media request says about its cost: gpt-image-1's token
//! `usage`, a transcription's `usage` (tokens or seconds) or `duration` (verbose_json), a
//! rerank's usage tokens. Anything it does not say is taken from the request's estimate.

use serde_json::Value;

use super::MediaKind;
use super::price::{self, Measure};
use adapters::openai::Usage;

fn int(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64).filter(|n| *n >= 0)
}

/// Token usage in OpenAI's image/audio naming (`input_tokens`/`output_tokens`) or the chat
/// naming (`prompt_tokens`/`completion_tokens`).
fn token_usage(u: &Value) -> Option<Usage> {
    let prompt = int(u, "input_tokens").or_else(|| int(u, "prompt_tokens"));
    let completion = int(u, "output_tokens").or_else(|| int(u, "completion_tokens"));
    if prompt.is_none() && completion.is_none() {
        return None;
    }
    Some(Usage {
        prompt_tokens: prompt.unwrap_or(0),
        completion_tokens: completion.unwrap_or(0),
        ..Usage::default()
    })
}

/// Seconds as a number or a numeric string (older verbose_json answers).
fn seconds(v: Option<&Value>) -> Option<f64> {
    let s = match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }?;
    (s.is_finite() && s >= 0.0).then_some(s)
}

/// The measure of a finished request: the answer's own figures where it has them (parsed
/// JSON; `None` for a plain-text or audio answer), else `estimate`.
pub fn measure(kind: MediaKind, estimate: Measure, answer: Option<&Value>) -> Measure {
    let Some(answer) = answer else {
        return estimate;
    };
    let usage = answer.get("usage");
    match kind {
        MediaKind::ImageGenerations | MediaKind::ImageEdits => match estimate {
            Measure::Images {
                n,
                size_ratio,
                quality_ratio,
                ..
            } => Measure::Images {
                n,
                size_ratio,
                quality_ratio,
                usage: usage.and_then(token_usage),
            },
            other => other,
        },
        MediaKind::Transcriptions | MediaKind::Translations => {
            if let Some(u) = usage {
                if u.get("type").and_then(Value::as_str) == Some("duration") {
                    if let Some(s) = seconds(u.get("seconds")) {
                        return Measure::Tokens(price::prompt_usage(price::audio_tokens(s)));
                    }
                } else if let Some(t) = token_usage(u) {
                    return Measure::Tokens(t);
                }
            }
            match seconds(answer.get("duration")) {
                Some(s) => Measure::Tokens(price::prompt_usage(price::audio_tokens(s))),
                None => estimate,
            }
        }
        MediaKind::Rerank => {
            let tokens =
                usage.and_then(|u| int(u, "prompt_tokens").or_else(|| int(u, "total_tokens")));
            match tokens {
                Some(t) => Measure::Tokens(price::prompt_usage(t)),
                None => estimate,
            }
        }
        MediaKind::Speech | MediaKind::Moderations => estimate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_refine_the_estimate() {
        let est = Measure::Tokens(price::prompt_usage(50));
        let t = MediaKind::Transcriptions;
        assert_eq!(measure(t, est, None), est);
        assert_eq!(measure(t, est, Some(&json!({"text": "hi"}))), est);
        assert_eq!(
            measure(t, est, Some(&json!({"text": "hi", "duration": 12.0}))),
            Measure::Tokens(price::prompt_usage(200))
        );
        assert_eq!(
            measure(t, est, Some(&json!({"duration": "6"}))),
            Measure::Tokens(price::prompt_usage(100))
        );
        assert_eq!(
            measure(
                t,
                est,
                Some(&json!({"usage": {"type": "duration", "seconds": 3}}))
            ),
            Measure::Tokens(price::prompt_usage(50))
        );
        let tokens = json!({"usage": {"type": "tokens", "input_tokens": 14, "output_tokens": 45, "total_tokens": 59}});
        assert_eq!(
            measure(t, est, Some(&tokens)),
            Measure::Tokens(Usage {
                prompt_tokens: 14,
                completion_tokens: 45,
                ..Usage::default()
            })
        );
        let img = Measure::Images {
            n: 2,
            size_ratio: 1.0,
            quality_ratio: 1.0,
            usage: None,
        };
        assert_eq!(
            measure(MediaKind::ImageGenerations, img, Some(&json!({"data": []}))),
            img
        );
        let with = measure(
            MediaKind::ImageGenerations,
            img,
            Some(&json!({"usage": {"input_tokens": 10, "output_tokens": 20}})),
        );
        assert!(
            matches!(with, Measure::Images { n: 2, usage: Some(u), .. } if u.prompt_tokens == 10 && u.completion_tokens == 20)
        );
        assert_eq!(
            measure(
                MediaKind::Rerank,
                est,
                Some(&json!({"usage": {"total_tokens": 7}}))
            ),
            Measure::Tokens(price::prompt_usage(7))
        );
    }
}
