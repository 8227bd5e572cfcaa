//! What a link carries and what it reports back.

use ramp_vocab::{EcnCodepoint, Time};

/// A packet offered to a link. `P` is whatever the caller needs back when
/// the packet leaves (the simulator's datagram, the relay's bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet<P> {
    /// The caller's payload, returned on delivery or drop.
    pub payload: P,
    /// Bytes on the wire.
    pub size: u32,
    /// The packet's ECN codepoint (RFC 3168 §5). An AQM marks an
    /// ECN-capable packet CE instead of dropping it; an L4S queue
    /// (DualPI2) classifies ECT(1) and CE into its low-latency queue.
    pub ecn: EcnCodepoint,
    /// Flow identifier for flow queueing (FQ-CoDel hashes it to a queue).
    pub flow: u32,
}

/// Why a link dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropCause {
    /// The queue was full (tail drop, or FQ-CoDel's drop from the fattest
    /// flow on overflow).
    Queue,
    /// The queue discipline's early drop (CoDel, PIE).
    Aqm,
    /// Random loss after the queue.
    Random,
    /// The token-bucket policer.
    Policer,
}

impl DropCause {
    /// Every cause, in [`DropCause::index`] order.
    pub const ALL: [DropCause; 4] = [
        DropCause::Queue,
        DropCause::Aqm,
        DropCause::Random,
        DropCause::Policer,
    ];

    /// A dense index, for per-cause counters.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The name traces and logs use.
    pub const fn as_str(self) -> &'static str {
        match self {
            DropCause::Queue => "queue",
            DropCause::Aqm => "aqm",
            DropCause::Random => "random",
            DropCause::Policer => "policer",
        }
    }
}

/// What became of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery<P> {
    /// It reaches the far end at `at`.
    Arrives {
        /// The caller's payload.
        payload: P,
        /// Arrival time at the far end (last bit serialised plus the
        /// propagation delay).
        at: Time,
        /// Its ECN codepoint on arrival: CE if a queue marked it (or it
        /// was sent CE), else as sent.
        ecn: EcnCodepoint,
    },
    /// It was dropped at `at`.
    Dropped {
        /// The caller's payload.
        payload: P,
        /// When the drop happened (arrival for enqueue-time drops, the
        /// dequeue time for CoDel's).
        at: Time,
        /// Where and why.
        cause: DropCause,
    },
}
