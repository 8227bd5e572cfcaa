//! The loss-based controller's phases and the edges between them.

use core::fmt;

use crate::controller::CcPhase;

/// The phase a [`super::LossBased`] controller is in, for traces, qlog and
/// property tests.
///
/// Names follow qlog's `congestion_state_updated` vocabulary where one
/// exists ([`LossBasedState::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LossBasedState {
    /// Classic slow start: +1 byte of window per acknowledged byte.
    SlowStart,
    /// Rapid Start or jump start, first flight: up to 2·IW paced over one
    /// RTT, before the first RTT sample of data has come back.
    JumpStart,
    /// Rapid Start growth with no queue build-up: +2 bytes per acked byte (3×
    /// per round).
    RapidGrowth,
    /// Rapid Start growth once the queue builds: +1 byte per acked byte.
    RapidSlowStart,
    /// HyStart++ Conservative Slow Start (RFC 9406 §4.3).
    ConservativeSlowStart,
    /// Rapid Start's first recovery period, with its smooth reduction.
    RapidRecovery,
    /// An ordinary RFC 9002 recovery period.
    Recovery,
    /// Congestion avoidance (Reno or CUBIC).
    CongestionAvoidance,
}

impl LossBasedState {
    /// A stable lower-case name, used in records, traces and qlog.
    pub fn as_str(self) -> &'static str {
        match self {
            LossBasedState::SlowStart => "slow_start",
            LossBasedState::JumpStart => "jump_start",
            LossBasedState::RapidGrowth => "rapid_start_3x",
            LossBasedState::RapidSlowStart => "rapid_start_2x",
            LossBasedState::ConservativeSlowStart => "conservative_slow_start",
            LossBasedState::RapidRecovery => "rapid_start_recovery",
            LossBasedState::Recovery => "recovery",
            LossBasedState::CongestionAvoidance => "congestion_avoidance",
        }
    }

    /// Whether this is one of the startup phases (window below ssthresh,
    /// before the first reduction or HyStart++ exit).
    pub fn is_startup(self) -> bool {
        matches!(
            self,
            LossBasedState::SlowStart
                | LossBasedState::JumpStart
                | LossBasedState::RapidGrowth
                | LossBasedState::RapidSlowStart
                | LossBasedState::ConservativeSlowStart
        )
    }
}

impl LossBasedState {
    /// Whether a controller may move from `self` to `next` in one step
    /// (staying put is always legal). The edges, by rule:
    ///
    /// - anything → `SlowStart`: persistent congestion (RFC 9002 §7.6.2), a
    ///   spurious HyStart++ exit (RFC 9406 §4.3), the end of a jump-start
    ///   first flight, or an undo (RFC 9438 §4.9);
    /// - `SlowStart` → any phase: the first RTT sample starts the jump or
    ///   Rapid Start's growth, and every congestion signal leaves it;
    /// - `JumpStart` → Rapid Start growth when the first flight is acked, or
    ///   a recovery; or straight to congestion avoidance when one ACK frame
    ///   both reports the congestion that starts Careful Resume's Safe
    ///   Retreat and acknowledges the last unvalidated packet, which ends it
    ///   (RFC 9959, Safe Retreat Phase) with cwnd already at the new
    ///   ssthresh;
    /// - `RapidGrowth` ↔ `RapidSlowStart` as the RTT floor crosses the
    ///   queue-build-up threshold; either → CSS or Rapid Start's recovery;
    /// - CSS → back to growth (spurious exit), → congestion avoidance after
    ///   `CSS_ROUNDS`, or → a recovery;
    /// - `RapidRecovery` → congestion avoidance at its end, or → `Recovery`
    ///   on a congestion event for a packet sent after it started;
    /// - `Recovery` → congestion avoidance; congestion avoidance → `Recovery`.
    ///
    /// Persistent congestion is the one reset that may skip these edges; see
    /// [`LossBasedState::can_follow_persistent_congestion`].
    pub fn can_transition_to(self, next: LossBasedState) -> bool {
        use LossBasedState::*;
        if self == next || next == SlowStart || self == SlowStart {
            return true;
        }
        match self {
            JumpStart => matches!(
                next,
                RapidGrowth | RapidSlowStart | RapidRecovery | Recovery | CongestionAvoidance
            ),
            RapidGrowth | RapidSlowStart => {
                matches!(
                    next,
                    RapidGrowth | RapidSlowStart | ConservativeSlowStart | RapidRecovery
                )
            }
            ConservativeSlowStart => matches!(
                next,
                RapidGrowth | RapidSlowStart | CongestionAvoidance | Recovery | RapidRecovery
            ),
            RapidRecovery => matches!(next, CongestionAvoidance | Recovery),
            Recovery => next == CongestionAvoidance,
            CongestionAvoidance => next == Recovery,
            SlowStart => true,
        }
    }
}

impl LossBasedState {
    /// Whether `next` may follow a congestion event that declared persistent
    /// congestion, from any state: RFC 9002 §7.6.2 collapses the window to
    /// the minimum, which is slow start while cwnd < ssthresh and congestion
    /// avoidance when ssthresh is already at the minimum (Appendix B.5),
    /// e.g. after a β far below ½.
    pub fn can_follow_persistent_congestion(next: LossBasedState) -> bool {
        matches!(
            next,
            LossBasedState::SlowStart | LossBasedState::CongestionAvoidance
        )
    }
}

impl fmt::Display for LossBasedState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl LossBasedState {
    /// The phase as every controller reports it.
    pub fn phase(self) -> CcPhase {
        CcPhase::new(self.as_str(), self.is_startup())
    }
}
