//! Server robustness under `ramp load`'s protocols, in process on
//! loopback: clients that open streams and never read, methods other
//! than GET, and the load generator's own accounting against both
//! servers.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use super::{LoadConfig, Progress, Protocol, Summary};
use crate::choice::CcChoice;
use crate::h2::server::{H2Config, H2Server};
use crate::server::{ServeConfig, Server};
use crate::stats::PathLabels;
use crate::tls::{Identity, Trust};

/// The tests here measure this process's resident memory, so they run one
/// at a time.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A GiB body: far more than any bound the servers keep.
const HUGE_PATH: &str = "/bytes/1073741824";

/// Both servers on ephemeral ports; dropped senders stop them.
struct Servers {
    h3: SocketAddr,
    h2: SocketAddr,
    _stop: (
        tokio::sync::oneshot::Sender<()>,
        tokio::sync::oneshot::Sender<()>,
    ),
}

async fn start() -> Servers {
    let local: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let h3 = Server::bind(ServeConfig {
        listen: local,
        cc: CcChoice::parse("cubic").unwrap(),
        identity: Identity::self_signed().unwrap(),
        root: None,
        stats: None,
        labels: PathLabels::default(),
        idle_timeout: Duration::from_secs(2),
    })
    .unwrap();
    let h2 = H2Server::bind(H2Config {
        listen: local,
        identity: Identity::self_signed().unwrap(),
        root: None,
        tcp_cc: None,
    })
    .await
    .unwrap();
    let addrs = (h3.local_addr().unwrap(), h2.local_addr().unwrap());
    let (tx3, rx3) = tokio::sync::oneshot::channel::<()>();
    let (tx2, rx2) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(h3.run(async move {
        let _ = rx3.await;
    }));
    tokio::spawn(h2.run(async move {
        let _ = rx2.await;
    }));
    Servers {
        h3: addrs.0,
        h2: addrs.1,
        _stop: (tx3, tx2),
    }
}

fn url(addr: SocketAddr, path: &str) -> http::Uri {
    format!("https://localhost:{}{path}", addr.port())
        .parse()
        .unwrap()
}

async fn load(protocol: Protocol, addr: SocketAddr, path: &str, n: usize) -> Summary {
    let cfg = LoadConfig {
        url: url(addr, path),
        protocol,
        requests: n,
        clients: 2,
        max_streams: 3,
        trust: Trust::Insecure,
        request_timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(5),
        duration_cap: Some(Duration::from_secs(20)),
    };
    let report = super::run(&cfg, Arc::new(Progress::default()))
        .await
        .unwrap();
    Summary::of(&report)
}

/// After the stalled client's requests have had time to fill whatever the
/// server buffers: the process grew by under 64 MiB since `before_kb`, and
/// the server still serves 10 other requests.
async fn settle_then_check_bounded_and_serving(
    before_kb: u64,
    protocol: Protocol,
    addr: SocketAddr,
) {
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let grown_mb = rss_kb().saturating_sub(before_kb) / 1024;
    assert!(grown_mb < 64, "process grew {grown_mb} MiB");
    let sum = load(protocol, addr, "/bytes/1000", 10).await;
    assert_eq!(sum.succeeded, 10);
}

/// Resident memory of this test process, kB.
fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Reads pass through until `stalled` is set, then never complete: a
/// client that stops reading its socket.
struct StallIo<T> {
    inner: T,
    stalled: Arc<AtomicBool>,
}

impl<T: AsyncRead + Unpin> AsyncRead for StallIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.stalled.load(Ordering::Relaxed) {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for StallIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

async fn h2_client<T>(
    addr: SocketAddr,
    wrap: impl FnOnce(TcpStreamTls) -> T,
) -> ::h2::client::SendRequest<Bytes>
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let cfg = Arc::new(crate::h2::tls::client_config(&Trust::Insecure).unwrap());
    let tcp = TcpStream::connect(addr).await.unwrap();
    let tls = TlsConnector::from(cfg)
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap();
    let (send, conn) = ::h2::client::Builder::new()
        // The worst case for the server: the client grants the largest
        // windows RFC 9113 §6.9.1 allows.
        .initial_window_size((1 << 31) - 1)
        .initial_connection_window_size((1 << 31) - 1)
        .handshake::<_, Bytes>(wrap(tls))
        .await
        .unwrap();
    tokio::spawn(async move {
        let _ = conn.await;
    });
    send
}

type TcpStreamTls = tokio_rustls::client::TlsStream<TcpStream>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_client_that_stops_reading_does_not_grow_server_memory() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let s = start().await;
    let before = rss_kb();
    let stalled = Arc::new(AtomicBool::new(false));
    let flag = stalled.clone();
    let send = h2_client(s.h2, move |tls| StallIo {
        inner: tls,
        stalled: flag,
    })
    .await;
    stalled.store(true, Ordering::Relaxed);
    for _ in 0..20 {
        let mut s2 = send.clone().ready().await.unwrap();
        let req = Request::get(url(s.h2, HUGE_PATH)).body(()).unwrap();
        let _ = s2.send_request(req, true).unwrap();
    }
    // 20 GiB asked for; the server may hold 20 × (one chunk + the h2 send
    // buffer) ≈ 2.6 MB plus socket buffers (kernel memory, not RSS).
    settle_then_check_bounded_and_serving(before, Protocol::H2, s.h2).await;
    drop(send);
}

/// A bare HTTP/3 client session (quinn's default windows, 1.25 MB per
/// stream): the endpoint, the request sender and the task driving the
/// connection (abort it when done).
struct H3Session {
    _ep: quinn::Endpoint,
    send: h3::client::SendRequest<h3_quinn::OpenStreams, Bytes>,
    drive: tokio::task::JoinHandle<()>,
}

async fn h3_session(addr: SocketAddr) -> H3Session {
    let tls = crate::tls::client_config(&Trust::Insecure).unwrap();
    let quic = quinn::crypto::rustls::QuicClientConfig::try_from(tls).unwrap();
    let cfg = quinn::ClientConfig::new(Arc::new(quic));
    let mut ep = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    ep.set_default_client_config(cfg);
    let conn = ep.connect(addr, "localhost").unwrap().await.unwrap();
    let (mut driver, send) = h3::client::new(h3_quinn::Connection::new(conn))
        .await
        .unwrap();
    let drive = tokio::spawn(async move {
        let _ = std::future::poll_fn(|cx| driver.poll_close(cx)).await;
    });
    H3Session {
        _ep: ep,
        send,
        drive,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h3_client_that_opens_streams_and_never_reads_does_not_grow_server_memory() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let s = start().await;
    let before = rss_kb();
    let H3Session {
        _ep,
        mut send,
        drive,
    } = h3_session(s.h3).await;
    let mut streams = Vec::new();
    for _ in 0..8 {
        let req = Request::get(url(s.h3, HUGE_PATH)).body(()).unwrap();
        let mut st = send.send_request(req).await.unwrap();
        st.finish().await.unwrap();
        streams.push(st);
    }
    // 8 GiB asked for; flow control lets 8 × 1.25 MB through, and the
    // server holds at most that per stream plus one chunk.
    settle_then_check_bounded_and_serving(before, Protocol::H3, s.h3).await;
    drop(streams);
    drive.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rfc9110_15_5_6_post_gets_405_over_h2_and_h3() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let s = start().await;
    // HTTP/2.
    let mut send = h2_client(s.h2, |tls| tls).await;
    send = send.ready().await.unwrap();
    let req = Request::builder()
        .method(Method::POST)
        .uri(url(s.h2, "/bytes/10"))
        .body(())
        .unwrap();
    let (resp, _) = send.send_request(req, true).unwrap();
    let resp = tokio::time::timeout(Duration::from_secs(5), resp)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED);
    // HTTP/3.
    let H3Session {
        _ep,
        mut send,
        drive,
    } = h3_session(s.h3).await;
    let req = Request::builder()
        .method(Method::POST)
        .uri(url(s.h3, "/bytes/10"))
        .body(())
        .unwrap();
    let mut st = send.send_request(req).await.unwrap();
    // RFC 9114 §4.1: a server that needs no more of the request may answer
    // at once and ask the client to stop sending, so finishing our side can
    // race its STOP_SENDING and fail; only the response matters here.
    let _ = st.finish().await;
    let resp = tokio::time::timeout(Duration::from_secs(5), st.recv_response())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED);
    drive.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_and_missing_paths_get_400_and_404_over_both() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let s = start().await;
    for (proto, addr) in [(Protocol::H3, s.h3), (Protocol::H2, s.h2)] {
        let bad = load(proto, addr, "/bytes/12x", 4).await;
        assert_eq!((bad.status_classes[3], bad.failed, bad.errored), (4, 4, 0));
        let missing = load(proto, addr, "/missing", 4).await;
        assert_eq!(missing.status_classes[3], 4);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duration_cap_ends_a_run_with_timeouts() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let s = start().await;
    for (protocol, addr) in [(Protocol::H3, s.h3), (Protocol::H2, s.h2)] {
        let cfg = LoadConfig {
            url: url(addr, HUGE_PATH),
            protocol,
            requests: 4,
            clients: 2,
            max_streams: 2,
            trust: Trust::Insecure,
            request_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(5),
            duration_cap: Some(Duration::from_millis(400)),
        };
        let t0 = std::time::Instant::now();
        let pressure = ramp_host::timing::CpuPressure::now();
        let report = super::run(&cfg, Arc::new(Progress::default()))
            .await
            .unwrap();
        // The 400 ms cap, not the 60 s request timeout, ended the run.
        ramp_host::timing::promptly(
            "duration_cap_ends_a_run_with_timeouts",
            t0,
            Duration::from_secs(5),
            pressure,
        );
        let sum = Summary::of(&report);
        // The cap ends every request still in flight as a timeout and
        // starts no more. How many had started by then depends on how fast
        // the connections came up (CI runs this on a loaded machine), so the
        // test checks the accounting, not a count of 4.
        assert!(sum.timeout >= 1, "{protocol:?}: no request timed out");
        assert_eq!(sum.succeeded, 0, "{protocol:?}: a huge body finished");
        // h2load's accounting: a timed-out request is done and failed.
        assert_eq!(
            sum.done, sum.started,
            "{protocol:?}: a started request did not end"
        );
        assert_eq!(
            sum.timeout, sum.failed,
            "{protocol:?}: a failure other than the cap"
        );
        assert_eq!(sum.done, sum.succeeded + sum.failed);
    }
}
