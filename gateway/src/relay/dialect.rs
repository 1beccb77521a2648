//! Which API a request speaks, from its method, path and headers: the OpenAI endpoints,
//! the Responses API, Anthropic Messages, Gemini; and the dialect its errors are written in.

use adapters::convert::Dialect;
use adapters::openai::Endpoint;
use adapters::provider::GeminiMethod;
use http::{HeaderMap, Method};

use super::billing_api;
use super::media::{self, MediaKind};

/// A relayed call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `POST /v1/chat/completions`, `/v1/completions`, `/v1/embeddings`.
    OpenAi(Endpoint),
    /// `POST /v1/responses`.
    Responses,
    /// `POST /v1/messages`.
    Messages,
    /// `POST /v1/messages/count_tokens` (answered locally).
    CountTokens,
    /// `POST /{v1,v1beta}/models/{model}:{method}`.
    Gemini { model: String, method: GeminiMethod },
    /// `GET /v1/models[/id]` (Anthropic's shape when `anthropic-version` is sent).
    ListModels {
        id: Option<String>,
        dialect: Dialect,
    },
    /// `GET /v1beta/models[/id]`.
    GeminiModels { id: Option<String> },
    /// `POST /v1/images/*`, `/v1/audio/*`, `/v1/rerank`, `/v1/moderations`.
    Media(MediaKind),
    /// OpenAI paths answered 501 (`/v1/files…`, `/v1/fine-tunes…`, …).
    NotImplemented,
    /// `GET /dashboard/billing/*` and `/api/usage/token` (answered from the snapshot).
    Billing(billing_api::Info),
    /// Midjourney-Proxy and Suno task calls.
    Task(super::task_relay::TaskCall),
}

impl Call {
    /// The metrics and log label of the call.
    pub fn label(&self) -> &'static str {
        match self {
            Call::OpenAi(Endpoint::ChatCompletions) => "chat_completions",
            Call::OpenAi(Endpoint::Completions) => "completions",
            Call::OpenAi(Endpoint::Embeddings) => "embeddings",
            Call::Responses => "responses",
            Call::Messages => "messages",
            Call::CountTokens => "count_tokens",
            Call::Gemini {
                method: GeminiMethod::Embed | GeminiMethod::BatchEmbed,
                ..
            } => "gemini_embed",
            Call::Gemini { .. } => "gemini_generate",
            Call::ListModels { .. } | Call::GeminiModels { .. } => "models",
            Call::Media(kind) => kind.label(),
            Call::NotImplemented => "not_implemented",
            Call::Billing(_) => "billing",
            Call::Task(t) => t.label(),
        }
    }
}

/// The dialect errors of a request to `path` are written in (known before the body is read).
pub fn error_dialect(path: &str) -> Dialect {
    let path = path.trim_end_matches('/');
    if path == "/v1/messages" || path.starts_with("/v1/messages/") {
        Dialect::Claude
    } else if path.starts_with("/v1beta") || (path.starts_with("/v1/models/") && path.contains(':'))
    {
        Dialect::Gemini
    } else if path == "/v1/responses" {
        Dialect::Responses
    } else {
        Dialect::OpenAi
    }
}

fn gemini_method(name: &str) -> Option<GeminiMethod> {
    match name {
        "generateContent" => Some(GeminiMethod::Generate),
        "streamGenerateContent" => Some(GeminiMethod::Stream),
        "embedContent" => Some(GeminiMethod::Embed),
        "batchEmbedContents" => Some(GeminiMethod::BatchEmbed),
        _ => None,
    }
}

/// `{model}:{method}` after `/v1beta/models/` or `/v1/models/`.
fn gemini_call(rest: &str) -> Option<Call> {
    let (model, method) = rest.rsplit_once(':')?;
    let model = model.trim();
    if model.is_empty() || model.contains('/') {
        return None;
    }
    Some(Call::Gemini {
        model: model.to_owned(),
        method: gemini_method(method)?,
    })
}

fn query_has_key(query: Option<&str>) -> bool {
    query.is_some_and(|q| q.split('&').any(|p| p.starts_with("key=")))
}

/// Recognises a relayed call; `None` for every other method and path (404).
pub fn recognise(
    method: &Method,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Option<Call> {
    let path = path.trim_end_matches('/');
    if media::not_implemented(method, path) {
        return Some(Call::NotImplemented);
    }
    if let Some(info) = billing_api::recognise(method, path) {
        return Some(Call::Billing(info));
    }
    if let Some(task) = super::task_relay::recognise(method, path) {
        return Some(Call::Task(task));
    }
    let models_rest = path
        .strip_prefix("/v1beta/models/")
        .or_else(|| path.strip_prefix("/v1/models/"));
    if *method == Method::POST {
        if let Some(endpoint) = Endpoint::from_path(path) {
            return Some(Call::OpenAi(endpoint));
        }
        if let Some(kind) = MediaKind::from_path(path) {
            return Some(Call::Media(kind));
        }
        return match path {
            "/v1/responses" => Some(Call::Responses),
            "/v1/messages" => Some(Call::Messages),
            "/v1/messages/count_tokens" => Some(Call::CountTokens),
            _ => gemini_call(models_rest?),
        };
    }
    if *method != Method::GET {
        return None;
    }
    let id = |rest: &str| (!rest.is_empty()).then(|| rest.to_owned());
    if path == "/v1beta/models" {
        return Some(Call::GeminiModels { id: None });
    }
    if let Some(rest) = path.strip_prefix("/v1beta/models/") {
        return Some(Call::GeminiModels { id: id(rest) });
    }
    let id = if path == "/v1/models" {
        None
    } else {
        Some(path.strip_prefix("/v1/models/")?.to_owned())
    };
    // Google's SDKs list models at /v1/models with their own key header or `?key=`.
    if headers.contains_key("x-goog-api-key") || query_has_key(query) {
        return Some(Call::GeminiModels { id });
    }
    let dialect = if headers.contains_key("anthropic-version") {
        Dialect::Claude
    } else {
        Dialect::OpenAi
    };
    Some(Call::ListModels { id, dialect })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(path: &str) -> Option<Call> {
        recognise(&Method::POST, path, None, &HeaderMap::new())
    }

    #[test]
    fn recognises_every_dialect() {
        assert_eq!(
            post("/v1/chat/completions"),
            Some(Call::OpenAi(Endpoint::ChatCompletions))
        );
        assert_eq!(post("/v1/responses"), Some(Call::Responses));
        assert_eq!(post("/v1/messages"), Some(Call::Messages));
        assert_eq!(post("/v1/messages/count_tokens"), Some(Call::CountTokens));
        assert_eq!(
            post("/v1beta/models/gemini-2.5-pro:streamGenerateContent"),
            Some(Call::Gemini {
                model: "gemini-2.5-pro".into(),
                method: GeminiMethod::Stream
            })
        );
        assert_eq!(
            post("/v1/models/gemini-2.5-flash:embedContent"),
            Some(Call::Gemini {
                model: "gemini-2.5-flash".into(),
                method: GeminiMethod::Embed
            })
        );
        assert_eq!(post("/v1beta/models/x:unknown"), None);
        assert_eq!(post("/v1beta/models/:generateContent"), None);
        assert_eq!(post("/v1/other"), None);
        let mut h = HeaderMap::new();
        assert_eq!(
            recognise(&Method::GET, "/v1/models", None, &h),
            Some(Call::ListModels {
                id: None,
                dialect: Dialect::OpenAi
            })
        );
        h.insert(
            "anthropic-version",
            http::HeaderValue::from_static("2023-06-01"),
        );
        assert_eq!(
            recognise(&Method::GET, "/v1/models", None, &h),
            Some(Call::ListModels {
                id: None,
                dialect: Dialect::Claude
            })
        );
        assert_eq!(
            recognise(&Method::GET, "/v1beta/models", None, &h),
            Some(Call::GeminiModels { id: None })
        );
        assert_eq!(
            recognise(
                &Method::GET,
                "/v1/models/g",
                Some("key=sk-x"),
                &HeaderMap::new()
            ),
            Some(Call::GeminiModels {
                id: Some("g".into())
            })
        );
    }

    #[test]
    fn media_billing_and_unimplemented_paths() {
        assert_eq!(
            post("/v1/audio/transcriptions"),
            Some(Call::Media(MediaKind::Transcriptions))
        );
        assert_eq!(post("/v1/rerank/"), Some(Call::Media(MediaKind::Rerank)));
        assert_eq!(post("/v1/images/variations"), Some(Call::NotImplemented));
        assert_eq!(post("/v1/files"), Some(Call::NotImplemented));
        let h = HeaderMap::new();
        for (m, p) in [
            (Method::GET, "/v1/files/file-1/content"),
            (Method::DELETE, "/v1/files/file-1"),
            (Method::GET, "/v1/fine-tunes/ft-1/events"),
            (Method::DELETE, "/v1/models/ft:gpt-x"),
        ] {
            assert_eq!(
                recognise(&m, p, None, &h),
                Some(Call::NotImplemented),
                "{m} {p}"
            );
        }
        assert_eq!(
            recognise(&Method::GET, "/v1/dashboard/billing/usage", None, &h),
            Some(Call::Billing(billing_api::Info::Usage))
        );
        assert_eq!(recognise(&Method::GET, "/v1/filesystem", None, &h), None);
    }

    #[test]
    fn errors_follow_the_path() {
        assert_eq!(error_dialect("/v1/messages"), Dialect::Claude);
        assert_eq!(
            error_dialect("/v1beta/models/x:generateContent"),
            Dialect::Gemini
        );
        assert_eq!(
            error_dialect("/v1/models/x:generateContent"),
            Dialect::Gemini
        );
        assert_eq!(error_dialect("/v1/chat/completions"), Dialect::OpenAi);
    }
}
