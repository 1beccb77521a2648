//! The channel's system prompt, applied to the outbound body in each dialect's shape:
//! OpenAI chat `messages`, OpenAI Responses `instructions`, Anthropic `system` (string or text
//! blocks) and Gemini `systemInstruction.parts` (or `system_instruction`).
//!
//! Modes: with no client system prompt, the channel's is inserted in every mode. With one:
//! [`SystemPromptMode::KeepClient`] leaves it (new-api with `system_prompt_override` off),
//! [`SystemPromptMode::Prepend`] puts the channel's before it, joined by a newline (new-api
//! with `system_prompt_override` on), [`SystemPromptMode::Replace`] drops the client's.

use serde_json::{Map, Value, json};

/// How the channel's prompt meets a client system prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SystemPromptMode {
    #[default]
    KeepClient,
    Prepend,
    Replace,
}

/// The body shapes a system prompt can be applied to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptShape {
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    Gemini,
}

/// A channel's system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPrompt {
    pub text: String,
    pub mode: SystemPromptMode,
}

/// What applying did: for the consume log's `is_system_prompt_overwritten`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PromptOutcome {
    /// The body changed.
    pub applied: bool,
    /// A client system prompt was prepended to or replaced.
    pub overwritten: bool,
}

const INSERTED: PromptOutcome = PromptOutcome {
    applied: true,
    overwritten: false,
};
const OVERWRITTEN: PromptOutcome = PromptOutcome {
    applied: true,
    overwritten: true,
};

impl SystemPrompt {
    /// Applies to `body` of `shape`. A body that is not an object, or whose field has an
    /// unexpected type, is left alone.
    pub fn apply(&self, body: &mut Value, shape: PromptShape) -> PromptOutcome {
        if self.text.is_empty() {
            return PromptOutcome::default();
        }
        let Value::Object(obj) = body else {
            return PromptOutcome::default();
        };
        match shape {
            PromptShape::OpenAiChat => self.chat(obj),
            PromptShape::OpenAiResponses => self.string_field(obj, "instructions"),
            PromptShape::Anthropic => self.anthropic(obj),
            PromptShape::Gemini => self.gemini(obj),
        }
    }

    fn joined(&self, existing: &str) -> String {
        if existing.trim().is_empty() {
            self.text.clone()
        } else {
            format!("{}\n{}", self.text, existing)
        }
    }

    fn chat(&self, obj: &mut Map<String, Value>) -> PromptOutcome {
        let messages = obj
            .entry("messages")
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(messages) = messages else {
            return PromptOutcome::default();
        };
        let is_system = |m: &Value| {
            matches!(
                m.get("role").and_then(Value::as_str),
                Some("system" | "developer")
            )
        };
        let system_message = json!({"role": "system", "content": self.text});
        let Some(first) = messages.iter().position(is_system) else {
            messages.insert(0, system_message);
            return INSERTED;
        };
        match self.mode {
            SystemPromptMode::KeepClient => PromptOutcome::default(),
            SystemPromptMode::Replace => {
                messages.retain(|m| !is_system(m));
                messages.insert(0, system_message);
                OVERWRITTEN
            }
            SystemPromptMode::Prepend => {
                let Some(Value::Object(msg)) = messages.get_mut(first) else {
                    return PromptOutcome::default();
                };
                match msg.get_mut("content") {
                    Some(Value::String(s)) => *s = self.joined(s),
                    Some(Value::Array(parts)) => {
                        parts.insert(0, json!({"type": "text", "text": self.text}));
                    }
                    _ => {
                        msg.insert("content".into(), Value::from(self.text.clone()));
                    }
                }
                OVERWRITTEN
            }
        }
    }

    /// A string field (Responses `instructions`).
    fn string_field(&self, obj: &mut Map<String, Value>, key: &str) -> PromptOutcome {
        match obj.get_mut(key) {
            None | Some(Value::Null) => {
                obj.insert(key.into(), Value::from(self.text.clone()));
                INSERTED
            }
            Some(Value::String(s)) => match self.mode {
                SystemPromptMode::KeepClient => PromptOutcome::default(),
                SystemPromptMode::Prepend => {
                    *s = self.joined(s);
                    OVERWRITTEN
                }
                SystemPromptMode::Replace => {
                    *s = self.text.clone();
                    OVERWRITTEN
                }
            },
            Some(_) => PromptOutcome::default(),
        }
    }

    fn anthropic(&self, obj: &mut Map<String, Value>) -> PromptOutcome {
        match obj.get_mut("system") {
            Some(Value::Array(blocks)) => match self.mode {
                SystemPromptMode::KeepClient => PromptOutcome::default(),
                SystemPromptMode::Prepend => {
                    blocks.insert(0, json!({"type": "text", "text": self.text}));
                    OVERWRITTEN
                }
                SystemPromptMode::Replace => {
                    obj.insert("system".into(), Value::from(self.text.clone()));
                    OVERWRITTEN
                }
            },
            _ => self.string_field(obj, "system"),
        }
    }

    fn gemini(&self, obj: &mut Map<String, Value>) -> PromptOutcome {
        let key = if obj.contains_key("system_instruction") {
            "system_instruction"
        } else {
            "systemInstruction"
        };
        let part = json!({"text": self.text});
        let instruction = match obj.get_mut(key) {
            Some(Value::Object(i)) => i,
            None | Some(Value::Null) => {
                obj.insert(key.into(), json!({"parts": [part]}));
                return INSERTED;
            }
            Some(_) => return PromptOutcome::default(),
        };
        let parts = match instruction.get_mut("parts") {
            Some(Value::Array(p)) if !p.is_empty() => p,
            None | Some(Value::Null) | Some(Value::Array(_)) => {
                instruction.insert("parts".into(), json!([part]));
                return INSERTED;
            }
            Some(_) => return PromptOutcome::default(),
        };
        match self.mode {
            SystemPromptMode::KeepClient => PromptOutcome::default(),
            SystemPromptMode::Replace => {
                *parts = vec![part];
                OVERWRITTEN
            }
            SystemPromptMode::Prepend => {
                let first_text = parts.iter_mut().find_map(|p| match p.get_mut("text") {
                    Some(Value::String(s)) if !s.is_empty() => Some(s),
                    _ => None,
                });
                match first_text {
                    Some(s) => *s = self.joined(s),
                    None => parts.insert(0, part),
                }
                OVERWRITTEN
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn run(mode: SystemPromptMode, shape: PromptShape, mut body: Value) -> (Value, PromptOutcome) {
        let sp = SystemPrompt {
            text: "CH".into(),
            mode,
        };
        let out = sp.apply(&mut body, shape);
        (body, out)
    }
    use PromptShape::*;
    use SystemPromptMode::*;

    #[test]
    fn chat_inserts_when_missing_in_every_mode() {
        for mode in [KeepClient, Prepend, Replace] {
            let (b, o) = run(
                mode,
                OpenAiChat,
                json!({"messages": [{"role": "user", "content": "hi"}]}),
            );
            assert_eq!(
                b,
                json!({"messages": [{"role": "system", "content": "CH"}, {"role": "user", "content": "hi"}]})
            );
            assert_eq!(o, INSERTED);
        }
    }

    #[test]
    fn chat_keep_prepend_replace() {
        let body = json!({"messages": [{"role": "system", "content": "client"}, {"role": "user", "content": "hi"}, {"role": "system", "content": "late"}]});
        let (b, o) = run(KeepClient, OpenAiChat, body.clone());
        assert_eq!((b, o), (body.clone(), PromptOutcome::default()));
        let (b, o) = run(Prepend, OpenAiChat, body.clone());
        assert_eq!(
            b["messages"][0],
            json!({"role": "system", "content": "CH\nclient"})
        );
        assert_eq!(
            b["messages"][2],
            json!({"role": "system", "content": "late"})
        );
        assert!(o.overwritten);
        let (b, o) = run(Replace, OpenAiChat, body);
        assert_eq!(
            b,
            json!({"messages": [{"role": "system", "content": "CH"}, {"role": "user", "content": "hi"}]})
        );
        assert!(o.overwritten);
        let (b, _) = run(
            Prepend,
            OpenAiChat,
            json!({"messages": [{"role": "developer", "content": [{"type": "text", "text": "x"}]}]}),
        );
        assert_eq!(
            b["messages"][0]["content"],
            json!([{"type": "text", "text": "CH"}, {"type": "text", "text": "x"}])
        );
    }

    #[test]
    fn anthropic_string_and_blocks() {
        let (b, o) = run(Prepend, Anthropic, json!({"messages": []}));
        assert_eq!((b, o), (json!({"messages": [], "system": "CH"}), INSERTED));
        let (b, _) = run(Prepend, Anthropic, json!({"system": "client"}));
        assert_eq!(b, json!({"system": "CH\nclient"}));
        let (b, _) = run(Prepend, Anthropic, json!({"system": "  "}));
        assert_eq!(b, json!({"system": "CH"}));
        let blocks = json!({"system": [{"type": "text", "text": "client", "cache_control": {"type": "ephemeral"}}]});
        let (b, _) = run(Prepend, Anthropic, blocks.clone());
        assert_eq!(
            b,
            json!({"system": [{"type": "text", "text": "CH"}, {"type": "text", "text": "client", "cache_control": {"type": "ephemeral"}}]})
        );
        let (b, o) = run(Replace, Anthropic, blocks.clone());
        assert_eq!((b, o.overwritten), (json!({"system": "CH"}), true));
        let (b, o) = run(KeepClient, Anthropic, blocks.clone());
        assert_eq!((b, o.applied), (blocks, false));
    }

    #[test]
    fn gemini_both_spellings() {
        let (b, o) = run(KeepClient, Gemini, json!({"contents": []}));
        assert_eq!(
            (b, o),
            (
                json!({"contents": [], "systemInstruction": {"parts": [{"text": "CH"}]}}),
                INSERTED
            )
        );
        let (b, _) = run(
            Prepend,
            Gemini,
            json!({"system_instruction": {"parts": [{"inlineData": {}}, {"text": "client"}]}}),
        );
        assert_eq!(
            b,
            json!({"system_instruction": {"parts": [{"inlineData": {}}, {"text": "CH\nclient"}]}})
        );
        let (b, _) = run(
            Replace,
            Gemini,
            json!({"systemInstruction": {"role": "user", "parts": [{"text": "a"}, {"text": "b"}]}}),
        );
        assert_eq!(
            b,
            json!({"systemInstruction": {"role": "user", "parts": [{"text": "CH"}]}})
        );
        let (b, o) = run(
            KeepClient,
            Gemini,
            json!({"systemInstruction": {"parts": []}}),
        );
        assert_eq!(
            (b, o),
            (
                json!({"systemInstruction": {"parts": [{"text": "CH"}]}}),
                INSERTED
            )
        );
    }

    #[test]
    fn responses_instructions() {
        let (b, _) = run(Prepend, OpenAiResponses, json!({"instructions": "client"}));
        assert_eq!(b, json!({"instructions": "CH\nclient"}));
        let (b, o) = run(KeepClient, OpenAiResponses, json!({"input": "x"}));
        assert_eq!(
            (b, o),
            (json!({"input": "x", "instructions": "CH"}), INSERTED)
        );
    }
}
