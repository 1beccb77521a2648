//! Client side: IR stream events encoded as `streamGenerateContent?alt=sse` chunks.

use serde_json::{Value, json};

use super::parts_out::call_args;
use super::usage::{finish_reason, to_metadata};
use crate::ir::{StopReason, StreamEvent, Usage};

/// Encodes one streamed answer as `data: {GenerateContentResponse}\n\n` frames (Gemini
/// names no events and has no opening frame). Each text or thinking delta is one chunk
/// with one part (`thought: true` for thinking). Gemini sends whole `functionCall` parts,
/// so tool calls are buffered and sent together in one chunk (as Gemini sends parallel
/// calls) once they are complete: when text or thinking follows, at `Finish`, or at
/// [`finish`](Self::finish). A thinking signature goes on the next part sent (where Gemini
/// puts its own). The last chunk carries `finishReason` and `usageMetadata`: it is sent at
/// the first `Usage` after `Finish`, else by `finish` with what is known.
#[derive(Debug)]
pub struct StreamEncoder {
    model: String,
    /// `,"modelVersion":…,"responseId":…}` closing every chunk, set when the answer starts.
    tail: Option<String>,
    calls: Vec<PendingCall>,
    signature: Option<String>,
    finish: Option<StopReason>,
    usage: Option<Usage>,
    done: bool,
}

#[derive(Debug)]
struct PendingCall {
    index: usize,
    id: String,
    name: String,
    arguments: String,
}

const HEAD: &[u8] = br#"data: {"candidates":[{"content":{"role":"model","parts":["#;

impl StreamEncoder {
    /// `model`: the `modelVersion` stamped on every chunk (the model the client asked for);
    /// when empty, the model of the `Start` event is used.
    pub fn new(model: &str) -> Self {
        StreamEncoder {
            model: model.to_owned(),
            tail: None,
            calls: Vec::new(),
            signature: None,
            finish: None,
            usage: None,
            done: false,
        }
    }

    /// Appends the frames for `ev` to `out`.
    pub fn encode(&mut self, ev: &StreamEvent, out: &mut Vec<u8>) {
        if self.done {
            return;
        }
        match ev {
            StreamEvent::Start { id, model } => self.start(id, model),
            StreamEvent::TextDelta(t) | StreamEvent::ThinkingDelta(t) if !t.is_empty() => {
                self.flush_calls(out);
                let thought = matches!(ev, StreamEvent::ThinkingDelta(_));
                self.text_chunk(t, thought, out);
            }
            StreamEvent::TextDelta(_) | StreamEvent::ThinkingDelta(_) => {}
            StreamEvent::ThinkingSignature(s) => {
                if !s.is_empty() {
                    self.signature = Some(s.clone());
                }
            }
            StreamEvent::ToolCallStart { index, id, name } => self.calls.push(PendingCall {
                index: *index,
                id: id.clone(),
                name: name.clone(),
                arguments: String::new(),
            }),
            StreamEvent::ToolCallDelta { index, arguments } => {
                if let Some(c) = self.calls.iter_mut().rev().find(|c| c.index == *index) {
                    c.arguments.push_str(arguments);
                }
            }
            StreamEvent::Finish(stop) => {
                self.flush_calls(out);
                self.finish = Some(*stop);
            }
            StreamEvent::Usage(u) => {
                self.usage = Some(*u);
                if self.finish.is_some() {
                    self.last_chunk(out);
                }
            }
        }
    }

    /// Sends the buffered tool calls and the last chunk if not sent yet.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if !self.done {
            self.last_chunk(out);
        }
    }

    fn start(&mut self, id: &str, model: &str) {
        if self.tail.is_some() {
            return;
        }
        let model = if self.model.is_empty() {
            model
        } else {
            &self.model
        };
        self.tail = Some(format!(
            ",\"modelVersion\":{},\"responseId\":{}}}",
            Value::from(model),
            Value::from(id)
        ));
    }

    fn close(&mut self, out: &mut Vec<u8>) {
        self.start("", "");
        if let Some(tail) = &self.tail {
            out.extend_from_slice(tail.as_bytes());
        }
        out.extend_from_slice(b"\n\n");
    }

    fn text_chunk(&mut self, text: &str, thought: bool, out: &mut Vec<u8>) {
        out.extend_from_slice(HEAD);
        out.extend_from_slice(b"{\"text\":");
        write_json(out, &json!(text));
        if thought {
            out.extend_from_slice(b",\"thought\":true");
        }
        if let Some(s) = self.signature.take() {
            out.extend_from_slice(b",\"thoughtSignature\":");
            write_json(out, &json!(s));
        }
        out.extend_from_slice(b"}]},\"index\":0}]");
        self.close(out);
    }

    fn flush_calls(&mut self, out: &mut Vec<u8>) {
        if self.calls.is_empty() {
            return;
        }
        out.extend_from_slice(HEAD);
        for (i, c) in std::mem::take(&mut self.calls).into_iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let mut part = json!({"functionCall": {
                "name": c.name,
                "args": call_args(&c.arguments),
                "id": c.id,
            }});
            if let Some(s) = self.signature.take() {
                part["thoughtSignature"] = json!(s);
            }
            write_json(out, &part);
        }
        out.extend_from_slice(b"]},\"index\":0}]");
        self.close(out);
    }

    fn last_chunk(&mut self, out: &mut Vec<u8>) {
        self.flush_calls(out);
        let mut part = json!({"text": ""});
        if let Some(s) = self.signature.take() {
            part["thoughtSignature"] = json!(s);
        }
        let mut candidate = json!({"content": {"role": "model", "parts": [part]}, "index": 0});
        if let Some(stop) = self.finish {
            candidate["finishReason"] = json!(finish_reason(stop));
        }
        out.extend_from_slice(b"data: {\"candidates\":[");
        write_json(out, &candidate);
        out.push(b']');
        if let Some(u) = &self.usage {
            out.extend_from_slice(b",\"usageMetadata\":");
            write_json(out, &to_metadata(u));
        }
        self.close(out);
        self.done = true;
    }
}

fn write_json(out: &mut Vec<u8>, v: &Value) {
    // Writing to a Vec cannot fail and a Value always serialises.
    let _ = serde_json::to_writer(&mut *out, v);
}
