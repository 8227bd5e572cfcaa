//! Careful Resume's phases around the jump (RFC 9959, published from
//! draft-ietf-tsvwg-careful-resume), as the seed experiment's `jumpstart`
//! arm ran them: the jump window is fixed (`2·IW`, 60 packets on seed-100m)
//! instead of coming from a saved `saved_cwnd`, and the jump is paced over
//! the current RTT (`crate::jump_start`).
//!
//! What this module adds to the plain jump is the bookkeeping that makes it
//! *careful*:
//!
//! - **PipeSize** (RFC 9959, Unvalidated and Validating Phases): the bytes known to have passed
//!   through the path. It starts at the flight size when the jump is made
//!   and grows by every acknowledged byte while the jump is unvalidated,
//!   validating or retreating.
//! - **Unvalidated Phase**: the jump flight is out. Its end — the first
//!   jump packet acknowledged — sets `cwnd = PipeSize` (at least IW) and
//!   leaves Careful Resume when the flight left is below IW or at most
//!   PipeSize (nothing worth validating is out); otherwise `cwnd` = the
//!   flight size, and the jump is **Validating** until the last
//!   unvalidated packet is acknowledged, with ordinary slow-start growth
//!   meanwhile. RFC 9959 lists two more exits from the Unvalidated Phase,
//!   "completed sending all unvalidated packets" (flight size reaching
//!   cwnd) and "more than one RTT has elapsed". They are not modelled:
//!   the jump is paced over one RTT from the measured RTT, so the flight
//!   fills cwnd and the first jump packet's ACK comes about one RTT after
//!   the jump in the same instant, and the exit's rule above is the same
//!   whichever of the three fires first, computed from the flight at
//!   that ACK.
//! - **Safe Retreat Phase**: a congestion event while unvalidated or
//!   validating means the jump overshot. The window falls to
//!   `PipeSize/2` — what the path was seen to carry, not `β·cwnd`, which
//!   still holds the unvalidated jump (RFC 9959: "The CWND MUST be reduced
//!   to no more than (PipeSize/2)"). No growth follows while the
//!   retreat lasts; when the last unvalidated packet is acknowledged (or
//!   the recovery period ends first), `ssthresh = β·PipeSize` with the
//!   PipeSize reached by then, and normal congestion control resumes.
//!
//! β in `ssthresh = β·PipeSize` is the one for the loss that ends slow
//! start (NewReno's `ss_beta`, else its β; CUBIC's β); RFC 9959 allows
//! 0.5 to 1 there. [`RetreatBeta::Ca`] (`jumpstart(retreat_beta=ca)`)
//! applies that β to the retreat window too, which is above the RFC's
//! MUST when β > 0.5. Persistent congestion leaves Careful
//! Resume. The phases are cited by the names RFC 9959 gives them.
//!
//! [`RetreatBeta::Quicly`] (`jumpstart(retreat_beta=quicly)`) is the
//! reaction of the quicly the experiment ran (h2o/quicly 45bf8a37,
//! `quicly_cc_jumpstart_on_first_loss` and `quicly_cc_jumpstart_on_acked`
//! in include/quicly/cc.h, called from lib/cc-reno.c), which differs from
//! RFC 9959's in three places:
//!
//! - what the path was seen to carry counts only the *jump packets*
//!   acknowledged (packets from the first one sent after the jump to the
//!   last unvalidated one), not every byte acknowledged since the jump;
//! - on the loss the window falls to the slow-start exit β (Reno's 0.5)
//!   times `max(jump bytes acknowledged, IW)`, and that is `ssthresh`;
//!   during the recovery every acknowledged jump packet raises the window
//!   to at least the CA's β (0.7) times the jump bytes acknowledged by
//!   then ("cwnd ... would become bytes that passed through to the client
//!   during the jumpstart phase of exactly 1 RTT"): the slides' "0.5x to
//!   0.7x of PipeSize";
//! - the first jump packet acknowledged sets the window to the flight
//!   before that ACK (plus slow start's growth on it), whatever PipeSize
//!   is, and the jump packets stay tracked (Validating) until the last one
//!   is acknowledged.
//!
//! Which packet is "the last unvalidated packet": RFC 9959's Validating
//! and Safe Retreat paragraphs name the last packet sent in the
//! Unvalidated Phase. Here it is the last application packet sent before
//! the first jump packet was acknowledged (the Unvalidated Phase's exit);
//! its acknowledgement (or any later packet's) ends validation and Safe
//! Retreat alike. A packet declared lost never is acknowledged, so the
//! recovery period's end (an ACK of a packet sent after the retreat
//! began) also ends Safe Retreat.

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

/// The window Safe Retreat falls to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RetreatBeta {
    /// `PipeSize/2`: RFC 9959's Safe Retreat Phase, "no more than
    /// (PipeSize/2)".
    #[default]
    Half,
    /// `β·PipeSize` with the congestion-avoidance algorithm's slow-start
    /// exit β.
    Ca,
    /// quicly 45bf8a37's jumpstart reaction (module docs): `β_ss ·
    /// max(jump bytes acknowledged, IW)` at the loss, raised to `β ·
    /// jump bytes acknowledged` as the jump packets' ACKs arrive; the seed
    /// experiment's production arm.
    Quicly,
}

impl RetreatBeta {
    /// The retreat factor, given the CA's slow-start exit β.
    pub fn factor(self, ca_beta: crate::Ratio) -> crate::Ratio {
        match self {
            RetreatBeta::Half => crate::Ratio::HALF,
            RetreatBeta::Ca | RetreatBeta::Quicly => ca_beta,
        }
    }
}

/// Where the Unvalidated Phase's exit leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnvalidatedExit {
    /// Careful Resume is over; continue from `cwnd`.
    Done {
        /// The window to continue from, bytes.
        cwnd: u64,
    },
    /// The Validating Phase, from `cwnd` (the flight size).
    Validating {
        /// The window to continue from, bytes.
        cwnd: u64,
    },
}

/// Careful Resume's state while it is active.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CarefulResume {
    phase: CrPhase,
    /// Bytes known to have passed through the path since the jump.
    pipe_size: u64,
    /// The last application packet sent while unvalidated.
    last_unvalidated: Option<u64>,
    /// The window Safe Retreat falls to.
    retreat_beta: RetreatBeta,
    /// The jump packets (sent while unvalidated) acknowledged.
    jump: crate::jump_start::JumpTally,
    /// [`RetreatBeta::Quicly`]: the window set at the loss, which is also
    /// `ssthresh` when the retreat ends.
    retreat_window: u64,
}

impl CarefulResume {
    /// The jump is made with `flight_size` bytes already in flight.
    pub fn jump(flight_size: u64, retreat_beta: RetreatBeta) -> CarefulResume {
        CarefulResume {
            phase: CrPhase::Unvalidated,
            pipe_size: flight_size,
            last_unvalidated: None,
            retreat_beta,
            jump: crate::jump_start::JumpTally::default(),
            retreat_window: 0,
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
            self.jump.on_jump_packet_sent(packet_number);
        }
    }

    /// The window rule of the retreat.
    pub fn retreat_beta(&self) -> RetreatBeta {
        self.retreat_beta
    }

    /// Bytes of jump packets acknowledged so far.
    pub fn jump_acked(&self) -> u64 {
        self.jump.acked()
    }

    /// Bytes were acknowledged. Returns whether the acknowledged packet is
    /// the last unvalidated one (or later): validation, or the retreat, is
    /// over.
    pub fn on_acked(&mut self, packet_number: Option<u64>, bytes: u64) -> bool {
        self.pipe_size = self.pipe_size.saturating_add(bytes);
        self.jump.on_acked(packet_number, bytes);
        self.phase != CrPhase::Unvalidated
            && matches!(
                (packet_number, self.last_unvalidated),
                (Some(pn), Some(last)) if pn >= last
            )
    }

    /// The first jump packet was acknowledged (the Unvalidated Phase's
    /// exit) with `flight_size` bytes still in flight. RFC 9959: when the
    /// flight is below the initial window `iw` or at most PipeSize, the
    /// window becomes PipeSize (never below `iw`, as there was no
    /// congestion) and Careful Resume ends ([`UnvalidatedExit::Done`]);
    /// otherwise the window becomes the flight size and the jump is
    /// Validating.
    ///
    /// With [`RetreatBeta::Quicly`] the jump packets stay tracked whatever
    /// the flight (`Validating`), and the caller sets the window itself
    /// (quicly: the flight before the ACK, plus slow start's growth).
    pub fn end_unvalidated(&mut self, flight_size: u64, iw: u64) -> UnvalidatedExit {
        if self.retreat_beta == RetreatBeta::Quicly {
            self.phase = CrPhase::Validating;
            return UnvalidatedExit::Validating { cwnd: flight_size };
        }
        if flight_size < iw || flight_size <= self.pipe_size {
            return UnvalidatedExit::Done {
                cwnd: self.pipe_size.max(iw),
            };
        }
        self.phase = CrPhase::Validating;
        UnvalidatedExit::Validating { cwnd: flight_size }
    }

    /// A congestion event while unvalidated or validating (Safe Retreat): the
    /// retreat window, `PipeSize/2` (or `β·PipeSize` with
    /// [`RetreatBeta::Ca`]), before any floor. `ca_beta` is the CA's
    /// slow-start exit β.
    ///
    /// With [`RetreatBeta::Quicly`]: `ca_beta · max(jump bytes
    /// acknowledged, iw)` (quicly's `cwnd = jumpstart.bytes_acked`, at
    /// least the initial window, then Reno's slow-start halving).
    pub fn retreat(&mut self, ca_beta: crate::Ratio, iw: u64) -> u64 {
        self.phase = CrPhase::SafeRetreat;
        if self.retreat_beta == RetreatBeta::Quicly {
            self.retreat_window = ca_beta.mul_floor(self.jump.acked().max(iw));
            return self.retreat_window;
        }
        self.retreat_beta.factor(ca_beta).mul_floor(self.pipe_size)
    }

    /// [`RetreatBeta::Quicly`], during the retreat: the window the jump
    /// packets acknowledged so far allow, `beta · jump bytes acknowledged`
    /// (quicly raises cwnd to it on every jump ACK in recovery); `None`
    /// for the other rules or outside the retreat.
    pub fn retreat_floor(&self, beta: crate::Ratio) -> Option<u64> {
        (self.retreat_beta == RetreatBeta::Quicly && self.phase == CrPhase::SafeRetreat)
            .then(|| beta.mul_floor(self.jump.acked()))
    }

    /// `ssthresh` when the retreat ends: `slow_start_exit_beta · PipeSize`
    /// (RFC 9959), or with [`RetreatBeta::Quicly`] the window set at the
    /// loss (quicly's Reno sets `ssthresh = cwnd` there).
    pub fn ssthresh_after_retreat(&self, slow_start_exit_beta: crate::Ratio) -> u64 {
        if self.retreat_beta == RetreatBeta::Quicly {
            return self.retreat_window;
        }
        slow_start_exit_beta.mul_floor(self.pipe_size)
    }
}
