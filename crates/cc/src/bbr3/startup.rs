//! Startup (§5.3.1), Drain (§5.3.2), ProbeRTT (§5.3.4), restarting from
//! idle (§5.4), packet-timed rounds (§5.5.1) and `min_rtt` (§5.5.7).

use core::time::Duration;

use super::{
    Bbr3, Bbr3State, RoundTally, DEFAULT_CWND_GAIN, DRAIN_PACING_GAIN, ECN_THRESH, FULL_BW_COUNT,
    FULL_BW_THRESH, MIN_RTT_FILTER_LEN, PROBE_RTT_CWND_GAIN, PROBE_RTT_DURATION,
    PROBE_RTT_INTERVAL, STARTUP_FULL_ECN_COUNT, STARTUP_FULL_LOSS_COUNT,
};
use crate::bbr3::state::AckPhase;
use crate::bbr3::EcnCount;
use crate::ratio::Ratio;
use ramp_vocab::time::Time;

impl Bbr3 {
    /// §5.3.1.1 `EnterStartup`.
    pub(super) fn enter_startup(&mut self) {
        self.state = Bbr3State::Startup;
        self.pacing_gain = self.opts.startup_gain;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    /// §5.5.1 `UpdateRound`, on the newest acknowledged packet's
    /// `P.delivered`.
    pub(super) fn update_round(&mut self) {
        if !self.rs.has_data {
            self.round_start = false;
            return;
        }
        if self.rs.prior_delivered >= self.next_round_delivered {
            self.start_round();
            self.round_count += 1;
            self.rounds_since_probe_up += 1;
            self.round_start = true;
        } else {
            self.round_start = false;
        }
    }

    /// §5.5.1 `StartRound`.
    pub(super) fn start_round(&mut self) {
        self.next_round_delivered = self.sampler.delivered();
    }

    /// §5.3.1.2 `ResetFullBW`.
    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// §5.3.1.2 `CheckFullBWReached`: three rounds without 25 % growth.
    pub(super) fn check_full_bw_reached(&mut self) {
        if self.full_bw_now || !self.round_start || self.rs.is_app_limited {
            return;
        }
        let rate = self.rs.delivery_rate.map_or(0, |r| r.bytes_per_sec());
        // With no trusted sample the rate is 0, which counts as growth
        // until a first estimate exists (as in the draft).
        if rate >= FULL_BW_THRESH.mul_floor(self.full_bw) {
            self.reset_full_bw();
            self.full_bw = rate;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_COUNT;
        if self.full_bw_now {
            self.note_full_bw_reached();
        }
    }

    fn note_full_bw_reached(&mut self) {
        if !self.full_bw_reached && self.state == Bbr3State::Startup {
            self.metrics.cwnd_exiting_slow_start_bytes = Some(self.cwnd);
        }
        self.full_bw_reached = true;
    }

    /// §5.3.1 `CheckStartupDone`.
    pub(super) fn check_startup_done(&mut self) {
        if self.state == Bbr3State::Startup && self.loss_round_start {
            self.check_startup_high_loss();
            self.check_startup_high_ecn();
        }
        if self.state == Bbr3State::Startup && self.full_bw_reached {
            self.enter_drain();
        }
    }

    /// §5.3.1.3 `CheckStartupHighLoss`, at the end of each loss round:
    /// recovery for the whole round, loss above `LossThresh` over the
    /// round, and at least [`STARTUP_FULL_LOSS_COUNT`] loss detection
    /// passes (QUIC's reading of "discontiguous lost ranges").
    fn check_startup_high_loss(&mut self) {
        let r = self.last_round;
        let delivered = self.sampler.delivered() - r.delivered_at_start;
        let sent = delivered + r.lost_bytes;
        let too_high = r.lost_bytes > 0
            && r.lost_bytes > self.opts.loss_thresh.mul_floor(sent)
            && r.loss_events >= STARTUP_FULL_LOSS_COUNT
            && r.in_recovery_all_round;
        if too_high {
            self.undo.state = Some(Bbr3State::Startup);
            self.note_full_bw_reached();
            self.inflight_longterm = Some(self.startup_exit_bound());
        }
    }

    /// The ECN exit (Linux BBRv3, since §3.7 leaves the response open):
    /// [`STARTUP_FULL_ECN_COUNT`] rounds in a row with CE on at least
    /// [`ECN_THRESH`] of the round end Startup, with `inflight_longterm` set
    /// as the loss exit sets it, `max(BDP, inflight_latest)` (Linux's
    /// loss and ECN checks both call `bbr_handle_queue_too_high_in_startup`). The share is of bytes, or of ACK frames with
    /// `ecn_count=frames`.
    fn check_startup_high_ecn(&mut self) {
        if !self.ecn_enabled() {
            return;
        }
        let r = self.last_round;
        let heavy = match self.opts.ecn_count {
            EcnCount::Bytes => {
                let delivered = self.sampler.delivered() - r.delivered_at_start;
                let ce_bytes = r.ce_packets.saturating_mul(self.mds);
                r.ce_packets > 0 && ce_bytes >= ECN_THRESH.mul_floor(delivered)
            }
            EcnCount::Frames => {
                r.ce_frames > 0 && r.ce_frames >= ECN_THRESH.mul_floor(r.ack_frames)
            }
        };
        if heavy {
            self.startup_ecn_rounds += 1;
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= STARTUP_FULL_ECN_COUNT {
            self.undo.state = Some(Bbr3State::Startup);
            self.note_full_bw_reached();
            self.inflight_longterm = Some(self.startup_exit_bound());
        }
    }

    /// The `inflight_longterm` both Startup exits set: one BDP, or the
    /// flight of the latest round if larger.
    fn startup_exit_bound(&self) -> u64 {
        self.bdp_multiple(Ratio::ONE).max(self.inflight_latest)
    }

    /// §5.3.2 `EnterDrain`.
    pub(super) fn enter_drain(&mut self) {
        self.state = Bbr3State::Drain;
        self.pacing_gain = DRAIN_PACING_GAIN;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
        self.drain_start_round = self.round_count;
    }

    /// §5.3.2 `CheckDrainDone`.
    pub(super) fn check_drain_done(&mut self, now: Time) {
        if self.state == Bbr3State::Drain
            && (self.inflight <= self.inflight_with_gain(Ratio::ONE)
                || self.round_count > self.drain_start_round + 3)
        {
            self.enter_probe_bw(now);
        }
    }

    /// §5.3.4.3 `UpdateMinRTT`.
    pub(super) fn update_min_rtt(&mut self, now: Time, rtt: Option<Duration>) {
        self.probe_rtt_expired = now > self.probe_rtt_min_stamp.saturating_add(PROBE_RTT_INTERVAL);
        if let Some(rtt) = rtt {
            if self.probe_rtt_min_delay.is_none_or(|m| rtt < m) || self.probe_rtt_expired {
                self.probe_rtt_min_delay = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp.saturating_add(MIN_RTT_FILTER_LEN);
        if let Some(probe) = self.probe_rtt_min_delay {
            if self.min_rtt.is_none_or(|m| probe < m) || min_rtt_expired {
                self.min_rtt = Some(probe);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
    }

    /// §5.3.4.3 `CheckProbeRTT`.
    pub(super) fn check_probe_rtt(&mut self, now: Time) {
        if self.state != Bbr3State::ProbeRtt && self.probe_rtt_expired && !self.idle_restart {
            self.enter_probe_rtt();
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        if self.state == Bbr3State::ProbeRtt {
            self.handle_probe_rtt(now);
        }
        if self.rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn enter_probe_rtt(&mut self) {
        self.state = Bbr3State::ProbeRtt;
        self.pacing_gain = Ratio::ONE;
        self.cwnd_gain = PROBE_RTT_CWND_GAIN;
    }

    /// §5.3.4.3 `HandleProbeRTT`.
    fn handle_probe_rtt(&mut self, now: Time) {
        // Low rate samples during ProbeRTT are not the path's.
        self.sampler.mark_app_limited(self.inflight);
        if self.probe_rtt_done_stamp.is_none() && self.inflight <= self.probe_rtt_cwnd() {
            self.probe_rtt_done_stamp = Some(now.saturating_add(PROBE_RTT_DURATION));
            self.probe_rtt_round_done = false;
            self.start_round();
        } else if self.probe_rtt_done_stamp.is_some() {
            if self.round_start {
                self.probe_rtt_round_done = true;
            }
            if self.probe_rtt_round_done {
                self.check_probe_rtt_done(now);
            }
        }
    }

    /// §5.3.4.3 `CheckProbeRTTDone`.
    pub(super) fn check_probe_rtt_done(&mut self, now: Time) {
        if self.probe_rtt_done_stamp.is_some_and(|done| now > done) {
            self.probe_rtt_min_stamp = now;
            self.restore_cwnd();
            self.exit_probe_rtt(now);
        }
    }

    /// §5.3.4.4 `ExitProbeRTT`.
    fn exit_probe_rtt(&mut self, now: Time) {
        self.reset_short_term_model();
        if self.full_bw_reached {
            self.start_probe_bw_down(now);
            self.start_probe_bw_cruise();
        } else {
            self.enter_startup();
        }
    }

    /// §5.6.4.5 `ProbeRTTCwnd`.
    pub(super) fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp_multiple(PROBE_RTT_CWND_GAIN)
            .max(self.min_pipe_cwnd())
    }

    /// §5.4.1 `HandleRestartFromIdle`.
    pub(super) fn handle_restart_from_idle(&mut self, now: Time) {
        self.idle_restart = true;
        self.extra_acked_interval_start = now;
        if self.state.is_probe_bw() {
            self.set_pacing_rate(Ratio::ONE);
        } else if self.state == Bbr3State::ProbeRtt {
            self.check_probe_rtt_done(now);
        }
    }

    /// Closes the round's tallies for the Startup exits (called when a
    /// loss round ends) and opens the next.
    pub(super) fn close_round_tally(&mut self) {
        self.last_round = self.tally;
        self.tally = RoundTally {
            delivered_at_start: self.sampler.delivered(),
            in_recovery_all_round: self.in_recovery(),
            ..RoundTally::default()
        };
    }
}

/// The loss-rate rule of §5.5.10.2 `IsInflightTooHigh`: more than
/// `loss_thresh` of the data in flight when the packet left was lost.
pub(super) fn inflight_too_high(lost: u64, tx_in_flight: u64, loss_thresh: Ratio) -> bool {
    lost > loss_thresh.mul_floor(tx_in_flight)
}

/// §5.5.10.2 `InflightAtLoss`: the flight at which losses crossed
/// `loss_thresh`, for a lost packet of `size` bytes sent with
/// `tx_in_flight` in flight and `lost` bytes lost since.
pub(super) fn inflight_at_loss(tx_in_flight: u64, lost: u64, size: u64, loss_thresh: Ratio) -> u64 {
    let inflight_prev = tx_in_flight.saturating_sub(size);
    let lost_prev = lost.saturating_sub(size);
    // lost_prefix = (thresh·inflight_prev − lost_prev) / (1 − thresh)
    let num = loss_thresh.num();
    let den = loss_thresh.den();
    let scaled_inflight = u128::from(inflight_prev) * u128::from(num);
    let scaled_lost = u128::from(lost_prev) * u128::from(den);
    // A loss threshold is below 1, so `den > num`.
    let lost_prefix = scaled_inflight.saturating_sub(scaled_lost) / u128::from((den - num).max(1));
    inflight_prev.saturating_add(u64::try_from(lost_prefix).unwrap_or(u64::MAX))
}
