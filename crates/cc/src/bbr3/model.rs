//! The network path model's congestion side and the control parameters:
//! loss and ECN responses (§5.5.10), spurious-loss undo (§5.5.11),
//! aggregation (§5.5.9), pacing rate (§5.6.2), send quantum (§5.6.3) and
//! cwnd (§5.6.4).

use core::time::Duration;

use super::startup::{inflight_at_loss, inflight_too_high};
use super::{
    Bbr3, Bbr3State, UndoState, ECN_THRESH, EXTRA_ACKED_FILTER_LEN, PACING_MARGIN_PERCENT,
};
use crate::ratio::Ratio;
use crate::rtt::RttEstimator;
use ramp_vocab::time::{Rate, Time};

/// §5.6.3: the send quantum is one millisecond of pacing...
const SEND_QUANTUM_TIME: Duration = Duration::from_millis(1);
/// ... at most 64 KB.
const SEND_QUANTUM_MAX: u64 = 64 * 1024;

impl Bbr3 {
    /// §5.5.10.3 `UpdateLatestDeliverySignals`, near the start of an ACK.
    pub(super) fn update_latest_delivery_signals(&mut self) {
        self.loss_round_start = false;
        let rate = self.rs.delivery_rate.map_or(0, |r| r.bytes_per_sec());
        self.bw_latest = self.bw_latest.max(rate);
        self.inflight_latest = self.inflight_latest.max(self.rs.delivered);
        if self.rs.has_data && self.rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = self.sampler.delivered();
            self.loss_round_start = true;
            self.close_round_tally();
        }
    }

    /// §5.5.10.3 `AdvanceLatestDeliverySignals`, near the end of an ACK.
    pub(super) fn advance_latest_delivery_signals(&mut self) {
        if self.loss_round_start {
            self.bw_latest = self.rs.delivery_rate.map_or(0, |r| r.bytes_per_sec());
            self.inflight_latest = self.rs.delivered;
        }
    }

    /// §5.5.10.3 `ResetCongestionSignals`.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.is_loss_in_round = false;
        self.bw_latest = 0;
        self.inflight_latest = 0;
    }

    /// §5.5.10.3 `UpdateCongestionSignals`, with §5.5.5 `UpdateMaxBw`.
    pub(super) fn update_congestion_signals(&mut self) {
        self.update_round();
        if let Some(rate) = self.rs.delivery_rate {
            let rate = rate.bytes_per_sec();
            if rate > 0 && (rate >= self.max_bw.get() || !self.rs.is_app_limited) {
                self.max_bw.update(rate);
            }
        }
        if !self.loss_round_start {
            return;
        }
        // Once per round: adapt the lower bounds to congestion.
        if !self.is_probing_bw() && self.is_loss_in_round {
            self.bw_shortterm.get_or_insert(self.max_bw.get());
            self.inflight_shortterm.get_or_insert(self.cwnd);
            // §5.5.10.3 `LossLowerBounds`.
            self.bw_shortterm = self
                .bw_shortterm
                .map(|b| self.bw_latest.max(self.opts.beta.mul_floor(b)));
            self.inflight_shortterm = self
                .inflight_shortterm
                .map(|i| self.inflight_latest.max(self.opts.beta.mul_floor(i)));
        }
        self.is_loss_in_round = false;
    }

    /// §5.3.3.9 `IsProbingBW`.
    fn is_probing_bw(&self) -> bool {
        matches!(
            self.state,
            Bbr3State::Startup | Bbr3State::ProbeBwRefill | Bbr3State::ProbeBwUp
        )
    }

    /// §5.5.10.3 `ResetShortTermModel`.
    pub(super) fn reset_short_term_model(&mut self) {
        self.bw_shortterm = None;
        self.inflight_shortterm = None;
    }

    /// §5.5.10.3 `BoundBWForModel`.
    pub(super) fn bound_bw_for_model(&mut self) {
        self.bw = self.max_bw.get().min(self.bw_shortterm.unwrap_or(u64::MAX));
    }

    /// §5.5.10.2 `NoteLoss` (CE marks too, §3.7).
    pub(super) fn note_loss(&mut self) {
        if !self.is_loss_in_round {
            self.loss_round_delivered = self.sampler.delivered();
        }
        self.is_loss_in_round = true;
    }

    /// §5.5.10.2 `HandleLostPacket` for a loss pass whose largest lost
    /// packet was sent at `time_sent`.
    pub(super) fn handle_lost_packet(&mut self, now: Time, time_sent: Time) {
        self.note_loss();
        if !self.is_bw_probe_sample {
            return;
        }
        let Some((tx_in_flight, lost, size, app_limited)) = self.sampler.lost_packet(time_sent)
        else {
            return;
        };
        if inflight_too_high(lost, tx_in_flight, self.opts.loss_thresh) {
            let at_loss = inflight_at_loss(tx_in_flight, lost, size, self.opts.loss_thresh);
            self.handle_inflight_too_high(now, at_loss, app_limited);
        }
    }

    /// The per-ACK form of `IsInflightTooHigh` on the frame's rate sample:
    /// the loss rate, or (§3.7: CE is congestion; Linux BBRv3's
    /// `bbr_is_inflight_too_high`) CE marks on more than [`ECN_THRESH`] of
    /// the bytes the sample delivered.
    pub(super) fn rs_inflight_too_high(&self) -> bool {
        inflight_too_high(self.rs.lost, self.rs.tx_in_flight, self.opts.loss_thresh)
            || self.rs_ecn_too_high()
    }

    /// The ECN half of [`Self::rs_inflight_too_high`].
    pub(super) fn rs_ecn_too_high(&self) -> bool {
        self.ecn_enabled()
            && self.rs.delivered_ce > 0
            && self.rs.delivered > 0
            && self.rs.delivered_ce > ECN_THRESH.mul_floor(self.rs.delivered)
    }

    /// §5.5.10.2 `HandleInflightTooHigh` for the frame's rate sample when
    /// its CE share is too high. The loss half runs per lost packet
    /// ([`Self::handle_lost_packet`], as the draft has it); CE marks are
    /// not tied to one packet, so they are judged on the ACK's sample, as
    /// Linux does, and only for samples of a bandwidth probe.
    pub(super) fn handle_ecn_too_high(&mut self, now: Time) {
        if self.is_bw_probe_sample && self.rs_ecn_too_high() {
            self.handle_inflight_too_high(now, self.rs.tx_in_flight, self.rs.is_app_limited);
        }
    }

    /// §5.5.10.2 `HandleInflightTooHigh`.
    fn handle_inflight_too_high(&mut self, now: Time, tx_in_flight: u64, app_limited: bool) {
        self.prev_probe_too_high = true;
        self.is_bw_probe_sample = false;
        if !app_limited {
            let floor = self.opts.beta.mul_floor(self.target_inflight());
            self.inflight_longterm = Some(tx_in_flight.max(floor));
        }
        if self.state == Bbr3State::ProbeBwUp {
            self.undo.state = Some(Bbr3State::ProbeBwUp);
            self.start_probe_bw_down(now);
        }
    }

    /// §5.5.11.1 `SaveStateUponLoss`.
    pub(super) fn save_state_upon_loss(&mut self) {
        self.undo = UndoState {
            state: None,
            bw_shortterm: self.bw_shortterm,
            inflight_shortterm: self.inflight_shortterm,
            inflight_longterm: self.inflight_longterm,
        };
    }

    /// §5.5.11.2 `HandleSpuriousLossDetection`.
    pub(super) fn handle_spurious_loss_detection(&mut self) {
        self.restore_cwnd();
        self.is_loss_in_round = false;
        self.reset_full_bw();
        let u = self.undo;
        self.bw_shortterm = max_or_inf(self.bw_shortterm, u.bw_shortterm);
        self.inflight_shortterm = max_or_inf(self.inflight_shortterm, u.inflight_shortterm);
        self.inflight_longterm = max_or_inf(self.inflight_longterm, u.inflight_longterm);
        match u.state {
            Some(Bbr3State::Startup) if self.state != Bbr3State::Startup => {
                self.full_bw_reached = false;
                if self.state != Bbr3State::ProbeRtt {
                    self.enter_startup();
                }
            }
            Some(Bbr3State::ProbeBwUp)
                if self.state != Bbr3State::ProbeBwUp && self.state != Bbr3State::ProbeRtt =>
            {
                self.start_probe_bw_refill();
            }
            _ => {}
        }
        self.undo.state = None;
    }

    /// §5.6.4.4 `SaveCwnd`.
    pub(super) fn save_cwnd(&mut self) {
        if !self.in_recovery() && self.state != Bbr3State::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// §5.6.4.4 `RestoreCwnd`.
    pub(super) fn restore_cwnd(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    /// §5.5.9 `UpdateACKAggregation`.
    pub(super) fn update_ack_aggregation(&mut self, now: Time) {
        let interval = now.saturating_since(self.extra_acked_interval_start);
        let mut expected = Rate::from_bytes_per_sec(self.bw).bytes_in(interval);
        if self.extra_acked_delivered <= expected {
            self.extra_acked_delivered = 0;
            self.extra_acked_interval_start = now;
            expected = 0;
        }
        self.extra_acked_delivered += self.rs.newly_acked;
        let extra = self
            .extra_acked_delivered
            .saturating_sub(expected)
            .min(self.cwnd);
        let window = if self.full_bw_reached {
            EXTRA_ACKED_FILTER_LEN
        } else {
            1
        };
        self.extra_acked.update(self.round_count, extra, window);
    }

    /// §5.3.3.8 `TargetInflight`: the BDP, unless congestion cut cwnd.
    pub(super) fn target_inflight(&self) -> u64 {
        self.bdp_multiple(Ratio::ONE).min(self.cwnd)
    }

    /// §5.6.4.2 `BDPMultiple`: `gain · bw · min_rtt`, or the initial
    /// window before the first RTT sample.
    pub(super) fn bdp_multiple(&self, gain: Ratio) -> u64 {
        match self.min_rtt {
            None => self.initial_cwnd,
            Some(rtt) => gain.mul_floor(Rate::from_bytes_per_sec(self.bw).bytes_in(rtt)),
        }
    }

    /// §5.6.4.2 `QuantizationBudget` (QUIC's offload budget: one send
    /// quantum, §5.5.8.2). `quantum=off` leaves the quantum out: no pacer
    /// in ramp releases quantum-sized bursts (the simulator's leaky bucket
    /// and real mode's pacer send packet by packet, GSO batches aside), so
    /// the option shows what the budget costs.
    fn quantization_budget(&self, cap: u64) -> u64 {
        let quantum = if self.opts.quantum {
            self.send_quantum
        } else {
            0
        };
        let mut cap = cap.max(quantum).max(self.min_pipe_cwnd());
        if self.state == Bbr3State::ProbeBwUp {
            cap += 2 * self.mds;
        }
        cap
    }

    /// §5.6.4.2 `Inflight(gain)`, on `BBR.bw`.
    pub(super) fn inflight_with_gain(&self, gain: Ratio) -> u64 {
        self.quantization_budget(self.bdp_multiple(gain))
    }

    /// §5.6.4.2 `BBRInflight(bw, gain)` on `BBR.max_bw` (§5.3.3.9
    /// `IsTimeToCruise` uses it).
    pub(super) fn inflight_at_max_bw(&self, gain: Ratio) -> u64 {
        let bdp = match self.min_rtt {
            None => self.initial_cwnd,
            Some(rtt) => gain.mul_floor(Rate::from_bytes_per_sec(self.max_bw.get()).bytes_in(rtt)),
        };
        self.quantization_budget(bdp)
    }

    /// §5.6.4.2 `UpdateMaxInflight`: `BBR.max_inflight`.
    fn max_inflight(&self) -> u64 {
        let cap = self.bdp_multiple(self.cwnd_gain) + self.extra_acked.get();
        self.quantization_budget(cap)
    }

    /// §5.3.3.9 `InflightWithHeadroom`; `None` while `inflight_longterm`
    /// is unbounded.
    pub(super) fn inflight_with_headroom(&self) -> Option<u64> {
        let longterm = self.inflight_longterm?;
        let headroom = self.opts.headroom.mul_floor(longterm).max(self.mds);
        Some(longterm.saturating_sub(headroom).max(self.min_pipe_cwnd()))
    }

    /// §5.6.2 `InitPacingRate`: the startup gain over the initial window
    /// per smoothed RTT (1 ms before any sample).
    pub(super) fn initial_pacing_rate(&self, rtt: &RttEstimator) -> Rate {
        let srtt = if rtt.has_sample() {
            rtt.smoothed()
        } else {
            Duration::from_millis(1)
        };
        let nominal = Rate::from_bytes_over(self.initial_cwnd, srtt);
        let g = self.opts.startup_gain;
        nominal.scaled(g.num(), g.den())
    }

    /// §5.6.2 `SetPacingRateWithGain`: the rate only falls once the pipe
    /// was found full (a low early estimate must not stall Startup).
    pub(super) fn set_pacing_rate(&mut self, gain: Ratio) {
        if self.bw == 0 {
            return;
        }
        let rate = Rate::from_bytes_per_sec(self.bw)
            .scaled(gain.num(), gain.den())
            .scaled(100 - PACING_MARGIN_PERCENT, 100);
        if rate.bytes_per_sec() == 0 {
            return;
        }
        let faster = self.pacing_rate.is_none_or(|p| rate > p);
        if self.full_bw_reached || faster {
            self.pacing_rate = Some(rate);
        }
    }

    /// §5.6.3 `SetSendQuantum`.
    pub(super) fn set_send_quantum(&mut self) {
        let rate = self.pacing_rate.unwrap_or(Rate::ZERO);
        self.send_quantum = rate
            .bytes_in(SEND_QUANTUM_TIME)
            .min(SEND_QUANTUM_MAX)
            .max(2 * self.mds);
    }

    /// §5.6.4.6 `SetCwnd`, with §5.6.4.5 and §5.6.4.7's bounds.
    pub(super) fn set_cwnd(&mut self) {
        let max_inflight = self.max_inflight();
        let acked = self.rs.newly_acked;
        if self.full_bw_reached {
            self.cwnd = (self.cwnd + acked).min(max_inflight);
        } else if self.cwnd < max_inflight || self.sampler.delivered() < self.initial_cwnd {
            self.cwnd += acked;
        }
        self.cwnd = self.cwnd.max(self.min_pipe_cwnd());
        if self.state == Bbr3State::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
        // §5.6.4.7 `BoundCwndForModel`.
        let mut cap = u64::MAX;
        if self.state.is_probe_bw() && self.state != Bbr3State::ProbeBwCruise {
            cap = self.inflight_longterm.unwrap_or(u64::MAX);
        } else if matches!(self.state, Bbr3State::ProbeRtt | Bbr3State::ProbeBwCruise) {
            cap = self.inflight_with_headroom().unwrap_or(u64::MAX);
        }
        cap = cap.min(self.inflight_shortterm.unwrap_or(u64::MAX));
        cap = cap.max(self.min_pipe_cwnd());
        self.cwnd = self.cwnd.min(cap);
    }
}

/// The larger of two bounds where `None` is infinite.
fn max_or_inf(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        _ => None,
    }
}
