//! Careful Resume's phases around the jump (RFC 9959, published from
//! draft-ietf-tsvwg-careful-resume), as the seed experiment's `jumpstart`
//! arm ran them: the jump window is fixed (`2·IW`, 60 packets on seed-100m)
//! instead of coming from a saved `saved_cwnd`, and the jump is paced over
//! the current RTT ([`crate::jump_start`]).
//!
//! What this module adds to the plain jump is the bookkeeping that makes it
//! *careful*:
//!
//! - **PipeSize** (RFC 9959, Unvalidated and Validating Phases): the bytes known to have passed
//!   through the path. It starts at the flight size when the jump is made
//!   and grows by every acknowledged byte while the jump is unvalidated,
//!   validating or retreating.
//! - **Unvalidated Phase**: the jump flight is out. Its end — the first
//!   jump packet acknowledged — sets `cwnd = max(PipeSize, flight size)`:
//!   `PipeSize` when everything sent has already been delivered (CR leaves
//!   at once), otherwise the flight size, and the jump is **Validating**
//!   until the last unvalidated packet is acknowledged, with ordinary
//!   slow-start growth meanwhile.
//! - **Safe Retreat Phase**: a congestion event while unvalidated or
//!   validating means the jump overshot. The window falls to
//!   `β·PipeSize` — what the path was seen to carry, not `β·cwnd`, which
//!   still holds the unvalidated jump. No growth follows while the
//!   retreat lasts; when the last unvalidated packet is acknowledged (or
//!   the recovery period ends first), `ssthresh = β·PipeSize` with the
//!   PipeSize reached by then, and normal congestion control resumes.
//!
//! β is the one for the loss that ends slow start (NewReno's `ss_beta`,
//! else its β; CUBIC's β): with 0.5 this is RFC 9959's "at most
//! PipeSize/2", and quicly's production arm too (its jump start sets cwnd
//! to the bytes acknowledged during the jump, then halves it). Persistent
//! congestion leaves Careful Resume. The phases are cited by the
//! names RFC 9959 gives them.

/// Where the jump stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrPhase {
    /// The jump flight is being sent and none of it is acknowledged yet.
    Unvalidated,
    /// The jump flight's first packet was acknowledged; the rest is still
    /// out. Ordinary slow start.
    Validating,
    /// A congestion event came while unvalidated or validating: the window
    /// was set from PipeSize and does not grow until the retreat ends.
    SafeRetreat,
}

/// Careful Resume's state while it is active.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CarefulResume {
    phase: CrPhase,
    /// Bytes known to have passed through the path since the jump.
    pipe_size: u64,
    /// The last application packet sent while unvalidated.
    last_unvalidated: Option<u64>,
}

impl CarefulResume {
    /// The jump is made with `flight_size` bytes already in flight.
    pub fn jump(flight_size: u64) -> CarefulResume {
        CarefulResume {
            phase: CrPhase::Unvalidated,
            pipe_size: flight_size,
            last_unvalidated: None,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> CrPhase {
        self.phase
    }

    /// PipeSize, bytes.
    pub fn pipe_size(&self) -> u64 {
        self.pipe_size
    }

    /// An application packet was sent.
    pub fn on_packet_sent(&mut self, packet_number: u64) {
        if self.phase == CrPhase::Unvalidated {
            self.last_unvalidated = Some(packet_number);
        }
    }

    /// Bytes were acknowledged. Returns whether the acknowledged packet is
    /// the last unvalidated one (or later): validation, or the retreat, is
    /// over.
    pub fn on_acked(&mut self, packet_number: Option<u64>, bytes: u64) -> bool {
        self.pipe_size = self.pipe_size.saturating_add(bytes);
        self.phase != CrPhase::Unvalidated
            && matches!(
                (packet_number, self.last_unvalidated),
                (Some(pn), Some(last)) if pn >= last
            )
    }

    /// The first jump packet was acknowledged (the Unvalidated Phase's exit): the window to
    /// continue from, `max(PipeSize, flight_size)`.
    pub fn end_unvalidated(&mut self, flight_size: u64) -> u64 {
        self.phase = CrPhase::Validating;
        self.pipe_size.max(flight_size)
    }

    /// A congestion event while unvalidated or validating (Safe Retreat): the
    /// retreat window `β·PipeSize`, before any floor.
    pub fn retreat(&mut self, beta: crate::Ratio) -> u64 {
        self.phase = CrPhase::SafeRetreat;
        beta.mul_floor(self.pipe_size)
    }
}
