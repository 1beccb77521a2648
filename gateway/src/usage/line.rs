//! A usage record's JSON line, written by hand: byte for byte what `serde_json` writes for
//! [`UsageRecord`] (the spool reads lines back with serde), without the serializer's work per
//! field. Keys are written as ready-made text, and strings are escaped eight bytes at a time.
//! The pieces (strings, integers, floats) serve the record's `other` object too.

use super::UsageRecord;

/// Appends `r` as one compact JSON object (no newline).
pub fn write(r: &UsageRecord, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"request_id\":");
    string(&r.request_id, out);
    out.extend_from_slice(b",\"created_at\":");
    integer(r.created_at, out);
    out.extend_from_slice(b",\"type\":");
    integer(r.kind, out);
    out.extend_from_slice(b",\"user_id\":");
    integer(r.user_id, out);
    out.extend_from_slice(b",\"username\":");
    string(&r.username, out);
    out.extend_from_slice(b",\"token_id\":");
    integer(r.token_id, out);
    out.extend_from_slice(b",\"token_name\":");
    string(&r.token_name, out);
    out.extend_from_slice(b",\"group\":");
    string(&r.group, out);
    out.extend_from_slice(b",\"model_name\":");
    string(&r.model_name, out);
    out.extend_from_slice(b",\"channel\":");
    integer(r.channel, out);
    out.extend_from_slice(b",\"channel_name\":");
    string(&r.channel_name, out);
    out.extend_from_slice(b",\"use_time\":");
    integer(r.use_time, out);
    out.extend_from_slice(if r.is_stream {
        b",\"is_stream\":true"
    } else {
        b",\"is_stream\":false"
    });
    out.extend_from_slice(b",\"prompt_tokens\":");
    integer(r.prompt_tokens, out);
    out.extend_from_slice(b",\"completion_tokens\":");
    integer(r.completion_tokens, out);
    out.extend_from_slice(b",\"quota\":");
    integer(r.quota, out);
    out.extend_from_slice(b",\"content\":");
    string(&r.content, out);
    out.extend_from_slice(b",\"status\":");
    integer(r.status, out);
    out.extend_from_slice(b",\"other\":");
    string(&r.other, out);
    out.extend_from_slice(b",\"ip\":");
    string(&r.ip, out);
    // Rare, and nested: serde writes them as it would inside the whole record.
    if !r.channel_failures.is_empty() {
        out.extend_from_slice(b",\"channel_failures\":");
        nested(&r.channel_failures, out);
    }
    if let Some(task) = &r.task {
        out.extend_from_slice(b",\"task\":");
        nested(task, out);
    }
    out.push(b'}');
}

/// An integer as `serde_json` writes it.
pub(crate) fn integer(n: impl itoa::Integer, out: &mut Vec<u8>) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// A float as `serde_json` writes it (`null` when not finite).
pub(crate) fn float(v: f64, out: &mut Vec<u8>) {
    use serde_json::ser::Formatter;
    if !v.is_finite() {
        out.extend_from_slice(b"null");
    } else if serde_json::ser::CompactFormatter.write_f64(out, v).is_err() {
        // Writing into a Vec cannot fail; keep the text valid JSON should it ever.
        out.extend_from_slice(b"null");
    }
}

fn nested(value: &impl serde::Serialize, out: &mut Vec<u8>) {
    // Plain structs of strings and numbers always serialise; `null` keeps the line readable
    // should that ever change.
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.extend_from_slice(b"null");
    }
}

/// A JSON string, escaped as `serde_json` escapes (see [`adapters::json_out::string`]).
pub(crate) fn string(s: &str, out: &mut Vec<u8>) {
    adapters::json_out::string(s, out);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::usage::{ChannelFailure, TaskReport};

    fn same_as_serde(r: &UsageRecord) {
        let mut ours = Vec::new();
        write(r, &mut ours);
        let theirs = serde_json::to_vec(r).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs)
        );
        let back: UsageRecord = serde_json::from_slice(&ours).unwrap();
        assert_eq!(&back, r);
    }

    /// Strings with every kind of byte in every position of the eight-byte words.
    fn samples() -> Vec<String> {
        let mut out = vec![
            String::new(),
            "plain ascii text that is longer than eight bytes".to_owned(),
            "日本語のテキスト ünïcödé 😀 Ωμέγα".to_owned(),
            r#"{"admin_info":{"use_channel":[1,2]},"model_ratio":0.075,"request_path":"chat"}"#
                .to_owned(),
            "\u{7f}\u{80}\u{2028}\u{2029}".to_owned(),
        ];
        for c in (0u8..0x20).chain([b'"', b'\\', b'/', b' ', b'~']) {
            for at in 0..17 {
                let mut s = "abcdefghijklmnopq".to_owned();
                s.insert(at, char::from(c));
                out.push(s);
            }
        }
        let all: String = (0u8..0x80).map(char::from).collect();
        out.push(all.repeat(3));
        out
    }

    #[test]
    fn lines_are_what_serde_writes() {
        for (i, s) in samples().into_iter().enumerate() {
            let n = i as i64;
            same_as_serde(&UsageRecord {
                request_id: s.clone(),
                created_at: 1_700_000_000 + n,
                kind: if i % 2 == 0 { 2 } else { 6 },
                user_id: n,
                username: s.clone(),
                token_id: -n,
                token_name: s.clone(),
                group: s.clone(),
                model_name: s.clone(),
                channel: i64::MAX - n,
                channel_name: s.clone(),
                use_time: i64::MIN + n,
                is_stream: i % 3 == 0,
                prompt_tokens: n * 7,
                completion_tokens: n * 11,
                quota: n * 1_000_003,
                content: s.clone(),
                status: u16::try_from(i).unwrap_or(u16::MAX),
                other: s.clone(),
                ip: s.clone(),
                channel_failures: if i % 4 == 0 {
                    vec![ChannelFailure {
                        channel_id: n,
                        key_index: 3,
                        status: 502,
                        message: s.clone(),
                    }]
                } else {
                    Vec::new()
                },
                task: (i % 5 == 0).then(|| TaskReport {
                    platform: "mj".to_owned(),
                    task_id: s.clone(),
                    action: "IMAGINE".to_owned(),
                    prompt: s.clone(),
                    code: 1,
                    description: s.clone(),
                    properties: "{}".to_owned(),
                }),
            });
        }
        same_as_serde(&UsageRecord::default());
    }
}
