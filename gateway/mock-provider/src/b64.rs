//! Base64 checks for inline images: the mock validates the data, it never decodes it.

/// Whether `s` is standard base64 with padding (Anthropic's `source.data`).
pub(crate) fn strict(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return false;
    }
    let pad = b.iter().rev().take_while(|&&c| c == b'=').count();
    pad <= 2
        && b[..b.len() - pad]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/')
}

/// Whether `s` is base64 as protobuf JSON reads `bytes`: standard or URL-safe alphabet,
/// padding optional (Gemini's `inlineData.data`).
pub(crate) fn lenient(s: &str) -> bool {
    let body = s.trim_end_matches('=');
    let pad = s.len() - body.len();
    !body.is_empty()
        && pad <= 2
        && (pad == 0 || s.len().is_multiple_of(4))
        && body.len() % 4 != 1
        && body
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'-' | b'_'))
}

/// The image type the first bytes of base64 `data` show (PNG, JPEG, GIF or WebP magic).
pub(crate) fn sniff_image(data: &str) -> Option<&'static str> {
    [
        ("iVBORw0KGgo", "image/png"),
        ("/9j/", "image/jpeg"),
        ("R0lGOD", "image/gif"),
        ("UklGR", "image/webp"),
    ]
    .into_iter()
    .find(|(prefix, _)| data.starts_with(prefix))
    .map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_base64() {
        assert!(strict("aGVsbG8="));
        assert!(!strict("aGVsbG8"), "padding is required");
        assert!(!strict("aGVs*G8="));
        assert!(!strict(""));
        assert!(!strict("a==="));
        assert!(lenient("aGVsbG8"));
        assert!(lenient("aGVsbG8="));
        assert!(lenient("-_-_"));
        assert!(!lenient("a"));
        assert!(!lenient("aGVs bG8="));
        assert_eq!(sniff_image("iVBORw0KGgoAAAANSUhEUg=="), Some("image/png"));
        assert_eq!(sniff_image("aGVsbG8="), None);
    }
}
