//! Gemini `parts` ↔ IR parts, shared by requests and answers of both sides.
//!
//! Thought signatures: a `thought: true` part keeps its `thoughtSignature` on its
//! [`Part::Thinking`]; a signature on any other part (Gemini puts them on the first
//! `functionCall` of a turn or on a text part) becomes an empty `Thinking { text: "",
//! signature }` just before that part, and encoding puts such a signature back on the part
//! that follows it, so a Gemini → IR → Gemini round trip keeps every signature in place.
//! Requests to Gemini also move the signature of thinking text to the part after it (see
//! [`EncodeMode::signature_to_next_part`]) unless that part has its own.

use serde_json::Value;

use super::fields::{self, get, invalid};
use crate::ParseError;
use crate::ir::{ImageSource, Part};

/// The signature Google documents for replayed function calls whose real signature is lost
/// (Gemini 3 refuses a model turn whose first `functionCall` carries none).
pub(super) const SKIP_SIGNATURE: &str = "skip_thought_signature_validator";

/// Decodes parts, giving function calls without an `id` one (`{prefix}{n}`, `n` counting the
/// calls seen) and pairing each `functionResponse` with its call: by `id` when given, else
/// the oldest unanswered call of the same name.
#[derive(Debug)]
pub(super) struct PartDecoder {
    prefix: String,
    /// Ids synthesised so far.
    calls: usize,
    /// Whether a function call was decoded.
    saw_calls: bool,
    /// Calls not answered yet: (name, id).
    open: Vec<(String, String)>,
}

impl PartDecoder {
    pub(super) fn new(prefix: String) -> Self {
        PartDecoder {
            prefix,
            calls: 0,
            saw_calls: false,
            open: Vec::new(),
        }
    }

    /// Whether a function call was decoded.
    pub(super) fn saw_calls(&self) -> bool {
        self.saw_calls
    }

    fn next_id(&mut self) -> String {
        let id = format!("{}{}", self.prefix, self.calls);
        self.calls += 1;
        id
    }

    /// Appends the IR parts of Gemini part `p` (`at` names it in errors). Parts without an
    /// IR equivalent (`executableCode`, `codeExecutionResult`, bare `videoMetadata`) are
    /// skipped.
    pub(super) fn decode(
        &mut self,
        p: &Value,
        at: &str,
        out: &mut Vec<Part>,
    ) -> Result<(), ParseError> {
        if !p.is_object() {
            return Err(invalid(at, "an object"));
        }
        let signature = fields::string(p, "thoughtSignature", "thought_signature")?;
        let thought = fields::flag(p, "thought", "thought")?;
        if let Some(text) = get(p, "text", "text") {
            let text = text
                .as_str()
                .ok_or_else(|| invalid(&format!("{at}.text"), "a string"))?;
            if thought {
                out.push(Part::Thinking {
                    text: text.to_owned(),
                    signature: signature.map(str::to_owned),
                });
                return Ok(());
            }
            push_signature(signature, out);
            if !text.is_empty() {
                out.push(Part::Text(text.to_owned()));
            }
            return Ok(());
        }
        push_signature(signature, out);
        if let Some(d) = get(p, "inlineData", "inline_data") {
            out.push(Part::Image(inline_image(d, &format!("{at}.inlineData"))?));
        } else if let Some(f) = get(p, "fileData", "file_data") {
            let uri = fields::string(f, "fileUri", "file_uri")?
                .ok_or_else(|| invalid(&format!("{at}.fileData.fileUri"), "a string"))?;
            out.push(Part::Image(ImageSource::Url(uri.to_owned())));
        } else if let Some(c) = get(p, "functionCall", "function_call") {
            let at = format!("{at}.functionCall");
            let name = fields::string(c, "name", "name")?
                .ok_or_else(|| invalid(&format!("{at}.name"), "a string"))?;
            let arguments = match get(c, "args", "args") {
                None => "{}".to_owned(),
                Some(a @ Value::Object(_)) => a.to_string(),
                Some(_) => return Err(invalid(&format!("{at}.args"), "an object")),
            };
            let id = match fields::string(c, "id", "id")? {
                Some(id) if !id.is_empty() => id.to_owned(),
                _ => self.next_id(),
            };
            self.saw_calls = true;
            self.open.push((name.to_owned(), id.clone()));
            out.push(Part::ToolCall {
                id,
                name: name.to_owned(),
                arguments,
            });
        } else if let Some(r) = get(p, "functionResponse", "function_response") {
            out.push(self.function_response(r, &format!("{at}.functionResponse"))?);
        }
        Ok(())
    }

    fn function_response(&mut self, r: &Value, at: &str) -> Result<Part, ParseError> {
        let name = fields::string(r, "name", "name")?
            .ok_or_else(|| invalid(&format!("{at}.name"), "a string"))?;
        let given = fields::string(r, "id", "id")?.filter(|id| !id.is_empty());
        let slot = match given {
            Some(id) => self.open.iter().position(|(_, open)| open == id),
            None => self.open.iter().position(|(n, _)| n == name),
        };
        let matched = slot.map(|i| self.open.remove(i).1);
        let call_id = match (given, matched) {
            (Some(id), _) => id.to_owned(),
            (None, Some(id)) => id,
            (None, None) => self.next_id(),
        };
        let (mut content, is_error) = match get(r, "response", "response") {
            Some(v) => response_content(v),
            None => (Vec::new(), false),
        };
        for (i, p) in fields::array(r, "parts", "parts")?.iter().enumerate() {
            if let Some(d) = get(p, "inlineData", "inline_data") {
                content.push(Part::Image(inline_image(d, &format!("{at}.parts[{i}]"))?));
            }
        }
        Ok(Part::ToolResult {
            call_id,
            name: Some(name.to_owned()),
            content,
            is_error,
        })
    }
}

fn push_signature(signature: Option<&str>, out: &mut Vec<Part>) {
    if let Some(s) = signature {
        out.push(Part::Thinking {
            text: String::new(),
            signature: Some(s.to_owned()),
        });
    }
}

fn inline_image(d: &Value, at: &str) -> Result<ImageSource, ParseError> {
    let media_type = fields::string(d, "mimeType", "mime_type")?
        .ok_or_else(|| invalid(&format!("{at}.mimeType"), "a string"))?;
    let data = fields::string(d, "data", "data")?
        .ok_or_else(|| invalid(&format!("{at}.data"), "a string"))?;
    Ok(ImageSource::Base64 {
        media_type: media_type.to_owned(),
        data: standard_base64(data),
    })
}

/// Gemini accepts URL-safe base64, with or without padding (Google's SDKs send it so);
/// the other providers need the standard alphabet, padded.
pub(crate) fn standard_base64(data: &str) -> String {
    let mut out: String = data
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    while !out.len().is_multiple_of(4) {
        out.push('=');
    }
    out
}

/// A `functionResponse.response` as tool-result content: a lone `content`, `output` or
/// `result` string is unwrapped, a lone `error` marks the result as an error, anything else
/// is kept as its JSON text.
fn response_content(v: &Value) -> (Vec<Part>, bool) {
    if let Some(obj) = v.as_object()
        && obj.len() == 1
        && let Some((key, inner)) = obj.iter().next()
    {
        let text = match inner {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        match key.as_str() {
            "error" => return (vec![Part::Text(text)], true),
            "content" | "output" | "result" if inner.is_string() => {
                return (vec![Part::Text(text)], false);
            }
            _ => {}
        }
    }
    (vec![Part::Text(v.to_string())], false)
}

#[cfg(test)]
mod base64_tests {
    use super::standard_base64;

    #[test]
    fn url_safe_base64_becomes_standard_and_padded() {
        assert_eq!(standard_base64("iVBO-_w"), "iVBO+/w=");
        assert_eq!(standard_base64("YWJj"), "YWJj");
        assert_eq!(standard_base64("YW\nJjZA"), "YWJjZA==");
    }
}
