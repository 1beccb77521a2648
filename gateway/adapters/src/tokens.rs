//! Local token counting for prompts (pre-consume) and for answers without usage:
//! tiktoken (cl100k/o200k) for OpenAI models, a fast estimate otherwise and for very large
//! texts (about four characters of a word per token, one per CJK character or symbol).

use std::sync::{Arc, OnceLock};

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

/// [`estimate`] of a text given in pieces, without keeping more than `TIKTOKEN_MAX_BYTES` of
/// it: the text is kept (and tokenized at the end) while it fits, and past that the
/// heuristic counts the pieces as they arrive.
#[derive(Debug, Default)]
pub struct Estimator {
    kept: String,
    len: usize,
    heuristic: Heuristic,
}

impl Estimator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `piece` to the text.
    pub fn push(&mut self, piece: &str) {
        let kept = self.len <= TIKTOKEN_MAX_BYTES;
        self.len += piece.len();
        if self.len <= TIKTOKEN_MAX_BYTES {
            self.kept.push_str(piece);
            return;
        }
        if kept {
            // Too long to tokenize: count what was kept, then keep nothing.
            self.heuristic.feed(&std::mem::take(&mut self.kept));
        }
        self.heuristic.feed(piece);
    }

    /// Appends one character.
    pub fn push_char(&mut self, c: char) {
        self.push(c.encode_utf8(&mut [0; 4]));
    }

    /// The estimate of the whole text: the same as [`estimate`] of it.
    pub fn finish(self, model: &str) -> i64 {
        if self.len <= TIKTOKEN_MAX_BYTES {
            return estimate(model, &self.kept);
        }
        self.heuristic.finish()
    }
}

/// A prompt's estimate: the count of its text plus the tokens of its framing. The text is kept
/// and counted at the first [`PromptCount::get`], since a prompt's count is often never needed:
/// the reservation can take the prompt's length as its bound, and upstreams report usage. A
/// text past the tokenizer's limit is estimated at once, as it arrives, and not kept. Clones
/// share the kept text and its count: whichever asks first counts, once.
#[derive(Debug, Clone)]
pub struct PromptCount {
    overhead: i64,
    text: PromptText,
}

#[derive(Debug, Clone)]
enum PromptText {
    Counted(i64),
    Kept(Arc<KeptText>),
}

#[derive(Debug)]
struct KeptText {
    text: String,
    counted: OnceLock<i64>,
}

impl PromptCount {
    /// The estimate of `text` as `model` counts it, plus `overhead`.
    pub fn new(text: Estimator, model: &str, overhead: i64) -> PromptCount {
        if text.len <= TIKTOKEN_MAX_BYTES {
            return PromptCount::of_text(text.kept, model, overhead);
        }
        PromptCount {
            overhead,
            text: PromptText::Counted(text.finish(model)),
        }
    }

    /// A count already known.
    pub fn known(tokens: i64) -> PromptCount {
        PromptCount {
            overhead: 0,
            text: PromptText::Counted(tokens),
        }
    }

    /// [`PromptCount::new`] of a text given whole.
    pub fn of_text(text: String, model: &str, overhead: i64) -> PromptCount {
        let text = if text.len() <= TIKTOKEN_MAX_BYTES {
            PromptText::Kept(Arc::new(KeptText {
                text,
                counted: OnceLock::new(),
            }))
        } else {
            PromptText::Counted(estimate(model, &text))
        };
        PromptCount { overhead, text }
    }

    /// The estimate, counted now if it was not yet; `model` is the one given to `new`.
    pub fn get(&self, model: &str) -> i64 {
        let tokens = match &self.text {
            PromptText::Counted(n) => *n,
            PromptText::Kept(k) => *k.counted.get_or_init(|| estimate(model, &k.text)),
        };
        tokens.saturating_add(self.overhead)
    }

    /// An upper bound of [`PromptCount::get`] that counts nothing: no text has more tokens
    /// than bytes (every token stands for at least one byte; the heuristic counts at most one
    /// per character).
    pub fn at_most(&self) -> i64 {
        let tokens = match &self.text {
            PromptText::Counted(n) => *n,
            PromptText::Kept(k) => k
                .counted
                .get()
                .copied()
                .unwrap_or_else(|| i64::try_from(k.text.len()).unwrap_or(i64::MAX)),
        };
        tokens.saturating_add(self.overhead)
    }

    /// `max(self.get(model), floor)`, without counting when the text cannot exceed `floor`.
    pub fn get_at_least(&self, model: &str, floor: i64) -> i64 {
        if self.at_most() <= floor {
            floor
        } else {
            self.get(model).max(floor)
        }
    }
}

/// The state of [`heuristic`] between pieces of a text.
#[derive(Debug, Default)]
struct Heuristic {
    tokens: i64,
    word_len: i64,
}

impl Heuristic {
    fn feed(&mut self, text: &str) {
        for c in text.chars() {
            if c.is_ascii_alphanumeric() {
                self.word_len += 1;
            } else {
                self.flush();
                if !c.is_whitespace() {
                    self.tokens += 1;
                }
            }
        }
    }

    fn flush(&mut self) {
        if self.word_len > 0 {
            self.tokens += (self.word_len + 3) / 4;
            self.word_len = 0;
        }
    }

    fn finish(mut self) -> i64 {
        self.flush();
        self.tokens
    }
}

/// Loads the tokenizer tables (tens of milliseconds, tens of MiB) so the first request that
/// needs them does not pay; otherwise each loads at its first use.
pub fn warm_up() {
    for t in [Tokenizer::Cl100kBase, Tokenizer::O200kBase] {
        let _ = tiktoken_rs::bpe_for_tokenizer(t);
    }
}

/// The estimate used for non-OpenAI models.
pub fn heuristic(text: &str) -> i64 {
    let mut h = Heuristic::default();
    h.feed(text);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::{Estimator, PromptCount, TIKTOKEN_MAX_BYTES, estimate, heuristic};

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

    #[test]
    fn estimator_matches_estimate_over_the_whole_text() {
        let pieces = ["Hello, wor", "ld! 你好 ", "tiktoken", " is great\n", ""];
        for model in ["gpt-4o-mini", "claude-3-haiku"] {
            let mut e = Estimator::new();
            for p in pieces {
                e.push(p);
            }
            e.push_char(' ');
            let whole = format!("{} ", pieces.concat());
            assert_eq!(e.finish(model), estimate(model, &whole), "{model}");
        }
        // Past the tokenizer's limit the heuristic counts, split anywhere.
        let line = "Some words, split at odd places: abcdefgh12345 中文.\n";
        let whole = line.repeat(TIKTOKEN_MAX_BYTES / line.len() + 10);
        let mut split = Estimator::new();
        for (i, c) in whole.char_indices() {
            if i % 7 == 0 {
                split.push_char(c);
            } else {
                split.push(&whole[i..i + c.len_utf8()]);
            }
        }
        assert_eq!(split.finish("gpt-4o"), estimate("gpt-4o", &whole));
    }

    #[test]
    fn a_prompt_counted_late_equals_one_counted_at_once_and_never_exceeds_its_bound() {
        let texts = [
            String::new(),
            "hello".to_owned(),
            "Hello, world! 你好 tiktoken is great\n\t  ".to_owned(),
            "ab ".repeat(4096 / 3),
            "x".repeat(4097),
            "word ".repeat(TIKTOKEN_MAX_BYTES / 5 + 1),
            "日本語のテキスト、".repeat(200),
        ];
        for model in ["gpt-4o-mini", "gpt-4", "claude-3-haiku"] {
            for text in &texts {
                let mut e = Estimator::new();
                e.push(text);
                let count = PromptCount::new(e, model, 7);
                let shared = count.clone();
                let exact = estimate(model, text) + 7;
                assert_eq!(
                    PromptCount::of_text(text.clone(), model, 7).get(model),
                    exact
                );
                let bound = count.at_most();
                assert!(bound >= exact, "{model}: {bound} < {exact}");
                assert_eq!(count.get_at_least(model, bound), bound);
                assert_eq!(count.get_at_least(model, 0), exact);
                assert_eq!(count.get(model), exact);
                assert_eq!(
                    count.at_most(),
                    exact,
                    "once counted, the bound is the count"
                );
                assert_eq!(shared.at_most(), exact, "a clone shares the count");
            }
        }
    }
}
