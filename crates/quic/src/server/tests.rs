//! The server's records under a late record writer.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::request::Ids;
use super::{ServeConfig, Server, Shared};
use crate::client::{self, GetConfig};
use crate::{CcChoice, Identity, PathLabels, Trust};

/// Holds a connection's first record (request 0) until
/// `hold_first_record` requests have ended, bounded at 10 s: the late
/// record task of a busy machine, made certain.
pub(super) async fn hold(shared: &Shared, ids: Ids) {
    let until = shared.hold_first_record.load(Ordering::Relaxed);
    if ids.request != 0 || until == 0 {
        return;
    }
    let c = &shared.counters;
    for _ in 0..400 {
        let ended =
            c.requests_ok.load(Ordering::Relaxed) + c.requests_failed.load(Ordering::Relaxed);
        if ended >= until {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Two 1 MB responses back to back on one connection, the first record
/// written only after the second request ended: each record still counts
/// its own request (1 MB acknowledged plus overhead), because the counters
/// are read when the response was completely acknowledged. Read when the
/// record was written, request 1's record counted both (CI once saw
/// 2,055,292 bytes acknowledged for one 1 MB response).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_record_counts_its_own_request_not_the_next() {
    let dir = std::env::temp_dir().join(format!("ramp-quic-late-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let stats = dir.join("late.ndjson");
    let server = Server::bind(ServeConfig {
        listen: "127.0.0.1:0".parse().expect("address"),
        cc: CcChoice::parse("cubic").expect("controller"),
        identity: Identity::self_signed().expect("certificate"),
        root: None,
        stats: Some(stats.clone()),
        labels: PathLabels::default(),
        idle_timeout: Duration::from_secs(5),
    })
    .expect("bind");
    server.shared.hold_first_record.store(2, Ordering::Relaxed);
    let addr = server.local_addr().expect("address");
    let handle = server.handle();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(server.run(async move {
        let _ = stopped.await;
    }));
    // `ramp get`'s progress display reads these counters.
    let progress = std::sync::Arc::new(crate::load::Progress::default());
    let got = client::get_with_progress(
        &GetConfig {
            url: format!("https://{addr}/bytes/1000000")
                .parse()
                .expect("url"),
            n: 2,
            concurrency: 1,
            trust: Trust::Insecure,
            timeout: Duration::from_secs(20),
        },
        progress.clone(),
    )
    .await
    .expect("client runs");
    assert!(got.iter().all(|r| r.is_ok()), "{got:?}");
    assert_eq!(progress.done.load(Ordering::Relaxed), 2);
    assert_eq!(progress.data_bytes.load(Ordering::Relaxed), 2_000_000);
    assert_eq!(got[0].conn, got[1].conn, "one connection");
    for _ in 0..400 {
        if handle.counters().records >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(5), task).await;
    let text = std::fs::read_to_string(&stats).expect("stats file");
    let _ = std::fs::remove_dir_all(&dir);
    let recs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect();
    let order: Vec<_> = recs.iter().map(|r| r["conn.request"].as_u64()).collect();
    assert_eq!(
        order,
        [Some(1), Some(0)],
        "request 0's record was held back"
    );
    for r in &recs {
        let acked = r["num-bytes.ack-received"].as_u64().expect("acked bytes");
        assert!((1_000_000..1_300_000).contains(&acked), "{r}");
    }
}

/// [`Server::on_socket`] serves on the very socket it is given, under
/// either ACK timing: the address stays taken from the caller's bind on
/// (no second bind of the number, so no gap another process could use),
/// and a client is served through it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_on_a_given_socket_keeps_that_socket_and_serves_on_it() {
    for timing in [super::AckTiming::Kernel, super::AckTiming::Driver] {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
        let addr = socket.local_addr().expect("address");
        let server = Server::on_socket(
            socket,
            ServeConfig {
                listen: addr,
                cc: CcChoice::parse("cubic").expect("controller"),
                identity: Identity::self_signed().expect("certificate"),
                root: None,
                stats: None,
                labels: PathLabels::default(),
                idle_timeout: Duration::from_secs(5),
            },
            super::ServeOptions {
                ack_timing: timing,
                ..Default::default()
            },
        )
        .expect("server on the socket");
        assert_eq!(server.local_addr().expect("address"), addr, "{timing:?}");
        assert!(
            std::net::UdpSocket::bind(addr).is_err(),
            "{timing:?}: {addr} was free"
        );
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(server.run(async move {
            let _ = stopped.await;
        }));
        let got = client::get(&GetConfig {
            url: format!("https://{addr}/bytes/1000").parse().expect("url"),
            n: 1,
            concurrency: 1,
            trust: Trust::Insecure,
            timeout: Duration::from_secs(20),
        })
        .await
        .expect("client runs");
        assert!(got.iter().all(|r| r.is_ok()), "{timing:?}: {got:?}");
        let _ = stop.send(());
        task.await.expect("server task");
    }
}
