//! Shaping a converted request for its channel's protocol by the `claude.*` and `gemini.*`
//! options: Claude's required max_tokens, and the thinking model-name suffixes
//! (`-thinking` for Claude; `-thinking`, `-thinking-{budget}`, `-nothinking` for Gemini).

use adapters::ir::{Reasoning, Request};
use adapters::provider::Protocol;

use crate::config::ProviderOptions;

/// Claude refuses thinking budgets below this.
const CLAUDE_MIN_BUDGET: i64 = 1024;

/// Adjusts `req` for `protocol`; returns the model name to send (a suffix removed).
pub fn for_channel(
    req: &mut Request,
    protocol: Protocol,
    model: &str,
    opts: &ProviderOptions,
) -> String {
    match protocol {
        Protocol::OpenAi
        | Protocol::Converse
        | Protocol::Ollama
        | Protocol::Cohere
        | Protocol::Task => model.to_owned(),
        Protocol::Anthropic => claude(req, model, opts),
        Protocol::Gemini => gemini(req, model, opts),
    }
}

fn claude(req: &mut Request, model: &str, opts: &ProviderOptions) -> String {
    let (model, thinking) = match model.strip_suffix("-thinking") {
        Some(base) if opts.claude_thinking_adapter && !base.is_empty() => (base, true),
        _ => (model, false),
    };
    let max_tokens = req
        .max_tokens
        .filter(|n| *n > 0)
        .unwrap_or_else(|| opts.claude_max_tokens(model));
    req.max_tokens = Some(max_tokens);
    if thinking {
        let share = (max_tokens as f64 * opts.claude_thinking_budget_share) as i64;
        let budget = share.max(CLAUDE_MIN_BUDGET);
        if max_tokens <= budget {
            req.max_tokens = Some(budget + max_tokens);
        }
        req.reasoning = Some(Reasoning {
            effort: None,
            budget_tokens: Some(budget),
            include_thoughts: true,
        });
    }
    model.to_owned()
}

fn gemini(req: &mut Request, model: &str, opts: &ProviderOptions) -> String {
    let model = gemini_suffix(req, model, opts);
    // Models outside `gemini.models_supported_thinking_budget` get thinking switched on or
    // off, never a budget (Google refuses one there).
    if !opts.gemini_takes_budget(&model)
        && let Some(r) = req.reasoning.as_mut()
    {
        r.budget_tokens = None;
        r.effort = None;
    }
    model
}

fn gemini_suffix(req: &mut Request, model: &str, opts: &ProviderOptions) -> String {
    if !opts.gemini_thinking_adapter {
        return model.to_owned();
    }
    if let Some(base) = model.strip_suffix("-nothinking") {
        req.reasoning = Some(Reasoning {
            effort: None,
            budget_tokens: Some(0),
            include_thoughts: false,
        });
        return base.to_owned();
    }
    if let Some((base, budget)) = model.rsplit_once("-thinking-")
        && let Ok(budget) = budget.parse::<i64>()
        && budget >= 0
    {
        req.reasoning = Some(Reasoning {
            effort: None,
            budget_tokens: Some(budget),
            include_thoughts: true,
        });
        return base.to_owned();
    }
    if let Some(base) = model.strip_suffix("-thinking") {
        let budget = req
            .max_tokens
            .map(|n| (n as f64 * opts.gemini_thinking_budget_share) as i64);
        req.reasoning = Some(Reasoning {
            effort: None,
            budget_tokens: budget,
            include_thoughts: true,
        });
        return base.to_owned();
    }
    model.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> ProviderOptions {
        ProviderOptions {
            claude_thinking_adapter: true,
            claude_thinking_budget_share: 0.8,
            gemini_thinking_adapter: true,
            gemini_thinking_budget_share: 0.6,
            ..ProviderOptions::default()
        }
    }

    #[test]
    fn claude_gets_max_tokens_and_thinking_from_the_suffix() {
        let mut r = Request::default();
        assert_eq!(
            for_channel(&mut r, Protocol::Anthropic, "claude-x", &opts()),
            "claude-x"
        );
        assert_eq!(r.max_tokens, Some(8192));
        assert!(r.reasoning.is_none());
        let mut r = Request {
            max_tokens: Some(10_000),
            ..Request::default()
        };
        assert_eq!(
            for_channel(&mut r, Protocol::Anthropic, "claude-x-thinking", &opts()),
            "claude-x"
        );
        assert_eq!(r.reasoning.and_then(|t| t.budget_tokens), Some(8000));
        let mut small = Request {
            max_tokens: Some(100),
            ..Request::default()
        };
        for_channel(&mut small, Protocol::Anthropic, "c-thinking", &opts());
        assert_eq!(small.max_tokens, Some(1124));
        let off = ProviderOptions::default();
        let mut r = Request::default();
        assert_eq!(
            for_channel(&mut r, Protocol::Anthropic, "c-thinking", &off),
            "c-thinking"
        );
    }

    #[test]
    fn gemini_suffixes_set_the_budget() {
        let mut r = Request::default();
        assert_eq!(
            for_channel(
                &mut r,
                Protocol::Gemini,
                "gemini-2.5-flash-thinking-512",
                &opts()
            ),
            "gemini-2.5-flash"
        );
        assert_eq!(r.reasoning.and_then(|t| t.budget_tokens), Some(512));
        let mut r = Request::default();
        assert_eq!(
            for_channel(
                &mut r,
                Protocol::Gemini,
                "gemini-2.5-flash-nothinking",
                &opts()
            ),
            "gemini-2.5-flash"
        );
        assert_eq!(r.reasoning.and_then(|t| t.budget_tokens), Some(0));
        let mut r = Request::default();
        assert_eq!(
            for_channel(&mut r, Protocol::OpenAi, "gpt-4o-thinking", &opts()),
            "gpt-4o-thinking"
        );
    }
}
