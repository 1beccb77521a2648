//! What param override rules may read besides the body: the request's models, path, retry
//! state and the client's headers ([`OverrideContext`]), looked up by condition paths the way
//! new-api's override context answers them (`model`, `request_headers.<name>`, ...).

use std::fmt;

use http::HeaderMap;
use serde_json::Value;

use super::headers::{HeaderEdits, HeaderOverride};
use super::path::{Path, Seg};

/// Per-attempt facts handed to [`super::ParamOverride::apply`]. Cheap to build: references
/// only. `Debug` shows header names, never values (a client header may carry a credential).
#[derive(Clone, Copy, Default)]
pub struct OverrideContext<'a> {
    /// The model the client asked for (`original_model`).
    pub original_model: &'a str,
    /// The model sent upstream after mapping (`model`, `upstream_model`).
    pub upstream_model: &'a str,
    /// The client's request path (`request_path`), e.g. `/v1/chat/completions`.
    pub request_path: &'a str,
    /// The client's headers (`request_headers.<lowercase name>`); `None` for channel tests.
    pub client_headers: Option<&'a HeaderMap>,
    /// 0 for the first attempt (`retry_index`, `is_retry`, `retry.index`, `retry.is_retry`).
    pub retry_index: u32,
    /// A channel test, not a client request (`is_channel_test`).
    pub is_channel_test: bool,
    /// The previous attempt's upstream status (`last_error.status_code`,
    /// `last_error_status_code`).
    pub last_error_status: Option<u16>,
    /// The previous attempt's error code (`last_error.code`, `last_error_code`).
    pub last_error_code: Option<&'a str>,
    /// The channel's header override, which header operations read and edit. Filled by
    /// [`super::ChannelShaping::shape_body`]; set it by hand only when calling
    /// [`super::ParamOverride::apply`] directly.
    pub header_override: Option<&'a HeaderOverride>,
}

impl fmt::Debug for OverrideContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self
            .client_headers
            .map(|h| h.keys().map(|k| k.as_str()).collect())
            .unwrap_or_default();
        f.debug_struct("OverrideContext")
            .field("original_model", &self.original_model)
            .field("upstream_model", &self.upstream_model)
            .field("request_path", &self.request_path)
            .field("client_header_names", &names)
            .field("retry_index", &self.retry_index)
            .field("is_channel_test", &self.is_channel_test)
            .field("last_error_status", &self.last_error_status)
            .field("last_error_code", &self.last_error_code)
            .finish_non_exhaustive()
    }
}

impl OverrideContext<'_> {
    /// The client's header `name` (any case), trimmed, when present, UTF-8 and not blank.
    pub(crate) fn client_header(&self, name: &str) -> Option<&str> {
        let v = self.client_headers?.get(name)?.to_str().ok()?.trim();
        (!v.is_empty()).then_some(v)
    }

    /// The value a condition path names in the context, when the body has none.
    pub(crate) fn lookup(&self, path: &Path, edits: &HeaderEdits) -> Option<Value> {
        let mut names = path.segs.iter().map(|s| match s {
            Seg::Name { key, .. } => Some(key.as_str()),
            _ => None,
        });
        let first = names.next()??;
        let second = names.next();
        let (second, more) = match second {
            None => (None, false),
            Some(s) => (Some(s?), names.next().is_some()),
        };
        if more {
            return None;
        }
        let model = if self.upstream_model.is_empty() {
            self.original_model
        } else {
            self.upstream_model
        };
        let text = |s: &str| (!s.is_empty()).then(|| Value::from(s));
        match (first, second) {
            ("model", None) => text(model),
            ("upstream_model", None) => text(self.upstream_model),
            ("original_model", None) => text(self.original_model),
            ("request_path", None) => text(self.request_path),
            ("retry_index", None) | ("retry", Some("index")) => Some(self.retry_index.into()),
            ("is_retry", None) | ("retry", Some("is_retry")) => Some((self.retry_index > 0).into()),
            ("is_channel_test", None) => Some(self.is_channel_test.into()),
            ("last_error_status_code", None) | ("last_error", Some("status_code")) => {
                self.last_error_status.map(Value::from)
            }
            ("last_error_code", None)
            | ("last_error", Some("code"))
            | ("last_error", Some("error_code")) => self.last_error_code.map(Value::from),
            ("request_headers", Some(name)) => self.client_header(name).map(Value::from),
            ("header_override", Some(name)) => edits
                .override_entry(&name.to_ascii_lowercase(), self.header_override)
                .map(|e| Value::from(e.text())),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn looks_up_models_retry_and_headers_and_debug_hides_values() {
        let mut h = HeaderMap::new();
        h.insert("x-tenant", "acme".parse().unwrap());
        h.insert("authorization", "Bearer sk-client".parse().unwrap());
        let ctx = OverrideContext {
            original_model: "gpt-4o",
            upstream_model: "gpt-4o-2024",
            client_headers: Some(&h),
            retry_index: 2,
            ..Default::default()
        };
        let e = HeaderEdits::default();
        let get = |p: &str| ctx.lookup(&Path::parse(p).unwrap(), &e);
        assert_eq!(get("model"), Some(Value::from("gpt-4o-2024")));
        assert_eq!(get("original_model"), Some(Value::from("gpt-4o")));
        assert_eq!(get("retry.is_retry"), Some(Value::from(true)));
        assert_eq!(get("request_headers.X-Tenant"), Some(Value::from("acme")));
        assert_eq!(get("request_path"), None);
        let dbg = format!("{ctx:?}");
        assert!(dbg.contains("x-tenant") && !dbg.contains("sk-client"));
    }
}
