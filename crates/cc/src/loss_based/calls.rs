//! The [`Controller`] calls of [`LossBased`], in RFC 9002 Appendix A
//! order: what each event does to the state held in `mod.rs`.

use core::time::Duration;

use super::{LossBased, Phase, MAX_RESUMED_JUMP_BYTES};
use crate::careful_resume::{CarefulResume, CrPhase, RetreatBeta, UnvalidatedExit};
use crate::controller::{
    AckFrameSummary, AckedPacket, CcPhase, CongestionEvent, CongestionSignal, Controller, Metrics,
};
use crate::jump_start::{jump_window, FirstFlight};
use crate::resume::Reconnaissance;
use crate::rtt::RttEstimator;
use ramp_vocab::time::{Rate, Time};

impl Controller for LossBased {
    fn on_packet_sent(
        &mut self,
        now: Time,
        packet_number: Option<u64>,
        bytes: u64,
        bytes_in_flight: u64,
    ) {
        if self.send_one_pending || self.prr.is_some() {
            // The window moves with this send (see `rate_memo`).
            self.rate_memo.clear();
        }
        self.send_one_pending = false;
        self.in_flight = bytes_in_flight;
        if let (Some(q), Some(pn)) = (self.quicly_limited.as_mut(), packet_number) {
            q.on_sent(pn, bytes_in_flight, self.cwnd);
        }
        if let Some(pn) = packet_number {
            // Rounds and the first flight are application data only.
            self.round.on_packet_sent(pn);
            if self.first_flight.is_active() && self.pre_jump_left > 0 {
                // `jump_after`: still the first send call's, before the jump.
                self.pre_jump_left -= 1;
            } else {
                if self.first_flight.is_active() {
                    self.jump_tally.on_jump_packet_sent(pn);
                    self.jump_tally.note_sent_at(now);
                }
                self.first_flight.on_packet_sent(pn);
            }
            if self.resume.is_some() && self.first_flight == FirstFlight::Waiting {
                let iw = self.cfg.initial_window_bytes();
                self.recon.on_sent(pn, bytes, iw);
            }
            if let Some(cr) = self.careful_resume.as_mut() {
                cr.on_packet_sent(pn);
            }
        }
        if let Some(p) = self.prr.as_mut() {
            p.on_sent(bytes);
        }
    }

    fn on_packet_acked(
        &mut self,
        now: Time,
        packet: &AckedPacket,
        rtt: &RttEstimator,
        app_limited: bool,
    ) {
        self.rate_memo.clear();
        self.any_event = true;
        self.srtt = rtt.smoothed();
        self.on_one_acked(now, packet, app_limited);
    }

    fn on_packets_acked(
        &mut self,
        now: Time,
        packets: &[AckedPacket],
        rtt: &RttEstimator,
        app_limited: bool,
    ) {
        if packets.is_empty() {
            return;
        }
        // What `on_packet_acked` does first, once: the same for every
        // packet of the frame.
        self.rate_memo.clear();
        self.any_event = true;
        self.srtt = rtt.smoothed();
        for p in packets {
            self.on_one_acked(now, p, app_limited);
        }
    }

    fn on_ack_frame_end(&mut self, now: Time, summary: &AckFrameSummary, rtt: &RttEstimator) {
        self.rate_memo.clear();
        self.any_event = true;
        self.srtt = rtt.smoothed();
        self.in_flight = summary.bytes_in_flight;
        if let (Some(m), Some(sample)) = (self.ms_rtt.as_mut(), summary.rtt_sample) {
            m.update(now, sample);
        }
        let had_sample = summary.rtt_sample.is_some();
        let round_ended = self
            .round
            .on_ack_frame(summary.largest_acked, summary.rtt_sample);
        if rtt.has_sample() {
            self.has_rtt_sample = true;
        }
        let n = core::mem::take(&mut self.frame_growth_bytes);
        let delivered = core::mem::take(&mut self.frame_delivered);
        let app_limited = core::mem::take(&mut self.frame_app_limited) || summary.app_limited;
        let lost = core::mem::take(&mut self.loss_since_frame);
        let (n, app_limited) = match self.quicly_limited.as_mut().map(|q| q.end_frame()) {
            None if summary.app_limited => (0, app_limited),
            None => (n, app_limited),
            // quicly's rule replaces the sender's app-limited report.
            Some(true) => (n, false),
            Some(false) => (0, true),
        };
        match self.phase {
            Phase::Startup => {
                self.evaluate_rapid(now, rtt, had_sample);
                self.grow_startup(n);
                self.hystart_step(now, round_ended, had_sample);
                // The first flight ends when its first packet is acked.
                if self.first_flight.ends_with(summary.largest_acked) {
                    self.first_flight = FirstFlight::Done;
                    if let Some(cr) = self.careful_resume.as_mut() {
                        // RFC 9959, leaving the Unvalidated Phase.
                        let iw = self.cfg.initial_window_bytes();
                        let quicly = cr.retreat_beta() == RetreatBeta::Quicly;
                        match cr.end_unvalidated(summary.bytes_in_flight, iw) {
                            UnvalidatedExit::Done { cwnd } => {
                                self.cwnd = cwnd;
                                self.careful_resume = None;
                            }
                            // quicly's `cwnd = inflight` (the flight before
                            // this ACK), then slow start's growth on it.
                            UnvalidatedExit::Validating { cwnd } if quicly => {
                                self.cwnd = cwnd
                                    .saturating_add(delivered)
                                    .saturating_add(n)
                                    .max(self.min_window());
                            }
                            UnvalidatedExit::Validating { cwnd } => self.cwnd = cwnd,
                        }
                    }
                }
                if self.first_flight == FirstFlight::Waiting && self.has_rtt_sample {
                    let mut jump = jump_window(self.cfg.initial_window_bytes());
                    // RFC 9959: a saved window, once the RTT confirms the
                    // path; never below the jump made without one.
                    let resumed = self
                        .resume
                        .and_then(|s| s.jump_window(rtt.min()))
                        .map(|w| w.min(MAX_RESUMED_JUMP_BYTES))
                        .filter(|w| *w > jump);
                    let recon_pending = self.startup.recon == Reconnaissance::Rfc
                        && !self.recon.confirmed_by(summary.largest_acked);
                    if let (Some(_), true) = (resumed, recon_pending) {
                        // RFC 9959 Reconnaissance: the initial window goes
                        // first, and is acknowledged, before the jump.
                        return;
                    }
                    jump = jump.max(resumed.unwrap_or(0));
                    self.cwnd = self.cwnd.max(jump);
                    self.first_flight = FirstFlight::Active { marker: None };
                    self.pre_jump_left = self.jump_after;
                    if self.startup.careful_resume {
                        self.careful_resume = Some(CarefulResume::jump(
                            summary.bytes_in_flight,
                            self.startup.retreat_beta,
                        ));
                    }
                }
            }
            Phase::SlowStart => {
                self.cwnd = self.cwnd.saturating_add(n);
                if self.cwnd >= self.ssthresh {
                    self.phase = Phase::CongestionAvoidance;
                }
            }
            Phase::CongestionAvoidance => {
                if app_limited {
                    self.ca.on_app_limited();
                }
                if n > 0 {
                    self.grow_congestion_avoidance(now, n);
                }
            }
            Phase::Recovery if self.in_growing_ce_recovery() => {
                if n > 0 {
                    self.grow_congestion_avoidance(now, n);
                }
            }
            Phase::Recovery => {
                let mds = self.mds();
                if let Some(p) = self.prr.as_mut() {
                    p.on_ack(delivered, summary.bytes_in_flight, !lost, mds);
                }
            }
            Phase::RapidRecovery(_) => {}
        }
    }

    fn on_congestion_event(&mut self, now: Time, event: &CongestionEvent, rtt: &RttEstimator) {
        self.rate_memo.clear();
        self.any_event = true;
        self.srtt = rtt.smoothed();
        if let CongestionSignal::Loss { lost_bytes } = event.signal {
            self.in_flight = self.in_flight.saturating_sub(lost_bytes);
            self.loss_since_frame = true;
            if let Some(q) = self.quicly_limited.as_mut() {
                q.on_lost(now, lost_bytes, event.source);
            }
        }
        if let CongestionSignal::Ecn { ce_bytes, .. } = event.signal {
            self.ca.on_ce_bytes(ce_bytes);
        }
        if self.in_recovery_period(event.time_sent) && !self.loss_cuts_in_ce_recovery(now, event) {
            let loss_in_ecn_episode =
                self.episode_ecn_only && matches!(event.signal, CongestionSignal::Loss { .. });
            if loss_in_ecn_episode {
                // h2o counts an episode as ECN only while it has no loss.
                self.episode_ecn_only = false;
                self.metrics.num_ecn_loss_episodes =
                    self.metrics.num_ecn_loss_episodes.saturating_sub(1);
            }
            // RFC 9002 §7.3.2: one reduction per recovery period. Rapid
            // Start still charges losses of pre-recovery packets.
            if let (Phase::RapidRecovery(rr), CongestionSignal::Loss { lost_bytes }) =
                (&mut self.phase, event.signal)
            {
                match &self.rapid {
                    Some(r) => {
                        r.on_loss_in_recovery(rr, lost_bytes, loss_in_ecn_episode, self.ca.beta())
                    }
                    None => rr.on_lost(lost_bytes),
                }
                self.cwnd = rr.cwnd();
            }
        } else {
            // Bytes in flight when the event was detected: before this
            // event's losses.
            let lost = match event.signal {
                CongestionSignal::Loss { lost_bytes } => lost_bytes,
                CongestionSignal::Ecn { .. } => 0,
            };
            if !self.ca.holds_reduction(&self.ca_context(now), event.signal) {
                self.start_recovery(
                    now,
                    event.signal,
                    self.in_flight.saturating_add(lost),
                    event.time_sent,
                );
            }
        }
        if event.persistent_congestion {
            self.persistent_congestion();
        }
    }

    fn on_spurious_congestion(&mut self, _now: Time) {
        self.rate_memo.clear();
        if !self.cfg.undo || !matches!(self.phase, Phase::Recovery | Phase::CongestionAvoidance) {
            return;
        }
        let Some(saved) = self.saved.take() else {
            return;
        };
        // RFC 9438 §4.9: restore only if the window has not regrown past it.
        if self.cwnd >= saved.cwnd {
            return;
        }
        self.cwnd = saved.cwnd;
        self.ssthresh = saved.ssthresh;
        self.ca = saved.ca;
        self.prr = None;
        self.phase = self.phase_for_window();
        self.metrics.num_spurious_undos += 1;
    }

    fn resume_from(&mut self, saved: crate::resume::SavedPath) {
        self.rate_memo.clear();
        self.resume = Some(saved);
    }

    fn on_mtu_update(&mut self, max_datagram_size: u64) {
        self.rate_memo.clear();
        let untouched = !self.any_event;
        self.cfg.max_datagram_size = max_datagram_size.max(1);
        let min = self.min_window();
        if untouched {
            // RFC 9002 §7.2: the initial window follows the datagram size.
            let iw = self.cfg.initial_window_bytes();
            self.cwnd = if self.first_flight.is_active() {
                jump_window(iw)
            } else {
                iw
            };
        }
        self.cwnd = self.cwnd.max(min);
        if self.ssthresh != u64::MAX {
            self.ssthresh = self.ssthresh.max(min);
        }
    }

    fn window(&self) -> u64 {
        // Remembered like the pacing rate (see `rate_memo`): a sender asks
        // two or three times a packet.
        if let Some(w) = self.rate_memo.window() {
            debug_assert_eq!(w, self.window_now(), "stale window");
            return w;
        }
        let w = self.window_now();
        self.rate_memo.set_window(w);
        w
    }

    fn ssthresh(&self) -> Option<u64> {
        (self.ssthresh != u64::MAX).then_some(self.ssthresh)
    }

    fn pacing_rate(&self, rtt: &RttEstimator) -> Option<Rate> {
        if !self.cfg.pacing {
            return None;
        }
        let srtt = self.pacing_srtt(rtt.smoothed());
        if let Some(rate) = self.rate_memo.get(srtt) {
            debug_assert_eq!(Some(rate), self.pacing_rate_for(srtt), "stale pacing rate");
            return Some(rate);
        }
        let rate = self.pacing_rate_for(srtt);
        if let Some(r) = rate {
            self.rate_memo.set(srtt, r);
        }
        rate
    }

    fn pacing_burst(&self) -> Option<Duration> {
        self.ca.pacing_burst()
    }

    fn phase(&self) -> CcPhase {
        self.state().phase()
    }

    fn metrics(&self) -> Metrics {
        Metrics {
            cwnd_bytes: self.window(),
            ssthresh_bytes: self.ssthresh(),
            pacing_rate: self.pacing_rate_for(self.pacing_srtt(self.srtt)),
            ..self.metrics
        }
    }

    fn initial_window(&self) -> u64 {
        self.cfg.initial_window_bytes()
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }
}

impl LossBased {
    /// [`Controller::window`] computed from the state.
    #[inline]
    fn window_now(&self) -> u64 {
        let w = match (&self.phase, &self.prr) {
            (Phase::Recovery, Some(p)) => p.window(),
            _ => self.cwnd,
        };
        let w = if self.send_one_pending {
            w.max(self.in_flight.saturating_add(self.mds()))
        } else {
            w
        };
        w.max(self.min_window())
    }

    /// `on_packet_acked` for one packet, after the part common to a
    /// frame's packets (see [`Controller::on_packets_acked`]).
    #[inline(always)]
    fn on_one_acked(&mut self, now: Time, packet: &AckedPacket, app_limited: bool) {
        if let Some(q) = self.quicly_limited.as_mut() {
            // quicly decides per frame from every packet it acknowledges,
            // those of a recovery period included.
            q.on_acked(now, packet.packet_number, self.in_flight, self.cwnd);
        }
        if self.ca_observes_acks {
            let ctx = self.ca_context(now);
            self.ca.on_bytes_acked(&ctx, packet.time_sent, packet.bytes);
        }
        self.in_flight = self.in_flight.saturating_sub(packet.bytes);
        self.frame_delivered = self.frame_delivered.saturating_add(packet.bytes);
        if self.recovery_start.is_none() {
            // quicly counts jump ACKs outside recovery only (lib/cc-pico.c).
            self.jump_tally.on_acked(packet.packet_number, packet.bytes);
        }
        if let Some(cr) = self.careful_resume.as_mut() {
            let last = cr.on_acked(packet.packet_number, packet.bytes);
            if let Some(floor) = cr.retreat_floor(self.ca.beta()) {
                // quicly: a jump packet acknowledged in the recovery raises
                // cwnd to β·(jump bytes acknowledged).
                self.cwnd = self.cwnd.max(floor);
            }
            if last {
                // The last unvalidated packet is acknowledged.
                if cr.phase() == CrPhase::SafeRetreat {
                    self.finish_safe_retreat();
                } else {
                    self.careful_resume = None;
                }
            }
        }
        if matches!(self.phase, Phase::Recovery | Phase::RapidRecovery(_))
            && !self.in_recovery_period(packet.time_sent)
        {
            self.exit_recovery(now);
        }
        if self.in_recovery_period(packet.time_sent) && !self.in_growing_ce_recovery() {
            // RFC 9002 §7.3.2: no growth for packets sent before recovery
            // started; Rapid Start reduces by ack_factor instead (-02 §3.3).
            if let Phase::RapidRecovery(rr) = &mut self.phase {
                rr.on_acked(packet.bytes);
                self.cwnd = rr.cwnd();
            }
            return;
        }
        if self.first_flight.predates(packet.packet_number) {
            // -02 §3.1: the 2·IW jump already counts these bytes.
            return;
        }
        if app_limited && self.quicly_limited.is_none() {
            // RFC 9002 §7.8: the window does not grow on app-limited credit.
            self.frame_app_limited = true;
            return;
        }
        self.frame_growth_bytes = self.frame_growth_bytes.saturating_add(packet.bytes);
    }
}
