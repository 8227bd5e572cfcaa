//! Interop with a client nobody here wrote: ngtcp2's `gtlsclient` (Debian
//! package `ngtcp2-client`) downloads `/bytes/1000000` from the server over
//! HTTP/3 and the bytes must be right.
//!
//! Skipped, with a message, when `gtlsclient` is not installed
//! (`apt-get install -y ngtcp2-client`).

use std::process::Command;
use std::time::Duration;

use crate::common::*;
use ramp_quic::pattern_byte;
use ramp_quic::PathLabels;

fn gtlsclient() -> Option<std::path::PathBuf> {
    let p = std::env::var_os("GTLSCLIENT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "gtlsclient".into());
    Command::new(&p)
        .arg("--help")
        .output()
        .ok()
        .filter(|o| o.status.success() || !o.stdout.is_empty())
        .map(|_| p)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ngtcp2_gtlsclient_downloads_the_right_bytes() {
    let Some(bin) = gtlsclient() else {
        // Past the harness's capture: a skip must not look like a pass.
        ramp_host::timing::loud("SKIPPED: gtlsclient not found (apt-get install -y ngtcp2-client)");
        return;
    };
    let server = start_server("cubic", "ngtcp2.ndjson", PathLabels::default()).await;
    let dir = temp_path("ngtcp2-download");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let port = server.addr.port().to_string();
    let dir2 = dir.clone();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(bin)
            .args([
                "-q",
                "--no-quic-dump",
                "--no-http-dump",
                // Not --exit-on-all-streams-close: gtlsclient would close the
                // connection before its last ACK reaches the server, and the
                // record would have no ttlb. It leaves at its idle timeout.
                "--timeout=1s",
                "--handshake-timeout=5s",
            ])
            .arg(format!("--download={}", dir2.display()))
            .args([
                "127.0.0.1",
                &port,
                &format!("https://127.0.0.1:{port}/bytes/1000000"),
            ])
            .output()
    })
    .await
    .unwrap()
    .expect("gtlsclient runs");
    let body = std::fs::read(dir.join("1000000")).unwrap_or_else(|e| {
        panic!(
            "no download ({e}); gtlsclient status {:?}, stderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(body.len(), 1_000_000);
    let first_bad = body
        .iter()
        .enumerate()
        .position(|(i, &b)| b != pattern_byte(i as u64));
    assert_eq!(first_bad, None, "byte mismatch");
    wait_records(&server, 1).await;
    let recs = server.records();
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert!(recs[0].get("ttlb-us").is_some(), "{:?}", recs[0]);
    tokio::time::sleep(Duration::from_millis(10)).await;
    server.stop().await;
}
