//! Encodes IR stream events as Responses API server-sent events: `response.created` and
//! `response.in_progress`, the add/delta/done events of each output item, then
//! `response.completed` (or `response.incomplete`) carrying the whole response.

use serde_json::{Value, json};

use super::response::{
    Status, function_call_item, item_id, message_item, output_text, reasoning_item, response_id,
    response_object, summary_text,
};
use crate::ir::{StopReason, StreamEvent, Usage};

/// The message or reasoning item being streamed.
#[derive(Debug)]
enum Open {
    None,
    Message {
        index: usize,
        id: String,
        text: String,
    },
    Reasoning {
        index: usize,
        id: String,
        text: String,
        /// Whether the summary part was announced (it is on the first text).
        part_started: bool,
        signature: Option<String>,
    },
}

/// A function call being streamed.
#[derive(Debug)]
struct Call {
    /// The IR tool call index.
    ir_index: usize,
    index: usize,
    id: String,
    call_id: String,
    name: String,
    arguments: String,
}

/// Per-request state turning IR stream events into Responses events.
#[derive(Debug)]
pub struct StreamEncoder {
    created_at: i64,
    /// Model named when the upstream's start event names none (or never comes).
    model: String,
    id: String,
    seq: u64,
    started: bool,
    /// The terminal event was sent.
    done: bool,
    /// Final form of each output item by output index (`Null` while it streams).
    output: Vec<Value>,
    open: Open,
    calls: Vec<Call>,
    stop: Option<StopReason>,
    usage: Option<Usage>,
}

impl StreamEncoder {
    /// An encoder for a response created at `created_at` (epoch seconds); `model` is named
    /// when the upstream names none.
    pub fn new(created_at: i64, model: &str) -> Self {
        StreamEncoder {
            created_at,
            model: model.to_owned(),
            id: String::new(),
            seq: 0,
            started: false,
            done: false,
            output: Vec::new(),
            open: Open::None,
            calls: Vec::new(),
            stop: None,
            usage: None,
        }
    }

    /// Appends the SSE frames for `ev` to `out`.
    pub fn encode(&mut self, ev: &StreamEvent, out: &mut Vec<u8>) {
        if self.done {
            return;
        }
        if let StreamEvent::Start { id, model } = ev {
            if !self.started {
                if !model.is_empty() {
                    self.model.clone_from(model);
                }
                self.start(id, out);
            }
            return;
        }
        if !self.started {
            self.start("", out);
        }
        match ev {
            StreamEvent::Start { .. } => {}
            StreamEvent::TextDelta(t) => self.text(t, out),
            StreamEvent::ThinkingDelta(t) => self.thinking(t, out),
            StreamEvent::ThinkingSignature(s) => {
                self.open_reasoning(out);
                if let Open::Reasoning { signature, .. } = &mut self.open {
                    *signature = Some(s.clone());
                }
            }
            StreamEvent::ToolCallStart { index, id, name } => {
                self.call_start(*index, id, name, out);
            }
            StreamEvent::ToolCallDelta { index, arguments } => {
                self.call_delta(*index, arguments, out);
            }
            StreamEvent::Usage(u) => {
                self.usage = Some(*u);
                // Usage after the stop is the final count.
                if self.stop.is_some() {
                    self.complete(out);
                }
            }
            StreamEvent::Finish(stop) => {
                self.stop = Some(*stop);
                self.close_all(out, Some(Status::of(self.stop)));
            }
        }
    }

    /// Closes open items and sends the terminal event, if not sent yet.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.done {
            return;
        }
        if !self.started {
            self.start("", out);
        }
        self.complete(out);
    }

    fn start(&mut self, upstream_id: &str, out: &mut Vec<u8>) {
        self.started = true;
        self.id = response_id(upstream_id, self.created_at);
        let response = self.snapshot(Status::InProgress, Vec::new());
        self.frame(out, "response.created", json!({ "response": response }));
        let response = self.snapshot(Status::InProgress, Vec::new());
        self.frame(out, "response.in_progress", json!({ "response": response }));
    }

    fn text(&mut self, t: &str, out: &mut Vec<u8>) {
        if t.is_empty() {
            return;
        }
        if !matches!(self.open, Open::Message { .. }) {
            self.close_all(out, None);
            let index = self.output.len();
            let id = item_id(&self.id, "msg", index);
            self.output.push(Value::Null);
            let item = message_item(&id, "in_progress", Vec::new());
            self.item_event(out, "response.output_item.added", index, item);
            self.frame(
                out,
                "response.content_part.added",
                json!({
                    "item_id": id, "output_index": index, "content_index": 0,
                    "part": output_text(""),
                }),
            );
            self.open = Open::Message {
                index,
                id,
                text: String::new(),
            };
        }
        let Open::Message { index, id, text } = &mut self.open else {
            return;
        };
        text.push_str(t);
        let body = json!({
            "item_id": id, "output_index": *index, "content_index": 0, "delta": t, "logprobs": [],
        });
        self.frame(out, "response.output_text.delta", body);
    }

    fn thinking(&mut self, t: &str, out: &mut Vec<u8>) {
        if t.is_empty() {
            return;
        }
        self.open_reasoning(out);
        let Open::Reasoning {
            index,
            id,
            text,
            part_started,
            ..
        } = &mut self.open
        else {
            return;
        };
        let (index, id) = (*index, id.clone());
        text.push_str(t);
        if !*part_started {
            *part_started = true;
            self.frame(
                out,
                "response.reasoning_summary_part.added",
                json!({
                    "item_id": id, "output_index": index, "summary_index": 0,
                    "part": summary_text(""),
                }),
            );
        }
        let body = json!({"item_id": id, "output_index": index, "summary_index": 0, "delta": t});
        self.frame(out, "response.reasoning_summary_text.delta", body);
    }

    /// Makes a reasoning item the open one (a new one unless one is open).
    fn open_reasoning(&mut self, out: &mut Vec<u8>) {
        if matches!(self.open, Open::Reasoning { .. }) {
            return;
        }
        self.close_all(out, None);
        let index = self.output.len();
        let id = item_id(&self.id, "rs", index);
        self.output.push(Value::Null);
        let item = reasoning_item(&id, "", None);
        self.item_event(out, "response.output_item.added", index, item);
        self.open = Open::Reasoning {
            index,
            id,
            text: String::new(),
            part_started: false,
            signature: None,
        };
    }

    fn call_start(&mut self, ir_index: usize, call_id: &str, name: &str, out: &mut Vec<u8>) {
        if self.calls.iter().any(|c| c.ir_index == ir_index) {
            return;
        }
        self.close_open(out, None);
        let index = self.output.len();
        let id = item_id(&self.id, "fc", index);
        let call_id = if call_id.is_empty() {
            item_id(&self.id, "call", index)
        } else {
            call_id.to_owned()
        };
        self.output.push(Value::Null);
        let item = function_call_item(&id, &call_id, name, "", "in_progress");
        self.item_event(out, "response.output_item.added", index, item);
        self.calls.push(Call {
            ir_index,
            index,
            id,
            call_id,
            name: name.to_owned(),
            arguments: String::new(),
        });
    }

    fn call_delta(&mut self, ir_index: usize, delta: &str, out: &mut Vec<u8>) {
        if delta.is_empty() {
            return;
        }
        let Some(call) = self.calls.iter_mut().find(|c| c.ir_index == ir_index) else {
            return;
        };
        call.arguments.push_str(delta);
        let body = json!({"item_id": call.id, "output_index": call.index, "delta": delta});
        self.frame(out, "response.function_call_arguments.delta", body);
    }

    /// Closes the open message or reasoning item and the open function calls (`ending`: see
    /// [`Self::item_status`]).
    fn close_all(&mut self, out: &mut Vec<u8>, ending: Option<Status>) {
        self.close_open(out, ending);
        let calls = std::mem::take(&mut self.calls);
        for c in calls {
            let status = self.item_status(c.index, ending);
            let body = json!({"item_id": c.id, "output_index": c.index, "arguments": c.arguments});
            self.frame(out, "response.function_call_arguments.done", body);
            let item = function_call_item(&c.id, &c.call_id, &c.name, &c.arguments, status);
            self.item_done(out, c.index, item);
        }
    }

    /// Closes the open message or reasoning item.
    fn close_open(&mut self, out: &mut Vec<u8>, ending: Option<Status>) {
        match std::mem::replace(&mut self.open, Open::None) {
            Open::None => {}
            Open::Message { index, id, text } => {
                let body = json!({
                    "item_id": id, "output_index": index, "content_index": 0,
                    "text": text, "logprobs": [],
                });
                self.frame(out, "response.output_text.done", body);
                let part = output_text(&text);
                let body = json!({
                    "item_id": id, "output_index": index, "content_index": 0, "part": part,
                });
                self.frame(out, "response.content_part.done", body);
                let item = message_item(&id, self.item_status(index, ending), vec![part]);
                self.item_done(out, index, item);
            }
            Open::Reasoning {
                index,
                id,
                text,
                part_started,
                signature,
            } => {
                if part_started {
                    let body = json!({
                        "item_id": id, "output_index": index, "summary_index": 0, "text": text,
                    });
                    self.frame(out, "response.reasoning_summary_text.done", body);
                    let body = json!({
                        "item_id": id, "output_index": index, "summary_index": 0,
                        "part": summary_text(&text),
                    });
                    self.frame(out, "response.reasoning_summary_part.done", body);
                }
                let item = reasoning_item(&id, &text, signature.as_deref());
                self.item_done(out, index, item);
            }
        }
    }

    /// Status of item `index` as it closes: `incomplete` for the last item of an answer
    /// cut short, else `completed`. `ending` is the answer's final status when items close
    /// because the answer ends (not because a later item begins).
    fn item_status(&self, index: usize, ending: Option<Status>) -> &'static str {
        match ending {
            Some(status) if index + 1 == self.output.len() => status.last_item(),
            _ => "completed",
        }
    }

    /// Closes everything and sends `response.completed` or `response.incomplete`.
    fn complete(&mut self, out: &mut Vec<u8>) {
        let status = Status::of(self.stop);
        self.close_all(out, Some(status));
        self.done = true;
        let output = std::mem::take(&mut self.output);
        let response = self.snapshot(status, output);
        let kind = match status {
            Status::Incomplete(_) => "response.incomplete",
            Status::InProgress | Status::Completed => "response.completed",
        };
        self.frame(out, kind, json!({ "response": response }));
    }

    fn snapshot(&self, status: Status, output: Vec<Value>) -> Value {
        let usage = match status {
            Status::InProgress => None,
            Status::Completed | Status::Incomplete(_) => self.usage.as_ref(),
        };
        response_object(
            &self.id,
            self.created_at,
            &self.model,
            status,
            output,
            usage,
        )
    }

    fn item_event(&mut self, out: &mut Vec<u8>, kind: &str, index: usize, item: Value) {
        self.frame(out, kind, json!({"output_index": index, "item": item}));
    }

    /// Sends `response.output_item.done` and keeps the item for the final response.
    fn item_done(&mut self, out: &mut Vec<u8>, index: usize, item: Value) {
        if let Some(slot) = self.output.get_mut(index) {
            *slot = item.clone();
        }
        self.item_event(out, "response.output_item.done", index, item);
    }

    /// Appends one event: `event: <kind>` and `data:` with `type` and `sequence_number`
    /// added to `body`.
    fn frame(&mut self, out: &mut Vec<u8>, kind: &str, mut body: Value) {
        if let Value::Object(m) = &mut body {
            m.insert("type".into(), Value::String(kind.to_owned()));
            m.insert("sequence_number".into(), Value::from(self.seq));
        }
        self.seq += 1;
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(kind.as_bytes());
        out.extend_from_slice(b"\ndata: ");
        // Writing a `Value` into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, &body);
        out.extend_from_slice(b"\n\n");
    }
}
