//! `multipart/form-data` bodies of the audio and image uploads: parsed in place (each part is
//! a range of the client's buffer, nothing copied), and rebuilt for the upstream as slices of
//! that same buffer with only the `model` field's value replaced (or a `model` part added).

use std::ops::Range;

use bytes::Bytes;

use adapters::ParseError;

/// Most parts a form may have (OpenAI's forms have a handful).
const MAX_PARTS: usize = 256;
/// Longest header block of one part.
const MAX_PART_HEADERS: usize = 8 << 10;
/// Longest boundary RFC 2046 allows.
const MAX_BOUNDARY: usize = 70;

/// One part of a form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The `name` of its `Content-Disposition`.
    pub name: String,
    /// The `filename`, for a file.
    pub filename: Option<String>,
    pub content_type: Option<String>,
    /// Its content, a range of the body.
    pub data: Range<usize>,
}

/// A parsed form over the client's body.
#[derive(Debug, Clone)]
pub struct Form {
    body: Bytes,
    boundary: String,
    /// Where the first delimiter (`--boundary`) starts (after any preamble).
    first: usize,
    pub parts: Vec<Part>,
}

/// The boundary of a `multipart/form-data` content type; `None` for any other type.
pub fn boundary(content_type: &str) -> Option<String> {
    let mut params = content_type.split(';');
    let essence = params.next()?.trim();
    if !essence.eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params.find_map(|p| {
        let (k, v) = p.split_once('=')?;
        if !k.trim().eq_ignore_ascii_case("boundary") {
            return None;
        }
        let v = v.trim();
        let v = v
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(v);
        (!v.is_empty() && v.len() <= MAX_BOUNDARY).then(|| v.to_owned())
    })
}

fn invalid(why: &str) -> ParseError {
    ParseError::Invalid(format!("invalid multipart body: {why}"))
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    memchr::memmem::find(hay.get(from..)?, needle).map(|p| p + from)
}

/// Parses `body` as a form delimited by `boundary`.
pub fn parse(body: Bytes, boundary: &str) -> Result<Form, ParseError> {
    let dash = format!("--{boundary}");
    let delimiter = format!("\r\n--{boundary}");
    // The first delimiter opens the body or follows a preamble line.
    let first = if body.starts_with(dash.as_bytes()) {
        0
    } else {
        find(&body, delimiter.as_bytes(), 0).ok_or_else(|| invalid("no boundary"))? + 2
    };
    let mut parts = Vec::new();
    let mut at = first + dash.len();
    loop {
        let rest = body.get(at..).ok_or_else(|| invalid("truncated"))?;
        if rest.starts_with(b"--") {
            break;
        }
        // Transport padding after the delimiter, then its CRLF.
        let line_end = find(&body, b"\r\n", at).ok_or_else(|| invalid("truncated"))?;
        if body[at..line_end]
            .iter()
            .any(|b| !matches!(b, b' ' | b'\t'))
        {
            return Err(invalid("junk after a boundary"));
        }
        let head_start = line_end + 2;
        let head_end = find(&body, b"\r\n\r\n", head_start)
            .filter(|e| e - head_start <= MAX_PART_HEADERS)
            .ok_or_else(|| invalid("part headers too long or unterminated"))?;
        let head = std::str::from_utf8(&body[head_start..head_end])
            .map_err(|_| invalid("part headers are not UTF-8"))?;
        let data_start = head_end + 4;
        let data_end = find(&body, delimiter.as_bytes(), data_start)
            .ok_or_else(|| invalid("unterminated part"))?;
        if parts.len() == MAX_PARTS {
            return Err(invalid("too many parts"));
        }
        parts.push(part(head, data_start..data_end)?);
        at = data_end + delimiter.len();
    }
    Ok(Form {
        body,
        boundary: boundary.to_owned(),
        first,
        parts,
    })
}

/// A part from its header block.
fn part(head: &str, data: Range<usize>) -> Result<Part, ParseError> {
    let mut name = None;
    let mut filename = None;
    let mut content_type = None;
    for line in head.split("\r\n") {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if key.eq_ignore_ascii_case("content-disposition") {
            let mut params = split_params(value);
            if !params
                .first()
                .is_some_and(|(k, _)| k.eq_ignore_ascii_case("form-data"))
            {
                return Err(invalid("a part is not form-data"));
            }
            for (k, v) in params.drain(1..) {
                if k.eq_ignore_ascii_case("name") {
                    name = Some(v);
                } else if k.eq_ignore_ascii_case("filename") {
                    filename = Some(v);
                }
            }
        } else if key.eq_ignore_ascii_case("content-type") {
            content_type = Some(value.trim().to_owned());
        }
    }
    Ok(Part {
        name: name.ok_or_else(|| invalid("a part has no name"))?,
        filename,
        content_type,
        data,
    })
}

/// `form-data; name="a"; filename="b;c.wav"` as (key, value) pairs, quotes removed
/// (`\"` and `\\` unescaped); the first pair is the disposition type with an empty value.
fn split_params(value: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = value.chars().peekable();
    loop {
        let mut key = String::new();
        while let Some(c) = chars.peek().copied() {
            if c == ';' || c == '=' {
                break;
            }
            key.push(c);
            chars.next();
        }
        let mut val = String::new();
        if chars.peek() == Some(&'=') {
            chars.next();
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            if chars.peek() == Some(&'"') {
                chars.next();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                val.push(n);
                            }
                        }
                        c => val.push(c),
                    }
                }
                // Anything up to the next `;` is ignored.
                while chars.peek().is_some_and(|c| *c != ';') {
                    chars.next();
                }
            } else {
                while let Some(c) = chars.peek().copied() {
                    if c == ';' {
                        break;
                    }
                    val.push(c);
                    chars.next();
                }
                val = val.trim().to_owned();
            }
        }
        let key = key.trim().to_owned();
        if !key.is_empty() {
            out.push((key, val));
        }
        if chars.next().is_none() {
            return out;
        }
    }
}

impl Form {
    /// The first part named `name`.
    pub fn part(&self, name: &str) -> Option<&Part> {
        self.parts.iter().find(|p| p.name == name)
    }

    /// The content of a part (a slice of the body, not a copy).
    pub fn data(&self, part: &Part) -> Bytes {
        self.body.slice(part.data.clone())
    }

    /// A text field's value (`None` when absent or not UTF-8).
    pub fn text(&self, name: &str) -> Option<&str> {
        let p = self.part(name)?;
        std::str::from_utf8(self.body.get(p.data.clone())?).ok()
    }

    /// The body for the upstream: the client's bytes with the value of the first `model`
    /// part replaced by `model`, or a `model` part added in front; slices of the client's
    /// buffer around the new value, never a copy of the files.
    pub fn with_model(&self, model: &str) -> Result<Vec<Bytes>, ParseError> {
        if model.contains(['\r', '\n']) {
            return Err(invalid("a model name with a line break"));
        }
        let new = Bytes::copy_from_slice(model.as_bytes());
        Ok(match self.part("model") {
            Some(p) => vec![
                self.body.slice(..p.data.start),
                new,
                self.body.slice(p.data.end..),
            ],
            None => vec![
                Bytes::from(format!(
                    "--{}\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n",
                    self.boundary
                )),
                new,
                Bytes::from_static(b"\r\n"),
                self.body.slice(self.first..),
            ],
        })
    }

    /// The upstream's content type (the client's boundary is kept).
    pub fn content_type(&self) -> String {
        format!("multipart/form-data; boundary={}", self.boundary)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn form(parts: &[(&str, Option<&str>, &[u8])], boundary: &str) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, file, data) in parts {
            out.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
            match file {
                Some(f) => out.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: audio/wav\r\n\r\n").as_bytes(),
                ),
                None => out.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
                ),
            }
            out.extend_from_slice(data);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        out
    }

    fn joined(chunks: &[Bytes]) -> Vec<u8> {
        chunks.iter().flat_map(|c| c.iter().copied()).collect()
    }

    #[test]
    fn boundaries_come_from_the_content_type() {
        assert_eq!(
            boundary("multipart/form-data; boundary=abc").as_deref(),
            Some("abc")
        );
        assert_eq!(
            boundary("Multipart/Form-Data;charset=x; BOUNDARY=\"a b\"").as_deref(),
            Some("a b")
        );
        assert_eq!(boundary("application/json"), None);
        assert_eq!(boundary("multipart/form-data"), None);
        assert_eq!(boundary("multipart/mixed; boundary=x"), None);
    }

    #[test]
    fn parts_are_ranges_and_the_model_is_replaced_in_place() {
        let audio: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let raw = form(
            &[
                ("model", None, b"whisper-1"),
                ("file", Some("a;b \\\"x\\\".wav"), &audio),
                ("response_format", None, b"json"),
            ],
            "XyZ",
        );
        let body = Bytes::from(raw.clone());
        let f = parse(body.clone(), "XyZ").unwrap();
        assert_eq!(f.parts.len(), 3);
        assert_eq!(f.text("model"), Some("whisper-1"));
        assert_eq!(f.text("response_format"), Some("json"));
        let file = f.part("file").unwrap();
        assert_eq!(file.filename.as_deref(), Some("a;b \"x\".wav"));
        assert_eq!(file.content_type.as_deref(), Some("audio/wav"));
        assert_eq!(&f.data(file)[..], &audio[..]);
        // Not a copy: the part shares the client's buffer.
        assert_eq!(f.data(file).as_ptr(), body[file.data.clone()].as_ptr());
        let out = f.with_model("whisper-large").unwrap();
        assert_eq!(out.len(), 3);
        assert_eq!(
            out[2].as_ptr(),
            body[f.part("model").unwrap().data.end..].as_ptr()
        );
        let again = parse(Bytes::from(joined(&out)), "XyZ").unwrap();
        assert_eq!(again.text("model"), Some("whisper-large"));
        assert_eq!(&again.data(again.part("file").unwrap())[..], &audio[..]);
    }

    #[test]
    fn a_missing_model_part_is_added_in_front() {
        let raw = form(&[("file", Some("a.mp3"), b"ID3....")], "b1");
        let preamble = [b"ignored preamble\r\n".to_vec(), raw].concat();
        let f = parse(Bytes::from(preamble), "b1").unwrap();
        assert_eq!(f.text("model"), None);
        let out = joined(&f.with_model("whisper-1").unwrap());
        let again = parse(Bytes::from(out), "b1").unwrap();
        assert_eq!(again.parts[0].name, "model");
        assert_eq!(again.text("model"), Some("whisper-1"));
        assert_eq!(&again.data(again.part("file").unwrap())[..], b"ID3....");
        assert!(f.with_model("a\r\nb").is_err());
    }

    #[test]
    fn broken_forms_are_refused() {
        let good = form(&[("model", None, b"m")], "q");
        for bad in [
            b"no boundary at all".to_vec(),
            good[..good.len() - 12].to_vec(),
            b"--q\r\nContent-Disposition: form-data\r\n\r\nx\r\n--q--".to_vec(),
            b"--q\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nx\r\n--q--".to_vec(),
            b"--q\r\nContent-Disposition: form-data; name=\"a\"\r\nx".to_vec(),
            format!("--q\r\n{}\r\n\r\nx\r\n--q--", "X: y\r\n".repeat(2000)).into_bytes(),
        ] {
            assert!(
                parse(Bytes::from(bad.clone()), "q").is_err(),
                "{:?}",
                String::from_utf8_lossy(&bad)
            );
        }
        let many = form(&vec![("a", None, &b"1"[..]); MAX_PARTS + 1], "q");
        assert!(parse(Bytes::from(many), "q").is_err());
    }
}
