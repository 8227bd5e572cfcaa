//! TLS for the HTTP/3 server and client: rustls with the *ring* provider,
//! ALPN `h3`, a self-signed certificate made at start (rcgen) or one loaded
//! from PEM files, and `--insecure`'s accept-anything verifier.

use std::path::Path;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// ALPN for HTTP/3 (RFC 9114 §3.1).
pub(crate) const ALPN_H3: &[u8] = b"h3";

/// A certificate chain and its key.
pub struct Identity {
    /// Leaf first.
    pub chain: Vec<CertificateDer<'static>>,
    /// The leaf's private key.
    pub key: PrivateKeyDer<'static>,
}

/// A TLS setup problem, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A PEM file could not be read or parsed.
    #[error("{path}: {why}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        why: String,
    },
    /// rcgen failed.
    #[error("self-signed certificate: {0}")]
    Generate(String),
    /// rustls refused the configuration.
    #[error("TLS configuration: {0}")]
    Config(String),
}

impl Identity {
    /// A fresh self-signed certificate for `localhost`, 127.0.0.1 and ::1.
    pub fn self_signed() -> Result<Identity, TlsError> {
        let names = vec![
            "localhost".to_string(),
            "127.0.0.1".to_string(),
            "::1".to_string(),
        ];
        let ck = rcgen::generate_simple_self_signed(names)
            .map_err(|e| TlsError::Generate(e.to_string()))?;
        Ok(Identity {
            chain: vec![ck.cert.der().clone()],
            key: PrivateKeyDer::Pkcs8(ck.signing_key.serialize_der().into()),
        })
    }

    /// A chain and key from PEM files.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Identity, TlsError> {
        let file_err = |p: &Path, why: String| TlsError::File {
            path: p.display().to_string(),
            why,
        };
        let cert_pem = read_pem(cert)?;
        let chain = rustls_pemfile::certs(&mut &cert_pem[..])
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| file_err(cert, format!("bad PEM: {e}")))?;
        if chain.is_empty() {
            return Err(file_err(cert, "no CERTIFICATE block".into()));
        }
        let key_pem = read_pem(key)?;
        let key_der = rustls_pemfile::private_key(&mut &key_pem[..])
            .map_err(|e| file_err(key, format!("bad PEM: {e}")))?
            .ok_or_else(|| file_err(key, "no PRIVATE KEY block".into()))?;
        Ok(Identity {
            chain,
            key: key_der,
        })
    }
}

/// The largest PEM file read (certificate chain, key or CA bundle). Debian's
/// whole system bundle, `/etc/ssl/certs/ca-certificates.crt`, is about
/// 220 kB; the cap refuses `/dev/zero` or a wrong file at once instead of
/// reading it whole.
pub(crate) const MAX_PEM_FILE_BYTES: u64 = 16 << 20;

/// A PEM file's bytes, at most [`MAX_PEM_FILE_BYTES`].
fn read_pem(path: &Path) -> Result<Vec<u8>, TlsError> {
    ramp_vocab::bounded_read::read_capped(path, MAX_PEM_FILE_BYTES, "a PEM file").map_err(|e| {
        TlsError::File {
            path: path.display().to_string(),
            why: e.to_string(),
        }
    })
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The server's rustls configuration (TLS 1.3 only, as QUIC requires).
pub(crate) fn server_config(id: Identity) -> Result<rustls::ServerConfig, TlsError> {
    let mut cfg = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| TlsError::Config(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(id.chain, id.key)
        .map_err(|e| TlsError::Config(e.to_string()))?;
    cfg.alpn_protocols = vec![ALPN_H3.to_vec()];
    cfg.max_early_data_size = 0;
    Ok(cfg)
}

/// How the client decides to trust the server.
#[derive(Clone, Debug)]
pub enum Trust {
    /// Accept any certificate (curl's `--insecure`).
    Insecure,
    /// Trust the CA certificates of this PEM file.
    CaFile(std::path::PathBuf),
}

/// The client's rustls configuration.
pub(crate) fn client_config(trust: &Trust) -> Result<rustls::ClientConfig, TlsError> {
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| TlsError::Config(e.to_string()))?;
    let mut cfg = match trust {
        Trust::Insecure => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AcceptAnyCert(provider())))
            .with_no_client_auth(),
        Trust::CaFile(path) => {
            let pem = read_pem(path)?;
            let mut roots = rustls::RootCertStore::empty();
            for c in rustls_pemfile::certs(&mut &pem[..]) {
                let c = c.map_err(|e| TlsError::File {
                    path: path.display().to_string(),
                    why: format!("bad PEM: {e}"),
                })?;
                roots.add(c).map_err(|e| TlsError::File {
                    path: path.display().to_string(),
                    why: e.to_string(),
                })?;
            }
            // An empty trust store would fail every handshake with a TLS
            // error that names neither the file nor the mistake.
            if roots.is_empty() {
                return Err(TlsError::File {
                    path: path.display().to_string(),
                    why: "holds no certificate (no PEM CERTIFICATE block); --cacert needs the \
                          certificate of the CA that signed the server's"
                        .into(),
                });
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
    };
    cfg.alpn_protocols = vec![ALPN_H3.to_vec()];
    Ok(cfg)
}

/// Accepts any server certificate but still checks the handshake
/// signatures, so the connection is at least consistent.
#[derive(Debug)]
struct AcceptAnyCert(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AcceptAnyCert {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_without_a_certificate_is_refused_naming_the_file() {
        let dir = std::env::temp_dir().join(format!("ramp-tls-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let key = dir.join("key.pem");
        std::fs::write(
            &key,
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        )
        .unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "").unwrap();
        for f in [&key, &empty] {
            let e = client_config(&Trust::CaFile(f.clone()))
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&f.display().to_string()) && e.contains("holds no certificate"),
                "{e}"
            );
        }
        let ca = dir.join("ca.pem");
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
        std::fs::write(&ca, cert.cert.pem()).unwrap();
        assert!(client_config(&Trust::CaFile(ca)).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
