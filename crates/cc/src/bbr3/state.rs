//! BBR's states (draft-ietf-ccwg-bbr-06 §5.1.1) and the edges between
//! them.

use core::fmt;

use crate::controller::CcPhase;

/// The state of a [`super::Bbr3`] controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bbr3State {
    /// §5.3.1: exponential search for the bandwidth, pacing at 2.77×.
    Startup,
    /// §5.3.2: pacing at 0.5× until the queue Startup built is gone.
    Drain,
    /// §5.3.3.1: pacing at 0.9× to leave headroom.
    ProbeBwDown,
    /// §5.3.3.2: pacing at 1× the bandwidth estimate.
    ProbeBwCruise,
    /// §5.3.3.3: one round at 1× with the short-term bounds lifted,
    /// refilling the pipe before probing.
    ProbeBwRefill,
    /// §5.3.3.4: pacing at 1.25× with cwnd gain 2.25 to find more bandwidth.
    ProbeBwUp,
    /// §5.3.4: inflight cut to half the BDP (at least 4 packets) for at
    /// least 200 ms and one round, to measure the propagation delay.
    ProbeRtt,
}

impl Bbr3State {
    /// The stable name used in records, traces and qlog.
    pub fn as_str(self) -> &'static str {
        match self {
            Bbr3State::Startup => "startup",
            Bbr3State::Drain => "drain",
            Bbr3State::ProbeBwDown => "probe_bw_down",
            Bbr3State::ProbeBwCruise => "probe_bw_cruise",
            Bbr3State::ProbeBwRefill => "probe_bw_refill",
            Bbr3State::ProbeBwUp => "probe_bw_up",
            Bbr3State::ProbeRtt => "probe_rtt",
        }
    }

    /// The phase as every controller reports it; only Startup is startup.
    pub fn phase(self) -> CcPhase {
        CcPhase::new(self.as_str(), self == Bbr3State::Startup)
    }

    /// One of the four ProbeBW states (§5.3.3.9 `IsInAProbeBWState`).
    pub fn is_probe_bw(self) -> bool {
        matches!(
            self,
            Bbr3State::ProbeBwDown
                | Bbr3State::ProbeBwCruise
                | Bbr3State::ProbeBwRefill
                | Bbr3State::ProbeBwUp
        )
    }

    /// Whether a controller may move from `self` to `next` within one
    /// event (staying put is always legal): the draft's diagram (§5.1.1)
    /// closed over the steps one ACK runs in order (§5.2.3: Startup done,
    /// Drain done, then one ProbeBW step, then ProbeRTT):
    ///
    /// - Startup → Drain when the pipe is full (plateau, loss or ECN), on
    ///   to ProbeBW_DOWN if inflight is already at the BDP, and on to
    ///   CRUISE or REFILL by DOWN's own step;
    /// - Drain → ProbeBW_DOWN, and on to CRUISE or REFILL likewise;
    /// - DOWN → CRUISE or REFILL; CRUISE → REFILL; REFILL → UP after one
    ///   round; UP → DOWN (pipe full, or too much loss); any ProbeBW state
    ///   → REFILL (precautionary re-probe §5.3.3.6, or a spurious-loss
    ///   undo of a probe §5.5.11.2);
    /// - ProbeRTT → ProbeBW_CRUISE (through DOWN, §5.3.4.4) or Startup;
    /// - anything → ProbeRTT (min_rtt expired) or → Startup (a spurious-
    ///   loss undo of a Startup exit).
    pub fn can_transition_to(self, next: Bbr3State) -> bool {
        use Bbr3State::*;
        if self == next || next == Startup || next == ProbeRtt {
            return true;
        }
        if self.is_probe_bw() && next == ProbeBwRefill {
            return true;
        }
        match self {
            Startup | Drain => {
                matches!(next, Drain | ProbeBwDown | ProbeBwCruise | ProbeBwRefill)
                    && !(self == Drain && next == Drain)
            }
            ProbeBwDown => next == ProbeBwCruise,
            ProbeBwCruise => false,
            ProbeBwRefill => next == ProbeBwUp,
            ProbeBwUp => next == ProbeBwDown,
            ProbeRtt => matches!(next, ProbeBwDown | ProbeBwCruise),
        }
    }
}

impl fmt::Display for Bbr3State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the ACKs arriving now say about bandwidth probing (§2.14
/// `BBR.ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckPhase {
    /// Not probing; not getting probe feedback.
    Init,
    /// Sending at the estimated bandwidth to fill the pipe.
    Refilling,
    /// Inflight rising to probe bandwidth.
    ProbeStarting,
    /// Getting feedback from the probe.
    ProbeFeedback,
    /// Stopped probing; still getting its feedback.
    ProbeStopping,
}
