//! The shell's errors.

use std::fmt;
use std::io;

/// Why a shell could not start or run.
#[derive(Debug)]
pub enum ShellError {
    /// The process lacks a capability the shell needs: CAP_NET_ADMIN for
    /// the TUN devices, addresses and routes, CAP_SYS_ADMIN for the
    /// namespace's bind mount under `/run/netns`. Names the missing ones.
    NotPermitted(Vec<&'static str>),
    /// The `ip` command (iproute2) could not be run at all.
    NoIpCommand(io::Error),
    /// The enclosing shell is already at the deepest nesting level.
    TooDeep {
        /// The enclosing shell's path.
        parent: String,
        /// The deepest level.
        max: usize,
    },
    /// `/dev/net/tun` or network namespaces are missing.
    Unsupported(String),
    /// An `ip` command failed.
    Ip {
        /// The arguments.
        command: String,
        /// iproute2's message.
        message: String,
    },
    /// Every address block is taken (by running shells, or by leftovers
    /// of killed ones that `--cleanup` could not remove).
    NoFreeBlock {
        /// The enclosing shell's path, for a nested shell.
        parent: Option<String>,
    },
    /// A system call on a named object failed.
    Io(String, io::Error),
    /// The command could not be started.
    Spawn(String, io::Error),
    /// The environment of an enclosing shell is not valid.
    BadEnvironment(String),
}

impl fmt::Display for ShellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShellError::NotPermitted(missing) => write!(
                f,
                "ramp shell needs root, or CAP_NET_ADMIN and CAP_SYS_ADMIN (TUN devices, \
                 addresses and routes; the network namespace's mount): {} missing",
                missing.join(" and ")
            ),
            ShellError::NoIpCommand(e) => write!(
                f,
                "ramp shell runs the `ip` command (iproute2) and cannot: {e}; install iproute2 \
                 or put `ip` on PATH"
            ),
            ShellError::TooDeep { parent, max } => write!(
                f,
                "shells nest at most {max} deep, and this one would run inside shell {parent}, \
                 which is already at that depth"
            ),
            ShellError::Unsupported(m) => write!(f, "{m}"),
            ShellError::Ip { command, message } => write!(f, "ip {command}: {message}"),
            ShellError::NoFreeBlock { parent: None } => write!(
                f,
                "no free address block: all top-level shells are taken (ramp shell --cleanup \
                 removes those of killed shells)"
            ),
            ShellError::NoFreeBlock { parent: Some(p) } => write!(
                f,
                "no free address block inside shell {p}: all its nested shells are taken"
            ),
            ShellError::Io(what, e) => write!(f, "{what}: {e}"),
            ShellError::Spawn(cmd, e) => write!(f, "cannot run {cmd}: {e}"),
            ShellError::BadEnvironment(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for ShellError {}
