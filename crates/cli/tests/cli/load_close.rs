//! `ramp load` closes its QUIC connections before it exits: the server
//! hears every client's CONNECTION_CLOSE (RFC 9000 §10.2), seen from the
//! server's side through `ramp serve --qlog`.
//!
//! The close used to be sent by a spawned task that died with the runtime
//! when `ramp load` exited, so the last clients vanished without one and
//! the server kept their connections (and probed them) until its idle
//! timeout.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::serve_qlog::{self, ConnLog};
use crate::common::{ramp, start_listening_with_stderr};

/// How long the test leaves the server alone after the last `ramp load`
/// has exited, before it stops the server. A connection whose client
/// vanished without a close is still open at the stop, where serve sends
/// it a close of its own: at least this long after the last packet it
/// received (it probes before that if it still had data in flight).
const QUIET: Duration = Duration::from_secs(2);

/// Connections of one `ramp load` run, each with two requests for a small
/// body.
const CONNECTIONS: usize = 3;

/// `ramp load` runs against the one server. Whether the old code's close
/// left before the process ended was a race it won most of the time: 2 of
/// 8 single runs of 3 connections had a connection that never heard it
/// (the same with 8 connections); this many runs failed 8 of 8 tests
/// before the fix, in about 3 s each.
const ROUNDS: usize = 30;

#[test]
fn rfc9000_10_2_the_server_hears_every_load_client_s_connection_close() {
    const TEST: &str = "rfc9000_10_2_the_server_hears_every_load_client_s_connection_close";
    let dir = std::env::temp_dir().join(format!("ramp-load-close-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("qlog dir");
    let dir_arg = dir.display().to_string();
    let (mut serve, addr) = start_listening_with_stderr(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--qlog",
            &dir_arg,
            "--duration",
            "60s",
        ],
        Stdio::null(),
    );
    let waited_before = run_delay(serve.0.id());
    let records = dir.with_extension("ndjson");
    // Connections (in serve's accept order) of the rounds in which a
    // request failed: see `failed_round`.
    let mut excluded = Vec::new();
    for round in 0..ROUNDS {
        let first = serve_qlog::read(&dir).len();
        let out = ramp()
            .args(["load", &format!("https://{addr}/bytes/1000"), "--insecure"])
            .args(["--quiet", "-n", &(2 * CONNECTIONS).to_string()])
            .args(["-c", &CONNECTIONS.to_string(), "--json"])
            .arg(&records)
            .output()
            .expect("ramp load runs");
        let accepted = first..serve_qlog::read(&dir).len();
        if !out.status.success() {
            failed_round(round, &out, &records, &accepted);
            excluded.extend(accepted);
            continue;
        }
        assert_eq!(accepted.len(), CONNECTIONS, "round {round}: connections");
    }
    let _ = std::fs::remove_file(&records);
    std::thread::sleep(QUIET);
    let waited = run_delay(serve.0.id())
        .zip(waited_before)
        .map(|(after, before)| after.saturating_sub(before));
    // SIGTERM: serve closes what is still open and drops every connection,
    // which flushes the qlogs.
    // SAFETY: kill(2) on our own child's pid, which is not yet reaped.
    let rc = unsafe { libc::kill(serve.0.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(rc, 0, "kill -TERM");
    let deadline = Instant::now() + Duration::from_secs(60);
    while serve.0.try_wait().expect("wait").is_none() {
        assert!(
            Instant::now() < deadline,
            "serve still runs 60 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let conns = serve_qlog::read(&dir);
    let unheard: Vec<String> = conns
        .iter()
        .filter(|c| !excluded.contains(&c.index))
        .filter_map(unheard_close)
        .collect();
    if unheard.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let why = format!("{} (the qlogs are in {dir:?})", unheard.join("; "));
    if waited.is_none_or(|w| w >= QUIET / 2) {
        // A late packet could be the answer to the close itself, held back
        // for the whole quiet period by a machine that kept serve waiting
        // for a CPU that long.
        ramp_host::timing::inconclusive(TEST, &format!("serve waited {waited:?} for a CPU: {why}"));
        return;
    }
    panic!("the server did not hear every client's close: {why}");
}

/// A round in which `ramp load` reported a failed request: said loudly
/// with its records, and its connections left out of the verdict. This test
/// is about the close; a failure is another matter: in session 16 one
/// request ended in quinn's 10 s idle timeout in 3 of about 800 rounds run
/// beside the `load::` tests on the busy 2-core VM (none in about 1,800
/// alone), the pacing gate closed for good on stale accounting (fixed since;
/// the mechanism is at `load::load_counts_4xx_as_failed_not_errored`, which
/// showed it first). A client that timed out ends its connection silently
/// (RFC 9000 §10.1), so such a round has no close to check.
fn failed_round(
    round: usize,
    out: &std::process::Output,
    records: &std::path::Path,
    accepted: &std::ops::Range<usize>,
) {
    ramp_host::timing::loud(&format!(
        "load_close: round {round} ({:?}, server connections {accepted:?}) left out: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim(),
        std::fs::read_to_string(records).unwrap_or_default()
    ));
}

/// Why `c`'s qlog says the server never heard its client's close, if it
/// does: it sent a packet [`QUIET`] or more after the last packet it
/// received. That is serve's own close at the stop (and the probes before
/// it, if it still had data in flight), sent only to a connection still
/// open then. A connection that heard the close sends at most a packet or
/// two right after it (quinn answers a peer's CONNECTION_CLOSE with one of
/// its own on entering the draining state, RFC 9000 §10.2.2, or had just
/// sent its own) and is gone well before the stop.
fn unheard_close(c: &ConnLog) -> Option<String> {
    let Some(last) = c.last_received() else {
        return Some(format!("{}: received nothing", c.name()));
    };
    let after = c.sent_after_last_receive();
    let quiet_ms = QUIET.as_secs_f64() * 1e3;
    if after.iter().all(|&t| t - last < quiet_ms) {
        return None;
    }
    Some(format!(
        "{}: last packet received at {last:.1} ms, then {} sent, at {:.1?} ms",
        c.name(),
        after.len(),
        after
    ))
}

/// The time all of process `pid`'s threads have spent waiting for a CPU
/// (runnable, not running) so far: the sum of the second field of each
/// thread's `/proc/PID/task/TID/schedstat`, Linux's scheduler statistics.
/// Only an upper bound on any one thread's wait; `None` where the kernel
/// does not keep them.
fn run_delay(pid: u32) -> Option<Duration> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut ns = 0u64;
    for t in tasks.flatten() {
        let stat = std::fs::read_to_string(t.path().join("schedstat")).ok()?;
        ns += stat.split_whitespace().nth(1)?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(ns))
}
