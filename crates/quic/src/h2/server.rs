//! `ramp serve --h2`: `/bytes/N` and `--root` files over HTTP/2 + TLS on
//! TCP, with the request rules of `crate::route`; clients that ask for
//! `http/1.1` by ALPN (or for nothing) get HTTP/1.1 ([`super::http1`]).
//! Every connection can run a chosen kernel TCP congestion controller
//! (`TCP_CONGESTION`, tcp(7)).
//!
//! Memory is bounded by construction:
//! - at most [`MAX_CONNECTIONS`] connections (more are closed at accept);
//! - at most [`MAX_STREAMS`] concurrent streams per connection (RFC 9113
//!   §6.5.2 `SETTINGS_MAX_CONCURRENT_STREAMS`);
//! - per stream, one chunk read from the body plus at most
//!   [`SEND_BUFFER_BYTES`] queued in h2: a body is handed to h2 only as the
//!   peer's flow-control window (RFC 9113 §5.2) grants capacity, so a
//!   client that stops reading stops the server reading the body.

use std::future::poll_fn;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ::h2::server::SendResponse;
use ::h2::Reason;
use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_rustls::TlsAcceptor;

use crate::body::CHUNK_BYTES;
use crate::route::{self, Chunks};
use crate::tls::Identity;

/// An error of the HTTP/2 server.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// Connections served at once; more are closed right after accept.
pub const MAX_CONNECTIONS: usize = 512;

/// `SETTINGS_MAX_CONCURRENT_STREAMS` advertised (RFC 9113 §6.5.2).
pub const MAX_STREAMS: u32 = 100;

/// Bytes h2 may queue per stream beyond what the socket took.
pub const SEND_BUFFER_BYTES: usize = CHUNK_BYTES;

/// `SETTINGS_MAX_HEADER_LIST_SIZE` advertised (RFC 9113 §6.5.2): a GET
/// needs far less, and h2's default (16 MiB) is memory a client could pin.
pub const MAX_HEADER_LIST_BYTES: u32 = 64 * 1024;

/// A TLS handshake must finish within this long.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Flow-control windows the server advertises for what it receives
/// (requests only; RFC 9113 §6.9.2 default is 65 535).
const RECEIVE_WINDOW_BYTES: u32 = 1 << 20;

/// How the HTTP/2 server is set up.
pub struct H2Config {
    /// TCP address to listen on.
    pub listen: SocketAddr,
    /// Certificate and key.
    pub identity: Identity,
    /// Directory served (besides `/bytes/N`).
    pub root: Option<PathBuf>,
    /// Kernel TCP congestion controller of every connection (`cubic`,
    /// `reno`, `bbr`, ...; tcp(7) `TCP_CONGESTION`); `None`: the system's
    /// default (`net.ipv4.tcp_congestion_control`).
    pub tcp_cc: Option<String>,
}

/// A snapshot of the server's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct H2Counters {
    /// Connections accepted.
    pub connections: u64,
    /// Connections refused because [`MAX_CONNECTIONS`] were open.
    pub connections_refused: u64,
    /// Responses completely handed to h2 (any status).
    pub requests_ok: u64,
    /// Responses that failed part-way (reset, connection lost, file error).
    pub requests_failed: u64,
}

#[derive(Default)]
struct Counters {
    connections: AtomicU64,
    connections_refused: AtomicU64,
    requests_ok: AtomicU64,
    requests_failed: AtomicU64,
}

struct Shared {
    acceptor: TlsAcceptor,
    root: Option<PathBuf>,
    tcp_cc: Option<String>,
    counters: Counters,
    slots: Arc<Semaphore>,
}

/// A bound, not yet running HTTP/2 server.
pub struct H2Server {
    listener: TcpListener,
    shared: Arc<Shared>,
}

/// Reads a running server's counters.
#[derive(Clone)]
pub struct H2Handle {
    shared: Arc<Shared>,
}

impl H2Handle {
    /// The counters so far.
    pub fn counters(&self) -> H2Counters {
        let c = &self.shared.counters;
        H2Counters {
            connections: c.connections.load(Ordering::Relaxed),
            connections_refused: c.connections_refused.load(Ordering::Relaxed),
            requests_ok: c.requests_ok.load(Ordering::Relaxed),
            requests_failed: c.requests_failed.load(Ordering::Relaxed),
        }
    }
}

impl H2Server {
    /// Binds the TCP listener and prepares TLS. Must be called inside a
    /// tokio runtime.
    pub async fn bind(cfg: H2Config) -> Result<H2Server, Error> {
        let tls = super::tls::server_config(cfg.identity)?;
        let listener = TcpListener::bind(cfg.listen)
            .await
            .map_err(|e| format!("listen on tcp {}: {e}", cfg.listen))?;
        if let Some(name) = &cfg.tcp_cc {
            // Set on the listener first: an unknown or unloaded controller
            // is refused at start, not per connection.
            set_tcp_cc(&listener, name)?;
        }
        Ok(H2Server {
            listener,
            shared: Arc::new(Shared {
                acceptor: TlsAcceptor::from(Arc::new(tls)),
                root: cfg.root,
                tcp_cc: cfg.tcp_cc,
                counters: Counters::default(),
                slots: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
            }),
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// A handle to read counters while the server runs.
    pub fn handle(&self) -> H2Handle {
        H2Handle {
            shared: self.shared.clone(),
        }
    }

    /// Serves until `shutdown` completes. Open connections are dropped
    /// with the runtime.
    pub async fn run(self, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                accepted = self.listener.accept() => {
                    // Accept errors (EMFILE, a reset in the backlog) are
                    // per connection; keep listening.
                    let Ok((tcp, _peer)) = accepted else { continue };
                    let Ok(slot) = self.shared.slots.clone().try_acquire_owned() else {
                        self.shared.counters.connections_refused.fetch_add(1, Ordering::Relaxed);
                        continue;
                    };
                    let shared = self.shared.clone();
                    tokio::spawn(async move {
                        handle_connection(&shared, tcp).await;
                        drop(slot);
                    });
                }
                () = &mut shutdown => break,
            }
        }
    }
}

/// Sets the kernel TCP congestion controller of `sock` (tcp(7)
/// `TCP_CONGESTION`); the error names the controllers the kernel has.
fn set_tcp_cc(sock: &impl std::os::fd::AsFd, name: &str) -> Result<(), Error> {
    socket2::SockRef::from(sock)
        .set_tcp_congestion(name.as_bytes())
        .map_err(|e| {
            let have = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
                .unwrap_or_default();
            format!(
                "TCP congestion control {name:?}: {e} (this kernel has: {}; a missing one may need `modprobe tcp_{name}`)",
                have.trim()
            )
            .into()
        })
}

/// The kernel TCP congestion controller `sock` runs (tcp(7)
/// `TCP_CONGESTION`).
pub fn tcp_cc_of(sock: &impl std::os::fd::AsFd) -> std::io::Result<String> {
    let name = socket2::SockRef::from(sock).tcp_congestion()?;
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    Ok(String::from_utf8_lossy(&name[..end]).into_owned())
}

async fn handle_connection(shared: &Arc<Shared>, tcp: TcpStream) {
    shared.counters.connections.fetch_add(1, Ordering::Relaxed);
    // Small responses and the SETTINGS exchange must not wait for Nagle.
    let _ = tcp.set_nodelay(true);
    if let Some(name) = &shared.tcp_cc {
        // Linux hands a listener's controller to the sockets it accepts;
        // setting it again makes that independent of the kernel version.
        if set_tcp_cc(&tcp, name).is_err() {
            return;
        }
    }
    let tls = match tokio::time::timeout(HANDSHAKE_TIMEOUT, shared.acceptor.accept(tcp)).await {
        Ok(Ok(s)) => s,
        _ => return,
    };
    if tls.get_ref().1.alpn_protocol() != Some(super::tls::ALPN_H2) {
        let done = super::http1::serve_connection(tls, shared.root.as_deref()).await;
        let c = &shared.counters;
        c.requests_ok.fetch_add(done.ok, Ordering::Relaxed);
        c.requests_failed.fetch_add(done.failed, Ordering::Relaxed);
        return;
    }
    let handshake = ::h2::server::Builder::new()
        .max_concurrent_streams(MAX_STREAMS)
        .max_send_buffer_size(SEND_BUFFER_BYTES)
        .max_header_list_size(MAX_HEADER_LIST_BYTES)
        .initial_window_size(RECEIVE_WINDOW_BYTES)
        .initial_connection_window_size(RECEIVE_WINDOW_BYTES)
        .handshake::<_, Bytes>(tls);
    let Ok(Ok(mut conn)) = tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await else {
        return;
    };
    // `accept` also drives the connection (sends queued frames), so it is
    // polled until the peer goes away.
    while let Some(Ok((req, respond))) = conn.accept().await {
        let shared = shared.clone();
        tokio::spawn(async move {
            let counter = match handle_request(&shared, req, respond).await {
                Ok(()) => &shared.counters.requests_ok,
                Err(_) => &shared.counters.requests_failed,
            };
            counter.fetch_add(1, Ordering::Relaxed);
        });
    }
}

fn head_only(status: StatusCode) -> Result<Response<()>, String> {
    Response::builder()
        .status(status)
        .body(())
        .map_err(|e| e.to_string())
}

async fn handle_request(
    shared: &Shared,
    req: Request<::h2::RecvStream>,
    mut respond: SendResponse<Bytes>,
) -> Result<(), String> {
    let body = match route::route(req.method(), req.uri().path(), shared.root.as_deref()) {
        Ok(b) => b,
        Err(status) => {
            respond
                .send_response(head_only(status)?, true)
                .map_err(|e| e.to_string())?;
            return Ok(());
        }
    };
    let mut chunks = match Chunks::open(&body).await {
        Ok(c) => c,
        Err(e) => {
            let _ = respond.send_response(head_only(StatusCode::INTERNAL_SERVER_ERROR)?, true);
            return Err(e.to_string());
        }
    };
    let resp = Response::builder()
        .status(StatusCode::OK)
        .header(http::header::CONTENT_LENGTH, body.len())
        .header(http::header::CONTENT_TYPE, "application/octet-stream")
        .body(())
        .map_err(|e| e.to_string())?;
    let headers_only = req.method() == Method::HEAD || body.is_empty();
    let mut send = respond
        .send_response(resp, headers_only)
        .map_err(|e| e.to_string())?;
    if headers_only {
        return Ok(());
    }
    let result = async {
        while let Some(mut chunk) = chunks.next().await.map_err(|e| e.to_string())? {
            while !chunk.is_empty() {
                send.reserve_capacity(chunk.len());
                let granted = match poll_fn(|cx| send.poll_capacity(cx)).await {
                    Some(Ok(n)) => n,
                    Some(Err(e)) => return Err(e.to_string()),
                    None => return Err("stream closed by the peer".to_string()),
                };
                if granted == 0 {
                    tokio::task::yield_now().await;
                    continue;
                }
                let piece = chunk.split_to(granted.min(chunk.len()));
                let last = chunk.is_empty() && chunks.left_bytes() == 0;
                send.send_data(piece, last).map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }
    .await;
    if result.is_err() {
        send.send_reset(Reason::INTERNAL_ERROR);
    }
    result
}

/// Runs an HTTP/2 server on its own tokio runtime until Ctrl-C, SIGTERM or
/// `limit`; `on_ready` gets the bound address first. Returns the final
/// counters.
pub fn serve_blocking(
    cfg: H2Config,
    limit: Option<Duration>,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<H2Counters, Error> {
    let rt = crate::runtime::runtime()?;
    rt.block_on(async move {
        let server = H2Server::bind(cfg).await?;
        let stop = crate::runtime::StopSignals::install();
        on_ready(server.local_addr()?);
        let handle = server.handle();
        server.run(stop.or_after(limit)).await;
        Ok(handle.counters())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(tcp_cc: Option<&str>) -> H2Config {
        H2Config {
            listen: "127.0.0.1:0".parse().expect("address"),
            identity: Identity::self_signed().expect("identity"),
            root: None,
            tcp_cc: tcp_cc.map(str::to_string),
        }
    }

    #[tokio::test]
    async fn tcp_cc_reaches_the_accepted_socket() {
        // `reno` is built into every Linux kernel (tcp_cong.c).
        let server = H2Server::bind(config(Some("reno"))).await.expect("bind");
        assert_eq!(tcp_cc_of(&server.listener).expect("getsockopt"), "reno");
        let addr = server.local_addr().expect("addr");
        let client = TcpStream::connect(addr).await.expect("connect");
        let (accepted, _) = server.listener.accept().await.expect("accept");
        assert_eq!(tcp_cc_of(&accepted).expect("getsockopt"), "reno");
        drop(client);
    }

    #[tokio::test]
    async fn unknown_tcp_cc_refused_at_bind_naming_what_exists() {
        let Err(e) = H2Server::bind(config(Some("no-such-cc"))).await else {
            panic!("an unknown controller was accepted");
        };
        let msg = e.to_string();
        assert!(
            msg.contains("\"no-such-cc\"") && msg.contains("this kernel has"),
            "{msg}"
        );
    }
}
