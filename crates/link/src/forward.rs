//! What a real-time forwarder did with one direction's packets: the
//! counters `ramp relay` (UDP datagrams) and `ramp shell` (IP packets
//! through TUN devices) keep for each [`Link`](crate::Link) they drive, and
//! the closing line both print from them.
//!
//! The model decides each packet's fate and delivery time; the forwarder
//! then has to write it out at that time on a real clock. Lateness (how
//! long after its modelled time a packet actually left) is what says
//! whether a run's timing can be trusted, so it is counted here beside the
//! drops.

use core::fmt;
use core::time::Duration;

use crate::DropCause;

/// The seed of a forwarder's uplink [`Link`](crate::Link) when the
/// forwarder runs with `seed`: each direction draws its random elements
/// from streams of its own ("up" in ASCII mixed in).
pub fn uplink_seed(seed: u64) -> u64 {
    seed ^ 0x7570
}

/// The seed of a forwarder's downlink [`Link`](crate::Link) ("down" mixed
/// in). A simulation whose forward link should see the same random draws
/// as a forwarder's downlink runs with `downlink_seed(seed)`, and the
/// other way round: the mixing is its own inverse.
pub fn downlink_seed(seed: u64) -> u64 {
    seed ^ 0x646f_776e
}

/// A packet that leaves later than this after its modelled time is
/// counted in [`ForwardCounters::late_over_1ms`].
const LATE: Duration = Duration::from_millis(1);

/// One direction's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ForwardCounters {
    /// Packets read for this direction (including malformed ones).
    pub received: u64,
    /// Packets written out at their delivery time.
    pub delivered: u64,
    /// Their bytes.
    pub delivered_bytes: u64,
    /// Tail drops (and FQ-CoDel's overflow drops, and policer drops).
    pub dropped_queue: u64,
    /// The queue discipline's early drops.
    pub dropped_aqm: u64,
    /// Random losses.
    pub dropped_loss: u64,
    /// Packets the forwarder could not parse (dropped).
    pub malformed: u64,
    /// Packets the output (a socket, a device) refused to take.
    pub send_errors: u64,
    /// Largest backlog, bytes, an arrival found plus itself.
    pub max_queue_bytes: u64,
    /// Sum of send lateness against the model, ns.
    pub lateness_sum_ns: u64,
    /// Largest send lateness, ns.
    pub lateness_max_ns: u64,
    /// Packets that left more than 1 ms after their modelled time.
    pub late_over_1ms: u64,
}

impl ForwardCounters {
    /// Counts a drop by its cause.
    pub fn count_drop(&mut self, cause: DropCause) {
        match cause {
            DropCause::Queue | DropCause::Policer => self.dropped_queue += 1,
            DropCause::Aqm => self.dropped_aqm += 1,
            DropCause::Random => self.dropped_loss += 1,
        }
    }

    /// Counts a packet of `bytes` written out `late` after its modelled
    /// time.
    pub fn count_delivered(&mut self, bytes: u64, late: Duration) {
        let late_ns = ramp_vocab::time::duration_nanos(late);
        self.delivered += 1;
        self.delivered_bytes += bytes;
        self.lateness_sum_ns += late_ns;
        self.lateness_max_ns = self.lateness_max_ns.max(late_ns);
        if late > LATE {
            self.late_over_1ms += 1;
        }
    }

    /// Mean send lateness of the delivered packets.
    pub fn lateness_mean(&self) -> Duration {
        Duration::from_nanos(
            self.lateness_sum_ns
                .checked_div(self.delivered)
                .unwrap_or(0),
        )
    }

    /// Largest send lateness.
    pub fn lateness_max(&self) -> Duration {
        Duration::from_nanos(self.lateness_max_ns)
    }
}

/// The closing line's counters, as `ramp relay` and `ramp shell` print them
/// after the direction's name.
impl fmt::Display for ForwardCounters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} received, {} delivered, {} queue drops, {} AQM drops, {} random losses, {} malformed; \
             max queue {} bytes; lateness mean {:?} max {:?}, {} over 1 ms",
            self.received,
            self.delivered,
            self.dropped_queue,
            self.dropped_aqm,
            self.dropped_loss,
            self.malformed,
            self.max_queue_bytes,
            self.lateness_mean(),
            self.lateness_max(),
            self.late_over_1ms
        )
    }
}

/// The event-log name of a drop (`drop-queue`, `drop-aqm`, `drop-loss`),
/// the same in the relay's and the shell's NDJSON logs.
pub fn drop_event(cause: DropCause) -> &'static str {
    match cause {
        DropCause::Queue | DropCause::Policer => "drop-queue",
        DropCause::Aqm => "drop-aqm",
        DropCause::Random => "drop-loss",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lateness_is_averaged_over_delivered_packets() {
        let mut c = ForwardCounters::default();
        assert_eq!(c.lateness_mean(), Duration::ZERO);
        c.count_delivered(1200, Duration::from_micros(100));
        c.count_delivered(1300, Duration::from_millis(3));
        assert_eq!(c.delivered, 2);
        assert_eq!(c.delivered_bytes, 2500);
        assert_eq!(c.lateness_mean(), Duration::from_micros(1550));
        assert_eq!(c.lateness_max(), Duration::from_millis(3));
        assert_eq!(c.late_over_1ms, 1);
    }

    #[test]
    fn policer_drops_count_as_queue_drops() {
        let mut c = ForwardCounters::default();
        for cause in DropCause::ALL {
            c.count_drop(cause);
        }
        assert_eq!((c.dropped_queue, c.dropped_aqm, c.dropped_loss), (2, 1, 1));
    }

    #[test]
    fn the_closing_line_names_every_counter() {
        let mut c = ForwardCounters {
            received: 5,
            malformed: 1,
            max_queue_bytes: 3000,
            ..ForwardCounters::default()
        };
        c.count_delivered(100, Duration::from_micros(20));
        c.count_drop(DropCause::Aqm);
        assert_eq!(
            c.to_string(),
            "5 received, 1 delivered, 0 queue drops, 1 AQM drops, 0 random losses, 1 malformed; \
             max queue 3000 bytes; lateness mean 20µs max 20µs, 0 over 1 ms"
        );
    }
}
