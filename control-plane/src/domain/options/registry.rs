//! The table of known option keys with defaults and kinds (spec 1 §3 and spec 2 §3.1).

/// What a valid value of an option looks like.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptionKind {
    /// `true` or `false`.
    Bool,
    /// An integer, at least `min`, at most `max`.
    Int { min: i64, max: i64 },
    /// A number in `[min, max]`.
    Float { min: f64, max: f64 },
    /// Free text.
    Text,
    /// An address: empty or `http(s)://…`; trailing slashes are stripped.
    Url,
    /// A JSON object.
    JsonObject,
    /// A JSON array.
    JsonArray,
    /// One of a fixed set of words.
    OneOf(&'static [&'static str]),
    /// Comma-separated email domains, no duplicates.
    DomainList,
    /// One word per line; lines starting with `regex:` must compile.
    SensitiveWords,
    /// Comma-separated HTTP status codes or ranges (`500-503`).
    StatusRanges,
}

/// One known option.
#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    pub key: &'static str,
    pub default: &'static str,
    pub kind: OptionKind,
    /// Secrets are write-only: never returned by `GET /api/option/`.
    pub secret: bool,
}

const fn opt(key: &'static str, default: &'static str, kind: OptionKind) -> OptionSpec {
    OptionSpec {
        key,
        default,
        kind,
        secret: false,
    }
}

const fn secret(key: &'static str) -> OptionSpec {
    OptionSpec {
        key,
        default: "",
        kind: OptionKind::Text,
        secret: true,
    }
}

const fn flag(key: &'static str, on: bool) -> OptionSpec {
    opt(key, if on { "true" } else { "false" }, OptionKind::Bool)
}

const fn int(key: &'static str, default: &'static str, min: i64) -> OptionSpec {
    opt(key, default, OptionKind::Int { min, max: i64::MAX })
}

const TEXT: OptionKind = OptionKind::Text;
const URL: OptionKind = OptionKind::Url;
const OBJ: OptionKind = OptionKind::JsonObject;
const ARR: OptionKind = OptionKind::JsonArray;

/// Every option key the product knows.
pub static REGISTRY: &[OptionSpec] = &[
    // Addresses and payment.
    opt("ServerAddress", "", URL),
    opt("WorkerUrl", "", URL),
    secret("WorkerValidKey"),
    opt("PayAddress", "", URL),
    opt("EpayId", "", TEXT),
    secret("EpayKey"),
    opt(
        "Price",
        "7.3",
        OptionKind::Float {
            min: 0.0,
            max: f64::MAX,
        },
    ),
    int("MinTopUp", "1", 1),
    opt("CustomCallbackAddress", "", URL),
    opt("TopupGroupRatio", "{}", OBJ),
    // Sign-in and registration switches.
    flag("PasswordLoginEnabled", true),
    flag("PasswordRegisterEnabled", true),
    flag("EmailVerificationEnabled", false),
    flag("RegisterEnabled", true),
    flag("TurnstileCheckEnabled", false),
    flag("GitHubOAuthEnabled", false),
    flag("WeChatAuthEnabled", false),
    flag("TelegramOAuthEnabled", false),
    flag("LinuxDOOAuthEnabled", false),
    flag("oidc.enabled", false),
    flag("EmailDomainRestrictionEnabled", false),
    flag("EmailAliasRestrictionEnabled", false),
    opt(
        "EmailDomainWhitelist",
        "gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com",
        OptionKind::DomainList,
    ),
    // SMTP.
    opt("SMTPServer", "", TEXT),
    opt("SMTPPort", "587", OptionKind::Int { min: 1, max: 65535 }),
    opt("SMTPAccount", "", TEXT),
    opt("SMTPFrom", "", TEXT),
    secret("SMTPToken"),
    flag("SMTPSSLEnabled", false),
    // Third-party sign-in and human verification.
    opt("oidc.well_known", "", URL),
    opt("oidc.client_id", "", TEXT),
    secret("oidc.client_secret"),
    opt("oidc.authorization_endpoint", "", URL),
    opt("oidc.token_endpoint", "", URL),
    opt("oidc.user_info_endpoint", "", URL),
    opt("GitHubClientId", "", TEXT),
    secret("GitHubClientSecret"),
    opt("LinuxDOClientId", "", TEXT),
    secret("LinuxDOClientSecret"),
    opt("WeChatServerAddress", "", URL),
    secret("WeChatServerToken"),
    opt("WeChatAccountQRCodeImageURL", "", TEXT),
    opt("TelegramBotName", "", TEXT),
    secret("TelegramBotToken"),
    opt("TurnstileSiteKey", "", TEXT),
    secret("TurnstileSecretKey"),
    // Branding and links.
    opt("Notice", "", TEXT),
    opt("SystemName", "AI Gateway", TEXT),
    opt("Logo", "", TEXT),
    opt("Footer", "", TEXT),
    opt("About", "", TEXT),
    opt("HomePageContent", "", TEXT),
    opt("TopUpLink", "", URL),
    opt("general_setting.docs_link", "", URL),
    opt("Chats", "[]", ARR),
    // Display and behaviour.
    int("QuotaPerUnit", "500000", 1),
    opt("RetryTimes", "0", OptionKind::Int { min: 0, max: 10 }),
    flag("DisplayInCurrencyEnabled", true),
    flag("DisplayTokenStatEnabled", true),
    flag("DefaultCollapseSidebar", false),
    flag("DemoSiteEnabled", false),
    flag("SelfUseModeEnabled", false),
    // Drawing and asynchronous tasks (their logs' sidebar entries follow these).
    flag("DrawingEnabled", false),
    flag("TaskEnabled", true),
    flag("MjNotifyEnabled", false),
    flag("MjAccountFilterEnabled", false),
    flag("MjForwardUrlEnabled", false),
    flag("MjModeClearEnabled", false),
    flag("MjActionCheckSuccessEnabled", true),
    // Sensitive words.
    flag("CheckSensitiveEnabled", false),
    flag("CheckSensitiveOnPromptEnabled", false),
    flag("CheckSensitiveOnCompletionEnabled", false),
    flag("StopOnSensitiveEnabled", false),
    opt("SensitiveWords", "", OptionKind::SensitiveWords),
    // Logs and data dashboard.
    flag("LogConsumeEnabled", true),
    // Days of logs to keep; 0 keeps them all.
    int("LogRetentionDays", "0", 0),
    flag("LogChatContentEnabled", false),
    flag("DataExportEnabled", true),
    opt(
        "DataExportDefaultTime",
        "hour",
        OptionKind::OneOf(&["hour", "day", "week"]),
    ),
    // Channel monitoring.
    opt(
        "ChannelDisableThreshold",
        "5",
        OptionKind::Float {
            min: 0.0,
            max: f64::MAX,
        },
    ),
    int("QuotaRemindThreshold", "1000", 0),
    flag("AutomaticDisableChannelEnabled", false),
    flag("AutomaticEnableChannelEnabled", false),
    // Periodic channel tests and balance refreshes (control-plane jobs, once per fleet);
    // intervals in minutes (fractions allowed).
    flag("monitor_setting.auto_test_channel_enabled", false),
    opt(
        "monitor_setting.auto_test_channel_minutes",
        "10",
        OptionKind::Float {
            min: 0.01,
            max: 10_080.0,
        },
    ),
    flag("monitor_setting.auto_update_balance_enabled", false),
    opt(
        "monitor_setting.auto_update_balance_minutes",
        "60",
        OptionKind::Float {
            min: 0.01,
            max: 10_080.0,
        },
    ),
    opt(
        "AutomaticDisableKeywords",
        "Your credit balance is too low\nThis organization has been disabled.\nYou exceeded your current quota\nPermission denied\nThe security token included in the request is invalid\nOperation not allowed\nYour account is not authorized",
        TEXT,
    ),
    opt(
        "AutomaticDisableStatusCodes",
        "401",
        OptionKind::StatusRanges,
    ),
    opt(
        "AutomaticRetryStatusCodes",
        "100-199,300-399,401-407,409-499,500-503,505-523,525-599",
        OptionKind::StatusRanges,
    ),
    // Check-in.
    flag("CheckInEnabled", false),
    int("CheckInQuota", "10000", 0),
    int("CheckInMaxQuota", "50000", 0),
    // Quotas.
    int("QuotaForNewUser", "0", 0),
    int("PreConsumedQuota", "500", 0),
    int("QuotaForInviter", "0", 0),
    int("QuotaForInvitee", "0", 0),
    int("StreamCacheQueueLength", "0", 0),
    // Rebate.
    flag("RebateEnabled", false),
    opt(
        "RebatePercentage",
        "0",
        OptionKind::Float {
            min: 0.0,
            max: 100.0,
        },
    ),
    // Pricing.
    opt("ModelRatio", "{}", OBJ),
    opt("CompletionRatio", "{}", OBJ),
    opt("CacheRatio", "{}", OBJ),
    opt("CreateCacheRatio", "{}", OBJ),
    opt("ModelPrice", "{}", OBJ),
    opt("GroupRatio", r#"{"default":1,"vip":1,"svip":1}"#, OBJ),
    opt("GroupGroupRatio", "{}", OBJ),
    opt(
        "UserUsableGroups",
        r#"{"default":"default group","vip":"vip group"}"#,
        OBJ,
    ),
    // Rate limits.
    flag("ModelRequestRateLimitEnabled", false),
    int("ModelRequestRateLimitCount", "0", 0),
    int("ModelRequestRateLimitSuccessCount", "1000", 1),
    int("ModelRequestRateLimitDurationMinutes", "1", 0),
    opt("ModelRequestRateLimitGroup", "{}", OBJ),
    opt("GroupModelRateLimit", "{}", OBJ),
    // Bounded overdraw: completion reserved without max_tokens, concurrent requests per user.
    opt("CompletionAllowance", r#"{"default":4096}"#, OBJ),
    int("UserConcurrencyLimit", "256", 0),
    opt("GroupConcurrencyLimit", "{}", OBJ),
    // Provider-specific settings.
    opt("gemini.safety_settings", "{}", OBJ),
    opt("gemini.version_settings", r#"{"default":"v1beta"}"#, OBJ),
    opt("gemini.supported_imagine_models", "[]", ARR),
    flag("gemini.thinking_adapter_enabled", false),
    opt(
        "gemini.thinking_adapter_budget_tokens_percentage",
        "0.6",
        OptionKind::Float { min: 0.1, max: 1.0 },
    ),
    opt("gemini.models_supported_thinking_budget", "[]", ARR),
    opt("claude.model_headers_settings", "{}", OBJ),
    flag("claude.thinking_adapter_enabled", true),
    opt("claude.default_max_tokens", r#"{"default":8192}"#, OBJ),
    opt(
        "claude.thinking_adapter_budget_tokens_percentage",
        "0.8",
        OptionKind::Float { min: 0.1, max: 1.0 },
    ),
    // Global relay switches.
    flag("global.pass_through_request_enabled", false),
    flag("global.hide_upstream_error_enabled", false),
    flag("global.block_browser_extension_enabled", false),
    flag("general_setting.ping_interval_enabled", false),
    int("general_setting.ping_interval_seconds", "60", 1),
];

/// The spec of a known key.
pub fn spec(key: &str) -> Option<&'static OptionSpec> {
    REGISTRY.iter().find(|s| s.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique() {
        let mut keys: Vec<_> = REGISTRY.iter().map(|s| s.key).collect();
        keys.sort_unstable();
        let before = keys.len();
        keys.dedup();
        assert_eq!(before, keys.len());
    }

    #[test]
    fn keys_ending_in_enabled_are_booleans() {
        for s in REGISTRY {
            if s.key.ends_with("Enabled") || s.key.ends_with("enabled") {
                assert_eq!(s.kind, OptionKind::Bool, "{}", s.key);
            }
        }
    }
}
