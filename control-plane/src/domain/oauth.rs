//! Third-party sign-in rules that need no I/O: the providers and where their ids live, the
//! state value against CSRF, the Telegram login widget's signature, and the username a first
//! sign-in registers.

use ring::hmac;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::secrets;

/// A provider a user can sign in with and bind to their account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    GitHub,
    Oidc,
    LinuxDo,
    WeChat,
    Telegram,
}

impl Provider {
    /// Every provider.
    pub const ALL: [Provider; 5] = [
        Provider::GitHub,
        Provider::Oidc,
        Provider::LinuxDo,
        Provider::WeChat,
        Provider::Telegram,
    ];

    /// The provider named in a path (`github`, `oidc`, `linuxdo`, `wechat`, `telegram`).
    pub fn from_path(name: &str) -> Option<Self> {
        Provider::ALL.into_iter().find(|p| p.path() == name)
    }

    /// Its name in paths.
    pub fn path(self) -> &'static str {
        match self {
            Provider::GitHub => "github",
            Provider::Oidc => "oidc",
            Provider::LinuxDo => "linuxdo",
            Provider::WeChat => "wechat",
            Provider::Telegram => "telegram",
        }
    }

    /// The option that switches sign-in with this provider on.
    pub fn enabled_option(self) -> &'static str {
        match self {
            Provider::GitHub => "GitHubOAuthEnabled",
            Provider::Oidc => "oidc.enabled",
            Provider::LinuxDo => "LinuxDOOAuthEnabled",
            Provider::WeChat => "WeChatAuthEnabled",
            Provider::Telegram => "TelegramOAuthEnabled",
        }
    }

    /// How the provider is called in messages.
    pub fn label(self) -> &'static str {
        match self {
            Provider::GitHub => "GitHub",
            Provider::Oidc => "OIDC",
            Provider::LinuxDo => "LinuxDO",
            Provider::WeChat => "WeChat",
            Provider::Telegram => "Telegram",
        }
    }

    /// The prefix of usernames registered by a first sign-in.
    fn username_prefix(self) -> &'static str {
        match self {
            Provider::GitHub => "github_",
            Provider::Oidc => "oidc_",
            Provider::LinuxDo => "linuxdo_",
            Provider::WeChat => "wechat_",
            Provider::Telegram => "telegram_",
        }
    }
}

/// Length of a state value.
pub const STATE_LEN: usize = 32;
/// How long a state value is good for, in seconds.
pub const STATE_TTL_SECS: u64 = 600;
/// Longest invitation code kept through the round trip.
const AFF_MAX: usize = 32;

/// A fresh state value.
pub fn new_state() -> String {
    secrets::random_alphanumeric(STATE_LEN)
}

/// Whether the state the provider sent back is the one this browser was given.
pub fn state_matches(expected: Option<&str>, returned: &str) -> bool {
    match expected {
        Some(expected) if expected.len() == STATE_LEN && !returned.is_empty() => {
            bool::from(expected.as_bytes().ct_eq(returned.as_bytes()))
        }
        _ => false,
    }
}

/// An invitation code worth keeping in a cookie: letters and digits, at most 32.
pub fn clean_aff(aff: &str) -> Option<&str> {
    let aff = aff.trim();
    (!aff.is_empty() && aff.len() <= AFF_MAX && aff.bytes().all(|b| b.is_ascii_alphanumeric()))
        .then_some(aff)
}

/// The account a provider vouched for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderAccount {
    /// Its stable id at the provider (stored in the binding column).
    pub id: String,
    /// The provider's login name, if any (a username candidate).
    pub login: String,
    /// A name to display.
    pub display_name: String,
    /// Its email when the provider gives a verified one.
    pub email: String,
}

/// Longest id kept from a provider (ids are numbers, UUIDs or opaque subjects).
pub const PROVIDER_ID_MAX: usize = 255;

/// Whether a provider's id can be stored: not empty, not oversized, no control characters.
pub fn valid_provider_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= PROVIDER_ID_MAX && !id.chars().any(char::is_control)
}

/// Username candidates for a first sign-in, best first: the provider's login when it is a valid
/// username, then `<provider>_<login or id>`, then `<provider>_<random>` (always valid).
pub fn username_candidates(provider: Provider, account: &ProviderAccount) -> Vec<String> {
    let mut out = Vec::new();
    let login: String = account
        .login
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    if super::accounts::check_username(&login).is_ok() && !login.is_empty() {
        out.push(login.clone());
    }
    let base = if login.is_empty() {
        account
            .id
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect()
    } else {
        login
    };
    let prefixed = format!("{}{}", provider.username_prefix(), base);
    if super::accounts::check_username(&prefixed).is_ok() && !base.is_empty() {
        out.push(prefixed);
    }
    out.push(format!(
        "{}{}",
        provider.username_prefix(),
        secrets::random_alphanumeric(8).to_ascii_lowercase()
    ));
    out
}

/// Fields of a Telegram login widget callback.
#[derive(Debug, Clone, Default, serde::Deserialize, utoipa::IntoParams)]
pub struct TelegramAuth {
    pub id: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub username: Option<String>,
    pub photo_url: Option<String>,
    pub auth_date: Option<String>,
    pub hash: Option<String>,
}

/// How old a Telegram login may be, in seconds.
pub const TELEGRAM_MAX_AGE_SECS: i64 = 86_400;

/// Why Telegram login data was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TelegramRefusal {
    /// A field is missing or the hash does not match the bot token.
    BadSignature,
    /// Signed, but older than a day (or from the future).
    Expired,
}

impl TelegramAuth {
    /// The data-check string: every present field but `hash`, `key=value`, sorted, joined by
    /// newlines.
    fn check_string(&self) -> String {
        let mut pairs: Vec<(&str, &str)> = [
            ("auth_date", &self.auth_date),
            ("first_name", &self.first_name),
            ("id", &self.id),
            ("last_name", &self.last_name),
            ("photo_url", &self.photo_url),
            ("username", &self.username),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| (k, v)))
        .collect();
        pairs.sort_by(|a, b| a.0.cmp(b.0));
        pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Checks the widget's signature with the bot token (HMAC-SHA256 keyed by SHA256(token))
    /// and its age; returns the account on success.
    pub fn verify(&self, bot_token: &str, now: i64) -> Result<ProviderAccount, TelegramRefusal> {
        let (Some(id), Some(hash), Some(auth_date)) = (
            self.id.as_deref(),
            self.hash.as_deref(),
            self.auth_date.as_deref(),
        ) else {
            return Err(TelegramRefusal::BadSignature);
        };
        if bot_token.is_empty() || !valid_provider_id(id) {
            return Err(TelegramRefusal::BadSignature);
        }
        let Ok(expected) = hex::decode(hash) else {
            return Err(TelegramRefusal::BadSignature);
        };
        let key = hmac::Key::new(hmac::HMAC_SHA256, &Sha256::digest(bot_token.as_bytes()));
        if hmac::verify(&key, self.check_string().as_bytes(), &expected).is_err() {
            return Err(TelegramRefusal::BadSignature);
        }
        let signed_at: i64 = auth_date
            .parse()
            .map_err(|_| TelegramRefusal::BadSignature)?;
        if now.saturating_sub(signed_at) > TELEGRAM_MAX_AGE_SECS
            || signed_at.saturating_sub(now) > 300
        {
            return Err(TelegramRefusal::Expired);
        }
        let name = [self.first_name.as_deref(), self.last_name.as_deref()]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        Ok(ProviderAccount {
            id: id.to_owned(),
            login: self.username.clone().unwrap_or_default(),
            display_name: name,
            email: String::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(hash: &str, auth_date: &str) -> TelegramAuth {
        TelegramAuth {
            id: Some("123456789".into()),
            first_name: Some("Ada".into()),
            last_name: Some("Lovelace".into()),
            username: Some("ada_l".into()),
            photo_url: None,
            auth_date: Some(auth_date.into()),
            hash: Some(hash.into()),
        }
    }

    #[test]
    fn telegram_widget_signature_is_checked_with_the_bot_token() {
        let token = "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
        // A known vector: HMAC-SHA256 over the data-check string, keyed by SHA256(token),
        // computed once with Python's hmac module.
        let check = "auth_date=1700000000\nfirst_name=Ada\nid=123456789\nlast_name=Lovelace\nusername=ada_l";
        assert_eq!(auth("", "1700000000").check_string(), check);
        let hash = "9e8877783681a6fa763ed6da15307029dbac3995b48f86bfa0714dab5d3babbc";
        let now = 1_700_000_100;
        let account = auth(hash, "1700000000").verify(token, now);
        assert_eq!(
            account.map(|a| (a.id, a.login, a.display_name)),
            Ok(("123456789".into(), "ada_l".into(), "Ada Lovelace".into()))
        );
        // Another bot's token, a changed field, a stale login, a missing hash.
        assert_eq!(
            auth(hash, "1700000000").verify("other:token", now),
            Err(TelegramRefusal::BadSignature)
        );
        let mut changed = auth(hash, "1700000000");
        changed.id = Some("987654321".into());
        assert_eq!(
            changed.verify(token, now),
            Err(TelegramRefusal::BadSignature)
        );
        assert_eq!(
            auth(hash, "1700000000").verify(token, now + TELEGRAM_MAX_AGE_SECS),
            Err(TelegramRefusal::Expired)
        );
        assert_eq!(
            auth("zz", "1700000000").verify(token, now),
            Err(TelegramRefusal::BadSignature)
        );
    }

    #[test]
    fn state_must_match_exactly() {
        let state = new_state();
        assert!(state_matches(Some(&state), &state));
        assert!(!state_matches(Some(&state), "other"));
        assert!(!state_matches(None, &state));
        assert!(!state_matches(Some(""), ""));
    }

    #[test]
    fn first_sign_in_usernames_are_valid() {
        let account = ProviderAccount {
            id: "583231".into(),
            login: "octocat".into(),
            display_name: "The Octocat".into(),
            email: String::new(),
        };
        let names = username_candidates(Provider::GitHub, &account);
        assert_eq!(names[0], "octocat");
        assert_eq!(names[1], "github_octocat");
        let odd = ProviderAccount {
            login: "名字 with spaces and a very long tail that goes on".into(),
            ..account
        };
        for name in username_candidates(Provider::Oidc, &odd) {
            assert!(
                super::super::accounts::check_username(&name).is_ok(),
                "{name}"
            );
        }
        assert_eq!(clean_aff(" AbC123 "), Some("AbC123"));
        assert_eq!(clean_aff("a;b"), None);
    }
}
