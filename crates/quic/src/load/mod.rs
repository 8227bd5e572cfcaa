//! `ramp load`: an h2load-style load generator for HTTP/3 and HTTP/2
//! over TLS.
//!
//! `-n` requests are shared among `-c` clients as h2load shares them
//! (client `i` gets `n / c`, plus one if `i < n % c`); each client opens
//! one connection and keeps up to `-m` requests in flight on it. Every
//! client has its own UDP socket (HTTP/3) or TCP connection (HTTP/2), so
//! clients do not share a socket's I/O path.
//!
//! Times (h2load's definitions, see [`summary`]):
//! - time for request: just before the request is handed to h3 / h2 until
//!   the last body byte has been read;
//! - time for connect: client start until the QUIC handshake (HTTP/3) or
//!   TCP connect + TLS handshake (HTTP/2) completed;
//! - time to 1st byte: client start until its first response headers;
//! - req/s per client: its successful requests / its lifetime.
//!
//! The run ends when every request ended, or at the `--duration` cap:
//! requests in flight then end as timeouts, requests not yet sent are
//! not started (so `started` < `total`).
//!
//! Memory grows with the requests started, never with `-n`: a large `-n`
//! with `-D` is h2load's idiom for "run for D" (`-n 500000000 -D 2s`), so
//! a record is allocated when its request starts, and a client whose
//! connection failed counts its unsent requests instead of listing them.

mod h2_client;
mod h3_client;
#[cfg(test)]
mod idle_timeout_tests;
#[cfg(test)]
mod robustness_tests;
pub mod summary;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http::HeaderMap;
use serde_json::{Map, Value};
use tokio::time::timeout_at;

use crate::client::resolve;
use crate::tls::Trust;

pub use http::Uri;
pub use summary::{SdStat, Summary};

/// An error that stops a whole run (before any request).
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// Which HTTP version to load the server with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// HTTP/3 over QUIC (quinn + h3).
    H3,
    /// HTTP/2 over TLS over TCP (h2 + rustls).
    H2,
}

impl Protocol {
    /// `h3` or `h2`.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::H3 => "h3",
            Protocol::H2 => "h2",
        }
    }
}

/// What to load and how hard.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// `https://host:port/path`.
    pub url: Uri,
    /// HTTP version.
    pub protocol: Protocol,
    /// Total requests (`-n`).
    pub requests: usize,
    /// Clients, one connection each (`-c`).
    pub clients: usize,
    /// Requests in flight per client (`-m`).
    pub max_streams: usize,
    /// Certificate trust.
    pub trust: Trust,
    /// One request is given up after this long.
    pub request_timeout: Duration,
    /// A handshake is given up after this long.
    pub connect_timeout: Duration,
    /// The whole run stops after this long.
    pub duration_cap: Option<Duration>,
}

/// How a request ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A complete response (any status).
    Complete,
    /// No complete response: what went wrong.
    Errored(String),
    /// The request timeout or the run's cap struck first.
    TimedOut,
    /// The QUIC connection's idle timeout (RFC 9000 §10.1) closed it
    /// first: the server fell silent (quinn's `ConnectionError::TimedOut`,
    /// which h3 words "Connection error: Timeout").
    IdleTimeout,
}

/// One request of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestRecord {
    /// Request index, 0-based, unique in the run.
    pub index: usize,
    /// Client (connection) index.
    pub client: usize,
    /// Whether it was sent (false: its connection never came up).
    pub started: bool,
    /// When it was sent, since the run started.
    pub start: Duration,
    /// Response status, if headers arrived.
    pub status: Option<u16>,
    /// Response header bytes (decoded: `:status` and each name + value).
    pub header_bytes: u64,
    /// Body bytes read.
    pub data_bytes: u64,
    /// Time to the response headers.
    pub ttfb: Option<Duration>,
    /// Time to the last body byte (only for [`Outcome::Complete`]).
    pub time: Option<Duration>,
    /// How it ended.
    pub outcome: Outcome,
}

impl RequestRecord {
    /// The per-request NDJSON record (`ramp load --json`).
    pub fn to_json(&self) -> Map<String, Value> {
        let us = |d: Duration| Value::from(d.as_micros() as u64);
        let mut r = Map::new();
        r.insert("index".into(), self.index.into());
        r.insert("client".into(), self.client.into());
        r.insert("started".into(), self.started.into());
        r.insert("start-us".into(), us(self.start));
        if let Some(s) = self.status {
            r.insert("status".into(), s.into());
        }
        r.insert("header-bytes".into(), self.header_bytes.into());
        r.insert("data-bytes".into(), self.data_bytes.into());
        if let Some(t) = self.ttfb {
            r.insert("ttfb-us".into(), us(t));
        }
        if let Some(t) = self.time {
            r.insert("time-us".into(), us(t));
        }
        match &self.outcome {
            Outcome::Complete => r.insert("outcome".into(), "complete".into()),
            Outcome::TimedOut => r.insert("outcome".into(), "timeout".into()),
            Outcome::IdleTimeout => {
                r.insert("error".into(), IDLE_TIMEOUT_TEXT.into());
                r.insert("outcome".into(), "timeout".into())
            }
            Outcome::Errored(e) => {
                r.insert("error".into(), e.clone().into());
                r.insert("outcome".into(), "error".into())
            }
        };
        r
    }
}

/// One client (connection) of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientRecord {
    /// Client index.
    pub index: usize,
    /// Handshake time; `None` if the connection never came up.
    pub connect: Option<Duration>,
    /// Client start to its first response headers.
    pub first_byte: Option<Duration>,
    /// Client start to its last request's end.
    pub lifetime: Duration,
    /// Its last request's end, since the run started.
    pub end: Duration,
    /// Its requests with a 2xx/3xx complete response.
    pub succeeded: u64,
    /// Bytes read from the transport (see [`Summary::traffic_total_bytes`]).
    pub transport_rx_bytes: u64,
    /// Why the connection failed, if it did.
    pub error: Option<String>,
    /// Its requests never sent because the connection failed (counted,
    /// not listed in [`LoadReport::requests`]).
    pub abandoned: usize,
}

/// Everything a run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadReport {
    /// Requests asked for.
    pub planned: usize,
    /// Wall time from start to the last request's end.
    pub elapsed: Duration,
    /// Every request that was sent, by index (requests never sent are
    /// counted in [`ClientRecord::abandoned`]).
    pub requests: Vec<RequestRecord>,
    /// Every client, by index.
    pub clients: Vec<ClientRecord>,
}

/// Live counters for a progress display.
#[derive(Debug, Default)]
pub struct Progress {
    /// Requests ended so far.
    pub done: AtomicU64,
    /// Body bytes read so far.
    pub data_bytes: AtomicU64,
}

/// The `error` of a request record whose connection died of its idle
/// timeout ([`Outcome::IdleTimeout`]).
const IDLE_TIMEOUT_TEXT: &str = "connection idle timeout";

/// Why an exchange got no complete response, as the protocol clients
/// report it.
#[derive(Debug)]
pub(crate) enum FetchError {
    /// The QUIC connection's idle timeout closed it ([`Outcome::IdleTimeout`]).
    IdleTimeout,
    /// Anything else, as the stack worded it.
    Other(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::IdleTimeout => f.write_str(IDLE_TIMEOUT_TEXT),
            FetchError::Other(e) => f.write_str(e),
        }
    }
}

impl From<String> for FetchError {
    fn from(e: String) -> FetchError {
        FetchError::Other(e)
    }
}

/// The response of one exchange, as the protocol clients report it.
pub(crate) struct Exchange {
    pub status: u16,
    pub header_bytes: u64,
    pub data_bytes: u64,
    pub ttfb: Duration,
}

impl Exchange {
    /// A complete response: its body length checked against
    /// Content-Length.
    pub(crate) fn complete(
        status: http::StatusCode,
        headers: &HeaderMap,
        data_bytes: u64,
        ttfb: Duration,
    ) -> Result<Exchange, String> {
        check_length(headers, data_bytes)?;
        Ok(Exchange {
            status: status.as_u16(),
            header_bytes: header_bytes(headers),
            data_bytes,
            ttfb,
        })
    }
}

/// The GET request both protocol clients send for `url`.
pub(crate) fn get_request(url: &http::Uri) -> Result<http::Request<()>, String> {
    http::Request::get(url.clone())
        .body(())
        .map_err(|e| e.to_string())
}

/// Decoded header bytes of a response: `:status` (7 + 3) and each
/// field's name + value.
pub(crate) fn header_bytes(headers: &HeaderMap) -> u64 {
    let fields: usize = headers
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len())
        .sum();
    (10 + fields) as u64
}

/// Checks a received body length against Content-Length.
pub(crate) fn check_length(headers: &HeaderMap, got: u64) -> Result<(), String> {
    let Some(v) = headers.get(http::header::CONTENT_LENGTH) else {
        return Ok(());
    };
    let want = v
        .to_str()
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .ok_or_else(|| format!("unparsable content-length {v:?}"))?;
    if want == got {
        Ok(())
    } else {
        Err(format!("body has {got} bytes, content-length says {want}"))
    }
}

/// A connected client, ready to carry requests.
enum Connection {
    H3(h3_client::H3Conn),
    H2(h2_client::H2Conn),
}

/// One in-flight request slot on a connection.
enum Sender {
    H3(h3_client::H3Sender),
    H2(h2_client::H2Sender),
}

impl Connection {
    fn sender(&self) -> Sender {
        match self {
            Connection::H3(c) => Sender::H3(c.sender()),
            Connection::H2(c) => Sender::H2(c.sender()),
        }
    }

    fn rx_bytes(&self) -> u64 {
        match self {
            Connection::H3(c) => c.rx_bytes(),
            Connection::H2(c) => c.rx_bytes(),
        }
    }

    async fn close(self) {
        match self {
            Connection::H3(c) => c.close().await,
            Connection::H2(c) => c.close(),
        }
    }
}

impl Sender {
    async fn fetch(
        &mut self,
        url: &Uri,
        t0: Instant,
        progress: &Progress,
    ) -> Result<Exchange, FetchError> {
        match self {
            Sender::H3(s) => s.fetch(url, t0, progress).await,
            Sender::H2(s) => s.fetch(url, t0, progress).await,
        }
    }
}

/// What every client task shares.
struct Ctx {
    cfg: LoadConfig,
    addr: SocketAddr,
    server_name: String,
    h3: Option<quinn::ClientConfig>,
    h2: Option<Arc<rustls::ClientConfig>>,
    run_start: Instant,
    /// The `--duration` cap, or far in the future.
    deadline: tokio::time::Instant,
    progress: Arc<Progress>,
}

/// Client `i`'s share of `n` requests among `c` clients, and the index of
/// its first request (h2load's split: the first `n % c` get one more).
pub fn share(n: usize, c: usize, i: usize) -> (usize, usize) {
    let c = c.max(1);
    let base = n / c;
    let extra = n % c;
    let count = base + usize::from(i < extra);
    let first = i * base + i.min(extra);
    (first, count)
}

/// Runs the load; `progress` is updated as requests end.
pub async fn run(cfg: &LoadConfig, progress: Arc<Progress>) -> Result<LoadReport, Error> {
    if cfg.clients == 0 || cfg.max_streams == 0 {
        return Err("clients (-c) and streams per client (-m) must be at least 1".into());
    }
    let (addr, server_name) = resolve(&cfg.url).await?;
    let (h3, h2) = match cfg.protocol {
        Protocol::H3 => (Some(h3_client::client_config(&cfg.trust)?), None),
        Protocol::H2 => (
            None,
            Some(Arc::new(crate::h2::tls::client_config(&cfg.trust)?)),
        ),
    };
    let run_start = Instant::now();
    let far = Duration::from_secs(100 * 365 * 24 * 3600);
    let deadline = tokio::time::Instant::from_std(run_start + cfg.duration_cap.unwrap_or(far));
    let ctx = Arc::new(Ctx {
        cfg: cfg.clone(),
        addr,
        server_name,
        h3,
        h2,
        run_start,
        deadline,
        progress,
    });
    let clients = cfg.clients.min(cfg.requests.max(1));
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..clients {
        let (first, count) = share(cfg.requests, clients, i);
        let ctx = ctx.clone();
        tasks.spawn(async move { run_client(ctx, i, first, count).await });
    }
    let mut report = LoadReport {
        planned: cfg.requests,
        elapsed: Duration::ZERO,
        // Grown per started request, never sized by -n (see the module doc).
        requests: Vec::new(),
        clients: Vec::with_capacity(clients),
    };
    while let Some(r) = tasks.join_next().await {
        let (client, mut requests) = r.map_err(|e| format!("client task failed: {e}"))?;
        report.clients.push(client);
        report.requests.append(&mut requests);
    }
    // "finished in": until the last client's last request ended (closing
    // connections is not part of the load).
    report.elapsed = report
        .clients
        .iter()
        .map(|c| c.end)
        .max()
        .unwrap_or(Duration::ZERO);
    report.clients.sort_by_key(|c| c.index);
    report.requests.sort_by_key(|r| r.index);
    Ok(report)
}

/// [`run`] on its own tokio runtime.
pub fn run_blocking(cfg: &LoadConfig, progress: Arc<Progress>) -> Result<LoadReport, Error> {
    crate::runtime::runtime()?.block_on(run(cfg, progress))
}

async fn connect(ctx: &Ctx) -> Result<(Connection, Duration), String> {
    let t0 = Instant::now();
    match ctx.cfg.protocol {
        Protocol::H3 => {
            let cfg = ctx.h3.clone().ok_or("no QUIC client configuration")?;
            let c = h3_client::H3Conn::connect(cfg, ctx.addr, &ctx.server_name, t0).await?;
            let at = c.handshake_done;
            Ok((Connection::H3(c), at))
        }
        Protocol::H2 => {
            let cfg = ctx.h2.clone().ok_or("no TLS client configuration")?;
            let c = h2_client::H2Conn::connect(cfg, ctx.addr, &ctx.server_name, t0).await?;
            let at = c.handshake_done;
            Ok((Connection::H2(c), at))
        }
    }
}

async fn run_client(
    ctx: Arc<Ctx>,
    client: usize,
    first: usize,
    count: usize,
) -> (ClientRecord, Vec<RequestRecord>) {
    let start = Instant::now();
    let mut rec = ClientRecord {
        index: client,
        connect: None,
        first_byte: None,
        lifetime: Duration::ZERO,
        end: Duration::ZERO,
        succeeded: 0,
        transport_rx_bytes: 0,
        error: None,
        abandoned: 0,
    };
    let limit = ctx.deadline.min(tokio::time::Instant::from_std(
        start + ctx.cfg.connect_timeout,
    ));
    let conn = match timeout_at(limit, connect(&ctx)).await {
        Ok(Ok((c, at))) => {
            rec.connect = Some(at);
            c
        }
        Ok(Err(e)) => return failed_client(&ctx, rec, count, e, start),
        Err(_) => {
            let e = "handshake timed out".to_string();
            return failed_client(&ctx, rec, count, e, start);
        }
    };
    let next = Arc::new(AtomicUsize::new(0));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..ctx.cfg.max_streams.min(count) {
        let mut sender = conn.sender();
        let ctx = ctx.clone();
        let next = next.clone();
        workers.spawn(async move {
            let mut out = Vec::new();
            loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= count || tokio::time::Instant::now() >= ctx.deadline {
                    break;
                }
                out.push(one_request(&ctx, &mut sender, client, first + k).await);
            }
            out
        });
    }
    let mut requests = Vec::new();
    while let Some(r) = workers.join_next().await {
        // A panicked worker loses its records; the summary then shows
        // fewer done than started, which is visible.
        if let Ok(mut v) = r {
            requests.append(&mut v);
        }
    }
    rec.lifetime = start.elapsed();
    rec.end = ctx.run_start.elapsed();
    rec.transport_rx_bytes = conn.rx_bytes();
    conn.close().await;
    for r in &requests {
        if r.outcome == Outcome::Complete && r.status.is_some_and(|s| (200..400).contains(&s)) {
            rec.succeeded += 1;
        }
        if let Some(ttfb) = r.ttfb {
            let at = (ctx.run_start + r.start + ttfb).saturating_duration_since(start);
            rec.first_byte = Some(rec.first_byte.map_or(at, |b| b.min(at)));
        }
    }
    (rec, requests)
}

/// A client whose connection never came up: its `count` requests are
/// abandoned (counted, not listed, so `-n` costs no memory here either).
fn failed_client(
    ctx: &Ctx,
    mut rec: ClientRecord,
    count: usize,
    error: String,
    start: Instant,
) -> (ClientRecord, Vec<RequestRecord>) {
    ctx.progress.done.fetch_add(count as u64, Ordering::Relaxed);
    rec.lifetime = start.elapsed();
    rec.end = ctx.run_start.elapsed();
    rec.error = Some(error);
    rec.abandoned = count;
    (rec, Vec::new())
}

async fn one_request(ctx: &Ctx, sender: &mut Sender, client: usize, index: usize) -> RequestRecord {
    let t0 = Instant::now();
    let limit = ctx
        .deadline
        .min(tokio::time::Instant::from_std(t0 + ctx.cfg.request_timeout));
    let mut r = RequestRecord {
        index,
        client,
        started: true,
        start: t0.saturating_duration_since(ctx.run_start),
        status: None,
        header_bytes: 0,
        data_bytes: 0,
        ttfb: None,
        time: None,
        outcome: Outcome::TimedOut,
    };
    match timeout_at(limit, sender.fetch(&ctx.cfg.url, t0, &ctx.progress)).await {
        Ok(Ok(x)) => {
            r.time = Some(t0.elapsed());
            r.status = Some(x.status);
            r.header_bytes = x.header_bytes;
            r.data_bytes = x.data_bytes;
            r.ttfb = Some(x.ttfb);
            r.outcome = Outcome::Complete;
        }
        Ok(Err(FetchError::IdleTimeout)) => r.outcome = Outcome::IdleTimeout,
        Ok(Err(FetchError::Other(e))) => r.outcome = Outcome::Errored(e),
        Err(_) => r.outcome = Outcome::TimedOut,
    }
    ctx.progress.done.fetch_add(1, Ordering::Relaxed);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h2load_split_of_requests_among_clients() {
        // 1000 / 10: 100 each.
        assert_eq!(share(1000, 10, 0), (0, 100));
        assert_eq!(share(1000, 10, 9), (900, 100));
        // 10 / 3: 4, 3, 3 covering 0..10 without overlap.
        let parts: Vec<_> = (0..3).map(|i| share(10, 3, i)).collect();
        assert_eq!(parts, vec![(0, 4), (4, 3), (7, 3)]);
    }

    #[test]
    fn content_length_check() {
        let mut h = HeaderMap::new();
        assert!(check_length(&h, 5).is_ok());
        h.insert(http::header::CONTENT_LENGTH, "5".parse().unwrap());
        assert!(check_length(&h, 5).is_ok());
        assert!(check_length(&h, 4).is_err());
    }
}
