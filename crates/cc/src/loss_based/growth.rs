//! Window growth, once per ACK frame: the startup policies (Rapid Start's
//! 3×/2×, HyStart++'s CSS, classic slow start) and congestion avoidance.

use super::{LossBased, Phase};
use crate::hystart::{HyStart, HyStartEvent, CSS_GROWTH_DIVISOR};
use crate::rtt::RttEstimator;
use ramp_vocab::time::Time;

impl LossBased {
    /// Rapid Start's growth multiplier from the current RTT floor (-02 §3.2).
    /// quicly's `off_below`: once `min_rtt` is below it, Rapid Start is
    /// dropped and the startup continues as classic slow start.
    pub(super) fn evaluate_rapid(&mut self, now: Time, rtt: &RttEstimator, sampled: bool) {
        if let Some(r) = self.rapid.as_mut() {
            let floor = self.round.rtt_floor(r.floor_falls_back());
            r.evaluate(now, floor, rtt, sampled);
            if r.is_off() {
                self.rapid = None;
            }
        }
    }

    /// Window growth in the initial startup for `n` eligible bytes.
    pub(super) fn grow_startup(&mut self, n: u64) {
        let mds = self.mds();
        let base = self.hystart.as_ref().map_or(n, |h| h.capped(n, mds));
        let inc = if self.hystart.as_ref().is_some_and(HyStart::in_css) {
            base / CSS_GROWTH_DIVISOR
        } else if let Some(r) = &self.rapid {
            r.growth(base)
        } else {
            base
        };
        self.cwnd = self.cwnd.saturating_add(inc);
    }

    /// Congestion avoidance's growth for `n` eligible bytes.
    pub(super) fn grow_congestion_avoidance(&mut self, now: Time, n: u64) {
        let ctx = self.ca_context(now);
        self.cwnd = self.ca.grow(&ctx, n);
    }

    pub(super) fn hystart_step(&mut self, now: Time, round_ended: bool, had_sample: bool) {
        let allow_entry = !self.first_flight.is_active();
        let Some(h) = self.hystart.as_mut() else {
            return;
        };
        match h.on_ack_frame(&self.round, round_ended, had_sample, allow_entry) {
            HyStartEvent::ExitToCongestionAvoidance => {
                self.note_exit_from_startup();
                self.ssthresh = self.cwnd;
                self.hystart = None;
                self.phase = Phase::CongestionAvoidance;
                let ctx = self.ca_context(now);
                self.ca.on_slow_start_exit_without_loss(&ctx);
            }
            HyStartEvent::None | HyStartEvent::EnterCss | HyStartEvent::ResumeSlowStart => {}
        }
    }
}
