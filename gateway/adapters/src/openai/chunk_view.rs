//! A borrowed, typed reading of one OpenAI stream chunk (or answer): its error, its usage and
//! its generated text, without building a value tree. Any chunk the types do not fit (a
//! number where text was expected, a duplicate key, a top level that is not an object) is
//! refused, and the caller reads it with the value-tree functions instead, so the results of
//! both readings are the same wherever this one answers.

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::Usage;
use crate::loose::Text;

/// The members of a chunk the gateway reads; all others are skipped.
#[derive(Debug, Deserialize)]
pub struct ChunkView<'a> {
    /// Present even when `null` (the value-tree reading treats a `null` error as an error).
    #[serde(borrow, default, deserialize_with = "present")]
    pub error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    choices: Option<Vec<ChoiceView<'a>>>,
    #[serde(default)]
    usage: Option<UsageView>,
}

#[derive(Debug, Deserialize)]
struct ChoiceView<'a> {
    #[serde(borrow, default)]
    message: Option<TextHolder<'a>>,
    #[serde(borrow, default)]
    delta: Option<TextHolder<'a>>,
    #[serde(borrow, default)]
    text: Option<Text<'a>>,
    #[serde(default)]
    usage: Option<UsageView>,
}

#[derive(Debug, Deserialize)]
struct TextHolder<'a> {
    #[serde(borrow, default)]
    content: Option<Text<'a>>,
    #[serde(borrow, default)]
    reasoning_content: Option<Text<'a>>,
}

/// A `usage` object: counts that are absent or `null` read as 0.
#[derive(Debug, Deserialize)]
struct UsageView {
    #[serde(default)]
    prompt_tokens: Option<i64>,
    #[serde(default)]
    completion_tokens: Option<i64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    #[serde(default)]
    prompt_cache_hit_tokens: Option<i64>,
    #[serde(default)]
    cached_tokens: Option<i64>,
}

#[derive(Debug, Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<i64>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

impl<'a> ChunkView<'a> {
    /// Reads `data`, or `None` when it is not JSON or does not fit the types.
    pub fn read(data: &'a str) -> Option<Self> {
        serde_json::from_str(data).ok()
    }

    /// As [`super::chunk_usage_of`]: the top-level usage, else the first choice's.
    pub fn usage(&self) -> Option<Usage> {
        let first_choice = || self.choices.as_ref()?.first()?.usage.as_ref();
        self.usage
            .as_ref()
            .or_else(first_choice)
            .map(UsageView::read)
    }

    /// Whether `choices` is absent, not a list or empty.
    pub fn has_no_choices(&self) -> bool {
        self.choices.as_ref().is_none_or(Vec::is_empty)
    }

    /// As [`super::push_output_text`].
    pub fn push_output_text(&self, out: &mut String) {
        for c in self.choices.iter().flatten() {
            for holder in [&c.message, &c.delta].into_iter().flatten() {
                for s in [&holder.content, &holder.reasoning_content]
                    .into_iter()
                    .flatten()
                {
                    out.push_str(s.as_str());
                }
            }
            if let Some(s) = &c.text {
                out.push_str(s.as_str());
            }
        }
    }
}

impl UsageView {
    fn read(&self) -> Usage {
        let prompt = self.prompt_tokens.unwrap_or(0);
        let details = self
            .prompt_tokens_details
            .as_ref()
            .and_then(|d| d.cached_tokens);
        let cached = [details, self.prompt_cache_hit_tokens, self.cached_tokens]
            .into_iter()
            .flatten()
            .find(|n| *n > 0)
            .unwrap_or(0);
        Usage {
            prompt_tokens: prompt,
            completion_tokens: self.completion_tokens.unwrap_or(0),
            cached_tokens: cached.min(prompt.max(0)),
            cache_creation_tokens: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::Value;

    use super::*;
    use crate::openai::{chunk_usage_of, push_output_text};

    /// What the value-tree reading gives: (error present, usage, text, no choices).
    fn by_tree(data: &str) -> Option<(bool, Option<Usage>, String, bool)> {
        let v: Value = serde_json::from_str(data).ok()?;
        let mut text = String::new();
        push_output_text(&v, &mut text);
        let no_choices = v
            .get("choices")
            .and_then(Value::as_array)
            .is_none_or(|c| c.is_empty());
        Some((
            v.get("error").is_some(),
            chunk_usage_of(&v),
            text,
            no_choices,
        ))
    }

    fn by_view(data: &str) -> Option<(bool, Option<Usage>, String, bool)> {
        let v = ChunkView::read(data)?;
        let mut text = String::new();
        v.push_output_text(&mut text);
        Some((v.error.is_some(), v.usage(), text, v.has_no_choices()))
    }

    #[test]
    fn agrees_with_the_value_tree_wherever_it_answers() {
        let chunks = [
            r#"{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"hé\"llo\n"}}]}"#,
            r#"{"choices":[{"delta":{"content":null,"reasoning_content":"think"},"finish_reason":null}]}"#,
            r#"{"choices":[{"message":{"content":"a"},"text":"b"},{"delta":{"content":"c"}}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}"#,
            r#"{"choices":[{"delta":{},"usage":{"prompt_tokens":9,"completion_tokens":1,"cached_tokens":4}}]}"#,
            r#"{"choices":[{"usage":{"prompt_tokens":9}}],"usage":null}"#,
            r#"{"usage":{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":0},"prompt_cache_hit_tokens":30}}"#,
            r#"{"usage":{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":3}}}"#,
            r#"{"usage":{"prompt_tokens":null,"completion_tokens":null,"prompt_tokens_details":null}}"#,
            r#"{"usage":{}}"#,
            r#"{"error":{"message":"x"}}"#,
            r#"{"error":null,"choices":null}"#,
            r#"{"choices":[{"message":null,"delta":null,"text":null}]}"#,
            r#"{"object":"chat.completion.chunk","model":"m","created":1,"choices":[{"index":0,"logprobs":{"content":[{"token":"a"}]},"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}"#,
        ];
        for data in chunks {
            let view = by_view(data);
            assert!(view.is_some(), "the view reads {data}");
            assert_eq!(view, by_tree(data), "{data}");
        }
    }

    #[test]
    fn refuses_what_the_types_do_not_fit_so_the_tree_decides() {
        for data in [
            r#"[1,2]"#,
            r#"{"choices":{"0":{}}}"#,
            r#"{"choices":[{"delta":{"content":[{"type":"text","text":"a"}]}}]}"#,
            r#"{"usage":{"prompt_tokens":1.5}}"#,
            r#"{"usage":{"prompt_tokens":"7"}}"#,
            r#"{"usage":{"prompt_tokens":18446744073709551615}}"#,
            r#"{"usage":1}"#,
            r#"{"choices":[],"choices":[{"text":"a"}]}"#,
            r#"{"choices":[1]}"#,
            r#"{broken"#,
        ] {
            assert!(ChunkView::read(data).is_none(), "{data}");
        }
    }
}
