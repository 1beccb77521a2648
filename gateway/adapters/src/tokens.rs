//! Local token counting for prompts (pre-consume) and for answers without usage:
//! tiktoken (cl100k/o200k) for OpenAI models, a fast estimate otherwise and for very large
//! texts (about four characters of a word per token, one per CJK character or symbol).

use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

/// Texts longer than this are estimated, not tokenized, to keep huge prompts cheap.
const TIKTOKEN_MAX_BYTES: usize = 1 << 20;

/// Tokens of `text` as `model` would count them (exact for OpenAI models' tokenizers).
pub fn estimate(model: &str, text: &str) -> i64 {
    if text.is_empty() {
        return 0;
    }
    if text.len() <= TIKTOKEN_MAX_BYTES
        && let Some(tokenizer) = get_tokenizer(model)
        && let Ok(bpe) = tiktoken_rs::bpe_for_tokenizer(tokenizer)
    {
        return i64::try_from(bpe.encode_ordinary(text).len()).unwrap_or(i64::MAX);
    }
    heuristic(text)
}

/// Loads the tokenizer tables (tens of milliseconds) so the first request does not pay.
pub fn warm_up() {
    for t in [Tokenizer::Cl100kBase, Tokenizer::O200kBase] {
        let _ = tiktoken_rs::bpe_for_tokenizer(t);
    }
}

/// The estimate used for non-OpenAI models.
pub fn heuristic(text: &str) -> i64 {
    let mut tokens: i64 = 0;
    let mut word_len: i64 = 0;
    let flush = |word_len: &mut i64, tokens: &mut i64| {
        if *word_len > 0 {
            *tokens += (*word_len + 3) / 4;
            *word_len = 0;
        }
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            word_len += 1;
        } else {
            flush(&mut word_len, &mut tokens);
            if !c.is_whitespace() {
                tokens += 1;
            }
        }
    }
    flush(&mut word_len, &mut tokens);
    tokens
}

#[cfg(test)]
mod tests {
    use super::{estimate, heuristic};

    #[test]
    fn heuristic_counts_words_symbols_and_cjk() {
        assert_eq!(heuristic(""), 0);
        assert_eq!(heuristic("hello world"), 4);
        assert_eq!(heuristic("hi!"), 2);
        assert_eq!(heuristic("你好"), 2);
        assert_eq!(estimate("some-other-model", "hello world"), 4);
    }

    #[test]
    fn openai_models_use_tiktoken() {
        assert_eq!(estimate("gpt-4o-mini", "hello world"), 2);
        assert_eq!(estimate("gpt-3.5-turbo", "hello world"), 2);
        assert_eq!(estimate("gpt-4", "tiktoken is great!"), 6);
    }
}
