//! The channel's header override: parsed once (names checked, placeholders and pass-through
//! regexes compiled), then resolved per attempt, with the edits param override made, into the
//! headers to set on and remove from the upstream request.
//!
//! Config: a JSON object `{"Name": "value"}`. Values may hold `{api_key}` (the channel key,
//! anywhere in the value) or be exactly `{client_header:Name}` (the client's header, left out
//! when the client sent none). Keys `*` (every client header) and `re:<regex>` / `regex:<regex>`
//! (client headers whose names match, case-insensitively) pass client headers through; their
//! values are ignored. Pass-through never forwards hop-by-hop headers, `host`,
//! `content-length`, `accept-encoding`, cookies, WebSocket handshake headers or the client's
//! credentials (`authorization`, `x-api-key`, `x-goog-api-key`), and a `{client_header:…}`
//! placeholder may not name a credential or cookie either. Explicit entries win over
//! pass-through; hop-by-hop headers, `host` and `content-length` cannot be set or removed.

use std::fmt;

use http::{HeaderMap, HeaderName, HeaderValue};
use regex::{Regex, RegexBuilder};
use serde_json::Value;

use super::ShapingError;

/// Most entries in one header override.
const MAX_ENTRIES: usize = 256;
/// Compiled-size cap of one pass-through regex.
pub(crate) const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Client headers pass-through never forwards.
const NEVER_PASSED: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "cookie",
    "host",
    "content-length",
    "accept-encoding",
    "authorization",
    "x-api-key",
    "x-goog-api-key",
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-extensions",
];

/// Client headers a `{client_header:…}` placeholder may not read.
pub(crate) const NOT_READABLE: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "x-goog-api-key",
    "cookie",
];

/// Headers the relay owns: no rule sets or removes them.
const MANAGED: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

/// A configured header name, trimmed and lowercased; refused when not a valid header name or
/// one the relay owns.
pub(crate) fn normalize_name(raw: &str) -> Result<String, String> {
    let name = raw.trim().to_ascii_lowercase();
    if HeaderName::from_bytes(name.as_bytes()).is_err() {
        return Err(format!("`{}` is not a valid header name", raw.trim()));
    }
    if MANAGED.contains(&name.as_str()) {
        return Err(format!("header `{name}` is managed by the gateway"));
    }
    Ok(name)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Lit(String),
    ApiKey,
}

/// A configured header value: its text and what it resolves from.
/// `Debug` shows the placeholder source and length only: a configured value may be a secret.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Template {
    raw: String,
    client_header: Option<String>,
    pieces: Vec<Piece>,
}

impl Template {
    pub(crate) fn parse(raw: &str) -> Result<Template, String> {
        const PREFIX: &str = "{client_header:";
        let trimmed = raw.trim();
        if let Some(rest) = trimmed.strip_prefix(PREFIX) {
            let name = match rest.split_once('}') {
                Some((name, "")) => name.trim().to_ascii_lowercase(),
                _ => {
                    return Err(format!(
                        "`{trimmed}`: a client_header placeholder must be the whole value"
                    ));
                }
            };
            if HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(format!("`{trimmed}` does not name a valid header"));
            }
            if NOT_READABLE.contains(&name.as_str()) {
                return Err(format!(
                    "`{trimmed}`: the client's `{name}` header may not be forwarded"
                ));
            }
            return Ok(Template {
                raw: raw.to_owned(),
                client_header: Some(name),
                pieces: Vec::new(),
            });
        }
        if raw.contains(PREFIX) {
            return Err(format!(
                "`{trimmed}`: a client_header placeholder must be the whole value"
            ));
        }
        let mut pieces = Vec::new();
        let mut parts = raw.split("{api_key}");
        if let Some(first) = parts.next()
            && !first.is_empty()
        {
            pieces.push(Piece::Lit(first.to_owned()));
        }
        for part in parts {
            pieces.push(Piece::ApiKey);
            if !part.is_empty() {
                pieces.push(Piece::Lit(part.to_owned()));
            }
        }
        Ok(Template {
            raw: raw.to_owned(),
            client_header: None,
            pieces,
        })
    }
}

/// One header-override value: configured (placeholders resolved at the end) or copied from
/// the client or the body (sent as it is: no placeholder in client text is ever expanded).
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum HeaderEntry {
    Template(Template),
    Literal(String),
}

impl fmt::Debug for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Template")
            .field("client_header", &self.client_header)
            .field("uses_api_key", &self.pieces.contains(&Piece::ApiKey))
            .field("len", &self.raw.len())
            .finish()
    }
}

impl fmt::Debug for HeaderEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderEntry::Template(t) => t.fmt(f),
            HeaderEntry::Literal(s) => write!(f, "Literal(<{} bytes>)", s.len()),
        }
    }
}

impl HeaderEntry {
    /// The entry's text as configured or copied (placeholders unresolved).
    pub(crate) fn text(&self) -> &str {
        match self {
            HeaderEntry::Template(t) => &t.raw,
            HeaderEntry::Literal(s) => s,
        }
    }
}

/// A channel's parsed header override.
#[derive(Debug, Clone, Default)]
pub struct HeaderOverride {
    pass_all: bool,
    pass_regex: Vec<Regex>,
    entries: Vec<(String, HeaderEntry)>,
}

impl HeaderOverride {
    /// Parses the channel's `header_override` text; empty text or `{}` gives `None`.
    pub fn parse(text: &str) -> Result<Option<HeaderOverride>, ShapingError> {
        let invalid = |m: String| ShapingError::HeaderOverrideInvalid(m);
        if text.trim().is_empty() {
            return Ok(None);
        }
        let v: Value = serde_json::from_str(text).map_err(|e| invalid(format!("not JSON: {e}")))?;
        let Value::Object(map) = v else {
            return Err(invalid("must be a JSON object".into()));
        };
        let mut pairs = Vec::with_capacity(map.len());
        for (k, v) in &map {
            match v {
                Value::String(s) => pairs.push((k.as_str(), s.as_str())),
                _ => return Err(invalid(format!("the value of `{k}` must be a string"))),
            }
        }
        Self::from_pairs(pairs)
    }

    /// Builds from name → value pairs (the snapshot's map); no pair gives `None`.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Option<HeaderOverride>, ShapingError> {
        let invalid = |m: String| ShapingError::HeaderOverrideInvalid(m);
        let mut out = HeaderOverride::default();
        let mut count = 0usize;
        for (key, value) in pairs {
            count += 1;
            if count > MAX_ENTRIES {
                return Err(invalid(format!("more than {MAX_ENTRIES} entries")));
            }
            let key = key.trim();
            let lower = key.to_ascii_lowercase();
            if key == "*" {
                out.pass_all = true;
                continue;
            }
            let pattern = lower
                .strip_prefix("re:")
                .or_else(|| lower.strip_prefix("regex:"))
                .map(|_| key.split_once(':').map_or("", |(_, p)| p.trim()));
            if let Some(pattern) = pattern {
                if pattern.is_empty() {
                    return Err(invalid(format!("`{key}`: empty pass-through regex")));
                }
                let re = RegexBuilder::new(pattern)
                    .case_insensitive(true)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .dfa_size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| invalid(format!("`{key}`: {e}")))?;
                out.pass_regex.push(re);
                continue;
            }
            let name = normalize_name(key).map_err(invalid)?;
            if value.trim().is_empty() {
                continue;
            }
            let entry = HeaderEntry::Template(Template::parse(value).map_err(invalid)?);
            out.entries.retain(|(n, _)| *n != name);
            out.entries.push((name, entry));
        }
        let empty = !out.pass_all && out.pass_regex.is_empty() && out.entries.is_empty();
        Ok((!empty).then_some(out))
    }

    fn entry(&self, name: &str) -> Option<&HeaderEntry> {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, e)| e)
    }

    fn passes(&self, name: &str) -> bool {
        !NEVER_PASSED.contains(&name)
            && (self.pass_all || self.pass_regex.iter().any(|re| re.is_match(name)))
    }
}

/// Changes param override made to the channel's header override for one attempt (header
/// operations, `sync_fields` into a header). Empty for most requests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeaderEdits {
    /// Lowercase name → new entry, or `None` when removed; in the order last edited.
    edits: Vec<(String, Option<HeaderEntry>)>,
}

impl HeaderEdits {
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    pub(crate) fn set(&mut self, name: &str, entry: HeaderEntry) {
        self.edits.retain(|(n, _)| n != name);
        self.edits.push((name.to_owned(), Some(entry)));
    }

    pub(crate) fn remove(&mut self, name: &str) {
        self.edits.retain(|(n, _)| n != name);
        self.edits.push((name.to_owned(), None));
    }

    /// The override entry now in force for `name` (lowercase), when its text is not blank.
    pub(crate) fn override_entry<'a>(
        &'a self,
        name: &str,
        base: Option<&'a HeaderOverride>,
    ) -> Option<&'a HeaderEntry> {
        let entry = match self.edits.iter().find(|(n, _)| n == name) {
            Some((_, edited)) => edited.as_ref(),
            None => base.and_then(|b| b.entry(name)),
        };
        entry.filter(|e| !e.text().trim().is_empty())
    }
}

/// What resolving header values needs. `Debug` never shows the key or header values.
#[derive(Clone, Copy, Default)]
pub struct HeaderContext<'a> {
    /// The channel key this attempt uses (`{api_key}`).
    pub api_key: &'a str,
    /// The client's headers; `None` for channel tests and model fetches (no pass-through, no
    /// `{client_header:…}`).
    pub client_headers: Option<&'a HeaderMap>,
}

impl fmt::Debug for HeaderContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HeaderContext")
            .field("api_key", &"<redacted>")
            .field("client_headers", &self.client_headers.map(|h| h.len()))
            .finish()
    }
}

/// Headers for the upstream request: remove `remove`, then insert (replacing) `set`, after
/// the relay's own headers (auth, content type), so the channel's configuration wins.
/// `Debug` shows names only; values carrying the key are also marked sensitive.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct UpstreamHeaders {
    pub set: Vec<(HeaderName, HeaderValue)>,
    pub remove: Vec<HeaderName>,
}

impl fmt::Debug for UpstreamHeaders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set: Vec<&str> = self.set.iter().map(|(n, _)| n.as_str()).collect();
        let remove: Vec<&str> = self.remove.iter().map(|n| n.as_str()).collect();
        f.debug_struct("UpstreamHeaders")
            .field("set", &set)
            .field("remove", &remove)
            .finish()
    }
}

impl UpstreamHeaders {
    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.remove.is_empty()
    }

    /// Applies to `headers`: removals, then insertions replacing any value of that name.
    pub fn apply_to(&self, headers: &mut HeaderMap) {
        for name in &self.remove {
            headers.remove(name);
        }
        for (name, value) in &self.set {
            headers.insert(name.clone(), value.clone());
        }
    }

    fn put(&mut self, name: HeaderName, value: HeaderValue) {
        self.set.retain(|(n, _)| *n != name);
        self.set.push((name, value));
    }
}

/// Resolves the channel's header override with `edits` into upstream headers. Errors name
/// the header, never its value.
pub fn resolve_headers(
    base: Option<&HeaderOverride>,
    edits: &HeaderEdits,
    ctx: &HeaderContext<'_>,
) -> Result<UpstreamHeaders, ShapingError> {
    let mut out = UpstreamHeaders::default();
    if let (Some(b), Some(client)) = (base, ctx.client_headers)
        && (b.pass_all || !b.pass_regex.is_empty())
    {
        for name in client.keys() {
            if !b.passes(name.as_str()) {
                continue;
            }
            let Some(v) = client.get(name).and_then(|v| v.to_str().ok()) else {
                continue;
            };
            if let Ok(value) = HeaderValue::from_str(v.trim())
                && !v.trim().is_empty()
            {
                out.put(name.clone(), value);
            }
        }
    }
    let statics = base.map(|b| b.entries.as_slice()).unwrap_or_default();
    let edited = |n: &str| edits.edits.iter().any(|(e, _)| e == n);
    let in_force = statics
        .iter()
        .filter(|(n, _)| !edited(n))
        .map(|(n, e)| (n, Some(e)))
        .chain(edits.edits.iter().map(|(n, e)| (n, e.as_ref())));
    for (name, entry) in in_force {
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            ShapingError::HeaderOverrideInvalid(format!("`{name}` is not a valid header name"))
        })?;
        let Some(entry) = entry else {
            out.set.retain(|(n, _)| *n != header);
            out.remove.push(header);
            continue;
        };
        if let Some(value) = resolve_value(entry, ctx) {
            let mut hv = HeaderValue::from_str(&value).map_err(|_| {
                ShapingError::HeaderOverrideFailed(format!(
                    "the value of header `{name}` is not a valid header value"
                ))
            })?;
            if !ctx.api_key.is_empty() && value.contains(ctx.api_key) {
                hv.set_sensitive(true);
            }
            out.remove.retain(|n| *n != header);
            out.put(header, hv);
        }
    }
    Ok(out)
}

fn resolve_value(entry: &HeaderEntry, ctx: &HeaderContext<'_>) -> Option<String> {
    let value = match entry {
        HeaderEntry::Literal(s) => s.trim().to_owned(),
        HeaderEntry::Template(Template {
            client_header: Some(name),
            ..
        }) => {
            let v = ctx.client_headers?.get(name.as_str())?.to_str().ok()?;
            v.trim().to_owned()
        }
        HeaderEntry::Template(t) => {
            let mut s = String::new();
            for p in &t.pieces {
                match p {
                    Piece::Lit(l) => s.push_str(l),
                    Piece::ApiKey => s.push_str(ctx.api_key),
                }
            }
            s
        }
    };
    (!value.trim().is_empty()).then_some(value)
}
