//! `ramp shell`'s life as a process: exit codes and bad input, a closed
//! stderr, no CAP_NET_ADMIN, and what SIGTERM and SIGKILL leave behind.
//!
//! Shell tests run in parallel and a shell's names are reused at once
//! (`ramp-sh-N`, device `ramp-N`, the lowest free N), so "gone" is checked
//! on the namespace and device this test's shell made, not on their names:
//! the namespace by its owner file (`/run/ramp-shell/NAME` holds the pid
//! of the shell that claimed the name) and the device by its interface
//! index, which the kernel does not hand out again soon.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{exists, gone_within, missing, namespace_of, shell, text, RAMP};
use crate::common::Proc;

/// The device a namespace's shell made in the host namespace.
fn device_of(ns: &str) -> String {
    ns.replacen("ramp-sh-", "ramp-", 1)
}

/// Starts `ramp shell … -- sleep 60` and returns it with its namespace
/// and the pids inside that namespace.
fn sleeping_shell() -> (Proc, String, Vec<String>) {
    let child = Command::new(RAMP)
        .args([
            "shell", "--rate", "10mbit", "--rtt", "10ms", "--queue", "10ms", "--", "sleep", "60",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .expect("ramp shell starts");
    let ns = namespace_of(child.id());
    let deadline = Instant::now() + Duration::from_secs(20);
    let pids = loop {
        let out = Command::new("ip")
            .args(["netns", "pids", &ns])
            .output()
            .expect("ip");
        let pids: Vec<String> = text(&out.stdout)
            .split_whitespace()
            .map(String::from)
            .collect();
        if !pids.is_empty() {
            break pids;
        }
        assert!(Instant::now() < deadline, "nothing runs in {ns}");
        std::thread::sleep(Duration::from_millis(20));
    };
    (Proc(child), ns, pids)
}

/// The host-side device a namespace's shell made, as that very device:
/// its name and interface index.
struct Device {
    name: String,
    index: u32,
}

impl Device {
    /// The device of `ns`, whose shell is running.
    fn of(ns: &str) -> Device {
        let name = device_of(ns);
        let index = ifindex(&name).unwrap_or_else(|| panic!("{ns} has no device {name}"));
        Device { name, index }
    }

    /// Whether this device still exists: a device of the same name with
    /// another index is a parallel shell's.
    fn exists(&self) -> bool {
        ifindex(&self.name) == Some(self.index)
    }

    /// Whether the device is gone within `limit`. A TUN device goes when
    /// its last descriptor closes, but not at once: with shells running
    /// in parallel, this very device (same index) was seen still there
    /// right after its shell had been reaped, 1 run in 6.
    fn gone_within(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while self.exists() {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }
}

/// The interface index of host device `name`, if it exists.
fn ifindex(name: &str) -> Option<u32> {
    std::fs::read_to_string(format!("/sys/class/net/{name}/ifindex"))
        .ok()
        .and_then(|s| s.trim().parse().ok())
}

/// Whether namespace `ns`, made by the shell with pid `owner`, still
/// exists: once it is gone, a parallel shell may claim the name at once,
/// and its owner file then names that shell.
fn owned_exists(ns: &str, owner: u32) -> bool {
    exists(ns)
        && std::fs::read_to_string(std::path::Path::new("/run/ramp-shell").join(ns))
            .is_ok_and(|p| p.trim() == owner.to_string())
}

#[test]
fn exit_status_and_bad_input() {
    need_root!();
    let out = shell(
        &["--rate", "10mbit", "--rtt", "10ms", "--queue", "10ms"],
        "exit 7",
    );
    assert_eq!(out.status.code(), Some(7));
    let run = |args: &[&str]| Command::new(RAMP).args(args).output().expect("ramp runs");
    let bad_queue = run(&[
        "shell", "--rate", "10mbit", "--rtt", "10ms", "--queue", "0ms", "--", "true",
    ]);
    assert_eq!(bad_queue.status.code(), Some(2));
    assert!(
        text(&bad_queue.stderr).contains("--queue"),
        "{}",
        text(&bad_queue.stderr)
    );
    let no_rate = run(&["shell", "--rtt", "10ms", "--queue", "10ms", "--", "true"]);
    assert_eq!(no_rate.status.code(), Some(2));
    let bad_loss = run(&[
        "shell", "--rate", "1mbit", "--rtt", "1ms", "--queue", "20ms", "--loss", "150%", "--",
        "true",
    ]);
    assert_eq!(bad_loss.status.code(), Some(2));
    let no_cmd = run(&[
        "shell",
        "--rate",
        "10mbit",
        "--rtt",
        "10ms",
        "--queue",
        "10ms",
        "--",
        "/nonexistent/cmd",
    ]);
    assert_eq!(no_cmd.status.code(), Some(2));
    assert!(
        text(&no_cmd.stderr).contains("/nonexistent/cmd"),
        "{}",
        text(&no_cmd.stderr)
    );
}

/// M1: with stderr a closed pipe (`… 2>&1 | head -1`), the shell's
/// closing counters are dropped instead of panicking, and the shell still
/// exits with its command's status.
#[test]
fn a_closed_stderr_pipe_keeps_the_commands_exit_status() {
    need_root!();
    let script = format!(
        "{RAMP} shell --rate 20mbit --rtt 40ms --queue 40ms -- \
         sh -c 'echo hello; sleep 0.3; exit 3' 2>&1 | head -1 >/dev/null; exit ${{PIPESTATUS[0]}}"
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .output()
        .expect("bash runs");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
}

#[test]
fn without_cap_net_admin_a_clear_error_and_exit_2() {
    need_root!();
    if Command::new("setpriv").arg("--help").output().is_err() {
        ramp_vocab::note!("SKIPPED: without_cap_net_admin_a_clear_error_and_exit_2: no setpriv to drop privileges");
        return;
    }
    let out = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--",
            RAMP,
        ])
        .args([
            "shell", "--rate", "10mbit", "--rtt", "10ms", "--queue", "10ms", "--", "true",
        ])
        .output()
        .expect("setpriv runs");
    let stderr = text(&out.stderr);
    if stderr.contains("Permission denied") && !stderr.contains("ramp") {
        ramp_vocab::note!(
            "SKIPPED: without_cap_net_admin_a_clear_error_and_exit_2: the unprivileged user cannot run {RAMP}: {stderr}"
        );
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("CAP_NET_ADMIN"), "{stderr}");
}

#[test]
fn sigterm_ends_the_command_and_removes_everything() {
    need_root!();
    let (mut shell, ns, pids) = sleeping_shell();
    let owner = shell.0.id();
    let dev = Device::of(&ns);
    assert!(Command::new("kill")
        .args(["-TERM", &shell.0.id().to_string()])
        .status()
        .expect("kill")
        .success());
    let status = shell.0.wait().expect("wait");
    // sleep died of the SIGTERM the shell passed on: 128 + 15.
    assert_eq!(status.code(), Some(143));
    // ... and the shell still printed its final counters.
    let mut stderr = String::new();
    std::io::Read::read_to_string(
        shell.0.stderr.as_mut().expect("stderr is piped"),
        &mut stderr,
    )
    .expect("stderr");
    for want in [" up: ", " down: ", ": stopped by signal 15"] {
        assert!(
            stderr.contains(want),
            "no {want:?} in:
{stderr}"
        );
    }
    assert!(!owned_exists(&ns, owner), "{ns} left behind");
    assert!(
        dev.gone_within(Duration::from_secs(10)),
        "{} (index {}) left behind",
        dev.name,
        dev.index
    );
    assert!(
        gone_within(&pids, Duration::from_secs(2)),
        "{pids:?} still running"
    );
}

#[test]
fn sigkill_leaves_the_namespace_and_cleanup_removes_it() {
    need_root!();
    let (mut shell, ns, pids) = sleeping_shell();
    let owner = shell.0.id();
    let dev = Device::of(&ns);
    shell.0.kill().expect("SIGKILL");
    shell.0.wait().expect("wait");
    // The command dies with its shell (parent-death signal), the TUN
    // devices with their last descriptor; the namespace's mount stays.
    assert!(
        gone_within(&pids, Duration::from_secs(5)),
        "{pids:?} outlived the shell"
    );
    assert!(
        dev.gone_within(Duration::from_secs(10)),
        "{} (index {}) outlived the shell",
        dev.name,
        dev.index
    );
    // A shell that a test running in parallel starts now removes the
    // leftover itself (shell_exit.rs tests that); otherwise --cleanup does.
    let leftover = owned_exists(&ns, owner);
    let out = Command::new(RAMP)
        .args(["shell", "--cleanup"])
        .output()
        .expect("cleanup");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout).contains(&format!("removed {ns}"));
    // Had it still been there, --cleanup removed it, unless a parallel
    // shell's start beat it to it.
    assert!(
        !leftover || said || !owned_exists(&ns, owner),
        "{}",
        text(&out.stdout)
    );
    assert!(!owned_exists(&ns, owner), "{ns} survived --cleanup");
    // A second run finds nothing of it. (It may remove a namespace of the
    // same name: a parallel test's shell that claimed the name since, such
    // as shell_exit's SIGKILLed one; 7 runs in 10 did, so the name alone
    // says nothing.)
    let again = Command::new(RAMP)
        .args(["shell", "--cleanup"])
        .output()
        .expect("cleanup");
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(!owned_exists(&ns, owner), "{ns} came back");
}
