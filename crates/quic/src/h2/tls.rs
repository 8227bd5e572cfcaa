//! rustls configurations for HTTP/2: the HTTP/3 ones of `crate::tls`
//! (same certificate, same `--insecure` verifier) with ALPN `h2`.

use crate::tls::{self, Identity, TlsError, Trust};

/// ALPN for HTTP/2 over TLS (RFC 9113 §3.2).
pub const ALPN_H2: &[u8] = b"h2";

/// A copy of an identity, so one certificate serves HTTP/3 and HTTP/2.
pub fn clone_identity(id: &Identity) -> Identity {
    Identity {
        chain: id.chain.clone(),
        key: id.key.clone_key(),
    }
}

/// ALPN for HTTP/1.1 (RFC 7301 §6).
pub const ALPN_HTTP11: &[u8] = b"http/1.1";

/// The server configuration, offering `h2`, then `http/1.1`
/// ([`super::http1`]); rustls picks the server's first that the client
/// offers.
pub fn server_config(id: Identity) -> Result<rustls::ServerConfig, TlsError> {
    let mut cfg = tls::server_config(id)?;
    cfg.alpn_protocols = vec![ALPN_H2.to_vec(), ALPN_HTTP11.to_vec()];
    Ok(cfg)
}

/// The client configuration, asking for `h2`.
pub fn client_config(trust: &Trust) -> Result<rustls::ClientConfig, TlsError> {
    let mut cfg = tls::client_config(trust)?;
    cfg.alpn_protocols = vec![ALPN_H2.to_vec()];
    Ok(cfg)
}
