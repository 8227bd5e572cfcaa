//! ProbeBW (§5.3.3): the DOWN → CRUISE → REFILL → UP cycle that probes for
//! more bandwidth about every 2–3 s (or every 63 rounds at most, for Reno
//! coexistence) and drains what the probe queued.

use core::time::Duration;

use super::{
    Bbr3, Bbr3State, DEFAULT_CWND_GAIN, PROBE_DOWN_PACING_GAIN, PROBE_UP_CWND_GAIN,
    PROBE_UP_PACING_GAIN,
};
use crate::bbr3::state::AckPhase;
use crate::ratio::Ratio;
use ramp_vocab::time::Time;

/// §5.3.3.8: at most this many rounds between probes (Reno coexistence).
const MAX_RENO_ROUNDS: u64 = 63;

impl Bbr3 {
    /// §5.3.3.9 `EnterProbeBW`.
    pub(super) fn enter_probe_bw(&mut self, now: Time) {
        self.cwnd_gain = DEFAULT_CWND_GAIN;
        self.start_probe_bw_down(now);
    }

    /// §5.3.3.9 `StartProbeBW_DOWN`.
    pub(super) fn start_probe_bw_down(&mut self, now: Time) {
        self.reset_congestion_signals();
        self.probe_up_acked_per_inc = None;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.state = Bbr3State::ProbeBwDown;
        self.pacing_gain = PROBE_DOWN_PACING_GAIN;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    /// §5.3.3.9 `StartProbeBW_CRUISE`.
    pub(super) fn start_probe_bw_cruise(&mut self) {
        self.state = Bbr3State::ProbeBwCruise;
        self.pacing_gain = Ratio::ONE;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    /// §5.3.3.9 `StartProbeBW_REFILL`.
    pub(super) fn start_probe_bw_refill(&mut self) {
        self.reset_short_term_model();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acked = 0;
        self.prev_probe_precautionary = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.state = Bbr3State::ProbeBwRefill;
        self.pacing_gain = Ratio::ONE;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    /// §5.3.3.9 `StartProbeBW_UP`.
    fn start_probe_bw_up(&mut self) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.reset_full_bw();
        self.full_bw = self.rs.delivery_rate.map_or(0, |r| r.bytes_per_sec());
        self.state = Bbr3State::ProbeBwUp;
        self.pacing_gain = PROBE_UP_PACING_GAIN;
        self.cwnd_gain = PROBE_UP_CWND_GAIN;
        self.raise_inflight_longterm_slope();
    }

    /// §5.3.3.9 `UpdateProbeBWCyclePhase`.
    pub(super) fn update_probe_bw_cycle_phase(&mut self, now: Time) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_long_term_model(now) {
            return;
        }
        let state = self.state;
        match state {
            Bbr3State::ProbeBwDown => {
                if self.is_time_to_probe_bw(now) {
                    return;
                }
                if self.is_time_to_cruise() {
                    self.start_probe_bw_cruise();
                }
            }
            Bbr3State::ProbeBwCruise => {
                self.is_time_to_probe_bw(now);
            }
            // One round of REFILL, then UP.
            Bbr3State::ProbeBwRefill if self.round_start => {
                self.is_bw_probe_sample = true;
                self.start_probe_bw_up();
            }
            Bbr3State::ProbeBwUp if self.is_time_to_go_down() => {
                self.prev_probe_too_high = false;
                self.start_probe_bw_down(now);
            }
            _ => {}
        }
    }

    /// §5.3.3.9 `IsTimeToCruise`: DOWN has drained to the BDP at
    /// `BBR.max_bw` (`BBRInflight(BBR.max_bw, 1.0)`, as Linux's
    /// `bbr_inflight(sk, bbr_max_bw(sk), BBR_UNIT)`) and below the headroom.
    pub(super) fn is_time_to_cruise(&self) -> bool {
        if self
            .inflight_with_headroom()
            .is_some_and(|h| self.inflight > h)
        {
            return false;
        }
        self.inflight <= self.inflight_at_max_bw(Ratio::ONE)
    }

    /// §5.3.3.9 `IsTimeToGoDown`.
    fn is_time_to_go_down(&mut self) -> bool {
        let longterm = self.inflight_longterm.unwrap_or(u64::MAX);
        if self.prev_probe_too_high && self.inflight >= longterm {
            // §5.3.3.6, precautionary probing: decelerate at the bound
            // where the last probe saw too much loss.
            self.prev_probe_precautionary = true;
            return true;
        }
        if self.cwnd_limited && self.cwnd >= longterm {
            // Bandwidth is limited by inflight_longterm: keep probing.
            self.reset_full_bw();
            self.full_bw = self.rs.delivery_rate.map_or(0, |r| r.bytes_per_sec());
        } else if self.full_bw_now {
            return true;
        }
        false
    }

    /// §5.3.3.8 `IsTimeToProbeBW`: the randomised wall-clock wait, or the
    /// Reno-coexistence round bound, has passed.
    fn is_time_to_probe_bw(&mut self, now: Time) -> bool {
        let waited = now > self.cycle_stamp.saturating_add(self.bw_probe_wait);
        if waited || self.is_reno_coexistence_probe_time() {
            self.start_probe_bw_refill();
            return true;
        }
        false
    }

    /// §5.3.3.8 `PickProbeWait`: 0 or 1 extra round, and 2 to 3 s.
    pub(super) fn pick_probe_wait(&mut self) {
        self.rounds_since_probe_up = self.rng.next_u64() & 1;
        let jitter_us = (self.rng.next_f64() * 1_000_000.0) as u64;
        self.bw_probe_wait = Duration::from_secs(2) + Duration::from_micros(jitter_us);
    }

    /// §5.3.3.8 `IsRenoCoexistenceProbeTime`: a Reno flow with our target
    /// window would take that many rounds (in packets) to grow back.
    fn is_reno_coexistence_probe_time(&self) -> bool {
        let reno_rounds = self.target_inflight() / self.mds.max(1);
        self.rounds_since_probe_up >= reno_rounds.min(MAX_RENO_ROUNDS)
    }

    /// §5.3.3.9 `RaiseInflightLongtermSlope`.
    fn raise_inflight_longterm_slope(&mut self) {
        let growth_this_round = 1u64 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.probe_up_acked_per_inc = Some((self.cwnd / growth_this_round).max(self.mds));
    }

    /// §5.3.3.9 `ProbeInflightLongtermUpward`.
    fn probe_inflight_longterm_upward(&mut self) {
        let Some(longterm) = self.inflight_longterm else {
            return;
        };
        if !self.cwnd_limited || self.cwnd < longterm {
            return;
        }
        let per_inc = self.probe_up_acked_per_inc.unwrap_or(u64::MAX).max(1);
        self.bw_probe_up_acked += self.rs.newly_acked;
        if self.bw_probe_up_acked >= per_inc {
            let delta = self.bw_probe_up_acked / per_inc;
            self.bw_probe_up_acked -= delta * per_inc;
            self.inflight_longterm = Some(longterm.saturating_add(delta * self.mds));
        }
        if self.round_start {
            self.raise_inflight_longterm_slope();
        }
    }

    /// §5.3.3.9 `AdaptLongTermModel`: tracks the ACK phase, advances the
    /// bandwidth filter once per cycle, and raises `inflight_longterm`
    /// while the loss rate is safe. Returns whether it changed the state.
    fn adapt_long_term_model(&mut self, now: Time) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.is_bw_probe_sample = false;
            self.ack_phase = AckPhase::Init;
            if self.state.is_probe_bw() && !self.rs.is_app_limited {
                self.max_bw.advance();
            }
            if self.state.is_probe_bw()
                && self.prev_probe_precautionary
                && !self.prev_probe_too_high
            {
                self.start_probe_bw_refill();
                return true;
            }
        }
        if self.rs_inflight_too_high() {
            // Linux's `bbr_adapt_upper_bounds`: a probe's sample with too
            // much CE ends the probe (losses were handled per packet).
            self.handle_ecn_too_high(now);
        } else {
            let Some(longterm) = self.inflight_longterm else {
                return false;
            };
            if self.rs.tx_in_flight > longterm {
                self.inflight_longterm = Some(self.rs.tx_in_flight);
            }
            if self.state == Bbr3State::ProbeBwUp {
                self.probe_inflight_longterm_upward();
            }
        }
        false
    }
}
