//! IR parts → Gemini `parts` for requests to Google and answers to Gemini clients, as
//! borrowed serialisable structs (no `serde_json::Value` on this hot path). Where thought
//! signatures go is explained in [`super::parts`].

use std::collections::HashMap;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use super::parts::SKIP_SIGNATURE;
use crate::ir::{ImageSource, Part};
use crate::json_out::{ObjectText, owned_object};

/// How IR parts are encoded.
#[derive(Debug, Clone, Copy)]
pub(super) struct EncodeMode {
    /// Answers to clients carry `functionCall.id`; requests to Google must not (its parser
    /// refuses the field).
    pub(super) call_ids: bool,
    /// Put [`SKIP_SIGNATURE`] on the first function call of the turn when it has no
    /// signature (Gemini 3 upstreams).
    pub(super) placeholder_signature: bool,
    /// Move the signature of thinking text to the part after it (the last part when none
    /// follows). Gemini signs the part after its thoughts (the first `functionCall`, or
    /// text), while other dialects keep that signature on the thinking block before it:
    /// moving it lets a Claude client's replayed Gemini 3 tool calls validate.
    pub(super) signature_to_next_part: bool,
}

/// One Gemini part: exactly one of its data fields is set, plus `thought` and
/// `thoughtSignature` where they apply.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PartOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    thought: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    inline_data: Option<Blob<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_data: Option<FileRef<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function_call: Option<Call<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function_response: Option<CallResult<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thought_signature: Option<&'a str>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Blob<'a> {
    mime_type: &'a str,
    data: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FileRef<'a> {
    mime_type: &'a str,
    file_uri: &'a str,
}

#[derive(Debug, Serialize)]
struct Call<'a> {
    name: &'a str,
    args: ObjectText<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct CallResult<'a> {
    name: &'a str,
    response: ResultPayload,
}

/// `functionResponse.response` of a tool result: its text when that is a JSON object, else
/// `{"content": text}` (`{"error": text}` for an error, the key Google documents).
#[derive(Debug)]
enum ResultPayload {
    Object(Box<RawValue>),
    Wrapped { key: &'static str, text: String },
}

impl Serialize for ResultPayload {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ResultPayload::Object(raw) => raw.serialize(s),
            ResultPayload::Wrapped { key, text } => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry(key, text)?;
                map.end()
            }
        }
    }
}

impl<'a> PartOut<'a> {
    fn text(text: &'a str) -> Self {
        PartOut {
            text: Some(text),
            ..Default::default()
        }
    }

    fn thought(text: &'a str, signature: Option<&'a str>) -> Self {
        PartOut {
            text: Some(text),
            thought: true,
            thought_signature: signature,
            ..Default::default()
        }
    }

    fn signed(mut self, signature: Option<&'a str>) -> Self {
        if signature.is_some() {
            self.thought_signature = signature;
        }
        self
    }
}

/// Encodes one turn's IR parts as Gemini parts. `names` maps call ids to function names for
/// tool results without a name (unknown ids fall back to the id itself). Empty text and
/// redacted thinking are left out; a signature with no part after it goes on the last part
/// (or, in answers, an empty text part).
pub(super) fn encode_parts<'a>(
    parts: &'a [Part],
    mode: EncodeMode,
    names: &HashMap<&'a str, &'a str>,
) -> Vec<PartOut<'a>> {
    let mut out: Vec<PartOut<'a>> = Vec::with_capacity(parts.len());
    let mut signature: Option<&'a str> = None;
    let mut first_call = true;
    for (i, p) in parts.iter().enumerate() {
        match p {
            Part::Text(t) if !t.is_empty() => {
                out.push(PartOut::text(t).signed(signature.take()));
            }
            Part::Text(_) | Part::RedactedThinking(_) => {}
            Part::Thinking { text, signature: s } if text.is_empty() => {
                if let Some(s) = s {
                    signature = Some(s);
                }
            }
            Part::Thinking { text, signature: s }
                if mode.signature_to_next_part && !next_is_signature(parts.get(i + 1)) =>
            {
                out.push(PartOut::thought(text, None));
                if let Some(s) = s {
                    signature = Some(s);
                }
            }
            Part::Thinking { text, signature: s } => {
                let s = s.as_deref().or(signature.take());
                out.push(PartOut::thought(text, s));
            }
            Part::Image(src) => out.push(image_part(src).signed(signature.take())),
            Part::ToolCall {
                id,
                name,
                arguments,
            } => {
                let mut s = signature.take();
                if s.is_none() && first_call && mode.placeholder_signature {
                    s = Some(SKIP_SIGNATURE);
                }
                first_call = false;
                out.push(PartOut {
                    function_call: Some(Call {
                        name,
                        args: ObjectText::of(arguments),
                        id: mode.call_ids.then_some(id.as_str()),
                    }),
                    thought_signature: s,
                    ..Default::default()
                });
            }
            Part::ToolResult {
                call_id,
                name,
                content,
                is_error,
            } => {
                let name = match name {
                    Some(n) => n.as_str(),
                    None => names.get(call_id.as_str()).copied().unwrap_or(call_id),
                };
                out.push(PartOut {
                    function_response: Some(CallResult {
                        name,
                        response: tool_response(content, *is_error),
                    }),
                    ..Default::default()
                });
                for c in content {
                    if let Part::Image(src) = c {
                        out.push(image_part(src));
                    }
                }
            }
        }
    }
    if let Some(s) = signature {
        match out.last_mut() {
            Some(last) if last.thought_signature.is_none() => last.thought_signature = Some(s),
            Some(_) => {}
            None if mode.call_ids => out.push(PartOut::text("").signed(Some(s))),
            None => {}
        }
    }
    out
}

/// Whether `p` is a bare signature (which then signs the part after it, so a thinking
/// signature before it stays where it is).
fn next_is_signature(p: Option<&Part>) -> bool {
    matches!(p, Some(Part::Thinking { text, signature: Some(_) }) if text.is_empty())
}

/// The payload of a tool result (see [`ResultPayload`]); text parts joined by `\n`.
fn tool_response(content: &[Part], is_error: bool) -> ResultPayload {
    let mut text = String::new();
    for c in content {
        if let Part::Text(t) = c {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(t);
        }
    }
    if text.trim_start().starts_with('{')
        && let Some(raw) = owned_object(text.clone())
    {
        return ResultPayload::Object(raw);
    }
    let key = if is_error { "error" } else { "content" };
    ResultPayload::Wrapped { key, text }
}

/// An image as a Gemini part: base64 and `data:` URLs inline, other URLs as `fileData`.
pub(super) fn image_part(src: &ImageSource) -> PartOut<'_> {
    let (inline_data, file_data) = match src {
        ImageSource::Base64 { media_type, data } => (
            Some(Blob {
                mime_type: media_type,
                data,
            }),
            None,
        ),
        ImageSource::Url(url) => match parse_data_url(url) {
            Some((mime_type, data)) => (Some(Blob { mime_type, data }), None),
            None => (
                None,
                Some(FileRef {
                    mime_type: guess_mime(url),
                    file_uri: url,
                }),
            ),
        },
    };
    PartOut {
        inline_data,
        file_data,
        ..Default::default()
    }
}

/// (media type, base64 data) of a `data:<type>[;…];base64,<data>` URL.
fn parse_data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (header, data) = rest.split_once(',')?;
    let header = header.strip_suffix(";base64")?;
    let mime = header.split(';').next().unwrap_or_default();
    let mime = if mime.is_empty() {
        "application/octet-stream"
    } else {
        mime
    };
    Some((mime, data))
}

/// The media type of a URL by its extension (`fileData` needs one); `image/jpeg` when the
/// extension says nothing, since IR images are images.
fn guess_mime(url: &str) -> &'static str {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    match ext.to_ascii_lowercase().as_str() {
        "png" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "heic" => "image/heic",
        "heif" => "image/heif",
        "pdf" => "application/pdf",
        _ => "image/jpeg",
    }
}

/// Function-call arguments as the object Gemini wants, as a value (for the stream encoder,
/// which builds its chunks as values): the IR's JSON text parsed, `{}` when it is empty,
/// unparsable or not an object.
pub(super) fn call_args(arguments: &str) -> serde_json::Value {
    match serde_json::from_str::<serde_json::Value>(arguments) {
        Ok(v @ serde_json::Value::Object(_)) => v,
        _ => serde_json::Value::Object(serde_json::Map::new()),
    }
}
