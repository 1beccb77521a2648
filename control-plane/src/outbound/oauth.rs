//! Calls to sign-in providers: exchanging an authorization code for a token and asking who it
//! belongs to (GitHub, LinuxDO, any OpenID Connect provider), OIDC discovery, and the WeChat
//! server's code check. Every call goes through the SSRF-guarded client.

use serde_json::Value;

use super::guard::{JsonAnswer, Outbound, OutboundError};
use crate::domain::oauth::{ProviderAccount, valid_provider_id};
use crate::domain::options::Options;
use crate::settings::OAuthEndpoints;

/// Why a provider did not vouch for an account.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// The provider is switched on but not fully configured.
    #[error("not configured: {0}")]
    NotConfigured(&'static str),
    /// The call could not be made or failed on the way.
    #[error(transparent)]
    Outbound(#[from] OutboundError),
    /// The provider refused (a used or wrong code, a wrong client secret) or answered
    /// something that is not an account.
    #[error("{0}")]
    Refused(String),
}

/// The endpoints and client credentials of one OAuth2 code exchange.
struct CodeFlow<'a> {
    token_url: &'a str,
    user_url: &'a str,
    client_id: &'a str,
    client_secret: &'a str,
    /// Sent with the code when the provider checks it (OIDC, LinuxDO).
    redirect_uri: Option<&'a str>,
    /// Whether the token request names its grant type (RFC 6749; GitHub's does not).
    standard: bool,
}

/// OpenID Connect endpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OidcEndpoints {
    pub token: String,
    pub user_info: String,
}

/// The account behind a GitHub sign-in code.
pub async fn github_account(
    out: &Outbound,
    endpoints: &OAuthEndpoints,
    options: &Options,
    code: &str,
) -> Result<ProviderAccount, ProviderError> {
    let flow = CodeFlow {
        token_url: &endpoints.oauth_github_token_url,
        user_url: &endpoints.oauth_github_user_url,
        client_id: required(options, "GitHubClientId")?,
        client_secret: required(options, "GitHubClientSecret")?,
        redirect_uri: None,
        standard: false,
    };
    let user = flow.run(out, code).await?;
    Ok(ProviderAccount {
        id: id_field(&user, "id")?,
        login: text(&user, "login"),
        display_name: text(&user, "name"),
        email: text(&user, "email"),
    })
}

/// The account behind a LinuxDO sign-in code; inactive or silenced accounts are refused.
pub async fn linuxdo_account(
    out: &Outbound,
    endpoints: &OAuthEndpoints,
    options: &Options,
    code: &str,
    redirect_uri: &str,
) -> Result<ProviderAccount, ProviderError> {
    let flow = CodeFlow {
        token_url: &endpoints.oauth_linuxdo_token_url,
        user_url: &endpoints.oauth_linuxdo_user_url,
        client_id: required(options, "LinuxDOClientId")?,
        client_secret: required(options, "LinuxDOClientSecret")?,
        redirect_uri: Some(redirect_uri),
        standard: true,
    };
    let user = flow.run(out, code).await?;
    if user.get("active").and_then(Value::as_bool) == Some(false)
        || user.get("silenced").and_then(Value::as_bool) == Some(true)
    {
        return Err(ProviderError::Refused(
            "the LinuxDO account is inactive or silenced".to_owned(),
        ));
    }
    Ok(ProviderAccount {
        id: id_field(&user, "id")?,
        login: text(&user, "username"),
        display_name: text(&user, "name"),
        email: String::new(),
    })
}

/// The account behind an OpenID Connect sign-in code (the userinfo endpoint's `sub`).
pub async fn oidc_account(
    out: &Outbound,
    options: &Options,
    code: &str,
    redirect_uri: &str,
) -> Result<ProviderAccount, ProviderError> {
    let endpoints = oidc_endpoints(out, options).await?;
    let flow = CodeFlow {
        token_url: &endpoints.token,
        user_url: &endpoints.user_info,
        client_id: required(options, "oidc.client_id")?,
        client_secret: required(options, "oidc.client_secret")?,
        redirect_uri: Some(redirect_uri),
        standard: true,
    };
    let user = flow.run(out, code).await?;
    let email = match user.get("email_verified").and_then(Value::as_bool) {
        Some(false) => String::new(),
        _ => text(&user, "email"),
    };
    Ok(ProviderAccount {
        id: id_field(&user, "sub")?,
        login: text(&user, "preferred_username"),
        display_name: text(&user, "name"),
        email,
    })
}

/// The token and userinfo endpoints: as configured, or (for those left empty) from the
/// discovery document at `oidc.well_known`.
pub async fn oidc_endpoints(
    out: &Outbound,
    options: &Options,
) -> Result<OidcEndpoints, ProviderError> {
    let mut endpoints = OidcEndpoints {
        token: options.get("oidc.token_endpoint").trim().to_owned(),
        user_info: options.get("oidc.user_info_endpoint").trim().to_owned(),
    };
    if endpoints.token.is_empty() || endpoints.user_info.is_empty() {
        let well_known = required(options, "oidc.well_known")?;
        let url = out.check_endpoint(well_known)?;
        let answer = out.call_json(|c| c.get(url)).await?;
        let doc = success_body(answer, "discovery")?;
        if endpoints.token.is_empty() {
            endpoints.token = text(&doc, "token_endpoint");
        }
        if endpoints.user_info.is_empty() {
            endpoints.user_info = text(&doc, "userinfo_endpoint");
        }
    }
    if endpoints.token.is_empty() || endpoints.user_info.is_empty() {
        return Err(ProviderError::NotConfigured("oidc.token_endpoint"));
    }
    Ok(endpoints)
}

/// The WeChat id behind a code shown by the WeChat server (`GET {server}/api/wechat/user?code=`
/// with the server's token in `Authorization`).
pub async fn wechat_id(
    out: &Outbound,
    options: &Options,
    code: &str,
) -> Result<String, ProviderError> {
    let server = required(options, "WeChatServerAddress")?.trim_end_matches('/');
    let token = required(options, "WeChatServerToken")?;
    let mut url = out.check_endpoint(&format!("{server}/api/wechat/user"))?;
    url.query_pairs_mut().append_pair("code", code);
    let answer = out
        .call_json(|c| c.get(url).header(reqwest::header::AUTHORIZATION, token))
        .await?;
    let body = success_body(answer, "WeChat server")?;
    if body.get("success").and_then(Value::as_bool) != Some(true) {
        return Err(ProviderError::Refused(
            body.get("message")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty())
                .unwrap_or("the WeChat server refused the code")
                .chars()
                .take(200)
                .collect(),
        ));
    }
    let id = text(&body, "data");
    if !valid_provider_id(&id) {
        return Err(ProviderError::Refused(
            "the WeChat server sent no account id".to_owned(),
        ));
    }
    Ok(id)
}

impl CodeFlow<'_> {
    /// Exchanges `code` for an access token, then fetches the user it belongs to.
    async fn run(&self, out: &Outbound, code: &str) -> Result<Value, ProviderError> {
        let token_url = out.check_endpoint(self.token_url)?;
        let mut form = vec![
            ("code", code),
            ("client_id", self.client_id),
            ("client_secret", self.client_secret),
        ];
        if self.standard {
            form.push(("grant_type", "authorization_code"));
        }
        if let Some(redirect_uri) = self.redirect_uri {
            form.push(("redirect_uri", redirect_uri));
        }
        let answer = out.call_json(|c| c.post(token_url).form(&form)).await?;
        let token_body = success_body(answer, "token endpoint")?;
        let token = text(&token_body, "access_token");
        if token.is_empty() {
            let reason = [
                text(&token_body, "error"),
                text(&token_body, "error_description"),
            ]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(": ");
            return Err(ProviderError::Refused(if reason.is_empty() {
                "the token endpoint sent no access token".to_owned()
            } else {
                reason.chars().take(200).collect()
            }));
        }
        let user_url = out.check_endpoint(self.user_url)?;
        let answer = out
            .call_json(|c| c.get(user_url).bearer_auth(&token))
            .await?;
        success_body(answer, "user endpoint")
    }
}

/// The option's value, or `NotConfigured` naming it.
fn required<'a>(options: &'a Options, key: &'static str) -> Result<&'a str, ProviderError> {
    let value = options.get(key).trim();
    if value.is_empty() {
        return Err(ProviderError::NotConfigured(key));
    }
    Ok(value)
}

/// A 2xx JSON object, or `Refused`.
fn success_body(answer: JsonAnswer, what: &str) -> Result<Value, ProviderError> {
    if !(200..300).contains(&answer.status) {
        return Err(ProviderError::Refused(format!(
            "the {what} answered status {}",
            answer.status
        )));
    }
    if !answer.body.is_object() {
        return Err(ProviderError::Refused(format!(
            "the {what} answered something other than a JSON object"
        )));
    }
    Ok(answer.body)
}

/// A string field (numbers written out), or empty.
fn text(body: &Value, key: &str) -> String {
    match body.get(key) {
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// The account id field, which must be present and storable.
fn id_field(body: &Value, key: &str) -> Result<String, ProviderError> {
    let id = text(body, key);
    if !valid_provider_id(&id) {
        return Err(ProviderError::Refused(format!(
            "the user endpoint sent no usable `{key}`"
        )));
    }
    Ok(id)
}
