//! The shell's errors.

use std::fmt;
use std::io;

/// Why a shell could not start or run.
#[derive(Debug)]
pub enum ShellError {
    /// Neither root nor CAP_NET_ADMIN.
    NotPermitted,
    /// `/dev/net/tun` or network namespaces are missing.
    Unsupported(String),
    /// An `ip` command failed.
    Ip {
        /// The arguments.
        command: String,
        /// iproute2's message.
        message: String,
    },
    /// Every address block is taken.
    NoFreeBlock,
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
            ShellError::NotPermitted => write!(
                f,
                "ramp shell needs root or CAP_NET_ADMIN (it creates a network namespace and TUN devices)"
            ),
            ShellError::Unsupported(m) => write!(f, "{m}"),
            ShellError::Ip { command, message } => write!(f, "ip {command}: {message}"),
            ShellError::NoFreeBlock => write!(f, "no free address block: run ramp shell --cleanup"),
            ShellError::Io(what, e) => write!(f, "{what}: {e}"),
            ShellError::Spawn(cmd, e) => write!(f, "cannot run {cmd}: {e}"),
            ShellError::BadEnvironment(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for ShellError {}
