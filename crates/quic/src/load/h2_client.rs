//! The HTTP/2 side of `ramp load`: one TCP + TLS connection per client,
//! the h2 crate on top.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::Uri;
use rustls::pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use super::{get_request, Exchange, FetchError, Progress};
use crate::h2::counting::CountingIo;
use crate::h2::tls::ALPN_H2;

/// Stream and connection receive windows: 2^30 − 1 bytes, h2load's
/// defaults (`-w 30 -W 30`; RFC 9113 §6.9.2 allows up to 2^31 − 1).
const RECEIVE_WINDOW_BYTES: u32 = (1 << 30) - 1;

/// An HTTP/2 connection of one client.
pub(super) struct H2Conn {
    send: ::h2::client::SendRequest<Bytes>,
    driver: tokio::task::JoinHandle<()>,
    rx_bytes: Arc<AtomicU64>,
    /// Client start to the end of the TLS handshake.
    pub handshake_done: Duration,
}

impl H2Conn {
    /// Connects, handshakes TLS (ALPN `h2`) and HTTP/2.
    pub(super) async fn connect(
        cfg: Arc<rustls::ClientConfig>,
        addr: SocketAddr,
        server_name: &str,
        t0: Instant,
    ) -> Result<H2Conn, String> {
        let tcp = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("tcp connect {addr}: {e}"))?;
        // Requests are small writes that must not wait for Nagle.
        let _ = tcp.set_nodelay(true);
        let name = ServerName::try_from(server_name.to_string())
            .map_err(|e| format!("server name {server_name}: {e}"))?;
        let tls = TlsConnector::from(cfg)
            .connect(name, tcp)
            .await
            .map_err(|e| format!("TLS handshake with {addr}: {e}"))?;
        if tls.get_ref().1.alpn_protocol() != Some(ALPN_H2) {
            return Err(format!("{addr} did not agree to HTTP/2 (ALPN h2)"));
        }
        let handshake_done = t0.elapsed();
        let rx_bytes = Arc::new(AtomicU64::new(0));
        let io = CountingIo::new(tls, rx_bytes.clone());
        let (send, conn) = ::h2::client::Builder::new()
            .initial_window_size(RECEIVE_WINDOW_BYTES)
            .initial_connection_window_size(RECEIVE_WINDOW_BYTES)
            .handshake::<_, Bytes>(io)
            .await
            .map_err(|e| format!("HTTP/2 setup with {addr}: {e}"))?;
        let driver = tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(H2Conn {
            send,
            driver,
            rx_bytes,
            handshake_done,
        })
    }

    /// A request slot on this connection.
    pub(super) fn sender(&self) -> H2Sender {
        H2Sender {
            send: self.send.clone(),
        }
    }

    /// HTTP/2 frame bytes received (after TLS).
    pub(super) fn rx_bytes(&self) -> u64 {
        self.rx_bytes.load(Ordering::Relaxed)
    }

    /// Drops the connection.
    pub(super) fn close(self) {
        drop(self.send);
        self.driver.abort();
    }
}

/// Sends requests on one HTTP/2 connection.
pub(super) struct H2Sender {
    send: ::h2::client::SendRequest<Bytes>,
}

impl H2Sender {
    /// GET `url`, read the whole body, returning flow-control credit as
    /// it is read.
    pub(super) async fn fetch(
        &mut self,
        url: &Uri,
        t0: Instant,
        progress: &Progress,
    ) -> Result<Exchange, FetchError> {
        let req = get_request(url)?;
        // `ready` waits while the server's SETTINGS_MAX_CONCURRENT_STREAMS
        // is reached.
        let mut send = self.send.clone().ready().await.map_err(|e| e.to_string())?;
        let (resp, _) = send.send_request(req, true).map_err(|e| e.to_string())?;
        let resp = resp.await.map_err(|e| e.to_string())?;
        let ttfb = t0.elapsed();
        let (parts, mut body) = resp.into_parts();
        let mut data_bytes = 0u64;
        while let Some(chunk) = body.data().await {
            let chunk = chunk.map_err(|e| e.to_string())?;
            let n = chunk.len();
            body.flow_control()
                .release_capacity(n)
                .map_err(|e| e.to_string())?;
            data_bytes += n as u64;
            progress.data_bytes.fetch_add(n as u64, Ordering::Relaxed);
        }
        Ok(Exchange::complete(
            parts.status,
            &parts.headers,
            data_bytes,
            ttfb,
        )?)
    }
}
