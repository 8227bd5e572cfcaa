//! `ramp serve`: an HTTP/3 server (h3 + h3-quinn) whose connections run a
//! ramp-cc controller, writing one stats record per request.
//!
//! Each connection is accepted with its own quinn `ServerConfig`, whose
//! controller factory carries a [`ConnProbe`]: that is how the request task
//! reads the controller's counters. Request streams go through
//! [`crate::h3_tracked`], which tells when each response was completely
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
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, Response, StatusCode};
use quinn::crypto::rustls::QuicServerConfig;
use serde_json::{Map, Value};

use crate::adapter::{ConnWake, RampFactory};
use crate::body;
use crate::cc::CcChoice;
use crate::h3_tracked::{AckTimes, SendEnd, TrackedBidi, TrackedConnection};
use crate::probe::{ConnProbe, ProbeSnapshot};
use crate::route::{self, Chunks};
use crate::stats::{ms, us, PathLabels, StatsWriter};
use crate::tls::{self, Identity};
use crate::transport::transport_config;
use ramp_cc::record_keys as k;

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
    /// ([`crate::adapter::gate`]), which charges each datagram of a GSO
    /// batch. What the simulator's leaky-bucket pacer models.
    #[default]
    Controller,
    /// quinn 0.11's own pacer (`1.25 · window / srtt`, bursts of at least
    /// 10 packets): stock quinn, for reference.
    Quinn,
}

impl SendPacing {
    /// Every choice, in `--pacing`'s order.
    pub const ALL: [SendPacing; 2] = [SendPacing::Controller, SendPacing::Quinn];
    /// The names `--pacing` takes.
    pub const NAMES: [&'static str; 2] = [Self::ALL[0].name(), Self::ALL[1].name()];

    /// The name `--pacing` takes for this choice.
    pub const fn name(self) -> &'static str {
        match self {
            SendPacing::Controller => "controller",
            SendPacing::Quinn => "quinn",
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

/// Settings of [`Server::bind_with`] beyond [`ServeConfig`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServeOptions {
    /// UDP payload size of every packet, fixed (PMTU discovery stays off);
    /// `None`: [`crate::transport::DATAGRAM_BYTES`] (1200). Larger packets
    /// cut the per-packet costs (packet building, AEAD calls, ACKs,
    /// syscalls) on paths known to carry them, such as loopback. Capped
    /// by the client's `max_udp_payload_size` (RFC 9000 §18.2); on Linux,
    /// sizes over 6550 lose packets because quinn 0.11 puts up to 10
    /// packets in one GSO send, which must fit 64 KiB.
    pub datagram_bytes: Option<u16>,
    /// Without a fixed `datagram_bytes`: run path MTU discovery (quinn's
    /// DPLPMTUD, RFC 8899 / RFC 9000 §14.3, from 1200 bytes up to
    /// [`crate::transport::PMTUD_UPPER_BOUND`]) instead of staying at 1200. Off here, so library
    /// users (the real-vs-simulator benchmark, the end-to-end tests) compare
    /// packet for packet with the simulator; `ramp serve` turns it on
    /// unless told `--pmtud off`.
    pub pmtud: bool,
    /// Who paces sends (default: the controller).
    pub pacing: SendPacing,
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
    counters: Counters,
    conn_seq: AtomicU64,
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
        let endpoint = quinn::Endpoint::server(default_cfg, cfg.listen)
            .map_err(|e| format!("listen on {}: {e}", cfg.listen))?;
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
                counters: Counters::default(),
                conn_seq: AtomicU64::new(0),
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

async fn handle_connection(shared: Arc<Shared>, incoming: quinn::Incoming) {
    shared.counters.connections.fetch_add(1, Ordering::Relaxed);
    let probe = Arc::new(ConnProbe::new());
    let mut factory = RampFactory::with_probe(shared.cc.build.clone(), probe.clone());
    let wake = (shared.pacing == SendPacing::Controller).then(ConnWake::new);
    if let Some(w) = &wake {
        factory = factory.paced_by_controller(w.clone());
    }
    let mut cfg = quinn::ServerConfig::with_crypto(shared.tls.clone());
    let mut transport = transport_config(Some(Arc::new(factory)), shared.idle_timeout);
    transport.send_window(SEND_WINDOW_BYTES);
    if let Some(n) = shared.datagram_bytes {
        transport.initial_mtu(n).min_mtu(n);
    } else if shared.pmtud {
        transport.mtu_discovery_config(Some(crate::transport::path_mtu_discovery()));
    }
    cfg.transport_config(Arc::new(transport));
    let Ok(connecting) = incoming.accept_with(Arc::new(cfg)) else {
        return;
    };
    let Ok(conn) = connecting.await else {
        return;
    };
    if let Some(w) = wake {
        // From here the controller paces (the handshake was quinn's). The
        // connection owns the controller, which owns `w`: detach when the
        // connection is gone so neither keeps the other alive.
        if w.attach(conn.clone(), SEND_WINDOW_BYTES) {
            let closed = conn.clone();
            tokio::spawn(async move {
                closed.closed().await;
                w.detach();
            });
        }
    }
    let conn_id = shared.conn_seq.fetch_add(1, Ordering::Relaxed);
    let acks = AckTimes::default();
    let Ok(mut h3c) = h3::server::Connection::<_, Bytes>::new(TrackedConnection::new(
        conn.clone(),
        acks.clone(),
        body::pattern_buffer().clone(),
    ))
    .await
    else {
        return;
    };
    let mut request_seq = 0u64;
    // `accept` ends with Ok(None) or an error when the peer closes or
    // vanishes; either way the connection is done.
    while let Ok(Some(resolver)) = h3c.accept().await {
        let shared = shared.clone();
        let conn = conn.clone();
        let probe = probe.clone();
        let acks = acks.clone();
        let seq = request_seq;
        request_seq += 1;
        tokio::spawn(async move {
            let ids = Ids {
                conn: conn_id,
                request: seq,
            };
            handle_request(&shared, &conn, &probe, &acks, ids, resolver).await;
        });
    }
}

/// The connection counters a request's record reports, as differences
/// (at its end minus at its start), in record order.
const COUNTED: [&str; 9] = [
    k::PACKETS_SENT,
    k::PACKETS_LOST,
    k::PACKETS_ACKED,
    k::BYTES_SENT,
    k::BYTES_LOST,
    k::BYTES_ACKED,
    "num-congestion-events",
    k::LOSS_EPISODES,
    k::ECN_LOSS_EPISODES,
];

/// The [`COUNTED`] counters at one moment: a request's record counts from
/// its start.
#[derive(Clone, Copy, Default)]
struct Baseline([u64; COUNTED.len()]);

impl Baseline {
    fn now(conn: &quinn::Connection, probe: &ConnProbe) -> Baseline {
        Baseline::of(&conn.stats(), &probe.snapshot())
    }

    fn of(qs: &quinn::ConnectionStats, snap: &ProbeSnapshot) -> Baseline {
        Baseline([
            qs.path.sent_packets,
            qs.path.lost_packets,
            snap.counters.packets_acked,
            qs.udp_tx.bytes,
            qs.path.lost_bytes,
            snap.counters.bytes_acked,
            qs.path.congestion_events,
            snap.metrics.num_loss_episodes,
            snap.metrics.num_ecn_loss_episodes,
        ])
    }
}

/// The outcome of one request, for its record.
struct Outcome {
    /// Counters at the start (zero for a connection's first request, whose
    /// record includes the handshake, as the simulator's does).
    base: Baseline,
    status: StatusCode,
    path: String,
    content_length: u64,
    started: Instant,
    /// When the last byte was acknowledged; `None` if it never was.
    acked_at: Option<Instant>,
    error: Option<String>,
}

type Resolver = h3::server::RequestResolver<TrackedConnection, Bytes>;
type Stream = h3::server::RequestStream<TrackedBidi<Bytes>, Bytes>;

/// Which connection and which request on it.
#[derive(Clone, Copy)]
struct Ids {
    conn: u64,
    request: u64,
}

async fn handle_request(
    shared: &Shared,
    conn: &quinn::Connection,
    probe: &ConnProbe,
    acks: &AckTimes,
    ids: Ids,
    resolver: Resolver,
) {
    let Ok((req, mut stream)) = resolver.resolve_request().await else {
        // No request ever arrived: nothing to record.
        return;
    };
    let started = Instant::now();
    let path = req.uri().path().to_string();
    let base = if ids.request == 0 {
        Baseline::default()
    } else {
        Baseline::now(conn, probe)
    };
    let mut out = Outcome {
        base,
        status: StatusCode::OK,
        path,
        content_length: 0,
        started,
        acked_at: None,
        error: None,
    };
    if let Err(e) = respond(shared, acks, req.method(), &mut stream, &mut out).await {
        out.error = Some(e);
    }
    let ok = out.error.is_none() && out.acked_at.is_some();
    let counter = if ok {
        &shared.counters.requests_ok
    } else {
        &shared.counters.requests_failed
    };
    counter.fetch_add(1, Ordering::Relaxed);
    if let Some(w) = &shared.stats {
        let rec = record(shared, conn, probe, ids, &out);
        match w.write(&rec) {
            Ok(()) => shared.counters.records.fetch_add(1, Ordering::Relaxed),
            Err(_) => shared
                .counters
                .record_errors
                .fetch_add(1, Ordering::Relaxed),
        };
    }
}

async fn respond(
    shared: &Shared,
    acks: &AckTimes,
    method: &Method,
    stream: &mut Stream,
    out: &mut Outcome,
) -> Result<(), String> {
    let body = match route::route(method, &out.path, shared.root.as_deref()) {
        Ok(body) => Some(body),
        Err(status) => {
            out.status = status;
            None
        }
    };
    let mut resp = Response::builder().status(out.status);
    if let Some(body) = &body {
        out.content_length = body.len();
        resp = resp
            .header(http::header::CONTENT_LENGTH, body.len())
            .header(http::header::CONTENT_TYPE, "application/octet-stream");
    }
    let resp = resp.body(()).map_err(|e| e.to_string())?;
    stream
        .send_response(resp)
        .await
        .map_err(|e| e.to_string())?;
    if let (Some(body), true) = (&body, method == Method::GET) {
        let mut chunks = Chunks::open(body).await.map_err(|e| e.to_string())?;
        while let Some(chunk) = chunks.next().await.map_err(|e| e.to_string())? {
            stream.send_data(chunk).await.map_err(|e| e.to_string())?;
        }
    }
    stream.finish().await.map_err(|e| e.to_string())?;
    wait_acked(acks, stream, out).await
}

async fn wait_acked(acks: &AckTimes, stream: &Stream, out: &mut Outcome) -> Result<(), String> {
    let id = stream.id().into_inner();
    let rx = acks
        .take(id)
        .ok_or_else(|| format!("stream {id} is not tracked"))?;
    // No timeout of our own: `stopped()` ends when the connection does
    // (idle timeout for a vanished client), and a large response on a slow
    // path may legitimately take minutes.
    match rx.await {
        Ok(SendEnd::Acked(t)) => {
            out.acked_at = Some(t);
            Ok(())
        }
        Ok(SendEnd::Stopped(code)) => Err(format!("client stopped the stream (code {code})")),
        Ok(SendEnd::Lost(why)) => Err(format!(
            "connection ended before the whole response was acknowledged: {why}"
        )),
        Err(_) => Err("connection ended before the whole response was acknowledged".into()),
    }
}

fn record(
    shared: &Shared,
    conn: &quinn::Connection,
    probe: &ConnProbe,
    ids: Ids,
    out: &Outcome,
) -> Map<String, Value> {
    let snap = probe.snapshot();
    let qs = conn.stats();
    let b = out.base;
    let mut r = Map::new();
    if let Some(t) = out.acked_at {
        let ttlb = t.saturating_duration_since(out.started);
        r.insert(k::TTLB_MS.into(), ms(ttlb));
        r.insert(k::TTLB_US.into(), us(ttlb));
    }
    r.insert(k::CONTENT_LENGTH.into(), out.content_length.into());
    r.insert("http.status".into(), out.status.as_u16().into());
    r.insert("request.path".into(), out.path.clone().into());
    r.insert("conn.id".into(), ids.conn.into());
    r.insert("conn.request".into(), ids.request.into());
    let end = Baseline::of(&qs, &snap);
    for ((key, now), base) in COUNTED.iter().zip(end.0).zip(b.0) {
        r.insert((*key).into(), now.saturating_sub(base).into());
    }
    if let Some(rtt) = &snap.rtt {
        r.insert(k::RTT_MIN_MS.into(), ms(rtt.min()));
        r.insert(k::RTT_SMOOTHED_MS.into(), ms(rtt.smoothed()));
        r.insert(k::RTT_VARIANCE_MS.into(), ms(rtt.var()));
        r.insert(k::RTT_LATEST_MS.into(), ms(rtt.latest()));
        r.insert(k::RTT_MIN_US.into(), us(rtt.min()));
        r.insert(k::RTT_SMOOTHED_US.into(), us(rtt.smoothed()));
    }
    let m = &snap.metrics;
    r.insert(k::CC_ALGORITHM.into(), shared.cc.name.clone().into());
    r.insert(k::CWND.into(), m.cwnd_bytes.into());
    if let Some(s) = m.ssthresh_bytes {
        r.insert(k::SSTHRESH.into(), s.into());
    }
    if let Some(c) = m.cwnd_exiting_slow_start_bytes {
        r.insert(k::CWND_EXITING_SLOW_START.into(), c.into());
    }
    shared.labels.add_to(&mut r);
    if let Some(e) = &out.error {
        r.insert("error".into(), e.clone().into());
    }
    r
}

/// Runs a server on its own tokio runtime until Ctrl-C or `limit`;
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
    let rt = crate::runtime::runtime()?;
    rt.block_on(async move {
        let server = Server::bind_with(cfg, opts)?;
        on_ready(server.local_addr()?);
        let handle = server.handle();
        server.run(crate::runtime::interrupted_or(limit)).await;
        Ok(handle.counters())
    })
}
