//! How the long-running commands end: SIGTERM (what `kill`, `timeout(1)`,
//! systemd and container runtimes send) ends `ramp relay` and `ramp serve`
//! as Ctrl-C does, with their final counters on stderr and exit 0. Before,
//! SIGTERM killed both with nothing said. (`ramp shell`'s SIGTERM is in
//! `shell::lifecycle::sigterm_ends_the_command_and_removes_everything`.)

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{relay_args, start_listening_with_stderr};

/// Starts `ramp ARGS`, waits for its `listening on` line, sends it
/// SIGTERM and returns its exit status and stderr.
fn sigterm_after_start(args: &[&str]) -> (std::process::ExitStatus, String) {
    let (mut proc, _addr) = start_listening_with_stderr(args, Stdio::piped());
    let mut stderr = proc.0.stderr.take().expect("stderr");
    // SAFETY: kill(2) on our own child's pid, which is not yet reaped.
    let rc = unsafe { libc::kill(proc.0.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(rc, 0, "kill -TERM");
    // This bound only ends a hang; ending takes milliseconds.
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = proc.0.try_wait().expect("wait") {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "ramp {args:?} still runs 60 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut text = String::new();
    stderr.read_to_string(&mut text).expect("stderr");
    (status, text)
}

#[test]
fn sigterm_ends_the_relay_with_its_final_counters() {
    // Nothing listens at the upstream; the relay never needs it here.
    let (status, stderr) =
        sigterm_after_start(&relay_args("127.0.0.1:9", ["10mbit", "10ms", "20ms"], &[]));
    assert_eq!(status.code(), Some(0), "{status:?}: {stderr}");
    for want in [
        "ramp relay up: ",
        "ramp relay down: ",
        "ramp relay: 0 clients",
    ] {
        assert!(stderr.contains(want), "no {want:?} in:\n{stderr}");
    }
}

#[test]
fn sigterm_ends_serve_with_its_final_counters() {
    let (status, stderr) = sigterm_after_start(&["serve", "--listen", "127.0.0.1:0"]);
    assert_eq!(status.code(), Some(0), "{status:?}: {stderr}");
    assert!(
        stderr.contains("ramp serve: 0 connections, 0 requests ok, 0 failed"),
        "{stderr}"
    );
}
