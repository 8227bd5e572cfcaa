//! Loss detection, RFC 9002 §6 (with the §7.6 persistent-congestion check and
//! the §7.1 ECN-CE signal), sans-IO and generic over a per-packet payload.
//!
//! [`LossDetector`] keeps the sent packets of the three packet-number spaces,
//! the [`RttEstimator`](crate::RttEstimator), the loss and probe timers, and
//! drives a [`Controller`](crate::Controller) in the order of RFC 9002
//! Appendix A:
//!
//! ```text
//! on_ack_received: largest acked -> newly acked -> RTT sample (§5.1)
//!                  -> ECN-CE (§7.1) -> detect lost (§6.1)
//!                  -> cc.on_congestion_event (one per pass, §7.3.2)
//!                  -> cc.on_packets_acked (the in-flight packets)
//!                  -> [cc.on_spurious_congestion] -> cc.on_ack_frame_end
//! on_timeout:      loss timer -> time-threshold losses, or PTO (§6.2)
//! ```
//!
//! [`RecoveryConfig::event_order`] = `EventOrder::AcksFirst` gives quinn
//! 0.11's order instead: acknowledged packets and frame end, then RTT
//! update, losses, ECN.
//!
//! The payload `P` is whatever the caller needs back when a packet is acked
//! or lost (the simulator stores the stream range a packet carries). Sent
//! packets live in a `VecDeque` indexed by `packet_number - base`, since
//! packet numbers are dense and increase in each space; the outcome buffers
//! ([`AckOutcome`], [`TimeoutOutcome`]) are reused across calls, so a
//! steady-state ACK allocates nothing.
//!
//! The rules implemented and the choices made are in `docs/recovery.md`.

mod ack_frame;
mod config;
mod detector;
mod ecn;
mod loss;
mod outcome;
mod persistent;
mod pto;
mod received;
mod sent;
mod spurious;
mod stats;

pub use ack_frame::{AckError, AckFrame, EcnCounts};
pub use config::{
    InvalidRecoveryConfig, RecoveryConfig, DEFAULT_MAX_ACK_DELAY, DEFAULT_SPURIOUS_MEMORY_PACKETS,
    PACKET_THRESHOLD, PERSISTENT_CONGESTION_THRESHOLD, TIME_THRESHOLD,
};
pub use detector::LossDetector;
pub use ecn::{EcnFailure, EcnValidation};
pub use outcome::{AckOutcome, LossTrigger, TimeoutKind, TimeoutOutcome};
pub use persistent::persistent_congestion_duration;
pub use received::{ReceivedRanges, TrackedAckFrame};
pub use sent::SentPacket;
pub use stats::RecoveryStats;

use core::fmt;

/// A packet-number space (RFC 9000 §12.3). Each has its own packet numbers,
/// acknowledgements, loss detection and ECN counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Space {
    /// Initial packets.
    Initial,
    /// Handshake packets.
    Handshake,
    /// 0-RTT and 1-RTT packets.
    Application,
}

impl Space {
    /// The three spaces, in the order RFC 9002 Appendix A.8 scans them.
    pub const ALL: [Space; 3] = [Space::Initial, Space::Handshake, Space::Application];

    /// Position in [`Space::ALL`].
    pub const fn index(self) -> usize {
        match self {
            Space::Initial => 0,
            Space::Handshake => 1,
            Space::Application => 2,
        }
    }

    /// `packet_number` as a controller sees it: the number itself in the
    /// application space, `None` elsewhere, since numbers of different
    /// spaces do not compare (RFC 9000 §12.3).
    pub const fn application_number(self, packet_number: u64) -> Option<u64> {
        match self {
            Space::Application => Some(packet_number),
            Space::Initial | Space::Handshake => None,
        }
    }

    /// A stable lower-case name, as qlog spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Space::Initial => "initial",
            Space::Handshake => "handshake",
            Space::Application => "application_data",
        }
    }
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
