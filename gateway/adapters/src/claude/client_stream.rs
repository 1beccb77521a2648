//! Client side: IR stream events encoded as Anthropic server-sent events: `message_start`,
//! the start, deltas and stop of each content block (indices contiguous across kinds),
//! then `message_delta` (stop reason and usage) and `message_stop`.

use std::io::Write;

use serde_json::{Value, json};

use super::wire::{WireUsage, message_id, stop_reason_name};
use crate::ir::{StopReason, StreamEvent, Usage};

/// What the open content block holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    /// A tool call, by IR tool call index.
    Tool(usize),
}

/// Per-request state turning IR stream events into Anthropic SSE frames.
///
/// Only one block is open at a time: a delta of another kind closes it and opens the next.
/// The closing `message_delta` waits for the usage: it is sent with `message_stop` on the
/// first `Usage` after `Finish` (OpenAI-style streams send usage after the stop), or by
/// [`StreamEncoder::finish`] with the last usage seen; later events are ignored.
#[derive(Debug)]
pub struct StreamEncoder {
    /// Model named when the upstream's start event names none (or never comes).
    model: String,
    started: bool,
    /// `message_stop` was sent.
    done: bool,
    /// Index of the next content block.
    next_block: usize,
    /// The open block and its index.
    open: Option<(Kind, usize)>,
    /// Block index of each tool call begun, by IR tool call index.
    tools: Vec<(usize, usize)>,
    stop: Option<StopReason>,
    usage: Option<Usage>,
}

impl StreamEncoder {
    /// An encoder naming `model` unless the upstream's start event names one.
    pub fn new(model: &str) -> Self {
        StreamEncoder {
            model: model.to_owned(),
            started: false,
            done: false,
            next_block: 0,
            open: None,
            tools: Vec::new(),
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
        if let StreamEvent::Usage(u) = ev {
            // Before a made-up start, so `message_start` carries the input tokens.
            self.usage = Some(*u);
        }
        if !self.started {
            self.start("", out);
        }
        match ev {
            StreamEvent::Start { .. } => {}
            StreamEvent::TextDelta(t) => {
                if !t.is_empty() {
                    let index = self.ensure_open(Kind::Text, out);
                    delta(out, index, "text_delta", "text", t);
                }
            }
            StreamEvent::ThinkingDelta(t) => {
                if !t.is_empty() {
                    let index = self.ensure_open(Kind::Thinking, out);
                    delta(out, index, "thinking_delta", "thinking", t);
                }
            }
            StreamEvent::ThinkingSignature(s) => {
                if !s.is_empty() {
                    let index = self.ensure_open(Kind::Thinking, out);
                    delta(out, index, "signature_delta", "signature", s);
                }
            }
            StreamEvent::ToolCallStart { index, id, name } => {
                if !self.tools.iter().any(|(i, _)| i == index) {
                    self.start_tool(*index, id, name, out);
                }
            }
            StreamEvent::ToolCallDelta { index, arguments } => {
                if !arguments.is_empty() {
                    let block = self.ensure_open(Kind::Tool(*index), out);
                    delta(out, block, "input_json_delta", "partial_json", arguments);
                }
            }
            StreamEvent::Usage(_) => {
                if self.stop.is_some() {
                    self.end(out);
                }
            }
            StreamEvent::Finish(stop) => {
                self.close_block(out);
                self.stop = Some(*stop);
            }
        }
    }

    /// Closes the open block and sends `message_delta` and `message_stop`, if not sent yet
    /// (without a `Finish` the stop reason is `tool_use` when tools were called, else
    /// `end_turn`).
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.done {
            return;
        }
        if !self.started {
            self.start("", out);
        }
        self.end(out);
    }

    fn start(&mut self, upstream_id: &str, out: &mut Vec<u8>) {
        self.started = true;
        let usage = self.usage.as_ref().map(WireUsage::of).unwrap_or_default();
        let message = json!({
            "id": message_id(upstream_id, &self.model),
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
            "usage": {
                "input_tokens": usage.input,
                "output_tokens": 0,
                "cache_read_input_tokens": usage.cache_read,
                "cache_creation_input_tokens": usage.cache_creation,
            },
        });
        frame(
            out,
            "message_start",
            &json!({ "type": "message_start", "message": message }),
        );
    }

    /// The index of an open block of `kind`, opening one (and closing another) if needed.
    fn ensure_open(&mut self, kind: Kind, out: &mut Vec<u8>) -> usize {
        if let Some((k, index)) = self.open
            && k == kind
        {
            return index;
        }
        let block = match kind {
            Kind::Text => json!({ "type": "text", "text": "" }),
            Kind::Thinking => json!({ "type": "thinking", "thinking": "", "signature": "" }),
            Kind::Tool(index) => return self.tool_block(index, out),
        };
        self.close_block(out);
        self.open_block(kind, block, out)
    }

    fn start_tool(&mut self, index: usize, id: &str, name: &str, out: &mut Vec<u8>) -> usize {
        self.close_block(out);
        let id = if id.is_empty() {
            format!("toolu_{index}")
        } else {
            id.to_owned()
        };
        let block = json!({ "type": "tool_use", "id": id, "name": name, "input": {} });
        let b = self.open_block(Kind::Tool(index), block, out);
        self.tools.push((index, b));
        b
    }

    /// The block of tool call `index`: the open one, an earlier one (Anthropic clients
    /// accumulate deltas by block index), or a new one when its start never came.
    fn tool_block(&mut self, index: usize, out: &mut Vec<u8>) -> usize {
        if let Some((Kind::Tool(i), b)) = self.open
            && i == index
        {
            return b;
        }
        match self.tools.iter().find(|(i, _)| *i == index) {
            Some((_, b)) => *b,
            None => self.start_tool(index, "", "", out),
        }
    }

    fn open_block(&mut self, kind: Kind, block: Value, out: &mut Vec<u8>) -> usize {
        let index = self.next_block;
        self.next_block += 1;
        self.open = Some((kind, index));
        frame(
            out,
            "content_block_start",
            &json!({ "type": "content_block_start", "index": index, "content_block": block }),
        );
        index
    }

    fn close_block(&mut self, out: &mut Vec<u8>) {
        if let Some((_, index)) = self.open.take() {
            frame(
                out,
                "content_block_stop",
                &json!({ "type": "content_block_stop", "index": index }),
            );
        }
    }

    /// Sends `message_delta` and `message_stop`.
    fn end(&mut self, out: &mut Vec<u8>) {
        self.close_block(out);
        self.done = true;
        let stop = match self.stop {
            // Anthropic clients run tools on `tool_use`; some providers say `stop` anyway.
            Some(StopReason::EndTurn) | None if !self.tools.is_empty() => StopReason::ToolUse,
            Some(s) => s,
            None => StopReason::EndTurn,
        };
        let usage = match &self.usage {
            Some(u) => {
                let w = WireUsage::of(u);
                json!({
                    "input_tokens": w.input,
                    "output_tokens": w.output,
                    "cache_read_input_tokens": w.cache_read,
                    "cache_creation_input_tokens": w.cache_creation,
                })
            }
            None => json!({ "output_tokens": 0 }),
        };
        frame(
            out,
            "message_delta",
            &json!({
                "type": "message_delta",
                "delta": { "stop_reason": stop_reason_name(stop), "stop_sequence": null },
                "usage": usage,
            }),
        );
        frame(out, "message_stop", &json!({ "type": "message_stop" }));
    }
}

/// Appends one named SSE event.
fn frame(out: &mut Vec<u8>, event: &str, data: &Value) {
    out.extend_from_slice(b"event: ");
    out.extend_from_slice(event.as_bytes());
    out.extend_from_slice(b"\ndata: ");
    // Serialising a `Value` into a Vec cannot fail (no I/O error, string keys only).
    let _ = serde_json::to_writer(&mut *out, data);
    out.extend_from_slice(b"\n\n");
}

/// Appends a `content_block_delta` event without building a `Value` (the hot path).
fn delta(out: &mut Vec<u8>, index: usize, kind: &str, field: &str, text: &str) {
    out.extend_from_slice(
        b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":",
    );
    // Writing into a Vec cannot fail.
    let _ = write!(out, "{index},\"delta\":{{\"type\":\"{kind}\",\"{field}\":");
    let _ = serde_json::to_writer(&mut *out, text);
    out.extend_from_slice(b"}}\n\n");
}
