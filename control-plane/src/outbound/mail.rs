//! Sending email over SMTP with the `SMTP*` options (implicit TLS when `SMTPSSLEnabled`,
//! otherwise STARTTLS when the server offers it).

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::domain::options::Options;

/// Why an email could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("SMTP is not configured")]
    NotConfigured,
    #[error("invalid address: {0}")]
    Address(String),
    #[error("building the message: {0}")]
    Build(String),
    #[error("SMTP: {0}")]
    Smtp(String),
}

/// An email to send.
pub struct Email<'a> {
    pub to: &'a str,
    pub subject: String,
    pub html: String,
}

/// The sender address: `SMTPFrom`, else `SMTPAccount`.
fn sender(options: &Options) -> &str {
    match options.get("SMTPFrom").trim() {
        "" => options.get("SMTPAccount").trim(),
        from => from,
    }
}

/// Whether a server and a sender are configured, so mail can be attempted at all.
pub fn is_configured(options: &Options) -> bool {
    !options.get("SMTPServer").trim().is_empty() && !sender(options).is_empty()
}

/// Sends one email with the configured SMTP server.
pub async fn send(options: &Options, email: Email<'_>) -> Result<(), MailError> {
    let server = options.get("SMTPServer").trim();
    let account = options.get("SMTPAccount").trim();
    let from = sender(options);
    if !is_configured(options) {
        return Err(MailError::NotConfigured);
    }
    let port = u16::try_from(options.i64("SMTPPort")).unwrap_or(587);
    let from_name = options.get("SystemName");
    let message = Message::builder()
        .from(
            format!("{from_name} <{from}>")
                .parse()
                .map_err(|e| MailError::Address(format!("{e}")))?,
        )
        .to(email
            .to
            .parse()
            .map_err(|e| MailError::Address(format!("{e}")))?)
        .subject(email.subject)
        .header(ContentType::TEXT_HTML)
        .body(email.html)
        .map_err(|e| MailError::Build(e.to_string()))?;

    let tls_params =
        TlsParameters::new(server.to_string()).map_err(|e| MailError::Smtp(e.to_string()))?;
    let tls = if options.bool("SMTPSSLEnabled") {
        Tls::Wrapper(tls_params)
    } else {
        Tls::Opportunistic(tls_params)
    };
    let mut transport = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(server)
        .port(port)
        .tls(tls)
        .timeout(Some(Duration::from_secs(15)));
    if !account.is_empty() {
        transport = transport.credentials(Credentials::new(
            account.to_string(),
            options.get("SMTPToken").to_string(),
        ));
    }
    transport
        .build()
        .send(message)
        .await
        .map_err(|e| MailError::Smtp(e.to_string()))?;
    Ok(())
}
