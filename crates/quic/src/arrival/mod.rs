//! Kernel receive times for the server's ACK processing.
//!
//! quinn 0.11's endpoint driver takes one `now` per wake-up (quinn 0.11.12
//! `EndpointDriver::poll`: `let now = endpoint.runtime.now()`, then
//! `drive_recv(cx, now)`) and passes it with every datagram it reads in
//! that wake-up to `quinn_proto::Endpoint::handle`; the connection then
//! processes the datagram's ACK frames with that `now`, so the controller
//! sees the ACK frames of one wake-up arrive at one instant. The simulator
//! processes each ACK frame at its own arrival time. This module gives the
//! controller adapter each ACK frame's arrival time as the kernel saw it
//! (`SO_TIMESTAMPNS`), by three pieces:
//!
//! - [`StrictClock`]: the endpoint's clock (`StampedRuntime`'s `now`),
//!   `Instant::now()` made strictly increasing, so that no two readings
//!   are equal;
//! - [`socket::StampedSocket`]: the server's UDP socket, reading with
//!   quinn-udp 0.6 (which returns the kernel timestamp) and handing quinn
//!   **one** receive (one datagram, or one GRO batch the kernel stamped
//!   once) per driver wake-up, recording the clock's reading `p` at the
//!   hand-over and the datagram's kernel time in an [`ArrivalLog`];
//! - the adapter, which looks the `now` of each ACK frame up in the log.
//!
//! Why the lookup is exact: the driver reads `now` (call it `n_i`) at the
//! start of the wake-up that receives datagram `i`, before it asks the
//! socket; the socket reads `p_i` when it hands the datagram over, and
//! read `p_{i−1}` in an earlier wake-up. With a strictly increasing clock
//! `p_{i−1} < n_i < p_i`, and every datagram a wake-up hands to quinn is
//! the one datagram of that wake-up, so the ACK frame processed with `now
//! = n` came in the datagram `i` with the smallest `p_i ≥ n`. No order of
//! processing is assumed: connections process their datagrams in their own
//! tasks, at any later time, and the lookup is by value. Only times that
//! quinn handed to `handle` are looked up (the `now` of `on_end_acks` and
//! of a congestion event raised by the same frame); the first datagram of
//! a connection is processed with the `now` of `accept` instead, but it
//! is the client's first Initial, which carries no ACK frame.
//!
//! What it costs: one wake-up of the endpoint driver per receive instead
//! of up to 32 (quinn's `BATCH_SIZE`), measured in docs/real-pacing.md.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ramp_vocab::time::duration_nanos;

pub(crate) mod socket;

pub(crate) use socket::wrap;
#[cfg(test)]
use socket::Bound;

/// How many hand-overs the log remembers. A connection processes its
/// datagrams shortly after the driver hands them over; 16 384 receives
/// are over 100 ms at the server's highest ACK rates on loopback. A frame
/// processed later than that is not found and keeps quinn's `now`.
pub(crate) const LOG_CAPACITY: usize = 16_384;

/// A kernel timestamp further than this from the clock is not trusted
/// (the wall clock was stepped between the two readings).
const MAX_AGE: Duration = Duration::from_secs(1);

/// `Instant::now()`, strictly increasing across all callers.
#[derive(Debug)]
pub(crate) struct StrictClock {
    base: Instant,
    /// Nanoseconds since `base` of the last reading.
    last: AtomicU64,
}

impl Default for StrictClock {
    fn default() -> StrictClock {
        StrictClock::new()
    }
}

impl StrictClock {
    /// A clock whose readings start now.
    pub(crate) fn new() -> StrictClock {
        StrictClock {
            base: Instant::now(),
            last: AtomicU64::new(0),
        }
    }

    /// The current time, later than every earlier reading (by at least
    /// 1 ns when `Instant::now()` has not moved).
    pub(crate) fn now(&self) -> Instant {
        let ns = duration_nanos(Instant::now().saturating_duration_since(self.base));
        let mut last = self.last.load(Ordering::Relaxed);
        loop {
            let next = ns.max(last.saturating_add(1));
            match self
                .last
                .compare_exchange_weak(last, next, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return self.base + Duration::from_nanos(next),
                Err(seen) => last = seen,
            }
        }
    }
}

/// The instant a datagram reached the kernel, from its `SO_TIMESTAMPNS`
/// wall-clock stamp (`since_epoch`), read at `polled` (the monotonic clock)
/// and `wall_now` (the wall clock, read beside it): `polled` less the
/// datagram's age. `None` when the stamp is missing or the two clocks
/// disagree by more than `MAX_AGE`.
pub(crate) fn kernel_arrival(
    since_epoch: Option<Duration>,
    polled: Instant,
    wall_now: SystemTime,
) -> Option<Instant> {
    let stamp = UNIX_EPOCH.checked_add(since_epoch?)?;
    // A stamp a little after `wall_now` (the two clocks read apart) is age 0.
    let age = wall_now.duration_since(stamp).unwrap_or(Duration::ZERO);
    if age > MAX_AGE {
        return None;
    }
    polled.checked_sub(age)
}

/// One hand-over: the clock's reading then, and the datagram's kernel time.
#[derive(Clone, Copy, Debug)]
struct Entry {
    polled: Instant,
    arrival: Option<Instant>,
}

#[derive(Debug, Default)]
struct Log {
    entries: VecDeque<Entry>,
    /// `polled` of the newest entry dropped: a `now` at or before it
    /// belongs to a forgotten datagram.
    floor: Option<Instant>,
}

/// The datagrams the socket handed to quinn, by hand-over time, shared
/// between the socket and every connection's controller adapter.
#[derive(Debug, Default)]
pub(crate) struct ArrivalLog {
    log: Mutex<Log>,
}

impl ArrivalLog {
    /// An empty log.
    pub(crate) fn new() -> ArrivalLog {
        ArrivalLog::default()
    }

    /// The socket handed a datagram over at `polled` (a [`StrictClock`]
    /// reading, later than all earlier ones); it reached the kernel at
    /// `arrival` (if stamped).
    pub(crate) fn record(&self, polled: Instant, arrival: Option<Instant>) {
        let mut log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        if log.entries.len() == LOG_CAPACITY {
            if let Some(old) = log.entries.pop_front() {
                log.floor = Some(old.polled);
            }
        }
        log.entries.push_back(Entry {
            polled,
            arrival: arrival.map(|a| a.min(polled)),
        });
    }

    /// The kernel arrival time of the datagram quinn processed with driver
    /// time `now`: the first hand-over at or after `now`. `None` if that
    /// datagram is no longer remembered, was not stamped, or none was
    /// handed over at or after `now` (a time no datagram carried).
    pub(crate) fn arrival(&self, now: Instant) -> Option<Instant> {
        let log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        if log.floor.is_some_and(|f| now <= f) {
            return None;
        }
        let i = log.entries.partition_point(|e| e.polled < now);
        log.entries.get(i).and_then(|e| e.arrival)
    }

    /// Hand-overs remembered.
    pub(crate) fn len(&self) -> usize {
        self.log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entries
            .len()
    }
}

/// One connection's view of the log: the time to give the controller for
/// each ACK frame quinn processes.
#[derive(Clone, Debug)]
pub(crate) struct AckClock {
    log: Arc<ArrivalLog>,
    /// quinn's `now` of the last ACK frame, and the time used for it.
    last: Option<(Instant, Instant)>,
}

impl AckClock {
    /// Reads `log`.
    pub(crate) fn new(log: Arc<ArrivalLog>) -> AckClock {
        AckClock { log, last: None }
    }

    /// The time of an ACK frame quinn processes with driver time `now`:
    /// its datagram's kernel arrival, kept no earlier than the previous
    /// frame's time (the controller's clock does not run backwards) and no
    /// later than `now`; `now` itself when the log has no stamp for it.
    /// The flag says whether the kernel's time was used.
    pub(crate) fn frame_time(&mut self, now: Instant) -> (Instant, bool) {
        let floor = self.last.map(|(_, at)| at);
        let (at, stamped) = match self.log.arrival(now) {
            Some(a) => (a.max(floor.unwrap_or(a)).min(now), true),
            None => (now.max(floor.unwrap_or(now)), false),
        };
        self.last = Some((now, at));
        (at, stamped)
    }

    /// The time of a congestion event quinn raises with `now`: the frame's
    /// time if the last ACK frame was processed with the same `now` (the
    /// frame revealed the loss), else `now` (a timer fired).
    pub(crate) fn event_time(&self, now: Instant) -> Instant {
        match self.last {
            Some((n, at)) if n == now => at,
            _ => now,
        }
    }
}

#[cfg(test)]
mod tests;
