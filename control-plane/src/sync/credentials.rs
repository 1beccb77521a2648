//! Gateway credentials: the sync token (configured, or generated into the data folder) and
//! the client certificate required under mTLS. Every gRPC call is checked against them; the
//! peer's address never counts.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::settings::Settings;

/// File in the data folder holding the generated sync token (owner-readable only).
pub const TOKEN_FILE: &str = "gateway-sync-token";

/// What a gateway must present.
#[derive(Clone)]
pub struct GatewayCredentials {
    /// SHA-256 of the sync token, when one is required.
    token_digest: Option<[u8; 32]>,
    /// A verified client certificate is required (mTLS).
    client_cert: bool,
    /// Where a generated token was written (for the start-up log).
    generated: Option<PathBuf>,
}

impl std::fmt::Debug for GatewayCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayCredentials")
            .field("token", &self.token_digest.map(|_| "<redacted>"))
            .field("client_cert", &self.client_cert)
            .finish()
    }
}

/// Why the credentials could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    #[error("sync token file {path}: {source}")]
    TokenFile {
        path: String,
        source: std::io::Error,
    },
}

/// Why a call was refused (logged; the gateway only hears "unauthenticated").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    MissingToken,
    WrongToken,
    MissingClientCertificate,
}

impl Refusal {
    /// Stable code (metric label).
    pub fn code(self) -> &'static str {
        match self {
            Refusal::MissingToken => "missing_token",
            Refusal::WrongToken => "wrong_token",
            Refusal::MissingClientCertificate => "missing_client_certificate",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::MissingToken => "no sync token presented",
            Refusal::WrongToken => "wrong sync token",
            Refusal::MissingClientCertificate => "no verified client certificate",
        }
    }
}

impl GatewayCredentials {
    /// From the settings: the configured token; else, unless mTLS is configured, the token
    /// kept in the data folder (generated on first start).
    pub fn resolve(settings: &Settings) -> Result<Self, CredentialsError> {
        let client_cert = settings.grpc_client_ca.is_some();
        let configured = settings
            .gateway_sync_token
            .as_ref()
            .map(|t| t.expose().trim())
            .filter(|t| !t.is_empty());
        if let Some(token) = configured {
            return Ok(Self::new(Some(token), client_cert));
        }
        if client_cert {
            return Ok(Self::new(None, true));
        }
        let path = settings.data_dir.join(TOKEN_FILE);
        let (token, generated) = load_or_generate(&path)?;
        let mut creds = Self::new(Some(&token), false);
        creds.generated = generated.then_some(path);
        Ok(creds)
    }

    /// Requires `token` (when given) and a client certificate (when `client_cert`).
    pub fn new(token: Option<&str>, client_cert: bool) -> Self {
        GatewayCredentials {
            token_digest: token.map(|t| Sha256::digest(t.as_bytes()).into()),
            client_cert,
            generated: None,
        }
    }

    /// The file a token was generated into at this start, if any.
    pub fn generated_token_file(&self) -> Option<&Path> {
        self.generated.as_deref()
    }

    /// Whether a call with this `authorization` header value and a verified client
    /// certificate (or none) may go through.
    pub fn check(&self, authorization: Option<&str>, has_client_cert: bool) -> Result<(), Refusal> {
        if self.client_cert && !has_client_cert {
            return Err(Refusal::MissingClientCertificate);
        }
        let Some(expected) = &self.token_digest else {
            return Ok(());
        };
        let given = authorization
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .ok_or(Refusal::MissingToken)?;
        let digest: [u8; 32] = Sha256::digest(given.as_bytes()).into();
        if bool::from(digest.ct_eq(expected)) {
            Ok(())
        } else {
            Err(Refusal::WrongToken)
        }
    }
}

/// Reads the token file, or creates it with a random token. Returns the token and whether
/// it was generated now.
fn load_or_generate(path: &Path) -> Result<(String, bool), CredentialsError> {
    let err = |source| CredentialsError::TokenFile {
        path: path.display().to_string(),
        source,
    };
    match std::fs::read_to_string(path) {
        Ok(token) if !token.trim().is_empty() => Ok((token.trim().to_owned(), false)),
        Ok(_) => Err(err(std::io::Error::other("the file is empty"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(err)?;
            }
            let token = crate::domain::secrets::random_alphanumeric(48);
            crate::state::write_private(path, &token).map_err(err)?;
            Ok((token, true))
        }
        Err(e) => Err(err(e)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn token_and_certificate_rules() {
        let token = GatewayCredentials::new(Some("s3cret"), false);
        assert_eq!(token.check(Some("Bearer s3cret"), false), Ok(()));
        assert_eq!(
            token.check(Some("Bearer s3cre"), false),
            Err(Refusal::WrongToken)
        );
        assert_eq!(
            token.check(Some("s3cret"), true),
            Err(Refusal::MissingToken)
        );
        assert_eq!(token.check(None, true), Err(Refusal::MissingToken));
        let mtls = GatewayCredentials::new(None, true);
        assert_eq!(mtls.check(None, true), Ok(()));
        assert_eq!(
            mtls.check(Some("Bearer x"), false),
            Err(Refusal::MissingClientCertificate)
        );
        let both = GatewayCredentials::new(Some("t"), true);
        assert_eq!(
            both.check(Some("Bearer t"), false),
            Err(Refusal::MissingClientCertificate)
        );
        assert_eq!(both.check(Some("Bearer t"), true), Ok(()));
        assert!(!format!("{token:?}").contains("s3cret"));
    }

    #[test]
    fn a_generated_token_is_kept_private_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = Settings::for_tests(dir.path().to_path_buf(), None);
        settings.gateway_sync_token = None;
        let first = GatewayCredentials::resolve(&settings).unwrap();
        let path = dir.path().join(TOKEN_FILE);
        assert_eq!(first.generated_token_file(), Some(path.as_path()));
        let token = std::fs::read_to_string(&path).unwrap();
        assert_eq!(token.len(), 48);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "only the owner may read the token");
        }
        let again = GatewayCredentials::resolve(&settings).unwrap();
        assert!(again.generated_token_file().is_none());
        assert_eq!(again.check(Some(&format!("Bearer {token}")), false), Ok(()));
        settings.grpc_client_ca = Some(dir.path().join("ca.pem"));
        settings.gateway_sync_token = Some("given".into());
        let given = GatewayCredentials::resolve(&settings).unwrap();
        assert_eq!(given.check(Some("Bearer given"), true), Ok(()));
        assert_eq!(
            given.check(Some(&format!("Bearer {token}")), true),
            Err(Refusal::WrongToken)
        );
    }
}
