//! TLS for the gateways' gRPC listener (rustls): the server certificate, optional client
//! certificate verification (mTLS), and an axum listener that completes handshakes off the
//! accept loop and logs every refused one with its reason.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use sha2::{Digest, Sha256};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

/// A handshake that takes longer is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Why TLS could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("{what} {path}: {source}")]
    Pem {
        what: &'static str,
        path: String,
        source: rustls::pki_types::pem::Error,
    },
    #[error("{what} {path}: no PEM block found")]
    Empty { what: &'static str, path: String },
    #[error("TLS setup: {0}")]
    Rustls(#[from] rustls::Error),
    #[error("client CA: {0}")]
    Verifier(#[from] rustls::server::VerifierBuilderError),
}

fn certs(what: &'static str, path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let pem_err = |source| TlsError::Pem {
        what,
        path: path.display().to_string(),
        source,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(pem_err)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(pem_err)?;
    if certs.is_empty() {
        return Err(TlsError::Empty {
            what,
            path: path.display().to_string(),
        });
    }
    Ok(certs)
}

/// The server configuration: certificate chain and key, and, with `client_ca`, required
/// client certificates signed by it. Speaks HTTP/2 only (gRPC).
pub fn server_config(
    cert: &Path,
    key: &Path,
    client_ca: Option<&Path>,
) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let chain = certs("certificate", cert)?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(|source| TlsError::Pem {
        what: "private key",
        path: key.display().to_string(),
        source,
    })?;
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()?;
    let builder = match client_ca {
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for c in certs("client CA", ca)? {
                roots.add(c)?;
            }
            let verifier =
                WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider).build()?;
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    let mut config = builder.with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(Arc::new(config))
}

/// Who is on the other end of a gRPC connection.
#[derive(Debug, Clone)]
pub struct GrpcPeer {
    pub addr: SocketAddr,
    /// SHA-256 (hex, first 16 bytes) of the verified client certificate, under mTLS.
    pub client_cert: Option<String>,
}

impl Connected<IncomingStream<'_, TlsListener>> for GrpcPeer {
    fn connect_info(stream: IncomingStream<'_, TlsListener>) -> Self {
        stream.remote_addr().clone()
    }
}

impl Connected<IncomingStream<'_, TcpListener>> for GrpcPeer {
    fn connect_info(stream: IncomingStream<'_, TcpListener>) -> Self {
        GrpcPeer {
            addr: *stream.remote_addr(),
            client_cert: None,
        }
    }
}

/// Accepts TCP connections and hands over those whose TLS handshake succeeded.
pub struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<TcpStream>, GrpcPeer)>,
    local: SocketAddr,
}

impl TlsListener {
    /// Starts accepting on `tcp` with `config`.
    pub fn new(tcp: TcpListener, config: Arc<rustls::ServerConfig>) -> std::io::Result<Self> {
        let local = tcp.local_addr()?;
        let (tx, ready) = mpsc::channel(64);
        let acceptor = TlsAcceptor::from(config);
        tokio::spawn(async move {
            loop {
                let (stream, addr) = match tcp.accept().await {
                    Ok(pair) => pair,
                    Err(err) => {
                        tracing::warn!(error = %err, "gRPC accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                if tx.is_closed() {
                    return;
                }
                let (acceptor, tx) = (acceptor.clone(), tx.clone());
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => {
                            let client_cert = tls
                                .get_ref()
                                .1
                                .peer_certificates()
                                .and_then(|c| c.first())
                                .map(|c| hex::encode(&Sha256::digest(c.as_ref())[..16]));
                            let _ = tx.send((tls, GrpcPeer { addr, client_cert })).await;
                        }
                        Ok(Err(err)) => tracing::warn!(
                            peer = %addr,
                            error = %err,
                            "gateway TLS handshake refused"
                        ),
                        Err(_) => tracing::warn!(peer = %addr, "gateway TLS handshake timed out"),
                    }
                });
            }
        });
        Ok(TlsListener { ready, local })
    }
}

impl Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = GrpcPeer;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(pair) => pair,
            // The accept task ends only with the runtime.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(GrpcPeer {
            addr: self.local,
            client_cert: None,
        })
    }
}
