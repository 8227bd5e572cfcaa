//! A request whose connection dies of QUIC's idle timeout (RFC 9000
//! §10.1) is counted as timed out, not only as errored: the server goes
//! silent mid-response behind a UDP relay that stops forwarding, and the
//! negotiated 1 s idle timeout closes the client's connection.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::UdpSocket;

use super::{LoadConfig, LoadReport, Outcome, Progress, Protocol, Summary};
use crate::choice::CcChoice;
use crate::server::{ServeConfig, Server};
use crate::stats::PathLabels;
use crate::tls::{Identity, Trust};

/// A UDP relay from a client to `server` that forwards both ways until
/// `cut` is set, and from then on drops everything. Returns its address.
async fn cuttable_relay(server: SocketAddr, cut: Arc<AtomicBool>) -> SocketAddr {
    let front = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let back = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    back.connect(server).await.unwrap();
    let addr = front.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut up, mut down) = (vec![0u8; 65536], vec![0u8; 65536]);
        let mut client = None;
        loop {
            tokio::select! {
                r = front.recv_from(&mut up) => {
                    let Ok((n, from)) = r else { return };
                    client = Some(from);
                    if !cut.load(Ordering::Relaxed) {
                        let _ = back.send(&up[..n]).await;
                    }
                }
                r = back.recv(&mut down) => {
                    let Ok(n) = r else { return };
                    if let (Some(c), false) = (client, cut.load(Ordering::Relaxed)) {
                        let _ = front.send_to(&down[..n], c).await;
                    }
                }
            }
        }
    });
    addr
}

/// One run: a server behind a fresh relay, one request for a body far
/// longer than the run, the path cut once the body has begun to arrive.
async fn attempt() -> LoadReport {
    let server = Server::bind(ServeConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        cc: CcChoice::parse("cubic").unwrap(),
        identity: Identity::self_signed().unwrap(),
        root: None,
        stats: None,
        labels: PathLabels::default(),
        // The negotiated idle timeout is the smaller of the two sides'
        // (RFC 9000 §10.1): 1 s.
        idle_timeout: Duration::from_secs(1),
    })
    .unwrap();
    let server_addr = server.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.run(async move {
        let _ = stopped.await;
    }));
    let cut = Arc::new(AtomicBool::new(false));
    let relay = cuttable_relay(server_addr, cut.clone()).await;
    let progress = Arc::new(Progress::default());
    // Cut the path once the response's body has begun to arrive.
    let watch = {
        let (progress, cut) = (progress.clone(), cut.clone());
        tokio::spawn(async move {
            while progress.data_bytes.load(Ordering::Relaxed) == 0 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            cut.store(true, Ordering::Relaxed);
        })
    };
    let cfg = LoadConfig {
        url: format!("https://localhost:{}/bytes/1073741824", relay.port())
            .parse()
            .unwrap(),
        protocol: Protocol::H3,
        requests: 1,
        clients: 1,
        max_streams: 1,
        trust: Trust::Insecure,
        // Far beyond the idle timeout: only the connection's death can
        // end the request.
        request_timeout: Duration::from_secs(30),
        connect_timeout: Duration::from_secs(5),
        duration_cap: Some(Duration::from_secs(30)),
    };
    let report = super::run(&cfg, progress).await.unwrap();
    watch.abort();
    drop(stop);
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rfc9000_10_1_a_request_ended_by_the_idle_timeout_counts_as_timed_out() {
    // Beside the crate's other tests, about one run in five never gets its
    // handshake answered (the client's 5 s connect timeout, nothing
    // received), so the request is never sent and the run says nothing
    // about how one is classified. Not understood: it did not happen in 15
    // runs of this test alone, and happens before the pacing gate's
    // 2026-11-28 fix too. Such runs are retried, loudly, and three in a row
    // fail the test.
    let mut report = attempt().await;
    for _ in 1..3 {
        if !report.requests.is_empty() {
            break;
        }
        ramp_host::timing::loud(&format!(
            "rfc9000_10_1_a_request_ended_by_the_idle_timeout_counts_as_timed_out: \
             no request sent ({:?}); trying again",
            report.clients
        ));
        report = attempt().await;
    }
    let outcomes: Vec<_> = report.requests.iter().map(|r| r.outcome.clone()).collect();
    assert_eq!(outcomes, vec![Outcome::IdleTimeout], "{outcomes:?}");
    let sum = Summary::of(&report);
    assert_eq!(
        (sum.failed, sum.errored, sum.timeout),
        (1, 1, 1),
        "failed, errored, timed out"
    );
}
