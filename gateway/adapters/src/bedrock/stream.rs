//! Bedrock event streams turned into SSE bytes the existing stream decoders read: Claude's
//! `InvokeModelWithResponseStream` chunks as Anthropic SSE events, and ConverseStream events
//! as `data: {"<eventType>": <payload>}` events for [`super::StreamDecoder`].

use base64::Engine as _;
use bytes::{Bytes, BytesMut};
use serde_json::{Value, json};

use super::eventstream::{Decoder, EventStreamError, Message};

/// Which Bedrock stream is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    /// `InvokeModelWithResponseStream` of a Claude model.
    Invoke,
    /// `ConverseStream`.
    Converse,
}

/// Turns event-stream bytes into SSE bytes, a synchronous state machine fed chunks as they
/// arrive (split anywhere).
///
/// - `Invoke`: each `chunk` event's payload `{"bytes":"<base64>"}` holds one Anthropic
///   stream event; it becomes `event: <type>\ndata: <json>\n\n` for `claude::StreamDecoder`.
/// - `Converse`: each event becomes `data: {"<:event-type>": <payload>}\n\n`.
/// - An exception (`:message-type` `exception`, named by `:exception-type`, payload
///   `{"message":…}`) or error message (`:message-type` `error`, `:error-code`,
///   `:error-message`) becomes, for `Invoke`, Anthropic's
///   `event: error\ndata: {"type":"error","error":{"type","message"}}`, and for `Converse`
///   `data: {"<exceptionType>": {"message":…}}`, which the Converse decoder reports as an
///   error.
///
/// A framing error (CRC, size) is an `Err`; the stream cannot continue after it.
#[derive(Debug)]
pub struct EventStreamToSse {
    kind: StreamKind,
    decoder: Decoder,
}

impl EventStreamToSse {
    pub fn new(kind: StreamKind) -> Self {
        EventStreamToSse {
            kind,
            decoder: Decoder::default(),
        }
    }

    /// Feeds upstream bytes; returns the SSE bytes of the messages they complete.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Bytes, EventStreamError> {
        let mut out = BytesMut::new();
        for m in self.decoder.feed(chunk)? {
            self.message(&m, &mut out);
        }
        Ok(out.freeze())
    }

    /// Whether bytes of an unfinished message are held (a stream that ends now was cut).
    pub fn has_pending(&self) -> bool {
        self.decoder.pending() > 0
    }

    fn message(&self, m: &Message, out: &mut BytesMut) {
        let message_type = m.header_str(":message-type").unwrap_or("event");
        match message_type {
            "exception" => {
                let kind = m.header_str(":exception-type").unwrap_or("exception");
                let message = serde_json::from_slice::<Value>(&m.payload)
                    .ok()
                    .and_then(|v| {
                        v.get("message")
                            .or_else(|| v.get("Message"))
                            .and_then(Value::as_str)
                            .map(str::to_owned)
                    })
                    .unwrap_or_else(|| String::from_utf8_lossy(&m.payload).into_owned());
                self.error(kind, &message, out);
            }
            "error" => {
                let code = m.header_str(":error-code").unwrap_or("error");
                let message = m.header_str(":error-message").unwrap_or("");
                self.error(code, message, out);
            }
            _ => {
                let event_type = m.header_str(":event-type").unwrap_or("");
                match self.kind {
                    StreamKind::Invoke => invoke_event(event_type, &m.payload, out),
                    StreamKind::Converse => converse_event(event_type, &m.payload, out),
                }
            }
        }
    }

    fn error(&self, kind: &str, message: &str, out: &mut BytesMut) {
        match self.kind {
            StreamKind::Invoke => {
                let v = json!({"type": "error", "error": {"type": kind, "message": message}});
                push_event(out, Some("error"), &v.to_string());
            }
            StreamKind::Converse => {
                let mut kind = kind.to_owned();
                if !kind.ends_with("Exception") {
                    kind.push_str("Exception");
                }
                let v = json!({ kind: {"message": message} });
                push_event(out, None, &v.to_string());
            }
        }
    }
}

/// A `chunk` event: its base64 `bytes` decoded (one Anthropic stream event). A chunk that
/// cannot be read becomes an error event; other event types are dropped.
fn invoke_event(event_type: &str, payload: &[u8], out: &mut BytesMut) {
    if event_type != "chunk" {
        return;
    }
    let inner = serde_json::from_slice::<Value>(payload)
        .ok()
        .and_then(|v| v.get("bytes").and_then(Value::as_str).map(str::to_owned))
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
    match inner {
        Some(v) => {
            let name = v
                .get("type")
                .and_then(Value::as_str)
                .filter(|t| t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
                .unwrap_or("message")
                .to_owned();
            push_event(out, Some(&name), &v.to_string());
        }
        None => {
            let v = json!({"type": "error", "error": {"type": "api_error",
                "message": "Bedrock sent a chunk that is not base64 JSON"}});
            push_event(out, Some("error"), &v.to_string());
        }
    }
}

/// A ConverseStream event wrapped in an object named by its type.
fn converse_event(event_type: &str, payload: &[u8], out: &mut BytesMut) {
    if event_type.is_empty() {
        return;
    }
    let payload = serde_json::from_slice::<Value>(payload).unwrap_or(Value::Null);
    let v = json!({ event_type: payload });
    push_event(out, None, &v.to_string());
}

/// Appends one SSE event (`data` is single-line JSON text).
fn push_event(out: &mut BytesMut, name: Option<&str>, data: &str) {
    if let Some(n) = name {
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(n.as_bytes());
        out.extend_from_slice(b"\n");
    }
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(data.as_bytes());
    out.extend_from_slice(b"\n\n");
}

#[cfg(test)]
mod tests;
