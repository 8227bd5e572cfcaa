//! Notices on stderr that never panic.
//!
//! `eprintln!` panics when stderr is a closed pipe (`ramp shell … 2>&1 |
//! head -1`, once `head` has its line). For a command whose notices are not
//! its work (a forwarder's counters, a load generator's per-client failure
//! lines, a shell whose exit status is its command's), such a panic loses
//! the real result: the shell would exit 101 instead of its command's
//! status. [`note!`](crate::note) writes the line if it can and drops it if
//! it cannot.

use std::io::Write as _;

/// Writes one line to stderr; a closed or failing stderr is ignored.
pub fn stderr_line(args: std::fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

/// `eprintln!` that ignores a closed or failing stderr: see
/// [`best_effort`](crate::best_effort).
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::best_effort::stderr_line(format_args!($($arg)*))
    };
}
