//! The mock's own `multipart/form-data` parser (bounded: parts, header size), used to check
//! uploads the way OpenAI's API does: the boundary from the content type, every part a
//! `form-data` disposition with a name, the closing delimiter present.

use bytes::Bytes;

/// Most parts accepted.
const MAX_PARTS: usize = 128;
/// Longest header block of one part.
const MAX_HEAD: usize = 16 << 10;

/// One part.
#[derive(Debug, Clone)]
pub(crate) struct FormPart {
    pub name: String,
    pub filename: Option<String>,
    pub data: Bytes,
}

/// A parsed form.
#[derive(Debug, Clone, Default)]
pub(crate) struct Form {
    pub parts: Vec<FormPart>,
}

impl Form {
    pub fn part(&self, name: &str) -> Option<&FormPart> {
        self.parts.iter().find(|p| p.name == name)
    }

    /// A text field.
    pub fn text(&self, name: &str) -> Option<&str> {
        std::str::from_utf8(&self.part(name)?.data).ok()
    }
}

/// The boundary of a multipart/form-data content type.
pub(crate) fn boundary_of(content_type: &str) -> Option<String> {
    let (essence, params) = content_type.split_once(';')?;
    if !essence.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params.split(';').find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| v.trim().trim_matches('"').to_owned())
            .filter(|b| !b.is_empty() && b.len() <= 70)
    })
}

fn position(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from > hay.len() || needle.is_empty() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// A quoted or plain parameter of a disposition header.
fn param(disposition: &str, key: &str) -> Option<String> {
    for piece in disposition.split(';').skip(1) {
        let (k, v) = piece.split_once('=')?;
        if k.trim().eq_ignore_ascii_case(key) {
            return Some(v.trim().trim_matches('"').to_owned());
        }
    }
    None
}

/// Parses `body` delimited by `boundary`.
pub(crate) fn parse(body: &Bytes, boundary: &str) -> Result<Form, String> {
    let open = format!("--{boundary}");
    let delim = format!("\r\n--{boundary}");
    let mut at = if body.starts_with(open.as_bytes()) {
        open.len()
    } else {
        position(body, delim.as_bytes(), 0).ok_or("no opening boundary")? + delim.len()
    };
    let mut form = Form::default();
    loop {
        if body.get(at..at + 2) == Some(b"--") {
            return Ok(form);
        }
        if body.get(at..at + 2) != Some(b"\r\n") {
            return Err("malformed boundary line".into());
        }
        let head_start = at + 2;
        let head_end =
            position(body, b"\r\n\r\n", head_start).ok_or("unterminated part headers")?;
        if head_end - head_start > MAX_HEAD {
            return Err("part headers too long".into());
        }
        let head =
            std::str::from_utf8(&body[head_start..head_end]).map_err(|_| "headers not UTF-8")?;
        let mut disposition = None;
        for line in head.split("\r\n") {
            if let Some((k, v)) = line.split_once(':')
                && k.trim().eq_ignore_ascii_case("content-disposition")
            {
                disposition = Some(v.trim().to_owned());
            }
        }
        let disposition = disposition.ok_or("a part without Content-Disposition")?;
        if !disposition.to_ascii_lowercase().starts_with("form-data") {
            return Err("a part that is not form-data".into());
        }
        let name = param(&disposition, "name").ok_or("a part without a name")?;
        let data_start = head_end + 4;
        let data_end =
            position(body, delim.as_bytes(), data_start).ok_or("missing closing boundary")?;
        if form.parts.len() == MAX_PARTS {
            return Err("too many parts".into());
        }
        form.parts.push(FormPart {
            name,
            filename: param(&disposition, "filename"),
            data: body.slice(data_start..data_end),
        });
        at = data_end + delim.len();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parses_fields_and_files() {
        let body = Bytes::from_static(
            b"--zz\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--zz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\nRIFF\r\n..\r\n--zz--\r\n",
        );
        let f = parse(&body, "zz").unwrap();
        assert_eq!(f.text("model"), Some("whisper-1"));
        let file = f.part("file").unwrap();
        assert_eq!(&file.data[..], b"RIFF\r\n..");
        assert_eq!(file.filename.as_deref(), Some("a.wav"));
        assert_eq!(
            boundary_of("multipart/form-data; boundary=\"zz\"").as_deref(),
            Some("zz")
        );
        assert!(boundary_of("application/json").is_none());
        assert!(
            parse(
                &Bytes::from_static(b"--zz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx"),
                "zz"
            )
            .is_err()
        );
    }
}
