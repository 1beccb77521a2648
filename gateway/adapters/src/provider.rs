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
}

impl AuthStyle {
    /// The header carrying `key`: name and value.
    pub fn header(self, key: &str) -> (&'static str, String) {
        match self {
            AuthStyle::Bearer => ("authorization", format!("Bearer {key}")),
            AuthStyle::XApiKey => ("x-api-key", key.to_owned()),
            AuthStyle::GoogApiKey => ("x-goog-api-key", key.to_owned()),
        }
    }
}

/// The `anthropic-version` sent when the client gave none.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// One row of the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderSpec {
    pub channel_type: i32,
    pub name: &'static str,
    pub protocol: Protocol,
    pub default_base_url: &'static str,
    pub auth: AuthStyle,
    /// The base URL is the full endpoint URL (`{model}` substituted), not a prefix.
    pub full_url: bool,
    /// Honours `stream_options.include_usage`.
    pub stream_usage: bool,
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
        full_url: false,
        stream_usage: true,
    }
}

/// Channel types served in this version (new-api numbering).
pub const PROVIDERS: &[ProviderSpec] = &[
    openai_compatible(1, "OpenAI", "https://api.openai.com"),
    openai_compatible(6, "OpenAIMax", "https://api.openaimax.com"),
    openai_compatible(7, "OhMyGPT", "https://api.ohmygpt.com"),
    ProviderSpec {
        full_url: true,
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
        full_url: false,
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
        full_url: false,
        stream_usage: true,
    },
    openai_compatible(25, "Moonshot", "https://api.moonshot.cn"),
    openai_compatible(31, "LingYiWanWu", "https://api.lingyiwanwu.com"),
    openai_compatible(40, "SiliconFlow", "https://api.siliconflow.cn"),
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

fn base<'a>(spec: &'a ProviderSpec, base_url: &'a str) -> &'a str {
    let base = if base_url.is_empty() {
        spec.default_base_url
    } else {
        base_url
    };
    base.trim_end_matches('/')
}

/// The upstream URL for an inbound OpenAI path (`/v1/chat/completions`).
pub fn upstream_url(spec: &ProviderSpec, base_url: &str, path: &str, model: &str) -> String {
    if spec.full_url {
        return base(spec, base_url).replace("{model}", model);
    }
    format!("{}{}", base(spec, base_url), path)
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
    fn suffix(self) -> &'static str {
        match self {
            GeminiMethod::Generate => ":generateContent",
            GeminiMethod::Stream => ":streamGenerateContent?alt=sse",
            GeminiMethod::Embed => ":embedContent",
            GeminiMethod::BatchEmbed => ":batchEmbedContents",
        }
    }
}

/// The URL of a Gemini call on `model` (API version `v1beta`).
pub fn gemini_url(
    spec: &ProviderSpec,
    base_url: &str,
    model: &str,
    method: GeminiMethod,
) -> String {
    format!(
        "{}/v1beta/models/{model}{}",
        base(spec, base_url),
        method.suffix()
    )
}

/// The URL of a chat call in the channel's own protocol.
pub fn chat_url(spec: &ProviderSpec, base_url: &str, model: &str, stream: bool) -> String {
    match spec.protocol {
        Protocol::OpenAi => upstream_url(spec, base_url, "/v1/chat/completions", model),
        Protocol::Anthropic => format!("{}/v1/messages", base(spec, base_url)),
        Protocol::Gemini => {
            let method = if stream {
                GeminiMethod::Stream
            } else {
                GeminiMethod::Generate
            };
            gemini_url(spec, base_url, model, method)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn builds_urls() {
        let openai = lookup(1).unwrap();
        assert_eq!(
            upstream_url(openai, "", "/v1/embeddings", "m"),
            "https://api.openai.com/v1/embeddings"
        );
        assert_eq!(
            upstream_url(openai, "http://h:1/", "/v1/models", "m"),
            "http://h:1/v1/models"
        );
        let custom = lookup(8).unwrap();
        assert_eq!(
            upstream_url(custom, "http://h/{model}/chat", "/v1/chat/completions", "x"),
            "http://h/x/chat"
        );
        assert!(lookup(15).is_none());
        let claude = lookup(14).unwrap();
        assert_eq!(
            chat_url(claude, "", "claude-x", true),
            "https://api.anthropic.com/v1/messages"
        );
        let gemini = lookup(24).unwrap();
        assert_eq!(
            chat_url(gemini, "http://h:1/", "gemini-2.5-pro", true),
            "http://h:1/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            AuthStyle::GoogApiKey.header("k"),
            ("x-goog-api-key", "k".into())
        );
    }
}
