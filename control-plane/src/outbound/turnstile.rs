//! Human verification with Cloudflare Turnstile: the widget's response token is checked with the
//! siteverify endpoint (configurable, so tests and air-gapped installs can point elsewhere).

use std::time::Duration;

use serde::Deserialize;

/// The public siteverify endpoint.
pub const DEFAULT_VERIFY_URL: &str = "https://challenges.cloudflare.com/turnstile/v0/siteverify";

#[derive(Debug, Deserialize)]
struct VerifyReply {
    success: bool,
}

/// Why a token was not confirmed.
#[derive(Debug, thiserror::Error)]
pub enum TurnstileError {
    #[error("verification request failed: {0}")]
    Request(String),
    #[error("the token was rejected")]
    Rejected,
}

/// Confirms a widget token with `verify_url`.
pub async fn verify(
    client: &reqwest::Client,
    verify_url: &str,
    secret: &str,
    token: &str,
    remote_ip: Option<std::net::IpAddr>,
) -> Result<(), TurnstileError> {
    let mut form = vec![
        ("secret", secret.to_string()),
        ("response", token.to_string()),
    ];
    if let Some(ip) = remote_ip {
        form.push(("remoteip", ip.to_string()));
    }
    let reply = client
        .post(verify_url)
        .timeout(Duration::from_secs(10))
        .form(&form)
        .send()
        .await
        .map_err(|e| TurnstileError::Request(e.without_url().to_string()))?
        .json::<VerifyReply>()
        .await
        .map_err(|e| TurnstileError::Request(e.without_url().to_string()))?;
    if reply.success {
        Ok(())
    } else {
        Err(TurnstileError::Rejected)
    }
}
