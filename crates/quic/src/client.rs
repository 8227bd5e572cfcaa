//! `ramp get`: an HTTP/3 client that measures TTFB and TTLB per request.
//!
//! Times run from just before the request is handed to h3: TTFB ends when
//! the response headers arrive, TTLB when the last body byte has been read.
//! `--concurrency C` opens C connections (at most K); each carries one of
//! the `--n K` requests, then more as it is free, one after another, so
//! responses on one connection never
//! overlap (which keeps the server's per-request `ttlb` exact, see
//! `crate::probe`).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes};
use http::Uri;
use serde_json::{Map, Value};

use crate::body::pattern_byte;
use crate::load::Progress;
use crate::tls::{self, Trust};
use crate::transport::transport_config;
use ramp_vocab::quantile::quantile_sorted;
use ramp_vocab::record_keys as k;

/// An error of `ramp get`.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// What to fetch and how.
#[derive(Clone, Debug)]
pub struct GetConfig {
    /// `https://host:port/path`.
    pub url: Uri,
    /// Number of requests.
    pub n: usize,
    /// Connections used in parallel.
    pub concurrency: usize,
    /// Certificate trust.
    pub trust: Trust,
    /// Give up on one request after this long.
    pub timeout: Duration,
}

/// The result of one request.
#[derive(Clone, Debug, PartialEq)]
pub struct GetResult {
    /// Request index, 0-based.
    pub index: usize,
    /// Connection index, 0-based.
    pub conn: usize,
    /// HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// Body bytes received.
    pub bytes: u64,
    /// Time to the response headers.
    pub ttfb: Option<Duration>,
    /// Time to the last body byte.
    pub ttlb: Option<Duration>,
    /// For `/bytes/N`: whether every byte matched the server's pattern and
    /// exactly N arrived.
    pub verified: Option<bool>,
    /// What went wrong, if anything.
    pub error: Option<String>,
}

impl GetResult {
    /// Whether the request completed with status 200 and, for `/bytes/N`,
    /// the right bytes.
    pub fn is_ok(&self) -> bool {
        self.error.is_none() && self.status == Some(200) && self.verified != Some(false)
    }

    /// The `--json` record.
    pub fn to_json(&self) -> Map<String, Value> {
        let mut r = Map::new();
        r.insert("index".into(), self.index.into());
        r.insert("conn".into(), self.conn.into());
        if let Some(s) = self.status {
            r.insert("status".into(), s.into());
        }
        r.insert(k::CONTENT_LENGTH.into(), self.bytes.into());
        if let Some(t) = self.ttfb {
            r.insert("ttfb".into(), crate::stats::ms(t));
            r.insert(k::TTFB_US.into(), crate::stats::us(t));
        }
        if let Some(t) = self.ttlb {
            r.insert(k::TTLB_MS.into(), crate::stats::ms(t));
            r.insert(k::TTLB_US.into(), crate::stats::us(t));
        }
        if let Some(v) = self.verified {
            r.insert("verified".into(), v.into());
        }
        if let Some(e) = &self.error {
            r.insert("error".into(), e.clone().into());
        }
        r
    }
}

/// The `N` of a `/bytes/N` path.
fn pattern_len(uri: &Uri) -> Option<u64> {
    uri.path().strip_prefix("/bytes/")?.parse().ok()
}

/// Resolves the URL's authority to a socket address and the TLS server
/// name (shared by `ramp get` and `ramp load`, HTTP/3 and HTTP/2 alike).
pub(crate) async fn resolve(url: &Uri) -> Result<(SocketAddr, String), Error> {
    if url.scheme_str() != Some("https") {
        return Err(format!("{url}: only https:// URLs are supported").into());
    }
    let host = url.host().ok_or_else(|| format!("{url}: no host"))?;
    let port = port_of(url)?;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addr = tokio::net::lookup_host((bare, port))
        .await
        .map_err(|e| format!("{url}: cannot resolve {host}: {e}"))?
        .next()
        .ok_or_else(|| format!("{url}: {host} has no address"))?;
    Ok((addr, bare.to_string()))
}

/// The URL's port: 443 when absent (RFC 9110 §4.2.2), else a number in
/// 1..=65535. Anything else is refused rather than replaced by 443.
pub fn port_of(url: &Uri) -> Result<u16, Error> {
    let authority = url
        .authority()
        .ok_or_else(|| format!("{url}: no host"))?
        .as_str();
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    // An IPv6 literal's colons are inside the brackets.
    let after_host = match host_port.rfind(']') {
        Some(i) => &host_port[i + 1..],
        None => host_port,
    };
    let Some((_, text)) = after_host.rsplit_once(':') else {
        return Ok(443);
    };
    if text.is_empty() {
        return Ok(443);
    }
    match text.parse::<u16>() {
        Ok(p) if p != 0 => Ok(p),
        _ => Err(format!("{url}: bad port `{text}` (expected 1..=65535)").into()),
    }
}

/// Runs the requests; one result per request, in index order.
pub async fn get(cfg: &GetConfig) -> Result<Vec<GetResult>, Error> {
    get_with_progress(cfg, Arc::new(Progress::default())).await
}

/// [`get`], counting into `progress` as it goes (requests ended, body
/// bytes read), for a progress display on another thread.
pub async fn get_with_progress(
    cfg: &GetConfig,
    progress: Arc<Progress>,
) -> Result<Vec<GetResult>, Error> {
    get_reporting(cfg, progress, |_| {}).await
}

/// [`get_with_progress`], handing the results to `report` as soon as the
/// last request has ended, before the endpoint's closing period (RFC 9000
/// §10.2: up to three PTOs, which this client waits out, capped at 1 s, so
/// that its CONNECTION_CLOSE can be repeated to a server that missed it).
/// A caller that prints the results there lets a script that reads them
/// go on while the closing period runs.
pub async fn get_reporting(
    cfg: &GetConfig,
    progress: Arc<Progress>,
    report: impl FnOnce(&[GetResult]),
) -> Result<Vec<GetResult>, Error> {
    let (addr, server_name) = resolve(&cfg.url).await?;
    let tls = tls::client_config(&cfg.trust)?;
    let quic_tls = quinn::crypto::rustls::QuicClientConfig::try_from(tls)?;
    let mut client_cfg = quinn::ClientConfig::new(Arc::new(quic_tls));
    // quinn's idle timeout also bounds the handshake: follow `--timeout`.
    client_cfg.transport_config(Arc::new(transport_config(None, cfg.timeout)));
    let bind: SocketAddr = if addr.is_ipv4() {
        SocketAddr::from(([127, 0, 0, 1], 0))
    } else {
        SocketAddr::from(([0, 0, 0, 0, 0, 0, 0, 1], 0))
    };
    let bind = if addr.ip().is_loopback() {
        bind
    } else if addr.is_ipv4() {
        SocketAddr::from(([0, 0, 0, 0], 0))
    } else {
        SocketAddr::from(([0u16; 8], 0))
    };
    let mut endpoint = quinn::Endpoint::client(bind).map_err(|e| format!("bind {bind}: {e}"))?;
    endpoint.set_default_client_config(client_cfg);
    // Connection i carries request i first, so that `concurrency`
    // connections each carry at least one request however late some of
    // them start; the rest go to whichever connection is free first. (When
    // all were claimed from one counter, connections that finished early
    // took the first requests of those not yet started: 193 of 200
    // connections on a busy machine.)
    let conns = cfg.concurrency.max(1).min(cfg.n.max(1));
    let next = Arc::new(AtomicUsize::new(conns));
    let mut tasks = tokio::task::JoinSet::new();
    for conn_index in 0..conns {
        let endpoint = endpoint.clone();
        let server_name = server_name.clone();
        let next = next.clone();
        let cfg = cfg.clone();
        let progress = progress.clone();
        tasks.spawn(async move {
            let at = Target {
                addr,
                server_name: &server_name,
            };
            run_connection(&endpoint, at, conn_index, &next, &cfg, &progress).await
        });
    }
    let mut results = Vec::with_capacity(cfg.n);
    while let Some(r) = tasks.join_next().await {
        match r {
            Ok(mut v) => results.append(&mut v),
            Err(e) => return Err(format!("request task failed: {e}").into()),
        }
    }
    results.sort_by_key(|r| r.index);
    report(&results);
    endpoint.close(quinn::VarInt::from_u32(0), b"done");
    if results.iter().any(|r| r.status.is_some()) {
        // Let the CONNECTION_CLOSE reach a server that answered.
        let _ = tokio::time::timeout(Duration::from_secs(1), endpoint.wait_idle()).await;
    }
    Ok(results)
}

/// [`get`] on its own tokio runtime.
pub fn get_blocking(cfg: &GetConfig) -> Result<Vec<GetResult>, Error> {
    crate::runtime::runtime()?.block_on(get(cfg))
}

/// [`get_with_progress`] on its own tokio runtime.
pub fn get_blocking_with_progress(
    cfg: &GetConfig,
    progress: Arc<Progress>,
) -> Result<Vec<GetResult>, Error> {
    crate::runtime::runtime()?.block_on(get_with_progress(cfg, progress))
}

/// [`get_reporting`] on its own tokio runtime.
pub fn get_blocking_reporting(
    cfg: &GetConfig,
    progress: Arc<Progress>,
    report: impl FnOnce(&[GetResult]),
) -> Result<Vec<GetResult>, Error> {
    crate::runtime::runtime()?.block_on(get_reporting(cfg, progress, report))
}

fn failed(index: usize, conn: usize, error: String) -> GetResult {
    GetResult {
        index,
        conn,
        status: None,
        bytes: 0,
        ttfb: None,
        ttlb: None,
        verified: None,
        error: Some(error),
    }
}

/// The server a connection goes to.
struct Target<'a> {
    addr: SocketAddr,
    server_name: &'a str,
}

/// The results of one connection; each counts in `done` as it is added.
struct Results<'a> {
    out: Vec<GetResult>,
    progress: &'a Progress,
}

impl Results<'_> {
    fn push(&mut self, r: GetResult) {
        self.out.push(r);
        self.progress.done.fetch_add(1, Ordering::Relaxed);
    }
}

async fn run_connection(
    endpoint: &quinn::Endpoint,
    at: Target<'_>,
    conn_index: usize,
    next: &AtomicUsize,
    cfg: &GetConfig,
    progress: &Progress,
) -> Vec<GetResult> {
    let Target { addr, server_name } = at;
    let mut out = Results {
        out: Vec::new(),
        progress,
    };
    let claim = || {
        let i = next.fetch_add(1, Ordering::Relaxed);
        (i < cfg.n).then_some(i)
    };
    // Request `conn_index` is this connection's own (see `get`).
    let first = conn_index;
    if first >= cfg.n {
        return out.out;
    }
    let connecting = async {
        let conn = endpoint
            .connect(addr, server_name)
            .map_err(|e| format!("connect {addr}: {e}"))?
            .await
            .map_err(|e| format!("handshake with {addr}: {e}"))?;
        let (driver, send) = h3::client::new(h3_quinn::Connection::new(conn.clone()))
            .await
            .map_err(|e| format!("HTTP/3 setup with {addr}: {e}"))?;
        Ok::<_, String>((conn, driver, send))
    };
    // A closed port answers with ICMP, which quinn's socket never sees:
    // fail on it at once rather than at the timeout.
    let connecting = crate::unreachable::or_unreachable(addr, connecting);
    let (conn, mut driver, mut send) = match tokio::time::timeout(cfg.timeout, connecting).await {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => {
            out.push(failed(first, conn_index, e));
            while let Some(i) = claim() {
                out.push(failed(i, conn_index, "connection failed".into()));
            }
            return out.out;
        }
        Err(_) => {
            out.push(failed(first, conn_index, "handshake timed out".into()));
            while let Some(i) = claim() {
                out.push(failed(i, conn_index, "connection failed".into()));
            }
            return out.out;
        }
    };
    let drive = tokio::spawn(async move {
        let _ = std::future::poll_fn(|cx| driver.poll_close(cx)).await;
    });
    let mut index = Some(first);
    while let Some(i) = index {
        let r = match tokio::time::timeout(cfg.timeout, one_request(&mut send, &cfg.url, progress))
            .await
        {
            Ok(mut r) => {
                r.index = i;
                r.conn = conn_index;
                r
            }
            Err(_) => failed(i, conn_index, format!("timed out after {:?}", cfg.timeout)),
        };
        out.push(r);
        index = claim();
    }
    drop(send);
    conn.close(quinn::VarInt::from_u32(0), b"done");
    drive.abort();
    out.out
}

async fn one_request(
    send: &mut h3::client::SendRequest<h3_quinn::OpenStreams, Bytes>,
    url: &Uri,
    progress: &Progress,
) -> GetResult {
    let mut r = failed(0, 0, String::new());
    r.error = None;
    let req = match http::Request::get(url.clone()).body(()) {
        Ok(req) => req,
        Err(e) => {
            r.error = Some(e.to_string());
            return r;
        }
    };
    let expect = pattern_len(url);
    let t0 = Instant::now();
    let result = async {
        let mut s = send.send_request(req).await.map_err(|e| e.to_string())?;
        s.finish().await.map_err(|e| e.to_string())?;
        let resp = s.recv_response().await.map_err(|e| e.to_string())?;
        r.ttfb = Some(t0.elapsed());
        r.status = Some(resp.status().as_u16());
        let mut ok = true;
        while let Some(mut chunk) = s.recv_data().await.map_err(|e| e.to_string())? {
            while chunk.has_remaining() {
                let c = chunk.chunk();
                if expect.is_some() && ok {
                    ok = c
                        .iter()
                        .enumerate()
                        .all(|(k, &b)| b == pattern_byte(r.bytes + k as u64));
                }
                let n = c.len();
                r.bytes += n as u64;
                progress.data_bytes.fetch_add(n as u64, Ordering::Relaxed);
                chunk.advance(n);
            }
        }
        r.ttlb = Some(t0.elapsed());
        if resp.status() == http::StatusCode::OK {
            if let Some(n) = expect {
                r.verified = Some(ok && r.bytes == n);
            }
        }
        Ok::<(), String>(())
    }
    .await;
    if let Err(e) = result {
        r.error = Some(e);
    }
    r
}

/// min / mean / percentiles / max of a set of durations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distribution {
    /// Samples.
    pub count: usize,
    /// Smallest.
    pub min: Duration,
    /// Mean.
    pub mean: Duration,
    /// Median (type 7 interpolation).
    pub p50: Duration,
    /// 90th percentile.
    pub p90: Duration,
    /// 99th percentile.
    pub p99: Duration,
    /// Largest.
    pub max: Duration,
}

impl Distribution {
    /// The distribution of `samples`, `None` if empty.
    pub fn of(samples: &[Duration]) -> Option<Distribution> {
        if samples.is_empty() {
            return None;
        }
        let mut s: Vec<f64> = samples.iter().map(|d| d.as_secs_f64()).collect();
        s.sort_by(f64::total_cmp);
        // ramp's one percentile definition (Hyndman & Fan type 7).
        let q = |p: f64| Duration::from_secs_f64(quantile_sorted(&s, p).unwrap_or(0.0));
        let mean = s.iter().sum::<f64>() / s.len() as f64;
        Some(Distribution {
            count: s.len(),
            min: Duration::from_secs_f64(s[0]),
            mean: Duration::from_secs_f64(mean),
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            max: Duration::from_secs_f64(s[s.len() - 1]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3986_3_2_3_a_bad_port_is_refused_not_replaced_by_443() {
        let port = |u: &str| port_of(&u.parse::<Uri>().unwrap());
        assert_eq!(port("https://h/x").unwrap(), 443);
        assert_eq!(port("https://h:4433/x").unwrap(), 4433);
        assert_eq!(port("https://[::1]:4433/x").unwrap(), 4433);
        assert_eq!(port("https://[::1]/x").unwrap(), 443);
        for bad in ["https://h:99999/", "https://h:65536/", "https://h:0/"] {
            let e = port(bad).unwrap_err().to_string();
            assert!(e.contains("bad port"), "{bad}: {e}");
        }
        // Forms http::Uri itself refuses never reach a request either.
        for bad in ["https://h:abc/", "https://h:-1/"] {
            assert!(
                bad.parse::<Uri>().is_err() || port(bad).is_err(),
                "{bad} accepted"
            );
        }
    }

    #[test]
    fn distribution_type7() {
        let v: Vec<Duration> = [1u64, 2, 3, 4, 10]
            .iter()
            .map(|&m| Duration::from_millis(m))
            .collect();
        let d = Distribution::of(&v).unwrap();
        assert_eq!(d.min, Duration::from_millis(1));
        assert_eq!(d.max, Duration::from_millis(10));
        assert_eq!(d.p50, Duration::from_millis(3));
        // h = 4·0.9 = 3.6 → 4 + 0.6·6 = 7.6 ms.
        assert!((d.p90.as_secs_f64() - 0.0076).abs() < 1e-9);
        assert!((d.mean.as_secs_f64() - 0.004).abs() < 1e-9);
        assert!(Distribution::of(&[]).is_none());
    }
}
