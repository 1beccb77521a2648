//! Where a Vertex call goes: the region of a model (the channel's `other` setting), the
//! endpoint host, and the REST paths of the two publishers the gateway serves (Google's
//! Gemini models, Anthropic's Claude models), for service accounts and express-mode API keys.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::ParseError;

/// The multi-region endpoint's location.
pub const GLOBAL: &str = "global";
/// Header carrying an express-mode API key (kept out of URLs, hence out of access logs).
pub const API_KEY_HEADER: &str = "x-goog-api-key";

const GLOBAL_HOST: &str = "https://aiplatform.googleapis.com";
/// Longest region name accepted (a DNS label).
const MAX_REGION: usize = 63;

/// Who publishes a model, which decides its path and body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Publisher {
    /// Gemini: the Gemini `generateContent` body, `:generateContent` /
    /// `:streamGenerateContent?alt=sse`.
    Google,
    /// Claude: the Anthropic Messages body ([`super::claude_body`]), `:rawPredict` /
    /// `:streamRawPredict`.
    Anthropic,
}

impl Publisher {
    /// `Anthropic` for `claude*` models, else `Google`.
    pub fn of(model: &str) -> Publisher {
        if model.starts_with("claude") {
            Publisher::Anthropic
        } else {
            Publisher::Google
        }
    }
}

/// The region serving `model` under the channel setting `other`: empty means [`GLOBAL`];
/// a plain region (`us-central1`) serves every model; a JSON object maps models to regions
/// with `default` for the others (`{"claude-sonnet-4-5@20250929": "us-east5", "default":
/// "us-central1"}`). A setting that names no usable region (bad JSON, no entry and no
/// `default`, a name that is not a DNS label) gives [`GLOBAL`]:
/// [`check_region_setting`] reports it when the channel is saved.
pub fn region_for(other: &str, model: &str) -> String {
    region_of(other, model)
        .ok()
        .flatten()
        .unwrap_or_else(|| GLOBAL.to_owned())
}

/// Whether the channel setting `other` is one [`region_for`] reads as written: empty, a
/// region, or a JSON object of model → region strings.
pub fn check_region_setting(other: &str) -> Result<(), ParseError> {
    let other = other.trim();
    if !other.starts_with('{') {
        return region_of(other, "").map(|_| ());
    }
    let map = region_map(other)?;
    for (model, region) in &map {
        match region.as_str() {
            Some(r) if valid_region(r) => {}
            _ => {
                return Err(ParseError::Invalid(format!(
                    "Vertex region of {model:?} is not a region name"
                )));
            }
        }
    }
    Ok(())
}

fn region_of(other: &str, model: &str) -> Result<Option<String>, ParseError> {
    let other = other.trim();
    let region = if other.is_empty() {
        return Ok(None);
    } else if other.starts_with('{') {
        let map = region_map(other)?;
        match map.get(model).or_else(|| map.get("default")) {
            Some(Value::String(r)) => r.trim().to_owned(),
            Some(_) => {
                return Err(ParseError::Invalid(
                    "Vertex region is not a string".to_owned(),
                ));
            }
            None => return Ok(None),
        }
    } else {
        other.to_owned()
    };
    if valid_region(&region) {
        Ok(Some(region))
    } else {
        Err(ParseError::Invalid(format!(
            "Vertex region {region:?} is not a region name"
        )))
    }
}

fn region_map(other: &str) -> Result<Map<String, Value>, ParseError> {
    serde_json::from_str(other).map_err(|e| {
        ParseError::Invalid(format!("Vertex region setting is not a JSON object: {e}"))
    })
}

/// A region goes into a host name: lowercase letters, digits and `-` only.
fn valid_region(r: &str) -> bool {
    !r.is_empty()
        && r.len() <= MAX_REGION
        && !r.starts_with('-')
        && r.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The endpoint serving `region`: the channel's base URL when set (`base_url_override`,
/// without its trailing `/`), `https://aiplatform.googleapis.com` for [`GLOBAL`], else
/// `https://{region}-aiplatform.googleapis.com`.
pub fn base(region: &str, base_url_override: &str) -> String {
    let custom = base_url_override.trim().trim_end_matches('/');
    if !custom.is_empty() {
        custom.to_owned()
    } else if region == GLOBAL || !valid_region(region) {
        GLOBAL_HOST.to_owned()
    } else {
        format!("https://{region}-aiplatform.googleapis.com")
    }
}

/// The `:method` of a call on `model`. Gemini streams ask for SSE with `alt=sse`; Claude's
/// `:streamRawPredict` takes no query: it answers Anthropic's SSE when the body says
/// `"stream": true` (Google's and Anthropic's examples send exactly that).
fn method(model: &str, stream: bool) -> &'static str {
    match (Publisher::of(model), stream) {
        (Publisher::Google, false) => ":generateContent",
        (Publisher::Google, true) => ":streamGenerateContent?alt=sse",
        (Publisher::Anthropic, false) => ":rawPredict",
        (Publisher::Anthropic, true) => ":streamRawPredict",
    }
}

/// The URL of a chat call with a service account's token:
/// `{base}/v1/projects/{project}/locations/{region}/publishers/{google|anthropic}/models/{model}{method}`.
/// Path segments are percent-encoded except unreserved characters and `@`, so Claude
/// versions (`claude-sonnet-4-5@20250929`) stay as Google documents them and a model name
/// cannot add path segments or a query.
pub fn url(base: &str, project: &str, region: &str, model: &str, stream: bool) -> String {
    let publisher = match Publisher::of(model) {
        Publisher::Google => "google",
        Publisher::Anthropic => "anthropic",
    };
    format!(
        "{}/v1/projects/{}/locations/{}/publishers/{publisher}/models/{}{}",
        base.trim_end_matches('/'),
        segment(project),
        segment(region),
        segment(model),
        method(model, stream)
    )
}

/// The URL of a chat call with an express-mode API key (no project, no location; the key
/// goes in [`API_KEY_HEADER`]): `{base}/v1/publishers/google/models/{model}{method}`, `base`
/// being [`base`]`(GLOBAL, override)`. Express mode serves Google's models only: Claude
/// models are refused.
pub fn express_url(base: &str, model: &str, stream: bool) -> Result<String, ParseError> {
    if Publisher::of(model) == Publisher::Anthropic {
        return Err(ParseError::Invalid(format!(
            "Vertex AI serves {model} to service accounts only, not to API keys"
        )));
    }
    Ok(format!(
        "{}/v1/publishers/google/models/{}{}",
        base.trim_end_matches('/'),
        segment(model),
        method(model, stream)
    ))
}

/// Anthropic's API names a Claude version `claude-sonnet-4-5-20250929`, Vertex
/// `claude-sonnet-4-5@20250929`: a `claude*` name ending in `-` and eight digits gets the
/// `@` form; other names are kept.
pub fn claude_model_id(model: &str) -> Cow<'_, str> {
    if Publisher::of(model) != Publisher::Anthropic || model.contains('@') {
        return Cow::Borrowed(model);
    }
    match model.rsplit_once('-') {
        Some((name, date)) if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) => {
            Cow::Owned(format!("{name}@{date}"))
        }
        _ => Cow::Borrowed(model),
    }
}

/// `s` as one path segment: unreserved characters and `@` kept, the rest percent-encoded
/// (and `.` / `..`, which a URL resolver would take as path steps).
fn segment(s: &str) -> Cow<'_, str> {
    if s == "." || s == ".." {
        return Cow::Owned(s.replace('.', "%2E"));
    }
    let keep = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'@');
    if s.bytes().all(keep) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if keep(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn regions_come_from_the_setting() {
        assert_eq!(region_for("", "gemini-2.5-pro"), "global");
        assert_eq!(
            region_for("  us-central1 ", "gemini-2.5-pro"),
            "us-central1"
        );
        let map = r#"{"claude-sonnet-4-5@20250929": "us-east5", "default": "europe-west4"}"#;
        assert_eq!(region_for(map, "claude-sonnet-4-5@20250929"), "us-east5");
        assert_eq!(region_for(map, "gemini-2.5-pro"), "europe-west4");
        assert_eq!(region_for(r#"{"a": "us-east5"}"#, "b"), "global");
        assert_eq!(region_for(r#"{"default": "global"}"#, "b"), "global");
        // Never a host name or path from a broken setting.
        assert_eq!(region_for("evil.example/x#", "m"), "global");
        assert_eq!(region_for(r#"{"default": "a.b"}"#, "m"), "global");
        assert_eq!(region_for("{not json", "m"), "global");
        assert_eq!(region_for(r#"{"default": 5}"#, "m"), "global");
    }

    #[test]
    fn checks_region_settings() {
        assert!(check_region_setting("").is_ok());
        assert!(check_region_setting("us-central1").is_ok());
        assert!(check_region_setting(r#"{"m": "us-east5", "default": "global"}"#).is_ok());
        assert!(check_region_setting(r#"{"m": "us-east5"}"#).is_ok());
        for bad in [
            "US-CENTRAL1",
            "a.b",
            "{x",
            r#"{"m": "a/b"}"#,
            r#"{"m": 1}"#,
            "-x",
        ] {
            assert!(check_region_setting(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hosts_follow_the_region_unless_the_channel_sets_one() {
        assert_eq!(base("global", ""), "https://aiplatform.googleapis.com");
        assert_eq!(
            base("us-central1", ""),
            "https://us-central1-aiplatform.googleapis.com"
        );
        assert_eq!(
            base("us-central1", "http://127.0.0.1:4000/ "),
            "http://127.0.0.1:4000"
        );
        assert_eq!(base("x/y", ""), "https://aiplatform.googleapis.com");
    }

    #[test]
    fn gemini_and_claude_paths() {
        let b = "https://us-east5-aiplatform.googleapis.com";
        assert_eq!(
            url(b, "p-1", "us-east5", "gemini-2.5-pro", false),
            "https://us-east5-aiplatform.googleapis.com/v1/projects/p-1/locations/us-east5/publishers/google/models/gemini-2.5-pro:generateContent"
        );
        assert_eq!(
            url(b, "p-1", "us-east5", "gemini-2.5-pro", true),
            "https://us-east5-aiplatform.googleapis.com/v1/projects/p-1/locations/us-east5/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            url(b, "p-1", "us-east5", "claude-sonnet-4-5@20250929", false),
            "https://us-east5-aiplatform.googleapis.com/v1/projects/p-1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict"
        );
        assert_eq!(
            url(
                "http://h:1/",
                "p",
                "global",
                "claude-opus-4-1@20250805",
                true
            ),
            "http://h:1/v1/projects/p/locations/global/publishers/anthropic/models/claude-opus-4-1@20250805:streamRawPredict"
        );
    }

    #[test]
    fn names_cannot_escape_their_segment() {
        assert_eq!(
            url("http://h", "p", "global", "../x?key=1#f", false),
            "http://h/v1/projects/p/locations/global/publishers/google/models/..%2Fx%3Fkey%3D1%23f:generateContent"
        );
        assert_eq!(
            url("http://h", "example.com:proj", "global", "g", false),
            "http://h/v1/projects/example.com%3Aproj/locations/global/publishers/google/models/g:generateContent"
        );
        assert_eq!(
            url("http://h", "p", "global", "..", false),
            "http://h/v1/projects/p/locations/global/publishers/google/models/%2E%2E:generateContent"
        );
    }

    #[test]
    fn express_mode_serves_gemini_only() {
        let b = base(GLOBAL, "");
        assert_eq!(
            express_url(&b, "gemini-2.5-flash", true).unwrap(),
            "https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            express_url("http://h:1", "gemini-2.5-flash", false).unwrap(),
            "http://h:1/v1/publishers/google/models/gemini-2.5-flash:generateContent"
        );
        let e = express_url(&b, "claude-sonnet-4-5@20250929", false).unwrap_err();
        assert!(e.to_string().contains("service accounts only"), "{e}");
    }

    #[test]
    fn claude_names_take_the_vertex_form() {
        assert_eq!(
            claude_model_id("claude-sonnet-4-5-20250929"),
            "claude-sonnet-4-5@20250929"
        );
        assert_eq!(
            claude_model_id("claude-sonnet-4-5@20250929"),
            "claude-sonnet-4-5@20250929"
        );
        assert_eq!(claude_model_id("claude-sonnet-4-5"), "claude-sonnet-4-5");
        assert_eq!(
            claude_model_id("gemini-2.0-flash-001"),
            "gemini-2.0-flash-001"
        );
        assert_eq!(claude_model_id("claude-x-2025092"), "claude-x-2025092");
    }
}
