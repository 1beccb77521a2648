//! The provider registry: channel type → how to reach it. OpenAI-compatible providers that
//! differ only in base URL or auth header are rows of data; the wire protocol is a closed enum.

/// Upstream wire protocols the gateway can speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// OpenAI-compatible JSON and SSE (same-dialect passthrough: only model and auth change).
    OpenAi,
    /// Anthropic Messages (`/v1/messages`).
    Anthropic,
    /// Google Gemini (`/v1beta/models/{model}:generateContent`).
    Gemini,
    /// AWS Bedrock's Converse API (`/model/{id}/converse`), for models other than Claude.
    Converse,
    /// Ollama's native API (`/api/chat`, NDJSON streams; `/api/embed`).
    Ollama,
    /// Cohere's v2 Chat API (`/v2/chat`).
    Cohere,
    /// An asynchronous task API (Midjourney-Proxy's `/mj/*`, Suno's `/suno/*`): relayed as it
    /// is by the gateway's task module, never a chat or an embedding.
    Task,
}

/// How the channel key is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthStyle {
    /// `Authorization: Bearer {key}`.
    Bearer,
    /// `x-api-key: {key}` (Anthropic).
    XApiKey,
    /// `x-goog-api-key: {key}` (Gemini).
    GoogApiKey,
    /// `api-key: {key}` (Azure OpenAI).
    ApiKey,
    /// `mj-api-secret: {key}` (Midjourney-Proxy).
    MjApiSecret,
    /// Computed per request from the key (Bedrock's SigV4 or API key, Vertex's access token
    /// or API key): no static header.
    PerRequest,
}

impl AuthStyle {
    /// The header carrying `key`: name and value.
    pub fn header(self, key: &str) -> (&'static str, String) {
        match self {
            AuthStyle::Bearer => ("authorization", format!("Bearer {key}")),
            AuthStyle::XApiKey => ("x-api-key", key.to_owned()),
            AuthStyle::GoogApiKey => ("x-goog-api-key", key.to_owned()),
            AuthStyle::ApiKey => ("api-key", key.to_owned()),
            AuthStyle::MjApiSecret => ("mj-api-secret", key.to_owned()),
            // Never sent as is: the relay computes these headers for each request.
            AuthStyle::PerRequest => ("authorization", String::new()),
        }
    }
}

/// The `anthropic-version` sent when the client gave none.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Azure's `api-version` when the channel's `other` names none.
pub const AZURE_DEFAULT_API_VERSION: &str = "2025-04-01-preview";

/// Azure's Responses API version on the `/openai/v1/` path when the channel names none.
pub const AZURE_RESPONSES_VERSION: &str = "preview";

/// How a channel's URLs are built from its base URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlStyle {
    /// `{base}{path}` (`/v1/chat/completions`).
    Prefix,
    /// The base URL is the full endpoint URL (`{model}` substituted).
    FullUrl,
    /// `{base}/openai/deployments/{deployment}/{task}?api-version={other}`.
    Azure,
    /// AWS Bedrock Runtime: the region from the key, the model id in the path
    /// (`adapters::bedrock`).
    Bedrock,
    /// Google Vertex AI: project from the key, region from `other`, the publisher from the
    /// model (`adapters::vertex`).
    Vertex,
}

/// One row of the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderSpec {
    pub channel_type: i32,
    pub name: &'static str,
    pub protocol: Protocol,
    pub default_base_url: &'static str,
    pub auth: AuthStyle,
    pub url: UrlStyle,
    /// Honours `stream_options.include_usage`.
    pub stream_usage: bool,
}

impl ProviderSpec {
    /// The wire protocol of a call on `model` (the upstream name): a cloud channel speaks
    /// Anthropic's for Claude models and its own for the rest.
    pub fn protocol_for(&self, model: &str) -> Protocol {
        match self.url {
            UrlStyle::Bedrock if crate::bedrock::is_claude(model) => Protocol::Anthropic,
            UrlStyle::Vertex
                if crate::vertex::Publisher::of(model) == crate::vertex::Publisher::Anthropic =>
            {
                Protocol::Anthropic
            }
            _ => self.protocol,
        }
    }
}

const fn openai_compatible(
    channel_type: i32,
    name: &'static str,
    base: &'static str,
) -> ProviderSpec {
    ProviderSpec {
        channel_type,
        name,
        protocol: Protocol::OpenAi,
        default_base_url: base,
        auth: AuthStyle::Bearer,
        url: UrlStyle::Prefix,
        stream_usage: true,
    }
}

/// An asynchronous task API (no default address: the operator's proxy).
const fn task_api(channel_type: i32, name: &'static str, auth: AuthStyle) -> ProviderSpec {
    ProviderSpec {
        channel_type,
        name,
        protocol: Protocol::Task,
        default_base_url: "",
        auth,
        url: UrlStyle::Prefix,
        stream_usage: false,
    }
}

/// Channel types served in this version (new-api numbering).
pub const PROVIDERS: &[ProviderSpec] = &[
    openai_compatible(1, "OpenAI", "https://api.openai.com"),
    task_api(2, "Midjourney", AuthStyle::MjApiSecret),
    ProviderSpec {
        auth: AuthStyle::ApiKey,
        url: UrlStyle::Azure,
        ..openai_compatible(3, "Azure", "")
    },
    ProviderSpec {
        protocol: Protocol::Ollama,
        ..openai_compatible(4, "Ollama", "http://localhost:11434")
    },
    task_api(5, "MidjourneyPlus", AuthStyle::MjApiSecret),
    openai_compatible(6, "OpenAIMax", "https://api.openaimax.com"),
    openai_compatible(7, "OhMyGPT", "https://api.ohmygpt.com"),
    ProviderSpec {
        url: UrlStyle::FullUrl,
        ..openai_compatible(8, "Custom", "")
    },
    openai_compatible(9, "AILS", "https://api.caipacity.com"),
    openai_compatible(10, "AIProxy", "https://api.aiproxy.io"),
    openai_compatible(12, "API2GPT", "https://api.api2gpt.com"),
    openai_compatible(13, "AIGC2D", "https://api.aigc2d.com"),
    ProviderSpec {
        channel_type: 14,
        name: "Anthropic",
        protocol: Protocol::Anthropic,
        default_base_url: "https://api.anthropic.com",
        auth: AuthStyle::XApiKey,
        url: UrlStyle::Prefix,
        stream_usage: true,
    },
    openai_compatible(19, "360", "https://api.360.cn"),
    openai_compatible(20, "OpenRouter", "https://openrouter.ai/api"),
    ProviderSpec {
        stream_usage: false,
        ..openai_compatible(22, "FastGPT", "https://fastgpt.run/api/openapi")
    },
    ProviderSpec {
        channel_type: 24,
        name: "Gemini",
        protocol: Protocol::Gemini,
        default_base_url: "https://generativelanguage.googleapis.com",
        auth: AuthStyle::GoogApiKey,
        url: UrlStyle::Prefix,
        stream_usage: true,
    },
    openai_compatible(25, "Moonshot", "https://api.moonshot.cn"),
    openai_compatible(31, "LingYiWanWu", "https://api.lingyiwanwu.com"),
    ProviderSpec {
        protocol: Protocol::Cohere,
        ..openai_compatible(34, "Cohere", "https://api.cohere.com")
    },
    ProviderSpec {
        channel_type: 33,
        name: "AWS",
        protocol: Protocol::Converse,
        default_base_url: "",
        auth: AuthStyle::PerRequest,
        url: UrlStyle::Bedrock,
        stream_usage: true,
    },
    openai_compatible(40, "SiliconFlow", "https://api.siliconflow.cn"),
    task_api(36, "Suno", AuthStyle::Bearer),
    ProviderSpec {
        channel_type: 41,
        name: "VertexAI",
        protocol: Protocol::Gemini,
        default_base_url: "",
        auth: AuthStyle::PerRequest,
        url: UrlStyle::Vertex,
        stream_usage: true,
    },
    openai_compatible(42, "Mistral", "https://api.mistral.ai"),
    openai_compatible(43, "DeepSeek", "https://api.deepseek.com"),
    ProviderSpec {
        stream_usage: false,
        ..openai_compatible(47, "Xinference", "")
    },
    openai_compatible(48, "xAI", "https://api.x.ai"),
    openai_compatible(53, "Submodel", "https://llm.submodel.ai"),
];

/// The registry row of a channel type, if this version serves it.
pub fn lookup(channel_type: i32) -> Option<&'static ProviderSpec> {
    PROVIDERS.iter().find(|p| p.channel_type == channel_type)
}

/// Where a channel's calls go: its registry row, base URL and the settings that shape URLs.
#[derive(Debug, Clone, Copy)]
pub struct Site<'a> {
    pub spec: &'static ProviderSpec,
    /// Empty: the type's default.
    pub base_url: &'a str,
    /// The channel's `other` (Azure: the api-version).
    pub other: &'a str,
    /// Azure: the Responses API version (the channel setting `azure_responses_version`).
    pub responses_version: &'a str,
    /// Gemini: the API version in the URL (`gemini.version_settings`); empty: `v1beta`.
    pub gemini_version: &'a str,
}

impl<'a> Site<'a> {
    /// A site with nothing but a base URL.
    pub fn new(spec: &'static ProviderSpec, base_url: &'a str) -> Self {
        Site {
            spec,
            base_url,
            other: "",
            responses_version: "",
            gemini_version: "",
        }
    }

    fn base(&self) -> &'a str {
        let base = if self.base_url.is_empty() {
            self.spec.default_base_url
        } else {
            self.base_url
        };
        base.trim_end_matches('/')
    }
}

/// The upstream URL for an inbound OpenAI path (`/v1/chat/completions`) on `model`.
pub fn upstream_url(site: &Site<'_>, path: &str, model: &str) -> String {
    match site.spec.url {
        UrlStyle::FullUrl => site.base().replace("{model}", model),
        // Cloud channels' URLs need the key (region, project): their calls are built with
        // `bedrock::model_url` and `vertex::url`; a plain path is all that is left here.
        UrlStyle::Prefix | UrlStyle::Bedrock | UrlStyle::Vertex => {
            format!("{}{}", site.base(), path)
        }
        UrlStyle::Azure => azure_url(site, path, model),
    }
}

/// Azure OpenAI: deployments by (mapped) model name, `api-version` from `other`; the
/// Responses API on its own path (`/openai/v1/responses`, or `/openai/responses` on
/// `cognitiveservices.azure.com` resources).
fn azure_url(site: &Site<'_>, path: &str, model: &str) -> String {
    let base = site.base();
    let version = match site.other.trim() {
        "" => AZURE_DEFAULT_API_VERSION,
        v => v,
    };
    let version = query_value(version);
    let task = path
        .strip_prefix("/v1/")
        .unwrap_or(path.trim_start_matches('/'));
    if task == "responses" {
        let responses = site.responses_version.trim();
        return if base.contains("cognitiveservices.azure.com") {
            let v = if responses.is_empty() {
                version.clone()
            } else {
                query_value(responses)
            };
            format!("{base}/openai/responses?api-version={v}")
        } else {
            let v = if responses.is_empty() {
                AZURE_RESPONSES_VERSION.to_owned()
            } else {
                query_value(responses)
            };
            format!("{base}/openai/v1/responses?api-version={v}")
        };
    }
    if task == "models" {
        return format!("{base}/openai/models?api-version={version}");
    }
    format!(
        "{base}/openai/deployments/{}/{task}?api-version={version}",
        path_segment(model)
    )
}

/// `text` with the characters that would end a query value or a path segment escaped.
fn query_value(text: &str) -> String {
    escape(text, |b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

/// A path segment: unreserved characters, `:` and `@` kept (model ids such as
/// `claude-sonnet-4-5@20250929`), the rest percent-encoded.
pub fn path_segment(text: &str) -> String {
    escape(text, |b| {
        b.is_ascii_alphanumeric() || b"-._~:@".contains(&b)
    })
}

fn escape(text: &str, keep: impl Fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if keep(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What a Gemini call does (the `:method` of its URL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeminiMethod {
    Generate,
    /// `:streamGenerateContent?alt=sse`.
    Stream,
    Embed,
    BatchEmbed,
}

impl GeminiMethod {
    /// `:method` (and the query a stream needs).
    pub fn suffix(self) -> &'static str {
        match self {
            GeminiMethod::Generate => ":generateContent",
            GeminiMethod::Stream => ":streamGenerateContent?alt=sse",
            GeminiMethod::Embed => ":embedContent",
            GeminiMethod::BatchEmbed => ":batchEmbedContents",
        }
    }
}

/// The URL of a Gemini call on `model` (API version `v1beta` unless the site names another).
pub fn gemini_url(site: &Site<'_>, model: &str, method: GeminiMethod) -> String {
    let version = match site.gemini_version.trim() {
        "" => "v1beta",
        v => v,
    };
    format!(
        "{}/{}/models/{}{}",
        site.base(),
        path_segment(version),
        path_segment(model),
        method.suffix()
    )
}

/// The URL of a chat call in the channel's own protocol.
pub fn chat_url(site: &Site<'_>, model: &str, stream: bool) -> String {
    match site.spec.protocol {
        Protocol::OpenAi => upstream_url(site, "/v1/chat/completions", model),
        // Built with `bedrock::model_url` from the key's region (see `upstream_url`).
        Protocol::Converse => format!("{}/model/{}/converse", site.base(), path_segment(model)),
        Protocol::Anthropic => format!("{}/v1/messages", site.base()),
        Protocol::Ollama => format!("{}{}", site.base(), crate::ollama::CHAT_PATH),
        Protocol::Cohere => format!("{}{}", site.base(), crate::cohere::CHAT_PATH),
        // Never called: task channels take no chat.
        Protocol::Task => site.base().to_owned(),
        Protocol::Gemini => {
            let method = if stream {
                GeminiMethod::Stream
            } else {
                GeminiMethod::Generate
            };
            gemini_url(site, model, method)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn builds_urls() {
        let openai = Site::new(lookup(1).unwrap(), "");
        assert_eq!(
            upstream_url(&openai, "/v1/embeddings", "m"),
            "https://api.openai.com/v1/embeddings"
        );
        let openai = Site::new(lookup(1).unwrap(), "http://h:1/");
        assert_eq!(
            upstream_url(&openai, "/v1/models", "m"),
            "http://h:1/v1/models"
        );
        let custom = Site::new(lookup(8).unwrap(), "http://h/{model}/chat");
        assert_eq!(
            upstream_url(&custom, "/v1/chat/completions", "x"),
            "http://h/x/chat"
        );
        assert!(lookup(15).is_none());
        let claude = Site::new(lookup(14).unwrap(), "");
        assert_eq!(
            chat_url(&claude, "claude-x", true),
            "https://api.anthropic.com/v1/messages"
        );
        let gemini = Site::new(lookup(24).unwrap(), "http://h:1/");
        assert_eq!(
            chat_url(&gemini, "gemini-2.5-pro", true),
            "http://h:1/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            AuthStyle::GoogApiKey.header("k"),
            ("x-goog-api-key", "k".into())
        );
    }

    #[test]
    fn azure_urls_name_the_deployment_and_api_version() {
        let spec = lookup(3).unwrap();
        let mut site = Site::new(spec, "https://res.openai.azure.com/");
        assert_eq!(
            upstream_url(&site, "/v1/chat/completions", "gpt-4o"),
            "https://res.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2025-04-01-preview"
        );
        site.other = "2024-10-21";
        assert_eq!(
            upstream_url(&site, "/v1/embeddings", "text-embedding-3-small"),
            "https://res.openai.azure.com/openai/deployments/text-embedding-3-small/embeddings?api-version=2024-10-21"
        );
        assert_eq!(
            upstream_url(&site, "/v1/responses", "gpt-4o"),
            "https://res.openai.azure.com/openai/v1/responses?api-version=preview"
        );
        site.responses_version = "2025-04-01-preview";
        assert_eq!(
            upstream_url(&site, "/v1/responses", "gpt-4o"),
            "https://res.openai.azure.com/openai/v1/responses?api-version=2025-04-01-preview"
        );
        let cognitive = Site {
            other: "2025-03-01-preview",
            ..Site::new(spec, "https://x.cognitiveservices.azure.com")
        };
        assert_eq!(
            upstream_url(&cognitive, "/v1/responses", "gpt-4o"),
            "https://x.cognitiveservices.azure.com/openai/responses?api-version=2025-03-01-preview"
        );
        // A deployment name cannot break out of its path segment or the query.
        site.other = "v&x=1";
        assert_eq!(
            upstream_url(&site, "/v1/chat/completions", "a/b?c"),
            "https://res.openai.azure.com/openai/deployments/a%2Fb%3Fc/chat/completions?api-version=v%26x%3D1"
        );
        assert_eq!(AuthStyle::ApiKey.header("k"), ("api-key", "k".into()));
    }
}
