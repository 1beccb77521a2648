//! The gateway's link to the control plane: the gRPC channel (plain, TLS with a CA file, or
//! mTLS with a client certificate) and the credential every call carries (the sync token).

use std::path::{Path, PathBuf};
use std::time::Duration;

use tonic::service::Interceptor;
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};

/// How to reach and authenticate to the control plane.
#[derive(Clone, Default)]
pub struct LinkConfig {
    /// `http://…` or `https://…`.
    pub url: String,
    /// The shared sync token (`GATEWAY_SYNC_TOKEN` on both sides).
    pub token: Option<String>,
    /// PEM CA certificates that sign the control plane's certificate (default: public roots).
    pub ca_file: Option<PathBuf>,
    /// PEM client certificate and key: the gateway's identity under mTLS.
    pub client_cert: Option<(PathBuf, PathBuf)>,
}

impl std::fmt::Debug for LinkConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkConfig")
            .field("url", &self.url)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("ca_file", &self.ca_file)
            .field("client_cert", &self.client_cert)
            .finish()
    }
}

/// Why the link cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("bad control plane URL {0}")]
    Url(String),
    #[error(
        "no credential for the control plane: set GATEWAY_SYNC_TOKEN (--sync-token), \
         --sync-token-file, or --client-cert and --client-key (mTLS)"
    )]
    NoCredential,
    #[error("--control-plane-ca and --client-cert need an https:// control plane URL")]
    TlsNeedsHttps,
    #[error("{path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("TLS to the control plane: {0}")]
    Tls(#[from] tonic::transport::Error),
}

fn read(path: &Path) -> Result<Vec<u8>, LinkError> {
    std::fs::read(path).map_err(|source| LinkError::Read {
        path: path.display().to_string(),
        source,
    })
}

/// Reads a sync token file, waiting up to `wait` for it to appear (the embedded control plane
/// writes it at its first start, next to a gateway starting at the same time).
pub fn read_token_file(path: &Path, wait: Duration) -> Result<String, LinkError> {
    let start = std::time::Instant::now();
    loop {
        match std::fs::read_to_string(path) {
            Ok(token) if !token.trim().is_empty() => return Ok(token.trim().to_owned()),
            Ok(_) | Err(_) if start.elapsed() < wait => {
                std::thread::sleep(Duration::from_millis(100));
            }
            Ok(_) => {
                return Err(LinkError::Read {
                    path: path.display().to_string(),
                    source: std::io::Error::other("the file is empty"),
                });
            }
            Err(source) => {
                return Err(LinkError::Read {
                    path: path.display().to_string(),
                    source,
                });
            }
        }
    }
}

/// The control plane's address with its TLS and keep-alive settings, and the interceptor that
/// authenticates every call. [`Endpoint::connect_lazy`] makes a channel from it (connected when
/// first used, reconnecting by itself), driven on the runtime it is called on.
pub fn endpoint(config: &LinkConfig) -> Result<(Endpoint, Auth), LinkError> {
    let token = config.token.as_deref().filter(|t| !t.is_empty());
    if token.is_none() && config.client_cert.is_none() {
        return Err(LinkError::NoCredential);
    }
    let mut endpoint = Endpoint::from_shared(config.url.clone())
        .map_err(|_| LinkError::Url(config.url.clone()))?
        .connect_timeout(Duration::from_secs(3))
        .http2_keep_alive_interval(Duration::from_secs(20))
        .keep_alive_while_idle(true);
    let https = config.url.starts_with("https://");
    if !https && (config.ca_file.is_some() || config.client_cert.is_some()) {
        return Err(LinkError::TlsNeedsHttps);
    }
    if https {
        let mut tls = ClientTlsConfig::new();
        tls = match &config.ca_file {
            Some(ca) => tls.ca_certificate(Certificate::from_pem(read(ca)?)),
            None => tls.with_webpki_roots(),
        };
        if let Some((cert, key)) = &config.client_cert {
            tls = tls.identity(Identity::from_pem(read(cert)?, read(key)?));
        }
        endpoint = endpoint.tls_config(tls)?;
    }
    Ok((endpoint, Auth::new(token)))
}

/// Adds `authorization: Bearer <token>` when a sync token is configured.
#[derive(Clone)]
pub struct Auth(Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>);

impl Auth {
    /// From the shared secret (empty: none).
    pub fn new(token: Option<&str>) -> Auth {
        Auth(
            token
                .filter(|t| !t.is_empty())
                .and_then(|t| format!("Bearer {t}").parse().ok()),
        )
    }
}

impl Interceptor for Auth {
    fn call(&mut self, mut req: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(v) = &self.0 {
            req.metadata_mut().insert("authorization", v.clone());
        }
        Ok(req)
    }
}

/// An error with its chain of causes, for log lines that say why (a TLS failure is several
/// levels down a transport error).
pub fn describe(err: &(dyn std::error::Error + 'static)) -> String {
    let mut out = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_credential_is_required_and_tls_files_need_https() {
        let plain = LinkConfig {
            url: "http://127.0.0.1:1".into(),
            ..Default::default()
        };
        assert!(matches!(endpoint(&plain), Err(LinkError::NoCredential)));
        let with_ca = LinkConfig {
            token: Some("t".into()),
            ca_file: Some("/nonexistent".into()),
            ..plain.clone()
        };
        assert!(matches!(endpoint(&with_ca), Err(LinkError::TlsNeedsHttps)));
        let missing_ca = LinkConfig {
            url: "https://127.0.0.1:1".into(),
            ..with_ca
        };
        assert!(matches!(endpoint(&missing_ca), Err(LinkError::Read { .. })));
        let secret = LinkConfig {
            token: Some("s3cret".into()),
            ..plain
        };
        assert!(!format!("{secret:?}").contains("s3cret"));
    }

    #[test]
    fn a_token_file_is_trimmed_and_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                std::fs::write(path, "abc\n").unwrap();
            })
        };
        assert_eq!(
            read_token_file(&path, Duration::from_secs(5)).unwrap(),
            "abc"
        );
        writer.join().unwrap();
        let missing = dir.path().join("missing");
        assert!(read_token_file(&missing, Duration::from_millis(50)).is_err());
    }
}
