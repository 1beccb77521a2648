//! OpenAI Responses stream: the real event sequence (`response.created`,
//! `response.in_progress`, `response.output_item.added`, `response.content_part.added`,
//! `response.output_text.delta`…, `…done` events, `response.completed` with usage), each
//! with an `event:` line and a `sequence_number`; mid-stream cut and malformed events.

use bytes::Bytes;
use hyper::Response;
use serde_json::{Value, json};

use crate::responses::{self, Item};
use crate::scenario::{THOUGHT_PIECES, TOOL_INPUT_PIECES};
use crate::{MockBody, Scenario, SharedStats, sse};

/// Frames in order, numbered as they are pushed; remembers where the deltas are.
#[derive(Default)]
struct Frames {
    out: Vec<Bytes>,
    deltas: Vec<usize>,
}

impl Frames {
    fn push(&mut self, kind: &str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.out.len());
        if kind.ends_with(".delta") {
            self.deltas.push(self.out.len());
        }
        self.out
            .push(Bytes::from(format!("event: {kind}\ndata: {data}\n\n")));
    }
}

/// The events of one output item at `index`, between its `added` and `done` events.
fn item_events(f: &mut Frames, it: &Item, index: usize) {
    let at = |id: &str| json!({"item_id": id, "output_index": index});
    let with = |mut base: Value, extra: Value| {
        if let (Some(b), Value::Object(e)) = (base.as_object_mut(), extra) {
            b.extend(e);
        }
        base
    };
    match it {
        Item::Reasoning => {
            let base = with(at(responses::REASONING_ID), json!({"summary_index": 0}));
            let part = |text: &str| json!({"type": "summary_text", "text": text});
            let full = THOUGHT_PIECES.concat();
            f.push(
                "response.reasoning_summary_part.added",
                with(base.clone(), json!({"part": part("")})),
            );
            for piece in THOUGHT_PIECES {
                let delta = with(base.clone(), json!({"delta": piece}));
                f.push("response.reasoning_summary_text.delta", delta);
            }
            let done = with(base.clone(), json!({"text": full}));
            f.push("response.reasoning_summary_text.done", done);
            let part_done = with(base, json!({"part": part(&full)}));
            f.push("response.reasoning_summary_part.done", part_done);
        }
        Item::Message(pieces) => {
            let base = with(at(responses::MESSAGE_ID), json!({"content_index": 0}));
            let full = pieces.concat();
            let added = with(base.clone(), json!({"part": responses::output_text("")}));
            f.push("response.content_part.added", added);
            for piece in pieces {
                let delta = with(base.clone(), json!({"delta": piece, "logprobs": []}));
                f.push("response.output_text.delta", delta);
            }
            let done = with(base.clone(), json!({"text": full, "logprobs": []}));
            f.push("response.output_text.done", done);
            let part_done = with(base, json!({"part": responses::output_text(&full)}));
            f.push("response.content_part.done", part_done);
        }
        Item::FunctionCall(name) => {
            let base = at(responses::FUNCTION_CALL_ID);
            for piece in TOOL_INPUT_PIECES {
                let delta = with(base.clone(), json!({"delta": piece}));
                f.push("response.function_call_arguments.delta", delta);
            }
            let done = json!({"name": name, "arguments": TOOL_INPUT_PIECES.concat()});
            f.push("response.function_call_arguments.done", with(base, done));
        }
    }
}

/// The stream's frames and the indexes of its deltas (where `cut_after` counts).
pub(crate) fn frames(s: &Scenario, req: &Value, images: usize) -> (Vec<Bytes>, Vec<usize>) {
    let mut f = Frames::default();
    let plan = responses::plan(s, images);
    let started = responses::object(s, req, "in_progress", Vec::new());
    f.push("response.created", json!({"response": started}));
    f.push("response.in_progress", json!({"response": started}));
    let mut output = Vec::with_capacity(plan.len());
    for (index, it) in plan.iter().enumerate() {
        let added = json!({"output_index": index, "item": responses::item(it, false)});
        f.push("response.output_item.added", added);
        item_events(&mut f, it, index);
        let done = responses::item(it, true);
        output.push(done.clone());
        f.push(
            "response.output_item.done",
            json!({"output_index": index, "item": done}),
        );
    }
    let completed = responses::object(s, req, "completed", output);
    f.push("response.completed", json!({"response": completed}));
    let Frames {
        mut out,
        mut deltas,
    } = f;
    if s.malformed {
        out.insert(
            0,
            Bytes::from_static(b"event: response.created\ndata: {\"type\": broken\n\n"),
        );
        deltas.iter_mut().for_each(|d| *d += 1);
    }
    (out, deltas)
}

/// The streamed answer; `cut_after=n` resets the connection instead of the `n`-th delta.
pub(crate) fn response(
    s: &Scenario,
    req: &Value,
    images: usize,
    stats: SharedStats,
) -> Response<MockBody> {
    let (frames, deltas) = frames(s, req, images);
    let cut = s.cut_after.map(|n| sse::cut_index(&deltas, n));
    sse::response(frames, cut, s, stats, "text/event-stream; charset=utf-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &Scenario) -> Vec<String> {
        frames(s, &json!({"model": "m"}), 0)
            .0
            .iter()
            .map(|f| {
                let text = String::from_utf8_lossy(f);
                let name = text.lines().next().unwrap_or("");
                name.trim_start_matches("event: ").to_owned()
            })
            .collect()
    }

    #[test]
    fn sends_the_real_event_sequence() {
        assert_eq!(
            names(&Scenario::parse("chunks=2")),
            [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.content_part.added",
                "response.output_text.delta",
                "response.output_text.delta",
                "response.output_text.done",
                "response.content_part.done",
                "response.output_item.done",
                "response.completed",
            ]
        );
        let (_, deltas) = frames(&Scenario::parse("thinking=on,tool=w"), &json!({}), 0);
        // Two summary deltas, then three argument fragments.
        assert_eq!(deltas, [4, 5, 10, 11, 12]);
    }
}
