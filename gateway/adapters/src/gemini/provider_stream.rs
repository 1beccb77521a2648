//! Provider side: `streamGenerateContent?alt=sse` chunks decoded to IR stream events.

use serde_json::Value;

use super::fields::{self, error_message, get};
use super::provider_response::{blocked, call_id_prefix};
use super::usage::{from_metadata, stop_reason};
use crate::ParseError;
use crate::ir::{StopReason, StreamEvent, Usage};

/// Decodes a Gemini stream, one `data:` payload (a whole `GenerateContentResponse`) at a
/// time. The first chunk yields `Start` (`responseId`, `modelVersion`); text parts
/// `TextDelta`, thought parts `ThinkingDelta` (their signature `ThinkingSignature` after
/// it), a signature on another part `ThinkingSignature` before it; each `functionCall`
/// part `ToolCallStart` (id synthesised as `call_{responseId}_{n}` when absent) and one
/// `ToolCallDelta` with the whole `args` JSON; `finishReason` `Finish` (once; `STOP` →
/// `ToolUse` after tool calls) and `promptFeedback.blockReason` `Finish(ContentFilter)`;
/// `usageMetadata` `Usage` when it changed or the chunk finishes (after `Finish`). Images
/// have no stream event and are dropped. An error chunk is `Err(Invalid(message))`.
#[derive(Debug, Default)]
pub struct StreamDecoder {
    started: bool,
    finished: bool,
    prefix: String,
    calls: usize,
    usage: Option<Usage>,
}

impl StreamDecoder {
    pub fn new() -> Self {
        StreamDecoder::default()
    }

    /// Appends the IR events of one `data:` payload (`[DONE]` and blank payloads are ignored).
    pub fn decode(&mut self, data: &str, out: &mut Vec<StreamEvent>) -> Result<(), ParseError> {
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let v: Value =
            serde_json::from_str(data).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
        if !v.is_object() {
            return Err(ParseError::Invalid(
                "Gemini stream chunk must be a JSON object".into(),
            ));
        }
        if let Some(msg) = error_message(&v) {
            return Err(ParseError::Invalid(msg));
        }
        // An invalid chunk leaves no events and no state behind.
        let (len, started, calls) = (out.len(), self.started, self.calls);
        let result = self.chunk(&v, out);
        if result.is_err() {
            out.truncate(len);
            self.started = started;
            self.calls = calls;
        }
        result
    }

    fn chunk(&mut self, v: &Value, out: &mut Vec<StreamEvent>) -> Result<(), ParseError> {
        if !self.started {
            self.started = true;
            let id = fields::string(v, "responseId", "response_id")?.unwrap_or_default();
            let model = fields::string(v, "modelVersion", "model_version")?.unwrap_or_default();
            self.prefix = call_id_prefix(id);
            out.push(StreamEvent::Start {
                id: id.to_owned(),
                model: model.to_owned(),
            });
        }
        let mut stop = None;
        if let Some(c) = fields::array(v, "candidates", "candidates")?.first() {
            if let Some(content) = get(c, "content", "content") {
                for p in fields::array(content, "parts", "parts")? {
                    self.part(p, out)?;
                }
            }
            let reason = fields::string(c, "finishReason", "finish_reason")?.unwrap_or_default();
            stop = stop_reason(reason);
        } else if blocked(v) {
            stop = Some(StopReason::ContentFilter);
        }
        let finishing = stop.is_some() && !self.finished;
        if let Some(mut stop) = stop.filter(|_| finishing) {
            if stop == StopReason::EndTurn && self.calls > 0 {
                stop = StopReason::ToolUse;
            }
            self.finished = true;
            out.push(StreamEvent::Finish(stop));
        }
        if let Some(m) = get(v, "usageMetadata", "usage_metadata") {
            let u = from_metadata(m);
            if finishing || self.usage != Some(u) {
                self.usage = Some(u);
                out.push(StreamEvent::Usage(u));
            }
        }
        Ok(())
    }

    fn part(&mut self, p: &Value, out: &mut Vec<StreamEvent>) -> Result<(), ParseError> {
        let signature = fields::string(p, "thoughtSignature", "thought_signature")?
            .filter(|s| !s.is_empty())
            .map(|s| StreamEvent::ThinkingSignature(s.to_owned()));
        let text = p.get("text").and_then(Value::as_str);
        if let (Some(t), true) = (text, fields::flag(p, "thought", "thought")?) {
            if !t.is_empty() {
                out.push(StreamEvent::ThinkingDelta(t.to_owned()));
            }
            out.extend(signature);
            return Ok(());
        }
        out.extend(signature);
        if let Some(t) = text {
            if !t.is_empty() {
                out.push(StreamEvent::TextDelta(t.to_owned()));
            }
        } else if let Some(c) = get(p, "functionCall", "function_call") {
            let name = fields::string(c, "name", "name")?.unwrap_or_default();
            let arguments = match get(c, "args", "args") {
                Some(a @ Value::Object(_)) => a.to_string(),
                _ => "{}".to_owned(),
            };
            let id = match fields::string(c, "id", "id")? {
                Some(id) if !id.is_empty() => id.to_owned(),
                _ => format!("{}{}", self.prefix, self.calls),
            };
            let index = self.calls;
            self.calls += 1;
            out.push(StreamEvent::ToolCallStart {
                index,
                id,
                name: name.to_owned(),
            });
            out.push(StreamEvent::ToolCallDelta { index, arguments });
        }
        Ok(())
    }
}
