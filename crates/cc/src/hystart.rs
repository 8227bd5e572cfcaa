//! HyStart++, RFC 9406, as a slow-start policy.
//!
//! It runs on top of any loss-based controller (NewReno, CUBIC, and Rapid
//! Start's growth phases) during the *initial* slow start only (§4.2: later
//! slow starts use plain slow start). The round bookkeeping is shared
//! ([`crate::round::RoundTracker`]); this module holds the SS/CSS decision.

use core::time::Duration;

use crate::round::RoundTracker;

/// RFC 9406 §4.3 `MIN_RTT_THRESH`.
pub const MIN_RTT_THRESH: Duration = Duration::from_millis(4);
/// RFC 9406 §4.3 `MAX_RTT_THRESH`.
pub const MAX_RTT_THRESH: Duration = Duration::from_millis(16);
/// RFC 9406 §4.3 `MIN_RTT_DIVISOR`.
pub const MIN_RTT_DIVISOR: u32 = 8;
/// RFC 9406 §4.3 `N_RTT_SAMPLE`: samples a round needs before it is judged.
pub const N_RTT_SAMPLE: u32 = 8;
/// RFC 9406 §4.3 `CSS_GROWTH_DIVISOR` (MUST be at least 2).
pub const CSS_GROWTH_DIVISOR: u64 = 4;
/// RFC 9406 §4.3 `CSS_ROUNDS`.
pub const CSS_ROUNDS: u32 = 5;
/// RFC 9406 §4.3 `L` for unpaced senders, packets (paced: infinite).
pub const L_UNPACED: u64 = 8;

/// RFC 9406 §4.2 `RttThresh = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms)`.
pub fn rtt_thresh(last_round_min: Duration) -> Duration {
    (last_round_min / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
}

/// Where HyStart++ is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartPhase {
    /// Standard slow start, watching for RTT inflation.
    SlowStart,
    /// Conservative Slow Start (§4.3).
    Css {
        /// `cssBaselineMinRtt`: the round minimum that triggered CSS.
        baseline: Duration,
        /// Round ends seen in CSS, the partial entry round included.
        rounds: u32,
    },
}

/// What a frame's evaluation decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartEvent {
    /// Nothing changed.
    None,
    /// RTT rose past the threshold: slow start → CSS.
    EnterCss,
    /// The round minimum fell below the CSS baseline: the exit was spurious,
    /// back to slow start (§4.3).
    ResumeSlowStart,
    /// `CSS_ROUNDS` rounds of CSS: enter congestion avoidance
    /// (`ssthresh = cwnd`).
    ExitToCongestionAvoidance,
}

/// HyStart++ state.
#[derive(Clone, Debug)]
pub struct HyStart {
    phase: HyStartPhase,
    /// `L` in packets; `None` = infinite (paced senders, §4.3 SHOULD).
    limit_packets: Option<u64>,
}

impl HyStart {
    /// A HyStart++ instance; `paced` selects `L = ∞` over `L = 8`.
    pub fn new(paced: bool) -> HyStart {
        HyStart {
            phase: HyStartPhase::SlowStart,
            limit_packets: if paced { None } else { Some(L_UNPACED) },
        }
    }

    /// The current phase.
    pub fn phase(&self) -> HyStartPhase {
        self.phase
    }
    /// Whether in Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        matches!(self.phase, HyStartPhase::Css { .. })
    }

    /// The window increase for `acked` bytes in this ACK, before any
    /// startup multiplier: `min(N, L·mds)`, divided by
    /// `CSS_GROWTH_DIVISOR` in CSS (§4.2, §4.3).
    pub fn capped(&self, acked: u64, mds: u64) -> u64 {
        match self.limit_packets {
            Some(l) => acked.min(l.saturating_mul(mds)),
            None => acked,
        }
    }

    /// Evaluate one ACK frame, after the round tracker has seen it.
    /// `allow_entry` is false while something else (the jump-start first
    /// flight) owns the window.
    pub fn on_ack_frame(
        &mut self,
        round: &RoundTracker,
        round_ended: bool,
        had_sample: bool,
        allow_entry: bool,
    ) -> HyStartEvent {
        if let HyStartPhase::Css { baseline, rounds } = &mut self.phase {
            if round_ended {
                *rounds += 1;
                if *rounds >= CSS_ROUNDS {
                    return HyStartEvent::ExitToCongestionAvoidance;
                }
            }
            if had_sample && round.samples() >= N_RTT_SAMPLE {
                if let Some(cur) = round.current_min() {
                    if cur < *baseline {
                        self.phase = HyStartPhase::SlowStart;
                        return HyStartEvent::ResumeSlowStart;
                    }
                }
            }
            return HyStartEvent::None;
        }
        if !had_sample || !allow_entry || round.samples() < N_RTT_SAMPLE {
            return HyStartEvent::None;
        }
        if let (Some(cur), Some(last)) = (round.current_min(), round.last_min()) {
            if cur >= last + rtt_thresh(last) {
                self.phase = HyStartPhase::Css {
                    baseline: cur,
                    rounds: 0,
                };
                return HyStartEvent::EnterCss;
            }
        }
        HyStartEvent::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc9406_4_2_rtt_thresh_clamps() {
        assert_eq!(
            rtt_thresh(Duration::from_millis(1)),
            Duration::from_millis(4)
        );
        assert_eq!(
            rtt_thresh(Duration::from_millis(80)),
            Duration::from_millis(10)
        );
        assert_eq!(
            rtt_thresh(Duration::from_secs(1)),
            Duration::from_millis(16)
        );
    }

    #[test]
    fn rfc9406_4_3_l_limits_unpaced_growth_per_ack() {
        assert_eq!(HyStart::new(false).capped(100_000, 1200), 8 * 1200);
        assert_eq!(HyStart::new(true).capped(100_000, 1200), 100_000);
    }
}
