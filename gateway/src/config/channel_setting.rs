//! A channel's `setting` JSON as the relay reads it: the proxy its calls go through, its
//! system prompt, body pass-through, and the per-provider choices (Azure's Responses version,
//! Vertex's and Bedrock's key types). Unknown members are ignored; a member of the wrong type
//! counts as absent, so one odd field never takes the channel out of the snapshot.

use serde_json::Value;

/// The parsed setting of one channel. Its `Debug` hides the proxy's credentials.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ChannelSetting {
    /// `http://`, `https://` or `socks5://` proxy URL for this channel's upstream calls.
    pub proxy: Option<String>,
    /// Prepended to (or, with `system_prompt_override`, replacing) the client's system prompt.
    pub system_prompt: String,
    pub system_prompt_override: bool,
    /// Same-dialect requests go upstream as the client's bytes.
    pub pass_through_body: bool,
    /// Azure: the Responses API version.
    pub azure_responses_version: String,
    /// Vertex: `json` (service account) or `api_key`; empty: told by the key's shape.
    pub vertex_key_type: String,
}

impl std::fmt::Debug for ChannelSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `scheme://user:pass@host:port` shows as `scheme://***@host:port`.
        let proxy =
            self.proxy
                .as_deref()
                .map(|p| match (p.split_once("://"), p.rsplit_once('@')) {
                    (Some((scheme, _)), Some((_, host))) => format!("{scheme}://***@{host}"),
                    _ => p.to_owned(),
                });
        f.debug_struct("ChannelSetting")
            .field("proxy", &proxy)
            .field("system_prompt", &self.system_prompt)
            .field("system_prompt_override", &self.system_prompt_override)
            .field("pass_through_body", &self.pass_through_body)
            .field("azure_responses_version", &self.azure_responses_version)
            .field("vertex_key_type", &self.vertex_key_type)
            .finish()
    }
}

impl ChannelSetting {
    /// Reads the setting text (empty or not an object: all defaults).
    pub fn parse(text: &str) -> ChannelSetting {
        let Ok(Value::Object(v)) = serde_json::from_str::<Value>(text) else {
            return ChannelSetting::default();
        };
        let text = |key: &str| {
            v.get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .unwrap_or_default()
                .to_owned()
        };
        let flag = |key: &str| v.get(key).and_then(Value::as_bool).unwrap_or(false);
        let proxy = text("proxy");
        ChannelSetting {
            proxy: (!proxy.is_empty()).then_some(proxy),
            system_prompt: v
                .get("system_prompt")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            system_prompt_override: flag("system_prompt_override"),
            pass_through_body: flag("pass_through_body_enabled"),
            azure_responses_version: text("azure_responses_version"),
            vertex_key_type: text("vertex_key_type"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_known_members_and_ignores_the_rest() {
        let s = ChannelSetting::parse(
            r#"{"proxy": " socks5://p:1080 ", "system_prompt": "Be brief.", "system_prompt_override": true,
                "pass_through_body_enabled": true, "azure_responses_version": "2025-04-01-preview",
                "vertex_key_type": "api_key", "max_concurrency": 3, "odd": [1]}"#,
        );
        assert_eq!(s.proxy.as_deref(), Some("socks5://p:1080"));
        assert_eq!(s.system_prompt, "Be brief.");
        assert!(s.system_prompt_override && s.pass_through_body);
        assert_eq!(s.azure_responses_version, "2025-04-01-preview");
        assert_eq!(s.vertex_key_type, "api_key");
        assert_eq!(ChannelSetting::parse(""), ChannelSetting::default());
        let secret = ChannelSetting::parse(r#"{"proxy": "http://user:s3cret@proxy:3128"}"#);
        let shown = format!("{secret:?}");
        assert!(
            shown.contains("http://***@proxy:3128") && !shown.contains("s3cret"),
            "{shown}"
        );
        assert_eq!(ChannelSetting::parse("[1]"), ChannelSetting::default());
        assert_eq!(
            ChannelSetting::parse(r#"{"proxy": 5, "system_prompt_override": "yes"}"#),
            ChannelSetting::default()
        );
    }
}
