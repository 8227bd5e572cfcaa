//! Helpers for the loopback end-to-end tests: a server on an ephemeral
//! port, a client, a relay. Every wait is bounded.

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use ramp_quic::client::{self, GetConfig, GetResult};
use ramp_quic::server::{ServeConfig, Server, ServerHandle};
use ramp_quic::CcChoice;
use ramp_quic::PathLabels;
use ramp_quic::{Identity, Trust};

/// Held by the tests that need the machine to themselves (module docs of
/// `main.rs`).
static EXCLUSIVE: Mutex<()> = Mutex::new(());

/// The machine to this test alone, until the guard is dropped. A test
/// that failed while holding it does not block the others.
pub(crate) fn exclusive() -> MutexGuard<'static, ()> {
    EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `test` under [`exclusive`] on a fresh runtime with two workers
/// (what `#[tokio::test(flavor = "multi_thread", worker_threads = 2)]`
/// gives the others), the lock taken before the runtime starts.
pub(crate) fn run_exclusive<F: Future>(test: F) -> F::Output {
    let _machine = exclusive();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(test)
}

/// A running server.
pub(crate) struct TestServer {
    pub(crate) addr: SocketAddr,
    pub(crate) handle: ServerHandle,
    pub(crate) stats: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl TestServer {
    pub(crate) async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(5), t).await;
        }
    }

    /// The stats records written so far.
    pub(crate) fn records(&self) -> Vec<serde_json::Map<String, serde_json::Value>> {
        let text = std::fs::read_to_string(&self.stats).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).expect("every stats line is a JSON object"))
            .collect()
    }
}

pub(crate) fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ramp-quic-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

pub(crate) async fn start_server(cc: &str, stats_name: &str, labels: PathLabels) -> TestServer {
    let stats = temp_path(stats_name);
    let cfg = ServeConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        cc: CcChoice::parse(cc).expect("controller name"),
        identity: Identity::self_signed().expect("certificate"),
        root: None,
        stats: Some(stats.clone()),
        labels,
        idle_timeout: Duration::from_secs(2),
    };
    let server = Server::bind(cfg).expect("bind");
    let addr = server.local_addr().expect("addr");
    let handle = server.handle();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(server.run(async move {
        let _ = rx.await;
    }));
    TestServer {
        addr,
        handle,
        stats,
        stop: Some(tx),
        task: Some(task),
    }
}

pub(crate) async fn fetch(
    addr: SocketAddr,
    path: &str,
    n: usize,
    concurrency: usize,
) -> Vec<GetResult> {
    let cfg = GetConfig {
        url: format!("https://{addr}{path}").parse().unwrap(),
        n,
        concurrency,
        trust: Trust::Insecure,
        timeout: Duration::from_secs(20),
    };
    client::get(&cfg).await.expect("client runs")
}

/// Waits (bounded, 30 s) until the server has written `n` records. The
/// bound is generous because it ends only a failing test: on a machine
/// at load average 28, 200 records took over 5 s to appear.
pub(crate) async fn wait_records(server: &TestServer, n: u64) {
    for _ in 0..1200 {
        if server.handle.counters().records >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}
