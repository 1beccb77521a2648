//! Provider side: `chat.completion.chunk` payloads decoded to IR stream events.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::error::upstream_error;
use super::wire::{stop_reason, str_field, usage_of};
use crate::ParseError;
use crate::ir::StreamEvent;
use crate::loose::{Object, Text};

/// Decodes one upstream stream. The first chunk starts the answer; of each chunk's first
/// choice, `reasoning_content`/`reasoning` become thinking deltas, `content` text deltas,
/// `tool_calls` tool call events, `finish_reason` the (single) finish; `usage` on any chunk
/// (or, for Moonshot, on the choice) becomes a usage event.
///
/// Tool calls are numbered in order of appearance. A `tool_calls[]` entry starts a call
/// when its upstream `index` (its position when absent) is new, or when it carries an id
/// different from that index's call (some providers send every call at index 0). A call
/// the provider gave no id gets `call_<n>`.
#[derive(Debug, Default)]
pub struct StreamDecoder {
    started: bool,
    finished: bool,
    /// Upstream index and id (when the provider gave one) of each call, in our order.
    calls: Vec<(i64, Option<String>)>,
}

impl StreamDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes the `data:` payload of one SSE event (`[DONE]` and empty payloads are
    /// ignored; an `{"error": …}` payload is an error).
    pub fn decode(&mut self, data: &str, out: &mut Vec<StreamEvent>) -> Result<(), ParseError> {
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        if self.decode_common(data, out) {
            return Ok(());
        }
        self.decode_tree(data, out)
    }

    /// Decodes the chunks most of a stream is made of (text and reasoning deltas, the finish,
    /// no usage, no tool calls, no error) without a value tree; false, having written
    /// nothing, for any other chunk and for one the typed read cannot settle (a field of an
    /// unexpected kind, a repeated field, text that is not JSON), which the value tree then
    /// decodes to the same IR events.
    pub(super) fn decode_common(&mut self, data: &str, out: &mut Vec<StreamEvent>) -> bool {
        let Ok(Object(chunk)) = serde_json::from_str::<Object<WireChunk<'_>>>(data) else {
            return false;
        };
        if chunk.error.is_some() || chunk.usage.is_some() {
            return false;
        }
        let choice = chunk
            .choices
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|Object(c)| c)
            .find(|c| c.index.unwrap_or(0) == 0);
        let delta = choice.and_then(|c| c.delta.as_ref()).map(|Object(d)| d);
        if choice.is_some_and(|c| c.usage.is_some())
            || delta.is_some_and(|d| d.tool_calls.is_some())
        {
            return false;
        }
        self.start(
            text_of(chunk.id.as_ref()),
            text_of(chunk.model.as_ref()),
            out,
        );
        if let Some(d) = delta {
            let reasoning = text_of(d.reasoning_content.as_ref()).or(text_of(d.reasoning.as_ref()));
            push_texts(reasoning, text_of(d.content.as_ref()), out);
        }
        self.finish(choice.and_then(|c| text_of(c.finish_reason.as_ref())), out);
        true
    }

    /// `Start` (with the chunk's id and model), for the first chunk only.
    fn start(&mut self, id: Option<&str>, model: Option<&str>, out: &mut Vec<StreamEvent>) {
        if !self.started {
            self.started = true;
            out.push(StreamEvent::Start {
                id: id.unwrap_or_default().to_owned(),
                model: model.unwrap_or_default().to_owned(),
            });
        }
    }

    /// `Finish` for the first finish reason seen.
    fn finish(&mut self, reason: Option<&str>, out: &mut Vec<StreamEvent>) {
        if let Some(reason) = reason
            && !self.finished
        {
            self.finished = true;
            out.push(StreamEvent::Finish(stop_reason(
                reason,
                !self.calls.is_empty(),
            )));
        }
    }

    /// Decodes a trimmed payload from its value tree (any chunk).
    pub(super) fn decode_tree(
        &mut self,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ParseError> {
        let v: Value =
            serde_json::from_str(data).map_err(|e| ParseError::MalformedJson(e.to_string()))?;
        if let Some(message) = upstream_error(&v) {
            return Err(ParseError::Invalid(message));
        }
        if !v.is_object() {
            return Err(ParseError::Invalid(
                "a stream chunk must be a JSON object".to_owned(),
            ));
        }
        self.start(str_field(&v, "id"), str_field(&v, "model"), out);
        let choice = match v.get("choices") {
            Some(Value::Array(choices)) => choices
                .iter()
                .find(|c| c.get("index").and_then(Value::as_i64).unwrap_or(0) == 0),
            _ => None,
        };
        let mut usage = usage_of(&v);
        if let Some(choice) = choice {
            if let Some(delta) = choice.get("delta").filter(|d| d.is_object()) {
                self.delta(delta, out);
            }
            self.finish(str_field(choice, "finish_reason"), out);
            usage = usage.or_else(|| usage_of(choice));
        }
        if let Some(u) = usage {
            out.push(StreamEvent::Usage(u));
        }
        Ok(())
    }

    fn delta(&mut self, delta: &Value, out: &mut Vec<StreamEvent>) {
        let reasoning =
            str_field(delta, "reasoning_content").or_else(|| str_field(delta, "reasoning"));
        push_texts(reasoning, str_field(delta, "content"), out);
        let Some(Value::Array(calls)) = delta.get("tool_calls") else {
            return;
        };
        for (pos, c) in calls.iter().enumerate() {
            let upstream = c.get("index").and_then(Value::as_i64).unwrap_or(pos as i64);
            let id = str_field(c, "id");
            let f = c.get("function");
            let name = f.and_then(|f| str_field(f, "name"));
            let args = f.and_then(|f| str_field(f, "arguments"));
            let known = self.calls.iter().rposition(|(i, _)| *i == upstream);
            if known.is_none() && id.is_none() && name.is_none() && args.is_none() {
                continue;
            }
            let same_call = known.and_then(|k| {
                let (_, known_id) = self.calls.get_mut(k)?;
                match (known_id.as_deref(), id) {
                    (_, None) => {}
                    (None, Some(id)) => *known_id = Some(id.to_owned()),
                    (Some(a), Some(b)) if a == b => {}
                    _ => return None,
                }
                Some(k)
            });
            let index = match same_call {
                Some(k) => k,
                None => {
                    let index = self.calls.len();
                    self.calls.push((upstream, id.map(str::to_owned)));
                    out.push(StreamEvent::ToolCallStart {
                        index,
                        id: id.map_or_else(|| format!("call_{index}"), str::to_owned),
                        name: name.unwrap_or_default().to_owned(),
                    });
                    index
                }
            };
            if let Some(args) = args {
                out.push(StreamEvent::ToolCallDelta {
                    index,
                    arguments: args.to_owned(),
                });
            }
        }
    }
}

/// A delta's thinking, then its text.
fn push_texts(reasoning: Option<&str>, content: Option<&str>, out: &mut Vec<StreamEvent>) {
    if let Some(t) = reasoning {
        out.push(StreamEvent::ThinkingDelta(t.to_owned()));
    }
    if let Some(t) = content {
        out.push(StreamEvent::TextDelta(t.to_owned()));
    }
}

/// A non-empty string field, as `str_field` reads one from the value tree.
fn text_of<'t>(text: Option<&'t Text<'_>>) -> Option<&'t str> {
    text.map(Text::as_str).filter(|s| !s.is_empty())
}

/// The fields of a chunk [`StreamDecoder::decode_common`] reads; the others are checked as
/// JSON and skipped. A non-null `error` or `usage` sends the chunk to the value tree.
#[derive(Deserialize)]
struct WireChunk<'a> {
    #[serde(borrow, default)]
    id: Option<Text<'a>>,
    #[serde(borrow, default)]
    model: Option<Text<'a>>,
    #[serde(default)]
    error: Option<IgnoredAny>,
    #[serde(default)]
    usage: Option<IgnoredAny>,
    #[serde(borrow, default)]
    choices: Option<Vec<Object<WireChoice<'a>>>>,
}

/// A choice's fields; a non-null `usage` (Moonshot's place for it) sends the chunk to the
/// value tree.
#[derive(Deserialize)]
struct WireChoice<'a> {
    #[serde(default)]
    index: Option<i64>,
    #[serde(borrow, default)]
    delta: Option<Object<WireDelta<'a>>>,
    #[serde(borrow, default)]
    finish_reason: Option<Text<'a>>,
    #[serde(default)]
    usage: Option<IgnoredAny>,
}

/// A delta's text fields; non-null `tool_calls` send the chunk to the value tree.
#[derive(Deserialize)]
struct WireDelta<'a> {
    #[serde(borrow, default)]
    content: Option<Text<'a>>,
    #[serde(borrow, default)]
    reasoning_content: Option<Text<'a>>,
    #[serde(borrow, default)]
    reasoning: Option<Text<'a>>,
    #[serde(default)]
    tool_calls: Option<IgnoredAny>,
}
