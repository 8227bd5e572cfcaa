//! `ramp serve`: an HTTP/3 server (h3 + h3-quinn) whose connections run a
//! ramp-cc controller, writing one stats record per request.
//!
//! Each connection is accepted with its own quinn `ServerConfig`, whose
//! controller factory carries a `crate::probe::ConnProbe`: that is how the request task
//! reads the controller's counters. Request streams go through
//! `crate::h3_tracked`, which tells when each response was completely
//! acknowledged.
//!
//! `ttlb` in a record runs from the moment the server has the request
//! headers (h3 `resolve_request` returned; the simulator's "first byte of
//! the request at the server") to the moment quinn reports every byte and
//! the FIN of the response stream acknowledged (`SendStream::stopped()`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use quinn::crypto::rustls::QuicServerConfig;

use crate::arrival::ArrivalLog;
use crate::choice::CcChoice;
use crate::stats::{PathLabels, StatsWriter};
use crate::tls::{self, Identity};
use crate::transport::transport_config;

mod connection;
mod qlog;
mod record;
mod request;
#[cfg(test)]
mod tests;

use connection::handle_connection;

/// An error of `ramp serve`, with what failed.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// How `ramp serve` is set up.
pub struct ServeConfig {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// The controller of every connection.
    pub cc: CcChoice,
    /// Certificate and key.
    pub identity: Identity,
    /// Directory served (besides `/bytes/N`).
    pub root: Option<PathBuf>,
    /// NDJSON stats file.
    pub stats: Option<PathBuf>,
    /// `path.*`, `seed` and `group` keys copied into every record.
    pub labels: PathLabels,
    /// A silent client is given up after this long (its request, if any,
    /// gets a record with an `error`).
    pub idle_timeout: Duration,
}

/// Who paces a connection's sends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SendPacing {
    /// The controller's `pacing_rate()`, through the adapter's gate
    /// (`crate::adapter::gate`), which charges each datagram of a GSO
    /// batch, with the pacer the arm names (`pacer=`): the simulator's
    /// leaky bucket unless the arm says `pacer=quicly` (then as
    /// [`SendPacing::Quicly`]) or `pacer=quinn` (then as
    /// [`SendPacing::Quinn`]).
    #[default]
    Controller,
    /// The controller's rate through the gate, by the simulator's model of
    /// quicly's pacer (`ramp_cc::QuiclyPacer`: whole-millisecond clock,
    /// bursts of 8–10 packets, grants of at least 2), whatever the arm
    /// names.
    Quicly,
    /// quinn 0.11's own pacer (`1.25 · window / srtt`, bursts of at least
    /// 10 packets): stock quinn, for reference.
    Quinn,
}

impl SendPacing {
    /// Every choice, in `--pacing`'s order.
    pub const ALL: [SendPacing; 3] = [
        SendPacing::Controller,
        SendPacing::Quicly,
        SendPacing::Quinn,
    ];
    /// The names `--pacing` takes.
    pub const NAMES: [&'static str; 3] = [
        Self::ALL[0].name(),
        Self::ALL[1].name(),
        Self::ALL[2].name(),
    ];

    /// The name `--pacing` takes for this choice.
    pub const fn name(self) -> &'static str {
        match self {
            SendPacing::Controller => "controller",
            SendPacing::Quicly => "quicly",
            SendPacing::Quinn => "quinn",
        }
    }

    /// The pacing a connection gets when the arm names `pacer` (its
    /// `pacer=` key): under [`SendPacing::Controller`] the arm's pacer, as
    /// the simulator runs it (`leaky` is the controller's leaky bucket);
    /// an explicit `quicly` or `quinn` stands.
    pub fn for_arm(self, pacer: Option<ramp_cc::PacerModel>) -> SendPacing {
        use ramp_cc::PacerModel;
        match (self, pacer) {
            (SendPacing::Controller, Some(PacerModel::Quicly)) => SendPacing::Quicly,
            (SendPacing::Controller, Some(PacerModel::Quinn)) => SendPacing::Quinn,
            (p, _) => p,
        }
    }
}

impl std::str::FromStr for SendPacing {
    type Err = String;
    fn from_str(s: &str) -> Result<SendPacing, String> {
        SendPacing::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown pacing {s:?}: expected one of {}",
                    SendPacing::NAMES.join(", ")
                )
            })
    }
}

impl std::fmt::Display for SendPacing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What time the controller is given for an ACK frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AckTiming {
    /// The kernel's receive time of the datagram that carried it
    /// (`SO_TIMESTAMPNS`, `crate::arrival`), as the simulator processes
    /// each ACK frame at its arrival.
    #[default]
    Kernel,
    /// quinn's: one time per endpoint wake-up, shared by every datagram
    /// read in it (stock quinn 0.11), for reference.
    Driver,
}

impl AckTiming {
    /// Every choice, in `--ack-timing`'s order.
    pub const ALL: [AckTiming; 2] = [AckTiming::Kernel, AckTiming::Driver];
    /// The names `--ack-timing` takes.
    pub const NAMES: [&'static str; 2] = [Self::ALL[0].name(), Self::ALL[1].name()];

    /// The name `--ack-timing` takes for this choice.
    pub const fn name(self) -> &'static str {
        match self {
            AckTiming::Kernel => "kernel",
            AckTiming::Driver => "driver",
        }
    }
}

impl std::str::FromStr for AckTiming {
    type Err = String;
    fn from_str(s: &str) -> Result<AckTiming, String> {
        AckTiming::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown ACK timing {s:?}: expected one of {}",
                    AckTiming::NAMES.join(", ")
                )
            })
    }
}

impl std::fmt::Display for AckTiming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Settings of [`Server::bind_with`] beyond [`ServeConfig`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServeOptions {
    /// UDP payload size of every packet, fixed (PMTU discovery stays off);
    /// `None`: `crate::transport::DATAGRAM_BYTES` (1200). Larger packets
    /// cut the per-packet costs (packet building, AEAD calls, ACKs,
    /// syscalls) on paths known to carry them, such as loopback. Capped
    /// by the client's `max_udp_payload_size` (RFC 9000 §18.2); on Linux,
    /// sizes over 6550 lose packets because quinn 0.11 puts up to 10
    /// packets in one GSO send, which must fit 64 KiB.
    pub datagram_bytes: Option<u16>,
    /// Without a fixed `datagram_bytes`: run path MTU discovery (quinn's
    /// DPLPMTUD, RFC 8899 / RFC 9000 §14.3, from 1200 bytes up to
    /// `crate::transport::PMTUD_UPPER_BOUND`) instead of staying at 1200. Off here, so library
    /// users (the real-vs-simulator benchmark, the end-to-end tests) compare
    /// packet for packet with the simulator; `ramp serve` turns it on
    /// unless told `--pmtud off`.
    pub pmtud: bool,
    /// Who paces sends (default: the controller).
    pub pacing: SendPacing,
    /// Which time ACK frames are given (default: the kernel's).
    pub ack_timing: AckTiming,
    /// Write quinn's qlog of every connection into this directory (which
    /// must exist): `conn-N.sqlog` for the N-th connection accepted, from
    /// 0 (the module `qlog` says what it holds).
    pub qlog: Option<PathBuf>,
}

/// Smallest and largest `datagram_bytes`: RFC 9000 §14 (every path carries
/// 1200) and §18.2 (`max_udp_payload_size` ≤ 65527).
pub const DATAGRAM_BYTES_RANGE: std::ops::RangeInclusive<u16> = 1200..=65527;

/// Bytes one connection may have unacknowledged or queued in quinn
/// (`TransportConfig::send_window`). The shared transport setting (1 GiB)
/// let responses run ahead of the network whenever a client grants large
/// flow-control windows: under `ramp load`'s h2load-sized windows the
/// server copied whole 32 MB responses into quinn (1.65 GB peak RSS for 10
/// connections × 10 streams) and the fresh memory cost page faults. 16 MiB
/// stays above the BDP of any emulated path (200 Mbit/s × 640 ms), so a
/// controller's window is not capped by it there.
pub const SEND_WINDOW_BYTES: u64 = 16 << 20;

/// Server-wide counters.
#[derive(Debug, Default)]
struct Counters {
    connections: AtomicU64,
    requests_ok: AtomicU64,
    requests_failed: AtomicU64,
    records: AtomicU64,
    record_errors: AtomicU64,
}

/// A snapshot of the server's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerCounters {
    /// Connections accepted (handshake started).
    pub connections: u64,
    /// Responses completely sent and acknowledged.
    pub requests_ok: u64,
    /// Requests that failed or were abandoned.
    pub requests_failed: u64,
    /// Records written.
    pub records: u64,
    /// Records that could not be written.
    pub record_errors: u64,
}

struct Shared {
    tls: Arc<QuicServerConfig>,
    cc: CcChoice,
    root: Option<PathBuf>,
    stats: Option<StatsWriter>,
    labels: PathLabels,
    idle_timeout: Duration,
    datagram_bytes: Option<u16>,
    pmtud: bool,
    pacing: SendPacing,
    /// The socket's receive times, with [`AckTiming::Kernel`].
    arrivals: Option<Arc<ArrivalLog>>,
    /// Directory of the per-connection qlogs.
    qlog: Option<PathBuf>,
    counters: Counters,
    conn_seq: AtomicU64,
    /// Tests only: a connection's first record waits until this many
    /// requests have ended (0: it does not wait), as a busy machine may
    /// make it.
    #[cfg(test)]
    hold_first_record: AtomicU64,
}

/// A bound, not yet running server.
pub struct Server {
    endpoint: quinn::Endpoint,
    shared: Arc<Shared>,
}

impl Server {
    /// Binds the UDP socket and prepares TLS. Must be called inside a tokio
    /// runtime.
    pub fn bind(cfg: ServeConfig) -> Result<Server, Error> {
        Server::bind_with(cfg, ServeOptions::default())
    }

    /// [`Server::bind`] with [`ServeOptions`].
    pub fn bind_with(cfg: ServeConfig, opts: ServeOptions) -> Result<Server, Error> {
        let socket = bind_udp(cfg.listen)?;
        Server::on_socket(socket, cfg, opts)
    }

    /// [`Server::bind_with`] on a UDP socket the caller has bound, which
    /// the server takes over (`cfg.listen` then only names it in errors).
    /// A caller that chose the port for a reason (`ramp serve --h2` on port
    /// 0: one number free for UDP and TCP) keeps it this way: letting go of
    /// its socket for the server to bind the number again would leave a
    /// gap in which another process can take the port. Must be called
    /// inside a tokio runtime.
    pub fn on_socket(
        socket: std::net::UdpSocket,
        cfg: ServeConfig,
        opts: ServeOptions,
    ) -> Result<Server, Error> {
        if let Some(n) = opts.datagram_bytes {
            if !DATAGRAM_BYTES_RANGE.contains(&n) {
                return Err(format!(
                    "datagram size {n} is outside {}..={} bytes (RFC 9000 §14, §18.2)",
                    DATAGRAM_BYTES_RANGE.start(),
                    DATAGRAM_BYTES_RANGE.end()
                )
                .into());
            }
        }
        let tls = Arc::new(QuicServerConfig::try_from(tls::server_config(
            cfg.identity,
        )?)?);
        let stats = match &cfg.stats {
            Some(p) => Some(StatsWriter::create(p)?),
            None => None,
        };
        // The endpoint's default config is never used: every connection
        // is accepted with its own (`accept_with`).
        let mut default_cfg = quinn::ServerConfig::with_crypto(tls.clone());
        default_cfg.transport_config(Arc::new(transport_config(None, cfg.idle_timeout)));
        let listen_err = |e: std::io::Error| format!("listen on {}: {e}", cfg.listen);
        let (endpoint, arrivals) = match opts.ack_timing {
            AckTiming::Kernel => {
                let bound = crate::arrival::wrap(socket).map_err(listen_err)?;
                let endpoint = quinn::Endpoint::new_with_abstract_socket(
                    quinn::EndpointConfig::default(),
                    Some(default_cfg),
                    bound.socket,
                    bound.runtime,
                )
                .map_err(listen_err)?;
                (endpoint, Some(bound.log))
            }
            // What `quinn::Endpoint::server` does after binding.
            AckTiming::Driver => (
                quinn::Endpoint::new(
                    quinn::EndpointConfig::default(),
                    Some(default_cfg),
                    socket,
                    Arc::new(quinn::TokioRuntime),
                )
                .map_err(listen_err)?,
                None,
            ),
        };
        Ok(Server {
            endpoint,
            shared: Arc::new(Shared {
                tls,
                cc: cfg.cc,
                root: cfg.root,
                stats,
                labels: cfg.labels,
                idle_timeout: cfg.idle_timeout,
                datagram_bytes: opts.datagram_bytes,
                pmtud: opts.pmtud,
                pacing: opts.pacing,
                arrivals,
                qlog: opts.qlog,
                counters: Counters::default(),
                conn_seq: AtomicU64::new(0),
                #[cfg(test)]
                hold_first_record: AtomicU64::new(0),
            }),
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.endpoint.local_addr()
    }

    /// A handle to read counters while the server runs.
    pub fn handle(&self) -> ServerHandle {
        ServerHandle {
            shared: self.shared.clone(),
        }
    }

    /// Serves until `shutdown` completes, then closes every connection.
    pub async fn run(self, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                incoming = self.endpoint.accept() => {
                    let Some(incoming) = incoming else { break };
                    let shared = self.shared.clone();
                    tokio::spawn(async move { handle_connection(shared, incoming).await });
                }
                () = &mut shutdown => break,
            }
        }
        self.endpoint.close(quinn::VarInt::from_u32(0), b"shutdown");
        let _ = tokio::time::timeout(Duration::from_secs(2), self.endpoint.wait_idle()).await;
    }
}

/// Reads a running server's counters.
#[derive(Clone)]
pub struct ServerHandle {
    shared: Arc<Shared>,
}

impl ServerHandle {
    /// The counters so far.
    pub fn counters(&self) -> ServerCounters {
        let c = &self.shared.counters;
        ServerCounters {
            connections: c.connections.load(Ordering::Relaxed),
            requests_ok: c.requests_ok.load(Ordering::Relaxed),
            requests_failed: c.requests_failed.load(Ordering::Relaxed),
            records: c.records.load(Ordering::Relaxed),
            record_errors: c.record_errors.load(Ordering::Relaxed),
        }
    }
}

/// Binds `addr` for a server, naming it in the error.
fn bind_udp(addr: SocketAddr) -> Result<std::net::UdpSocket, Error> {
    std::net::UdpSocket::bind(addr).map_err(|e| format!("listen on {addr}: {e}").into())
}

/// Runs a server on its own tokio runtime until Ctrl-C, SIGTERM or `limit`;
/// `on_ready` gets the bound address first. Returns the final counters.
pub fn serve_blocking(
    cfg: ServeConfig,
    limit: Option<Duration>,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<ServerCounters, Error> {
    serve_blocking_with(cfg, ServeOptions::default(), limit, on_ready)
}

/// [`serve_blocking`] with [`ServeOptions`].
pub fn serve_blocking_with(
    cfg: ServeConfig,
    opts: ServeOptions,
    limit: Option<Duration>,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<ServerCounters, Error> {
    let socket = bind_udp(cfg.listen)?;
    serve_blocking_on(socket, cfg, opts, limit, on_ready)
}

/// [`serve_blocking_with`] on a UDP socket the caller has bound
/// ([`Server::on_socket`] says why).
pub fn serve_blocking_on(
    socket: std::net::UdpSocket,
    cfg: ServeConfig,
    opts: ServeOptions,
    limit: Option<Duration>,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<ServerCounters, Error> {
    let rt = crate::runtime::runtime()?;
    rt.block_on(async move {
        let server = Server::on_socket(socket, cfg, opts)?;
        // Caught from before the `listening on` line `on_ready` prints.
        let stop = crate::runtime::StopSignals::install();
        on_ready(server.local_addr()?);
        let handle = server.handle();
        server.run(stop.or_after(limit)).await;
        Ok(handle.counters())
    })
}
