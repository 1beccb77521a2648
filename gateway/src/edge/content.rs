//! Sensitive words (`CheckSensitive*`, `SensitiveWords`): a prompt containing one is refused
//! before any upstream call. Plain words and phrases are matched without regard to case by one
//! Aho-Corasick automaton; lines starting with `regex:` are regular expressions, matched
//! together by one `RegexSet`. Only the text a model reads is searched (message contents,
//! prompts, inputs, system prompts, instructions; not image data or tool schemas).

use std::sync::{Arc, Mutex};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::{Regex, RegexSet, RegexSetBuilder};
use serde_json::Value;

use crate::error::RequestError;

/// The JSON keys whose string values (or arrays of strings) are text for the model.
const TEXT_KEYS: &[&str] = &[
    "content",
    "text",
    "prompt",
    "input",
    "system",
    "instructions",
    "query",
];
/// At most this many distinct findings are named in the error.
const MAX_NAMED: usize = 5;
/// Compiled size limit of the regular expressions (a hostile option cannot exhaust memory).
const REGEX_SIZE_LIMIT: usize = 8 << 20;

/// The compiled word list.
#[derive(Default)]
pub struct SensitiveWords {
    words: Option<AhoCorasick>,
    patterns: Option<(RegexSet, Vec<Regex>)>,
    /// The option's lines, to reuse the compiled form while they do not change.
    source: Vec<String>,
}

impl std::fmt::Debug for SensitiveWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SensitiveWords({} lines)", self.source.len())
    }
}

impl SensitiveWords {
    /// Compiles the option's lines (invalid regular expressions are skipped with a warning;
    /// the control plane refuses them when the option is saved).
    pub fn compile(lines: &[String]) -> SensitiveWords {
        let mut plain = Vec::new();
        let mut regexes = Vec::new();
        for line in lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()) {
            match line.strip_prefix("regex:") {
                Some(p) if !p.is_empty() => match regex::RegexBuilder::new(p)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                {
                    Ok(re) => regexes.push(re),
                    Err(err) => tracing::warn!(error = %err, "sensitive word regex skipped"),
                },
                Some(_) => {}
                None => plain.push(line.to_owned()),
            }
        }
        let words = (!plain.is_empty())
            .then(|| {
                AhoCorasickBuilder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(plain.iter().map(|w| w.to_lowercase()))
                    .map_err(|err| tracing::warn!(error = %err, "sensitive words not compiled"))
                    .ok()
            })
            .flatten();
        let patterns = (!regexes.is_empty())
            .then(|| {
                RegexSetBuilder::new(regexes.iter().map(Regex::as_str))
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map(|set| (set, regexes))
                    .map_err(|err| tracing::warn!(error = %err, "sensitive regexes not compiled"))
                    .ok()
            })
            .flatten();
        SensitiveWords {
            words,
            patterns,
            source: lines.to_vec(),
        }
    }

    /// The compiled form of `lines`, shared with the previous snapshot when they did not
    /// change (snapshots are rebuilt often; the word list rarely changes).
    pub fn shared(lines: &[String]) -> Arc<SensitiveWords> {
        static LAST: Mutex<Option<Arc<SensitiveWords>>> = Mutex::new(None);
        Self::shared_in(&LAST, lines)
    }

    /// [`SensitiveWords::shared`] with the last list kept in `last`.
    fn shared_in(last: &Mutex<Option<Arc<SensitiveWords>>>, lines: &[String]) -> Arc<Self> {
        let Ok(mut last) = last.lock() else {
            return Arc::new(SensitiveWords::compile(lines));
        };
        if let Some(words) = last.as_ref().filter(|w| w.source == lines) {
            return words.clone();
        }
        let words = Arc::new(SensitiveWords::compile(lines));
        *last = Some(words.clone());
        words
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_none() && self.patterns.is_none()
    }

    /// Adds what `text` contains to `found` (distinct, at most [`MAX_NAMED`]).
    pub fn find_in(&self, text: &str, found: &mut Vec<String>) {
        let mut note = |s: &str| {
            if found.len() < MAX_NAMED && !found.iter().any(|f| f == s) {
                found.push(s.to_owned());
            }
        };
        if let Some(ac) = &self.words {
            // Non-ASCII letters are folded by lowering the text (ASCII is folded by the
            // automaton itself, with no copy).
            if text.is_ascii() {
                for m in ac.find_iter(text) {
                    note(&text[m.range()]);
                }
            } else {
                let lower = text.to_lowercase();
                for m in ac.find_iter(&lower) {
                    note(&lower[m.range()]);
                }
            }
        }
        if let Some((set, regexes)) = &self.patterns {
            for i in set.matches(text).iter() {
                if let Some(m) = regexes.get(i).and_then(|re| re.find(text)) {
                    note(m.as_str());
                }
            }
        }
    }

    /// Where in `text` sensitive words and patterns are: byte ranges, sorted, not overlapping
    /// (overlapping findings are merged).
    pub fn match_ranges(&self, text: &str) -> Vec<std::ops::Range<usize>> {
        let mut ranges = Vec::new();
        if let Some(ac) = &self.words {
            if text.is_ascii() {
                ranges.extend(ac.find_iter(text).map(|m| m.range()));
            } else {
                // Lower-cased text can differ in length: each byte of it remembers the
                // original character it came from.
                let mut lower = String::with_capacity(text.len());
                let mut origin: Vec<(usize, usize)> = Vec::with_capacity(text.len());
                for (at, ch) in text.char_indices() {
                    let end = at + ch.len_utf8();
                    for lc in ch.to_lowercase() {
                        lower.push(lc);
                        origin.extend(std::iter::repeat_n((at, end), lc.len_utf8()));
                    }
                }
                for m in ac.find_iter(&lower) {
                    let (Some(first), Some(last)) =
                        (origin.get(m.start()), origin.get(m.end().saturating_sub(1)))
                    else {
                        continue;
                    };
                    ranges.push(first.0..last.1);
                }
            }
        }
        if let Some((set, regexes)) = &self.patterns {
            for i in set.matches(text).iter() {
                if let Some(re) = regexes.get(i) {
                    ranges.extend(
                        re.find_iter(text)
                            .map(|m| m.range())
                            .filter(|r| !r.is_empty()),
                    );
                }
            }
        }
        ranges.sort_by_key(|r| (r.start, r.end));
        let mut merged: Vec<std::ops::Range<usize>> = Vec::with_capacity(ranges.len());
        for r in ranges {
            match merged.last_mut() {
                Some(last) if r.start < last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        merged
    }

    /// What a JSON request body contains, searched in the text a model reads.
    pub fn find_in_request(&self, body: &[u8]) -> Vec<String> {
        let mut found = Vec::new();
        if self.is_empty() {
            return found;
        }
        if let Ok(v) = serde_json::from_slice::<Value>(body) {
            self.visit(&v, false, &mut found);
        }
        found
    }

    fn visit(&self, v: &Value, is_text: bool, found: &mut Vec<String>) {
        if found.len() >= MAX_NAMED {
            return;
        }
        match v {
            Value::String(s) if is_text => self.find_in(s, found),
            Value::Array(items) => {
                for item in items {
                    self.visit(item, is_text, found);
                }
            }
            Value::Object(map) => {
                for (k, child) in map {
                    self.visit(child, TEXT_KEYS.contains(&k.as_str()), found);
                }
            }
            _ => {}
        }
    }
}

/// The text a model reads in a JSON request body (as searched for sensitive words), joined by
/// newlines, at most `cap` bytes (cut at a character boundary).
pub fn request_text(body: &[u8], cap: usize) -> String {
    fn collect(v: &Value, is_text: bool, out: &mut String, cap: usize) {
        if out.len() >= cap {
            return;
        }
        match v {
            Value::String(s) if is_text => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(s);
            }
            Value::Array(items) => {
                for item in items {
                    collect(item, is_text, out, cap);
                }
            }
            Value::Object(map) => {
                for (k, child) in map {
                    collect(child, TEXT_KEYS.contains(&k.as_str()), out, cap);
                }
            }
            _ => {}
        }
    }
    let mut out = String::new();
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        collect(&v, false, &mut out, cap);
    }
    truncate_at_char(&mut out, cap);
    out
}

/// Cuts `text` to at most `cap` bytes, at a character boundary.
pub fn truncate_at_char(text: &mut String, cap: usize) {
    if text.len() > cap {
        let mut cut = cap;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
}

/// Refuses a prompt that contains sensitive words, when prompts are checked.
pub fn check_prompt(check: bool, words: &SensitiveWords, body: &[u8]) -> Result<(), RequestError> {
    if !check {
        return Ok(());
    }
    let found = words.find_in_request(body);
    if found.is_empty() {
        Ok(())
    } else {
        Err(RequestError::SensitiveWords(found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(lines: &[&str]) -> SensitiveWords {
        SensitiveWords::compile(&lines.iter().map(|l| l.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn words_match_without_case_and_regexes_by_pattern() {
        let w = words(&[
            "Forbidden",
            "违禁词",
            "regex:secret-\\d{3}",
            "regex:(unclosed",
            "",
        ]);
        let mut found = Vec::new();
        w.find_in("a FORBIDDEN thing and secret-123", &mut found);
        assert_eq!(found, ["FORBIDDEN", "secret-123"]);
        let mut found = Vec::new();
        w.find_in("含有违禁词的句子 Forbidden", &mut found);
        assert_eq!(found, ["违禁词", "forbidden"]);
        let mut found = Vec::new();
        w.find_in("nothing here, secret-12", &mut found);
        assert!(found.is_empty());
    }

    #[test]
    fn only_model_text_is_searched() {
        let w = words(&["bad"]);
        let body = serde_json::json!({
            "model": "bad-model",
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "all good"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,badbad"}}
                ]},
                {"role": "user", "content": "fine"}
            ],
            "tools": [{"type": "function", "function": {"name": "bad", "description": "bad"}}]
        });
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        assert!(check_prompt(true, &w, &bytes).is_ok());
        for (body, what) in [
            (
                serde_json::json!({"messages": [{"role": "user", "content": "so BAD"}]}),
                "chat",
            ),
            (
                serde_json::json!({"system": [{"type": "text", "text": "bad"}]}),
                "claude system",
            ),
            (
                serde_json::json!({"contents": [{"parts": [{"text": "bad"}]}]}),
                "gemini",
            ),
            (serde_json::json!({"input": ["ok", "bad"]}), "embeddings"),
            (serde_json::json!({"prompt": "\u{62}ad"}), "escaped"),
        ] {
            let bytes = serde_json::to_vec(&body).unwrap_or_default();
            assert!(
                matches!(
                    check_prompt(true, &w, &bytes),
                    Err(RequestError::SensitiveWords(_))
                ),
                "{what}"
            );
            assert!(check_prompt(false, &w, &bytes).is_ok());
        }
    }

    #[test]
    fn the_compiled_list_is_shared_while_it_does_not_change() {
        // Its own cache: the snapshot tests build lists in parallel through the global one.
        let last = Mutex::new(None);
        let a = SensitiveWords::shared_in(&last, &["x".to_owned()]);
        let b = SensitiveWords::shared_in(&last, &["x".to_owned()]);
        assert!(Arc::ptr_eq(&a, &b));
        let c = SensitiveWords::shared_in(&last, &["y".to_owned()]);
        assert!(!Arc::ptr_eq(&a, &c));
        assert!(SensitiveWords::compile(&[]).is_empty());
    }
}
