//! Provider side: the lines of an Ollama `/api/chat` NDJSON stream decoded to IR events.

use serde_json::Value;

use super::response::{call_prefix, error_message, stop_reason, str_field, tool_calls, usage_of};
use crate::ParseError;
use crate::ir::StreamEvent;

/// Decodes one Ollama stream, one NDJSON line (one JSON object) at a time; the lines may
/// come as the `data:` payloads of [`super::NdjsonToSse`] frames.
///
/// The first line yields `Start` (no id: Ollama has none; `model`). `message.thinking`
/// gives `ThinkingDelta`, `message.content` `TextDelta`, each `message.tool_calls` entry
/// (Ollama sends calls whole) `ToolCallStart` and one `ToolCallDelta` with the arguments
/// object; the `done: true` line gives `Finish` (once; `length` → `MaxTokens`, `ToolUse`
/// after tool calls) then `Usage` (`prompt_eval_count`, `eval_count`) when present. Blank
/// lines are skipped; an `{"error": …}` line is `Err(Invalid(message))`.
#[derive(Debug, Default)]
pub struct StreamDecoder {
    started: bool,
    finished: bool,
    prefix: String,
    calls: usize,
}

impl StreamDecoder {
    pub fn new() -> Self {
        StreamDecoder::default()
    }

    /// Appends the IR events of one line.
    pub fn decode(&mut self, line: &str, out: &mut Vec<StreamEvent>) -> Result<(), ParseError> {
        let line = line.trim();
        if line.is_empty() {
            return Ok(());
        }
        let v: Value =
            serde_json::from_str(line).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
        if let Some(msg) = error_message(&v) {
            return Err(ParseError::Invalid(msg));
        }
        if !v.is_object() {
            return Err(ParseError::Invalid(
                "Ollama stream line must be a JSON object".into(),
            ));
        }
        if !self.started {
            self.started = true;
            self.prefix = call_prefix(&v);
            out.push(StreamEvent::Start {
                id: String::new(),
                model: str_field(&v, "model").unwrap_or_default().to_owned(),
            });
        }
        if let Some(m) = v.get("message").filter(|m| m.is_object()) {
            if let Some(t) = str_field(m, "thinking") {
                out.push(StreamEvent::ThinkingDelta(t.to_owned()));
            }
            if let Some(t) = str_field(m, "content") {
                out.push(StreamEvent::TextDelta(t.to_owned()));
            }
            for (id, name, arguments) in tool_calls(m, &self.prefix, self.calls) {
                let index = self.calls;
                self.calls += 1;
                out.push(StreamEvent::ToolCallStart { index, id, name });
                out.push(StreamEvent::ToolCallDelta { index, arguments });
            }
        }
        if v.get("done").and_then(Value::as_bool) == Some(true) && !self.finished {
            self.finished = true;
            let reason = str_field(&v, "done_reason").unwrap_or("");
            out.push(StreamEvent::Finish(stop_reason(reason, self.calls > 0)));
            if let Some(u) = usage_of(&v) {
                out.push(StreamEvent::Usage(u));
            }
        }
        Ok(())
    }
}
