//! What every module of the CLI's integration tests shares.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

pub(crate) mod serve_qlog;

/// The `ramp` binary under test.
pub(crate) fn ramp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ramp"))
}

/// A child process killed (and reaped) on drop.
pub(crate) struct Proc(pub(crate) Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `ramp relay` listening on a free local port, forwarding to `upstream`
/// over a `rate`, `rtt` and `queue` path: the arguments the relay tests
/// start from, each test's own (`--duration`, `--trace`, …) after them.
pub(crate) fn relay_args<'a>(
    upstream: &'a str,
    [rate, rtt, queue]: [&'a str; 3],
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "relay",
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        upstream,
        "--rate",
        rate,
        "--rtt",
        rtt,
        "--queue",
        queue,
    ];
    args.extend_from_slice(extra);
    args
}

/// `ramp serve` with HTTP/2 beside HTTP/3, listening on a free local
/// port, for `duration`.
pub(crate) fn serve_h2_args(duration: &str) -> [&str; 6] {
    [
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--h2",
        "--duration",
        duration,
    ]
}

/// Starts `ramp ARGS` (a `serve` or `relay`) and returns it with the
/// address from its first stdout line (`listening on ADDR ...`), the line
/// scripts read the port of `--listen IP:0` from.
pub(crate) fn start_listening(args: &[&str]) -> (Proc, String) {
    start_listening_with_stderr(args, Stdio::null())
}

/// [`start_listening`] with the child's stderr sent to `stderr` (piped: the
/// caller takes it from `Proc.0.stderr` and must read it).
pub(crate) fn start_listening_with_stderr(args: &[&str], stderr: Stdio) -> (Proc, String) {
    let mut child = ramp()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("ramp starts");
    let stdout = child.stdout.take().expect("stdout");
    let proc = Proc(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("first line");
    let addr = line
        .strip_prefix("listening on ")
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("ramp {args:?}: unexpected first line {line:?}"))
        .to_string();
    (proc, addr)
}
