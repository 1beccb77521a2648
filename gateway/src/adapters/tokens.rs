//! Local token counting for answers without usage: a fast estimate in the spirit of
//! cl100k (about four characters of a word per token, one per CJK character or symbol).

/// Estimated tokens of `text` for `model` (the model is reserved for per-family weights).
pub fn estimate(_model: &str, text: &str) -> i64 {
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
    use super::estimate;

    #[test]
    fn counts_words_symbols_and_cjk() {
        assert_eq!(estimate("m", ""), 0);
        assert_eq!(estimate("m", "hello world"), 4);
        assert_eq!(estimate("m", "hi!"), 2);
        assert_eq!(estimate("m", "你好"), 2);
    }
}
