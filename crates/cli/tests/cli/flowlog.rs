//! `ramp shell --flow-log` / `--packet-log` as a user runs them: the flow
//! log times `ramp get`'s transfer as `ramp get` does (within 1 ms on an
//! idle path), curl's over TCP as curl does, and a quicly `cli` download
//! (given `QUICLY_CLI`) that reports no timing of its own.
//!
//! Needs root (or CAP_NET_ADMIN), /dev/net/tun and `ip`; skips with a
//! message otherwise. The timing checks are real-time: when the machine
//! or the emulator was late (the shell's own count of packets sent over
//! 1 ms after their time, or this process's sleeps overshooting by 1 ms)
//! and the check fails, they print INCONCLUSIVE instead of failing.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const RAMP: &str = env!("CARGO_BIN_EXE_ramp");

macro_rules! need_root {
    () => {
        if let Some(why) = super::shell::missing() {
            // Past the harness's capture, as the shell tests do.
            ramp_host::timing::loud(&format!("SKIPPED: a flow-log test: {why}"));
            return;
        }
    };
}

use super::shell::ramp_serve;
use crate::common::Proc;

/// A directory of this test's own, removed on drop.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("ramp-flowlog-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).expect("temp dir");
        TempDir(p)
    }

    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The flow log's records.
fn records(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The record of the flow to `port` over `proto` that carried the most
/// downlink bytes (a second flow of one empty datagram, from another port
/// of `ramp get`, also reaches the server's port).
fn flow(recs: &[serde_json::Value], proto: &str, port: u16) -> serde_json::Value {
    recs.iter()
        .filter(|r| {
            r["proto"] == proto
                && r["server"]
                    .as_str()
                    .is_some_and(|s| s.ends_with(&format!(":{port}")))
        })
        .max_by_key(|r| r["down"]["bytes"].as_u64().unwrap_or(0))
        .cloned()
        .unwrap_or_else(|| panic!("no {proto} flow to port {port} in {recs:?}"))
}

/// How late the shell's loop sent packets: packets over 1 ms late, both
/// ways.
fn late_packets(stderr: &str) -> u64 {
    stderr
        .lines()
        .filter(|l| l.starts_with("ramp shell "))
        .filter_map(|l| {
            let i = l.find(" over 1 ms")?;
            l[..i].split_whitespace().last()?.parse::<u64>().ok()
        })
        .sum()
}

/// How late this process wakes from 1 ms sleeps (the worst of 20): a
/// proxy for how late the endpoints ran.
fn own_lateness() -> Duration {
    (0..20)
        .map(|_| {
            let t = Instant::now();
            std::thread::sleep(Duration::from_millis(1));
            t.elapsed().saturating_sub(Duration::from_millis(1))
        })
        .max()
        .unwrap_or_default()
}

/// Checks `|a − b| ≤ 1 ms`; when not, and the run was late, says
/// INCONCLUSIVE instead of failing.
fn within_1ms(what: &str, link_us: f64, own_us: f64, stderr: &str, before: Duration) {
    let diff = (link_us - own_us).abs();
    if diff <= 1000.0 {
        eprintln!("{what}: flow log {link_us:.0} µs, own {own_us:.0} µs: within 1 ms");
        return;
    }
    let late = late_packets(stderr);
    let after = own_lateness();
    if late > 0 || before.max(after) > Duration::from_millis(1) {
        eprintln!(
            "INCONCLUSIVE {what}: flow log {link_us:.0} µs vs own {own_us:.0} µs, but the run was late \
             ({late} packets over 1 ms late in the shell, this process's 1 ms sleeps late by up to {:?})",
            before.max(after)
        );
        return;
    }
    panic!(
        "{what}: flow log {link_us:.0} µs vs own {own_us:.0} µs (more than 1 ms apart)\n{stderr}"
    );
}

const LINK: [&str; 6] = ["--rate", "20mbit", "--rtt", "20ms", "--queue", "20ms"];

fn shell_with_logs(dir: &TempDir, script: &str) -> Output {
    let mut args: Vec<String> = vec!["shell".into()];
    args.extend(LINK.iter().map(|s| s.to_string()));
    args.push("--flow-log".into());
    args.push(dir.path().join("flows.ndjson").display().to_string());
    args.push("--packet-log".into());
    args.push(dir.path().join("packets.ndjson").display().to_string());
    args.extend(["--", "sh", "-c", script].map(String::from));
    Command::new(RAMP)
        .args(&args)
        .output()
        .expect("ramp shell runs")
}

#[test]
fn the_flow_log_times_ramp_get_as_ramp_get_does() {
    need_root!();
    let (_serve, port) = ramp_serve();
    let dir = TempDir::new();
    let before = own_lateness();
    let out = shell_with_logs(
        &dir,
        &format!("exec {RAMP} get https://$RAMP_SHELL_HOST:{port}/bytes/1000000 --insecure --json"),
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let get: serde_json::Value =
        serde_json::from_str(text(&out.stdout).lines().next().unwrap_or("{}")).expect("json");
    assert_eq!(get["verified"], true, "{get}");
    let f = flow(&records(&dir.path().join("flows.ndjson")), "udp", port);
    assert!(
        f["down"]["delivered-bytes"].as_u64().unwrap_or(0) > 1_000_000,
        "{f}"
    );
    let link = f["transfer-us"].as_f64().expect("transfer-us");
    let own = get["ttlb-us"].as_f64().expect("ttlb-us");
    within_1ms("ramp get", link, own, &stderr, before);
    // The packet log has every delivery with its delay through the link,
    // at least the one-way propagation delay (10 ms).
    let packets = std::fs::read_to_string(dir.path().join("packets.ndjson")).expect("packet log");
    let delays: Vec<u64> = packets
        .lines()
        .filter(|l| l.contains("\"ev\":\"deliver\"") && l.contains("\"dir\":\"down\""))
        .filter(|l| l.contains(&format!(":{port}\"")))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["delay-us"].as_u64())
        .collect();
    assert_eq!(
        delays.len() as u64,
        f["down"]["delivered"].as_u64().unwrap_or(0),
        "one delivery line per packet of the flow"
    );
    assert!(delays.iter().all(|&d| d >= 10_000), "{:?}", &delays[..5]);
}

/// A plain HTTP/1.1 server on the host (kernel TCP) sending `bytes` to one
/// request.
fn http_server(bytes: usize) -> (u16, std::thread::JoinHandle<()>) {
    let l = TcpListener::bind("0.0.0.0:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    let h = std::thread::spawn(move || {
        let Ok((mut s, _)) = l.accept() else { return };
        let mut req = [0u8; 4096];
        let mut got = Vec::new();
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            match s.read(&mut req) {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&req[..n]),
            }
        }
        let head =
            format!("HTTP/1.1 200 OK\r\nContent-Length: {bytes}\r\nConnection: close\r\n\r\n");
        let _ = s.write_all(head.as_bytes());
        let _ = s.write_all(&vec![b'x'; bytes]);
    });
    (port, h)
}

#[test]
fn the_flow_log_times_curl_over_tcp_as_curl_does() {
    need_root!();
    if Command::new("curl").arg("--version").output().is_err() {
        ramp_vocab::note!("SKIPPED: the_flow_log_times_curl_over_tcp_as_curl_does: no curl");
        return;
    }
    let (port, h) = http_server(1_000_000);
    let dir = TempDir::new();
    let before = own_lateness();
    // curl's own times: the request leaves at time_pretransfer, the last
    // byte is in at time_total.
    let out = shell_with_logs(
        &dir,
        &format!(
            "exec curl -s -o /dev/null -w '%{{time_pretransfer}} %{{time_total}}' http://$RAMP_SHELL_HOST:{port}/"
        ),
    );
    h.join().expect("server");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let t: Vec<f64> = text(&out.stdout)
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect();
    assert_eq!(t.len(), 2, "{}", text(&out.stdout));
    let own = (t[1] - t[0]) * 1e6;
    let f = flow(&records(&dir.path().join("flows.ndjson")), "tcp", port);
    assert!(
        f["down"]["delivered-bytes"].as_u64().unwrap_or(0) > 1_000_000,
        "{f}"
    );
    within_1ms(
        "curl",
        f["transfer-us"].as_f64().expect("transfer-us"),
        own,
        &stderr,
        before,
    );
}

#[test]
fn the_flow_log_times_a_quicly_cli_download() {
    need_root!();
    let Some(cli) = std::env::var_os("QUICLY_CLI").filter(|c| std::path::Path::new(c).exists())
    else {
        ramp_vocab::note!(
            "SKIPPED: the_flow_log_times_a_quicly_cli_download: QUICLY_CLI (a quicly `cli` built outside the repository) not set"
        );
        return;
    };
    let cli = std::path::PathBuf::from(cli);
    let dir = TempDir::new();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output();
    if !made.is_ok_and(|o| o.status.success()) {
        ramp_vocab::note!("SKIPPED: the_flow_log_times_a_quicly_cli_download: openssl could not make a certificate");
        return;
    }
    let port = {
        let s = std::net::UdpSocket::bind("0.0.0.0:0").expect("bind");
        s.local_addr().expect("addr").port()
    };
    let server = Command::new(&cli)
        .arg("-c")
        .arg(&cert)
        .arg("-k")
        .arg(&key)
        .args(["-C", "pico:30:p", "0.0.0.0", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("quicly server");
    let _server = Proc(server);
    std::thread::sleep(Duration::from_millis(300));
    let out = shell_with_logs(
        &dir,
        &format!(
            "exec '{}' -O -p /1000000 $RAMP_SHELL_HOST {port}",
            cli.display()
        ),
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let f = flow(&records(&dir.path().join("flows.ndjson")), "udp", port);
    assert!(
        f["down"]["delivered-bytes"].as_u64().unwrap_or(0) > 1_000_000,
        "{f}"
    );
    // 1 MB at 20 Mbit/s takes 400 ms of serialisation alone, and the
    // request waits for the handshake: the time is the transfer's.
    let us = f["transfer-us"].as_u64().expect("transfer-us");
    assert!((400_000..5_000_000).contains(&us), "{f}");
}
