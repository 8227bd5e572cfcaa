//! `ramp shell` as a process: TCP over IPv4 and IPv6, QUIC, ECN marks,
//! reachability, nesting, link elements (exit codes and cleanup after
//! SIGTERM and SIGKILL are in [`lifecycle`]). Each test needs root (or CAP_NET_ADMIN), /dev/net/tun and the
//! `ip` command, and skips with a message where they are missing. Every
//! shell's namespace and devices are checked gone at the end of its test.

use std::io::Write;
use std::net::TcpListener;
use std::process::{Command, Output};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::common::{start_listening, Proc};

pub(super) const RAMP: &str = env!("CARGO_BIN_EXE_ramp");

/// Why this machine cannot run the shell tests, if it cannot.
pub(super) fn missing() -> Option<String> {
    let root = std::fs::read_to_string("/proc/self/status")
        .ok()
        .is_some_and(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("CapEff:"))
                .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
                .is_some_and(|c| c & (1 << 12) != 0)
        });
    if !root {
        return Some("not root and no CAP_NET_ADMIN".into());
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Some("no /dev/net/tun".into());
    }
    if Command::new("ip").arg("-V").output().is_err() {
        return Some("no ip command (iproute2)".into());
    }
    if Command::new("bash").arg("-c").arg("true").output().is_err() {
        return Some("no bash".into());
    }
    None
}

macro_rules! need_root {
    () => {
        if let Some(why) = missing() {
            // Past the harness's capture: a skipped test must not look
            // like a passed one.
            ramp_host::timing::loud(&format!("SKIPPED: a ramp shell test: {why}"));
            return;
        }
    };
}

/// A TCP server on every address of one family that sends `bytes` bytes
/// to each of `conns` connections.
fn tcp_server(v6: bool, bytes: usize, conns: usize) -> (u16, JoinHandle<()>) {
    let l = TcpListener::bind(if v6 { "[::]:0" } else { "0.0.0.0:0" }).expect("bind");
    let port = l.local_addr().expect("addr").port();
    let h = std::thread::spawn(move || {
        for _ in 0..conns {
            let Ok((mut s, _)) = l.accept() else { return };
            let chunk = vec![7u8; 16 * 1024];
            let mut left = bytes;
            while left > 0 {
                let n = left.min(chunk.len());
                if s.write_all(&chunk[..n]).is_err() {
                    break;
                }
                left -= n;
            }
        }
    });
    (port, h)
}

/// Starts `ramp serve` on every address and a free port (PMTUD off, so
/// packets keep the size the link was sized for); returns its guard and
/// the port read from its first line.
pub(super) fn ramp_serve() -> (Proc, u16) {
    let (guard, addr) = start_listening(&["serve", "--listen", "0.0.0.0:0", "--pmtud", "off"]);
    let port = addr
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{addr}"));
    (guard, port)
}

pub(super) fn shell(link: &[&str], script: &str) -> Output {
    let mut args = vec!["shell"];
    args.extend_from_slice(link);
    args.extend_from_slice(&["--", "bash", "-c", script]);
    Command::new(RAMP)
        .args(&args)
        .output()
        .expect("ramp shell runs")
}

pub(super) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The value of counter `name` in the closing line of direction `dir`.
pub(super) fn counter(stderr: &str, dir: &str, name: &str) -> u64 {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("ramp shell ") && l.contains(&format!(" {dir}: ")))
        .unwrap_or_else(|| panic!("no {dir} line in {stderr}"));
    let at = line
        .find(name)
        .unwrap_or_else(|| panic!("no {name} in {line}"));
    let before = &line[..at];
    let after = &line[at + name.len()..];
    if name.starts_with("largest") {
        after.split_whitespace().next()
    } else {
        before.split_whitespace().last()
    }
    .and_then(|n| n.parse().ok())
    .unwrap_or_else(|| panic!("{name} in {line}"))
}

/// The namespace a running shell with pid `pid` made, once it exists.
pub(super) fn namespace_of(pid: u32) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(d) = std::fs::read_dir("/run/ramp-shell") {
            for e in d.filter_map(|e| e.ok()) {
                if std::fs::read_to_string(e.path()).is_ok_and(|s| s.trim() == pid.to_string()) {
                    return e.file_name().to_string_lossy().into_owned();
                }
            }
        }
        assert!(Instant::now() < deadline, "shell {pid} made no namespace");
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(super) fn exists(ns: &str) -> bool {
    std::path::Path::new("/run/netns").join(ns).exists()
}

pub(super) fn gone_within(pids: &[String], limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if pids
            .iter()
            .all(|p| !std::path::Path::new("/proc").join(p).exists())
        {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn tcp_over_ipv4_and_ipv6_crosses_the_link_at_its_rate() {
    need_root!();
    const BYTES: usize = 300_000;
    let (p4, h4) = tcp_server(false, BYTES, 1);
    let (p6, h6) = tcp_server(true, BYTES, 1);
    let log = std::env::temp_dir().join(format!("ramp-shell-test-{}.ndjson", std::process::id()));
    let t = Instant::now();
    let out = shell(
        &["--rate", "10mbit", "--rtt", "20ms", "--queue", "20ms", "--log", &log.to_string_lossy()],
        &format!(
            "cat < /dev/tcp/$RAMP_SHELL_HOST/{p4} | wc -c; cat < /dev/tcp/$RAMP_SHELL_HOST6/{p6} | wc -c"
        ),
    );
    let elapsed = t.elapsed();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stdout, format!("{BYTES}\n{BYTES}\n"), "{stderr}");
    // 2 × 300 kB at 10 Mbit/s take at least 480 ms of serialisation.
    assert!(
        elapsed >= Duration::from_millis(480),
        "{elapsed:?}: the link did not shape"
    );
    // The link saw wire-sized packets: no offload super-packets.
    for dir in ["up", "down"] {
        let largest = counter(&stderr, dir, "largest packet");
        assert!(largest <= 1500, "{dir}: largest packet {largest}");
    }
    assert!(counter(&stderr, "down", "delivered") > 400, "{stderr}");
    let log_text = std::fs::read_to_string(&log).expect("log written");
    let enqueues = log_text
        .lines()
        .filter(|l| l.contains("\"ev\":\"enqueue\""))
        .count();
    assert!(enqueues > 400, "{enqueues} enqueue lines");
    for l in log_text.lines().take(50) {
        let v: serde_json::Value = serde_json::from_str(l).expect("NDJSON");
        assert!(
            v["t-us"].is_u64() && v["dir"].is_string() && v["bytes"].is_u64(),
            "{l}"
        );
    }
    let _ = std::fs::remove_file(&log);
    h4.join().expect("v4 server");
    h6.join().expect("v6 server");
}

#[test]
fn rfc3168_6_1_1_codel_marks_ect_tcp_instead_of_dropping() {
    need_root!();
    let (port, h) = tcp_server(false, 1_500_000, 1);
    let out = shell(
        &[
            "--rate", "5mbit", "--rtt", "20ms", "--queue", "200ms", "--aqm", "codel",
        ],
        &format!(
            "echo 1 > /proc/sys/net/ipv4/tcp_ecn; cat < /dev/tcp/$RAMP_SHELL_HOST/{port} | wc -c"
        ),
    );
    let stderr = text(&out.stderr);
    assert_eq!(text(&out.stdout).trim(), "1500000", "{stderr}");
    // Linux sends its SYN-ACK and retransmissions not-ECT (RFC 3168
    // §6.1.1 and §6.1.5): CoDel may drop those, and marks the rest.
    let marks = counter(&stderr, "down", "CE marks");
    assert!(marks > 10, "{stderr}");
    assert!(
        counter(&stderr, "down", "AQM drops") < marks / 10,
        "{stderr}"
    );
    h.join().expect("server");
}

#[test]
fn quic_download_with_ramp_get_inside_the_shell() {
    need_root!();
    let (_serve, port) = ramp_serve();
    let out = shell(
        &["--rate", "20mbit", "--rtt", "20ms", "--queue", "20ms"],
        &format!("{RAMP} get https://$RAMP_SHELL_HOST:{port}/bytes/200000 -n 2 --insecure --json"),
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let ok = text(&out.stdout)
        .lines()
        .filter(|l| l.contains("\"verified\":true"))
        .count();
    assert_eq!(ok, 2, "{}", text(&out.stdout));
    assert!(counter(&stderr, "down", "delivered") > 300, "{stderr}");
}

#[test]
fn the_command_reaches_only_the_outer_end_of_its_link() {
    need_root!();
    let out = shell(
        &["--rate", "10mbit", "--rtt", "10ms", "--queue", "10ms"],
        // Another shell's address space (no route out), then a public
        // address (no route at all).
        "timeout 1 bash -c 'exec 3<>/dev/tcp/100.127.255.1/9' && exit 10; \
         timeout 1 bash -c 'exec 3<>/dev/tcp/192.0.2.1/9' && exit 11; exit 0",
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(counter(&stderr, "up", "refused") >= 1, "{stderr}");
}

#[test]
fn nested_shells_reach_the_host_through_both_links() {
    need_root!();
    let (port, h) = tcp_server(false, 100_000, 1);
    let inner = format!(
        "H=$RAMP_SHELL_HOST {RAMP} shell --rate 10mbit --rtt 10ms --queue 20ms -- \
         bash -c 'echo $RAMP_SHELL_PATH; cat < /dev/tcp/$H/{port} | wc -c'"
    );
    let out = shell(
        &["--rate", "20mbit", "--rtt", "10ms", "--queue", "20ms"],
        &inner,
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 2, "{lines:?} {stderr}");
    assert_eq!(lines[0].split('-').count(), 2, "nested path {}", lines[0]);
    assert_eq!(lines[1], "100000", "{stderr}");
    h.join().expect("server");
}

#[test]
fn mahimahi_trace_replaces_the_downlink_rate() {
    need_root!();
    // One 1500-byte opportunity per ms: 12 Mbit/s, where --rate says 1.
    let trace = std::env::temp_dir().join(format!("ramp-shell-test-{}.trace", std::process::id()));
    std::fs::write(
        &trace,
        (1..=10).map(|i| format!("{i}\n")).collect::<String>(),
    )
    .expect("trace");
    let (port, h) = tcp_server(false, 300_000, 1);
    let pressure = ramp_host::timing::CpuPressure::now();
    let t = Instant::now();
    let out = shell(
        &[
            "--rate",
            "1mbit",
            "--rtt",
            "10ms",
            "--queue",
            "100ms",
            "--trace",
            &trace.to_string_lossy(),
        ],
        &format!("cat < /dev/tcp/$RAMP_SHELL_HOST/{port} | wc -c"),
    );
    let elapsed = t.elapsed();
    assert_eq!(text(&out.stdout).trim(), "300000", "{}", text(&out.stderr));
    // 300 kB at 12 Mbit/s: 200 ms at least; at --rate's 1 Mbit/s it would be 2.4 s.
    assert!(elapsed >= Duration::from_millis(200), "{elapsed:?}");
    // The upper bound is real time: a run the machine could not keep time
    // for (some task waiting for a CPU over half the time) proves nothing.
    let pressure = pressure.and_then(|p| p.share_since());
    if elapsed >= Duration::from_millis(2_000) && pressure.is_some_and(|p| p > 0.5) {
        ramp_host::timing::inconclusive(
            "mahimahi_trace_replaces_the_downlink_rate",
            &format!(
                "300 kB took {elapsed:?}, CPU pressure {:.0}%",
                pressure.unwrap_or(0.0) * 100.0
            ),
        );
    } else {
        assert!(
            elapsed < Duration::from_millis(2_000),
            "{elapsed:?}: the trace was not used"
        );
    }
    let _ = std::fs::remove_file(&trace);
    h.join().expect("server");
}

#[test]
fn cellular_wifi_and_aggregation_flags_carry_a_download_whole() {
    need_root!();
    // The elements delay and slow, never reorder or drop here (a 1 s
    // buffer): the download arrives whole. Counts only, no timing.
    let (port, h) = tcp_server(false, 300_000, 1);
    let out = shell(
        &[
            "--rate",
            "20mbit",
            "--rtt",
            "20ms",
            "--queue",
            "1s",
            "--cellular=drift_mean=0.3",
            "--wifi-jitter",
            "--ack-aggregation",
            "4ms",
            "--seed",
            "3",
        ],
        &format!("cat < /dev/tcp/$RAMP_SHELL_HOST/{port} | wc -c"),
    );
    let stderr = text(&out.stderr);
    assert_eq!(text(&out.stdout).trim(), "300000", "{stderr}");
    assert!(out.status.success(), "{stderr}");
    assert!(counter(&stderr, "down", "delivered") > 200, "{stderr}");
    h.join().expect("server");
}

/// `ramp shell`'s usage line is written from `ramp_link::ELEMENTS`: it
/// names every element flag the shell takes (it once listed only
/// `--cellular` and `--wifi-jitter`, not `--policer` or
/// `--gilbert-elliott`), each marked optional-valued or not as its flag is.
#[test]
fn the_usage_line_names_every_link_element_flag() {
    let out = Command::new(RAMP)
        .args(["shell", "--help"])
        .output()
        .expect("ramp shell --help runs");
    let help = text(&out.stdout);
    let usage = help
        .lines()
        .find(|l| l.starts_with("Usage: "))
        .unwrap_or_else(|| panic!("no usage line in:\n{help}"));
    for s in ramp_link::ELEMENTS {
        let flag = s.names.flag;
        let want = if s.required.is_empty() {
            format!("[--{flag}[=…]]")
        } else {
            format!("[--{flag}=…]")
        };
        assert!(usage.contains(&want), "no {want} in {usage:?}");
        // ... and it is a flag the shell really takes.
        assert!(
            help.contains(&format!("\n      --{flag}")),
            "{flag}:\n{help}"
        );
    }
    assert!(usage.contains("[--ack-aggregation D]"), "{usage}");
}

mod lifecycle;
