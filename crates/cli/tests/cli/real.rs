//! `ramp serve`, `ramp relay` and `ramp get` as processes on loopback.
//! Every child is killed by its own handle; every wait is bounded.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RAMP: &str = env!("CARGO_BIN_EXE_ramp");

use crate::common::start_listening as start;
use crate::common::{relay_args, serve_h2_args};

#[cfg(target_os = "linux")]
mod h2_port;

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ramp-real-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d.join(name)
}

#[test]
fn serve_relay_get_end_to_end_with_stats_record() {
    // quinn's own pacer, and the controller's (the default) with BBRv3.
    end_to_end("cubic+hystart", &["--pacing", "quinn"]);
    end_to_end("bbr3", &[]);
}

/// `ramp serve --cc CC EXTRA…` behind `ramp relay`, three verified
/// downloads with `ramp get`, and a stats record for each.
fn end_to_end(cc: &str, extra: &[&str]) {
    let stats = temp(&format!("serve-{cc}.ndjson"));
    let stats_s = stats.to_string_lossy().to_string();
    let mut args = vec![
        "serve",
        "--cc",
        cc,
        "--listen",
        "127.0.0.1:0",
        "--stats",
        &stats_s,
        "--path-rate",
        "20mbit",
        "--path-rtt",
        "20ms",
        "--duration",
        "60s",
    ];
    args.extend_from_slice(extra);
    let (_server, server_addr) = start(&args);
    let (_relay, relay_addr) = start(&relay_args(
        &server_addr,
        ["20mbit", "20ms", "20ms"],
        &["--duration", "60s"],
    ));
    let out = Command::new(RAMP)
        .args([
            "get",
            &format!("https://{relay_addr}/bytes/300000"),
            "-n",
            "3",
            "--insecure",
            "--json",
            "--timeout",
            "20s",
        ])
        .output()
        .expect("ramp get runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 3);
    for l in &lines {
        assert_eq!(l["status"], 200);
        assert_eq!(l["content_length"], 300_000);
        assert_eq!(l["verified"], true);
        // 300 kB at 20 Mbit/s take at least 120 ms.
        assert!(l["ttlb-us"].as_u64().unwrap() >= 120_000, "{l}");
    }
    // Records are flushed as each request ends; give the last ack a moment.
    let deadline = Instant::now() + Duration::from_secs(5);
    let recs = loop {
        let text = std::fs::read_to_string(&stats).unwrap_or_default();
        let recs: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("record"))
            .collect();
        if recs.len() >= 3 || Instant::now() > deadline {
            break recs;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(recs.len(), 3);
    for r in &recs {
        assert_eq!(r["cc.algorithm"], cc);
        assert_eq!(r["path.rate-bps"], 20_000_000);
        assert_eq!(r["path.rtt-ms"], 20);
        assert!(r["ttlb"].as_u64().is_some(), "{r}");
    }
}

#[test]
fn get_summary_and_errors() {
    let (_server, addr) = start(&["serve", "--listen", "127.0.0.1:0", "--duration", "60s"]);
    let out = Command::new(RAMP)
        .args([
            "get",
            &format!("https://{addr}/bytes/1000"),
            "-n",
            "4",
            "-c",
            "2",
            "--insecure",
        ])
        .output()
        .expect("ramp get runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("4 requests: 4 ok, 0 failed"), "{text}");
    assert!(text.contains("ttlb"), "{text}");
    // No trust anchor: a clear error, not a hang.
    let out = Command::new(RAMP)
        .args(["get", &format!("https://{addr}/bytes/1000")])
        .output()
        .expect("ramp get runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--insecure"));
    // A 404 fails the run, and says so (it said "status 404, wrong bytes").
    let out = Command::new(RAMP)
        .args(["get", &format!("https://{addr}/missing"), "--insecure"])
        .output()
        .expect("ramp get runs");
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("request 0: HTTP status 404 (not 200)"), "{e}");
    assert!(!e.contains("wrong bytes"), "{e}");
    assert!(e.contains("1 of 1 request failed"), "{e}");
    // One request is "1 request", not "1 requests".
    let out = Command::new(RAMP)
        .args(["get", &format!("https://{addr}/bytes/10"), "--insecure"])
        .output()
        .expect("ramp get runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("1 request: 1 ok, 0 failed"), "{text}");
}

/// `ramp get https://127.0.0.1:PORT/bytes/1 --insecure EXTRA...`, which
/// must end within `bound` (or the machine was too busy to tell:
/// `ramp_host::timing::promptly`).
fn get_one_byte(port: u16, extra: &[&str], test: &str, bound: Duration) -> std::process::Output {
    let t0 = Instant::now();
    let pressure = ramp_host::timing::CpuPressure::now();
    let out = Command::new(RAMP)
        .args([
            "get",
            &format!("https://127.0.0.1:{port}/bytes/1"),
            "--insecure",
        ])
        .args(extra)
        .output()
        .expect("ramp get runs");
    ramp_host::timing::promptly(test, t0, bound, pressure);
    out
}

#[test]
fn get_honours_timeout_for_the_handshake_and_prints_only_the_error() {
    // A socket that never answers holds the port (a closed port would
    // answer with ICMP): the handshake never completes.
    let silent = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
    let port = silent
        .local_addr()
        .map(|a| a.port())
        .expect("ephemeral port");
    // quinn's own 10 s idle timeout no longer decides (generous bound).
    let out = get_one_byte(
        port,
        &["--timeout", "1s"],
        "get_honours_timeout_for_the_handshake_and_prints_only_the_error",
        Duration::from_secs(8),
    );
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.trim().is_empty(),
        "no empty statistics table: {stdout}"
    );
    assert!(stderr.contains("handshake timed out"), "{stderr}");
    assert!(!stderr.contains("status None"), "{stderr}");
}

#[test]
fn rfc3986_3_2_3_get_refuses_a_bad_port() {
    for url in ["https://127.0.0.1:99999/x", "https://127.0.0.1:65536/x"] {
        let out = Command::new(RAMP)
            .args(["get", url, "--insecure", "--timeout", "1s"])
            .output()
            .expect("ramp get runs");
        assert!(!out.status.success(), "{url}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("bad port"), "{url}: {stderr}");
    }
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    for args in [
        &["serve", "--cc", "no-such-controller"][..],
        &["serve", "--pacing", "fast"][..],
        &relay_args("127.0.0.1:1", ["fast", "40ms", "40ms"], &[])[..],
        &relay_args("127.0.0.1:1", ["20mbit", "40", "40ms"], &[])[..],
        &["get", "http://127.0.0.1:1/x", "--insecure"][..],
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--root",
            "/nonexistent/ramp-root",
        ][..],
    ] {
        let out = Command::new(RAMP).args(args).output().expect("runs");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("error"),
            "{args:?}"
        );
    }
}

/// `--cellular`, `--wifi-jitter` and `--ack-aggregation` are one definition
/// in `ramp relay` and `ramp shell`: a bad value is refused before any
/// work (no root needed), naming the flag and the field, exit status 2.
#[test]
fn relay_and_shell_refuse_a_bad_path_element_naming_flag_and_field() {
    let relay = relay_args("127.0.0.1:1", ["20mbit", "40ms", "40ms"], &[]);
    let shell = [
        "shell", "--rate", "20mbit", "--rtt", "40ms", "--queue", "40ms",
    ];
    for (bad, flag, field) in [
        (
            "--cellular=light_fraction=2",
            "--cellular",
            "light_fraction",
        ),
        ("--cellular=drift_period=0ms", "--cellular", "drift_period"),
        ("--wifi-jitter=median=50ms", "--wifi-jitter", "median"),
    ] {
        for base in [&relay[..], &shell[..]] {
            let mut args = base.to_vec();
            args.push(bad);
            if base[0] == "shell" {
                args.extend(["--", "true"]);
            }
            let out = Command::new(RAMP).args(&args).output().expect("runs");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(
                stderr.contains(flag) && stderr.contains(field),
                "{args:?}: {stderr}"
            );
        }
    }
}

/// `ramp serve ... | head -1` and `ramp relay ... | true`: the servers
/// keep SIGPIPE ignored, so a closed stdout is EPIPE on their
/// `listening on` lines; that must neither panic nor stop the server
/// (it runs to its --duration and exits 0).
#[cfg(unix)]
#[test]
fn serve_and_relay_outlive_a_closed_stdout() {
    let relay: &[&str] = &relay_args(
        "127.0.0.1:9",
        ["20mbit", "20ms", "20ms"],
        &["--duration", "1s"],
    );
    let serve_h2: &[&str] = &serve_h2_args("1s");
    for args in [serve_h2, relay] {
        let mut child = Command::new(RAMP)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ramp starts");
        // Close the read end before the child writes its first line.
        drop(child.stdout.take());
        let t0 = Instant::now();
        let out = child.wait_with_output().expect("ramp ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            t0.elapsed() >= Duration::from_millis(900),
            "{args:?} ran to its --duration"
        );
    }
}

/// `ramp relay` refuses a buffer smaller than one packet, at `--rate` or
/// at a sparse trace's mean rate (a 1-packet-per-second trace and a 20 ms
/// queue make a 30-byte buffer), as `ramp shell` and `ramp sim` do; it
/// accepted both and dropped every packet that found the link busy.
#[test]
fn relay_refuses_a_buffer_under_one_packet_at_the_rate_or_a_traces_mean() {
    let trace = temp("1pps.trace");
    std::fs::write(&trace, "1000\n").expect("trace written");
    let trace_s = trace.to_string_lossy().to_string();
    let base = [
        "relay",
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        "127.0.0.1:9",
        "--rtt",
        "20ms",
        "--queue",
        "20ms",
        "--duration",
        "1s",
    ];
    for extra in [
        &["--rate", "1kbit"][..],
        &["--rate", "10mbit", "--trace", &trace_s][..],
    ] {
        let out = Command::new(RAMP)
            .args(base)
            .args(extra)
            .output()
            .expect("ramp relay runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(
            stderr.contains("--queue: the buffer holds less than one 1500-byte packet"),
            "{extra:?}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "refused before listening: {extra:?}");
    }
}

/// `ramp get` and `ramp load` spell their shared flags one way (`-n`,
/// `-c`, `-k`, `--cacert`, as h2load and curl); get's old `--n`,
/// `--concurrency` and `--ca` are hidden aliases that still parse.
#[test]
fn get_and_load_share_one_spelling_of_their_common_flags() {
    for cmd in ["get", "load"] {
        let out = Command::new(RAMP)
            .args([cmd, "--help"])
            .output()
            .expect("help runs");
        let help = String::from_utf8_lossy(&out.stdout);
        for flag in [
            "-n, --requests <REQUESTS>",
            "-c, --clients <CLIENTS>",
            "-k, --insecure",
            "--cacert <CACERT>",
        ] {
            assert!(
                help.contains(flag),
                "ramp {cmd} --help lacks {flag}: {help}"
            );
        }
        for old in ["--concurrency <", "--ca <", "--n <"] {
            assert!(!help.contains(old), "ramp {cmd} --help lists {old}: {help}");
        }
    }
    // The old spellings parse: the run gets as far as the network.
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .and_then(|s| s.local_addr())
        .map(|a| a.port())
        .expect("ephemeral port");
    let out = Command::new(RAMP)
        .args([
            "get",
            &format!("https://127.0.0.1:{port}/bytes/1"),
            "--n",
            "1",
            "--concurrency",
            "1",
            "--ca",
            "/nonexistent/ca.pem",
        ])
        .output()
        .expect("ramp get runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("/nonexistent/ca.pem"), "{stderr}");
}

/// A dead server (nothing bound to the port) answers with ICMP port
/// unreachable: `ramp get` fails at once naming the address, not after
/// its 60 s default --timeout.
#[test]
fn get_fails_fast_on_a_closed_port_naming_the_address() {
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .and_then(|s| s.local_addr())
        .map(|a| a.port())
        .expect("ephemeral port");
    let out = get_one_byte(
        port,
        &[],
        "get_fails_fast_on_a_closed_port_naming_the_address",
        Duration::from_secs(5),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("127.0.0.1:{port} is unreachable")),
        "{stderr}"
    );
}

/// `ramp serve --qlog DIR` behind a lossy `ramp relay`: one qlog 0.3
/// JSON-SEQ file per connection, in the simulator's event vocabulary, with
/// the sends, the losses quinn declared and the controller's window.
#[test]
fn serve_qlog_writes_one_file_per_connection_with_sends_losses_and_window() {
    let dir = temp("qlog");
    let _ = std::fs::remove_dir_all(&dir);
    let dir_s = dir.to_string_lossy().to_string();
    let (server, server_addr) = start(&[
        "serve",
        "--cc",
        "newreno",
        "--listen",
        "127.0.0.1:0",
        "--qlog",
        &dir_s,
        "--pmtud",
        "off",
        "--duration",
        "60s",
    ]);
    let (_relay, relay_addr) = start(&relay_args(
        &server_addr,
        ["20mbit", "20ms", "20ms"],
        &["--loss", "5%", "--duration", "60s"],
    ));
    for _ in 0..2 {
        let out = Command::new(RAMP)
            .args([
                "get",
                &format!("https://{relay_addr}/bytes/300000"),
                "--insecure",
                "--timeout",
                "20s",
            ])
            .output()
            .expect("ramp get runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // SIGINT: the server closes its connections and quinn drops them,
    // which flushes their files.
    let pid = server.0.id().to_string();
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    let mut server = server;
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.0.try_wait().expect("wait").is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("qlog dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["conn-0.sqlog", "conn-1.sqlog"]);
    for n in &names {
        let text = std::fs::read_to_string(dir.join(n)).expect("qlog");
        let records: Vec<serde_json::Value> = text
            .split('\u{1e}')
            .filter(|r| !r.trim().is_empty())
            .map(|r| serde_json::from_str(r.trim()).unwrap_or_else(|e| panic!("{n}: {e}: {r}")))
            .collect();
        assert_eq!(records[0]["qlog_version"], "0.3", "{n}");
        assert_eq!(records[0]["qlog_format"], "JSON-SEQ", "{n}");
        let count = |name: &str| records.iter().filter(|r| r["name"] == name).count();
        // 300 kB in 1200-byte datagrams (`--pmtud off`), each with
        // headers: more than 250 packets.
        assert!(count("transport:packet_sent") >= 250, "{n}");
        assert!(count("transport:packet_received") > 0, "{n}");
        // 5 % random loss over some 250 packets: losses are all but
        // certain (P(none) = 0.95^250 < 10^-5).
        assert!(count("recovery:packet_lost") > 0, "{n}");
        assert!(
            records
                .iter()
                .any(|r| r["name"] == "recovery:metrics_updated"
                    && r["data"]["congestion_window"].as_u64().is_some()),
            "{n}"
        );
    }
}
