//! `ramp shell`: runs a command in a network namespace of its own whose IP
//! traffic to the outside crosses ramp's bottleneck model, `ramp-link`, in
//! both directions, in the manner of Mahimahi's `mm-link` (Netravali et
//! al., "Mahimahi: Accurate Record-and-Replay for HTTP", USENIX ATC 2015).
//!
//! ```text
//!  command's namespace            |  the namespace the shell runs in
//!  app -> ramp-in (TUN) --read--> uplink Link --write--> ramp-PATH (TUN) -> host stack
//!  app <- ramp-in (TUN) <-write-- downlink Link <--read-- ramp-PATH (TUN) <- host stack
//! ```
//!
//! Two TUN devices and a userspace loop (`forward`) carry the packets; the
//! kernel's netem is not involved, so the queue, its discipline, ECN
//! marking and random loss are the same code the simulator runs. The
//! command reaches only the outer end of its link (and of the links of
//! any shells it is nested in): nothing is forwarded or translated to
//! any other network. See docs/shell.md.

mod addr;
mod error;
mod flows;
mod forward;
mod ip;
mod netns;
mod sys;

use std::ffi::OsString;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use ramp_link::{Link, LinkConfig};

pub use addr::{PathError, ShellPath, DEVICE_PREFIX, NETNS_PREFIX};
pub use error::ShellError;
pub use forward::{Counters, DirCounters};
pub use netns::{cleanup, Cleanup, Removed, MTU};

/// The environment variable naming the shell a command runs in (its
/// path, e.g. `3` or `3-1`); a `ramp shell` started inside nests.
pub const ENV_PATH: &str = "RAMP_SHELL_PATH";
/// The outer end's IPv4 address: where the command finds the host.
pub const ENV_HOST: &str = "RAMP_SHELL_HOST";
/// The outer end's IPv6 address.
pub const ENV_HOST6: &str = "RAMP_SHELL_HOST6";
/// The command's own IPv4 address.
pub const ENV_ADDR: &str = "RAMP_SHELL_ADDR";
/// The command's own IPv6 address.
pub const ENV_ADDR6: &str = "RAMP_SHELL_ADDR6";

/// How long a command gets to exit after the shell passed it a SIGINT,
/// SIGTERM or SIGHUP, before it is killed.
const GRACE: Duration = Duration::from_secs(2);

/// A shell's links and outputs.
#[derive(Clone, Debug)]
pub struct ShellConfig {
    /// From the command out.
    pub up: LinkConfig,
    /// Into the command's namespace.
    pub down: LinkConfig,
    /// Seed of the random elements (each direction draws from its own
    /// streams, as in the relay).
    pub seed: u64,
    /// NDJSON event log in the relay's format.
    pub log: Option<PathBuf>,
    /// NDJSON flow log: one record per flow when the shell ends
    /// (`ramp_link::flowlog`).
    pub flow_log: Option<PathBuf>,
    /// NDJSON per-packet log: every arrival, delivery (with its delay
    /// through the link) and drop, with its flow.
    pub packet_log: Option<PathBuf>,
    /// Run the forwarding loop at real-time priority (SCHED_FIFO): on a
    /// loaded machine the difference between packets leaving within tens
    /// of microseconds of their time and a millisecond late.
    pub realtime: bool,
}

/// How a shell ended.
#[derive(Debug)]
pub struct Outcome {
    /// Where the shell sat.
    pub path: ShellPath,
    /// The command's exit status.
    pub status: ExitStatus,
    /// What the links did.
    pub counters: Counters,
    /// The signal that ended the shell early, if any.
    pub interrupted_by: Option<i32>,
}

impl Outcome {
    /// The shell's own exit code: the command's, or 128 + the signal that
    /// killed it (as a POSIX shell reports it).
    pub fn exit_code(&self) -> i32 {
        self.status
            .code()
            .or_else(|| self.status.signal().map(|s| 128 + s))
            .unwrap_or(1)
    }
}

/// Checks that this process can build a shell.
pub fn preflight() -> Result<(), ShellError> {
    let missing = sys::missing_capabilities();
    if !missing.is_empty() {
        return Err(ShellError::NotPermitted(missing));
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Err(ShellError::Unsupported(
            "/dev/net/tun is missing (no TUN support)".into(),
        ));
    }
    Ok(())
}

/// The enclosing shell's path, from the environment.
fn parent_path() -> Result<Option<ShellPath>, ShellError> {
    match std::env::var(ENV_PATH) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(e) => Err(ShellError::BadEnvironment(format!("{ENV_PATH}: {e}"))),
        Ok(s) => s
            .parse()
            .map(Some)
            .map_err(|e| ShellError::BadEnvironment(format!("{ENV_PATH}: {e}"))),
    }
}

/// Runs `command` in a new shell and forwards its traffic until it exits
/// or the shell gets SIGINT, SIGTERM or SIGHUP; everything the shell
/// created is removed before this returns.
pub fn run(cfg: &ShellConfig, command: &[OsString]) -> Result<Outcome, ShellError> {
    preflight()?;
    let Some((program, args)) = command.split_first() else {
        return Err(ShellError::Spawn(
            "(nothing)".into(),
            std::io::ErrorKind::InvalidInput.into(),
        ));
    };
    let parent = parent_path()?;
    let log = cfg
        .log
        .as_ref()
        .map(|p| File::create(p).map_err(|e| ShellError::Io(p.display().to_string(), e)))
        .transpose()?;
    let create = |p: &Option<PathBuf>| {
        p.as_ref()
            .map(|p| File::create(p).map_err(|e| ShellError::Io(p.display().to_string(), e)))
            .transpose()
    };
    let flows = match (create(&cfg.flow_log)?, create(&cfg.packet_log)?) {
        (None, None) => None,
        (records, packets) => Some(flows::Flows::new(records, packets)),
    };
    sys::catch_signals().map_err(|e| ShellError::Io("signal handlers".into(), e))?;
    // A SIGKILLed shell leaves its namespace, and whatever its command
    // started that is still running in there: remove both now, rather
    // than leave them to a --cleanup nobody may run.
    for r in netns::cleanup().removed {
        ramp_vocab::note!(
            "ramp shell: removed {}, left by a shell that was killed, and the {} processes \
             still running in it",
            r.name,
            r.killed
        );
    }
    let ns = netns::Namespace::create(parent.as_ref())?;
    let (inner, outer) = ns.wire()?;
    let path = ns.path().clone();
    let (h4, h6) = path.outer();
    let (a4, a6) = path.inner();
    let ns_fd = ns.file().as_raw_fd();
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env(ENV_PATH, path.to_string())
        .env(ENV_HOST, h4.to_string())
        .env(ENV_HOST6, h6.to_string())
        .env(ENV_ADDR, a4.to_string())
        .env(ENV_ADDR6, a6.to_string());
    // SAFETY: the closure makes only async-signal-safe calls (setns,
    // signal, sigprocmask, prctl) on a descriptor opened before the fork.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setns(ns_fd, libc::CLONE_NEWNET) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            sys::child_pre_exec()
        });
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| ShellError::Spawn(program.to_string_lossy().into_owned(), e))?;
    let up = Link::new(&cfg.up, ramp_link::uplink_seed(cfg.seed));
    let down = Link::new(&cfg.down, ramp_link::downlink_seed(cfg.seed));
    let devices = forward::Devices {
        inner: inner.as_raw_fd(),
        outer: outer.as_raw_fd(),
    };
    if cfg.realtime {
        // After the spawn: the command keeps the normal policy.
        if let Err(e) = ramp_host::realtime_priority() {
            ramp_vocab::note!(
                "ramp shell: no real-time priority ({e}); packets may leave late on a busy machine"
            );
        }
    }
    let mut status = None;
    let mut interrupted_by = None;
    let drain = forward::Drain::for_links(&cfg.up, &cfg.down);
    let mut control = || {
        let caught = sys::take_signals();
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            if caught & (1 << sig) != 0 {
                interrupted_by = Some(sig);
                if status.is_none() {
                    sys::signal_process(child.id(), sig);
                }
                return forward::Step::Stop;
            }
        }
        if status.is_some() {
            return forward::Step::Drain;
        }
        if caught & (1 << libc::SIGCHLD) != 0 {
            if let Ok(Some(s)) = child.try_wait() {
                status = Some(s);
                return forward::Step::Drain;
            }
        }
        forward::Step::Forward
    };
    let counters = forward::run(&devices, &path, up, down, drain, log, flows, &mut control);
    let status = match status {
        Some(s) => s,
        None => finish(&mut child)?,
    };
    drop((inner, outer));
    drop(ns);
    Ok(Outcome {
        path,
        status,
        counters: counters.map_err(|e| ShellError::Io("forwarding".into(), e))?,
        interrupted_by,
    })
}

/// Waits up to [`GRACE`] for the command, then kills it.
fn finish(child: &mut Child) -> Result<ExitStatus, ShellError> {
    let deadline = Instant::now() + GRACE;
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Ok(s),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                return child
                    .wait()
                    .map_err(|e| ShellError::Io("waiting for the command".into(), e));
            }
            Err(e) => return Err(ShellError::Io("waiting for the command".into(), e)),
        }
    }
}
