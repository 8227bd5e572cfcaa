//! Reading quinn's connection statistics without asking the pacing gate.
//!
//! quinn-proto 0.11.19 calls the controller's `window()` from three places:
//! `Connection::poll_transmit` (twice before each datagram it
//! congestion-checks), `PathData::from_previous` (on a `clone_box` copy,
//! which has no gate) and `Connection::stats` (once, for
//! `stats.path.cwnd`). The gate counts the first kind as grants for the
//! batch in progress ([`super::gate`]); a `stats` read between passes would
//! be taken for the first question about a datagram that never comes and
//! shift quinn's next pair of questions by one. `ramp serve` reads the
//! statistics at each request's start and end, so a read goes through
//! [`stats_of`], and `window()` on the reading thread answers with the
//! controller's window and leaves the gate alone.

use std::cell::Cell;

thread_local! {
    /// Set while this thread is inside [`stats_of`].
    static READING_STATS: Cell<bool> = const { Cell::new(false) };
}

/// quinn's statistics of `conn`, read without a question to the pacing
/// gate. `quinn::Connection::stats` calls `window()` synchronously on the
/// caller's thread, under the connection's lock, so a flag of this thread
/// marks exactly that call.
pub(crate) fn stats_of(conn: &quinn::Connection) -> quinn::ConnectionStats {
    while_reading_stats(|| conn.stats())
}

/// Runs `read` with this thread marked as reading statistics.
pub(super) fn while_reading_stats<R>(read: impl FnOnce() -> R) -> R {
    /// Clears the mark even if `read` panics.
    struct Unmark;
    impl Drop for Unmark {
        fn drop(&mut self) {
            READING_STATS.with(|r| r.set(false));
        }
    }
    READING_STATS.with(|r| r.set(true));
    let _unmark = Unmark;
    read()
}

/// Whether this thread is inside [`stats_of`].
pub(super) fn reading_stats() -> bool {
    READING_STATS.with(Cell::get)
}
