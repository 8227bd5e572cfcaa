//! Lines that the long-running commands (serve, relay, load, shell) print
//! on stdout and stderr, best effort.
//!
//! Those commands keep SIGPIPE ignored (a peer that resets a TCP
//! connection must never kill a server), so a closed stdout shows up as
//! EPIPE, and `println!` panics on it. A server's stdout lines are notices
//! for a script (`listening on ADDR`), not its work: once the reader is
//! gone (`ramp serve --listen :0 | head -1`) they are dropped and the
//! server goes on serving.
//!
//! The same holds for stderr (`ramp shell … 2>&1 | head -1`): `eprintln!`
//! panics on EPIPE, which would turn the shell's exit status into 101 and
//! lose its command's. Their stderr lines go through `ramp_vocab::note!`
//! instead.

use std::io::Write as _;

/// Writes one line to stdout and flushes it; a closed or failing stdout
/// is ignored.
pub fn stdout_line(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_fmt(args).and_then(|()| out.write_all(b"\n"));
    let _ = out.flush();
}

/// `println!` for the long-running commands: see [`stdout_line`].
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::stdout_line::stdout_line(format_args!($($arg)*))
    };
}
pub(crate) use say;
