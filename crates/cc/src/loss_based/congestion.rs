//! Reactions to congestion: RFC 9002 §7.3.2 recovery periods (ordinary
//! and Rapid Start's first one), their end, and §7.6.2 persistent
//! congestion.

use super::{CaContext, LossBased, Phase, Saved};
use crate::careful_resume::CrPhase;
use crate::config::PrrMode;
use crate::controller::CongestionSignal;
use crate::jump_start::FirstFlight;
use crate::prr::Prr;
use crate::rapid_start::FirstRecovery;
use ramp_vocab::time::Time;

impl LossBased {
    /// RFC 9002 §7.3.2 `OnCongestionEvent` when not already in recovery.
    /// `flight` is the bytes in flight before the event.
    /// `time_sent` is the send time of the newest packet behind the signal.
    pub(super) fn start_recovery(
        &mut self,
        now: Time,
        signal: CongestionSignal,
        flight: u64,
        time_sent: Time,
    ) {
        self.metrics.num_loss_episodes += 1;
        self.episode_ecn_only = matches!(signal, CongestionSignal::Ecn { .. });
        let lost = match signal {
            CongestionSignal::Loss { lost_bytes } => lost_bytes,
            CongestionSignal::Ecn { .. } => {
                self.metrics.num_ecn_loss_episodes += 1;
                0
            }
        };
        let in_startup = matches!(self.phase, Phase::Startup);
        if in_startup {
            self.note_exit_from_startup();
        }
        self.recovery_start = Some(now);
        self.send_one_pending = self.cfg.recovery_send_one;
        self.hystart = None;
        self.first_flight = FirstFlight::Done;
        self.prr = None;
        let cr_phase = self.careful_resume.map(|cr| cr.phase());
        if cr_phase == Some(CrPhase::SafeRetreat) {
            // A new period after the retreat's: Careful Resume is over.
            self.finish_safe_retreat();
        } else if cr_phase.is_some() {
            self.enter_safe_retreat(now);
            return;
        }
        match (in_startup, self.rapid.as_ref()) {
            // docs/algorithms.md ambiguity #10: Rapid Start's reduction only for a
            // congestion event during its startup (SS, 3×/2×, CSS).
            (true, Some(r)) => {
                let iw = self.cfg.initial_window_bytes();
                let mut rr = r.enter_recovery(
                    signal,
                    self.cwnd,
                    flight,
                    self.ca.beta(),
                    self.min_window(),
                    iw,
                );
                if r.options().jump_floor {
                    // quicly: `cwnd_floor = 0.5 · max(IW, jump bytes acked)`.
                    let base = iw.max(self.jump_tally.acked());
                    rr.raise_floor(self.ca.slow_start_exit_beta().mul_floor(base));
                }
                // pico's W for Rapid Start's first loss (lib/cc-pico.c
                // `pico_on_lost`): the jump bytes acked if a jump packet
                // was lost, else cwnd/3; at least IW.
                let w = if self.jump_tally.is_jump_packet(time_sent) {
                    self.jump_tally.acked()
                } else {
                    self.cwnd / 3
                }
                .max(iw);
                let ctx = self.ca_context(now);
                self.ca.on_rapid_start_reduction(&ctx, w);
                self.cwnd = rr.cwnd();
                self.phase = Phase::RapidRecovery(rr);
                self.saved = None;
            }
            _ => {
                let min = self.min_window();
                if self.cfg.undo {
                    self.saved = Some(Saved {
                        cwnd: self.cwnd,
                        ssthresh: self.ssthresh,
                        ca: self.ca.clone(),
                    });
                }
                let ctx = self.ca_context(now);
                let ssthresh = self.ca.reduce(&ctx, signal, in_startup);
                self.ssthresh = ssthresh.max(min);
                self.cwnd = self.ssthresh;
                if self.cfg.prr != PrrMode::Off {
                    let pipe = self.in_flight;
                    self.prr = Some(Prr::start(
                        self.cfg.prr,
                        self.ssthresh,
                        pipe.saturating_add(lost),
                        pipe,
                        self.mds(),
                    ));
                }
                self.phase = Phase::Recovery;
            }
        }
    }

    /// RFC 9002 §7.3.2: an ACK of a packet sent after the recovery period
    /// started ends it.
    pub(super) fn exit_recovery(&mut self, now: Time) {
        match self.phase {
            Phase::RapidRecovery(rr) => {
                // docs/algorithms.md ambiguity #8: ssthresh = cwnd; the
                // editor's copy's hand-over to CUBIC. quicly keeps the
                // ssthresh of the last loss and slow-starts back to it.
                self.cwnd = rr.cwnd();
                self.ssthresh = match self.rapid.as_ref().map(|r| r.options().first_recovery) {
                    Some(FirstRecovery::Quicly) => rr.after_last_loss().max(self.cwnd),
                    _ => self.cwnd,
                };
                let ctx = self.ca_context(now);
                self.ca.on_rapid_start_handover(&ctx, rr.beta());
            }
            Phase::Recovery if self.careful_resume.is_some() => {
                self.finish_safe_retreat();
                return;
            }
            Phase::Recovery if self.in_growing_ce_recovery() => {
                // The window grew through the CE reduction period
                // (TCP_CA_CWR): the window it reached stands.
                self.prr = None;
            }
            Phase::Recovery => {
                // RFC 9937: cwnd = ssthresh at the end of recovery.
                self.cwnd = self.ssthresh;
                self.prr = None;
            }
            _ => return,
        }
        self.send_one_pending = false;
        self.phase = self.phase_for_window();
    }

    /// RFC 9959 Safe Retreat: a congestion event while the jump was
    /// unvalidated or validating. The window falls to `PipeSize/2` (or
    /// `β·PipeSize` with `retreat_beta=ca`; at least the minimum window),
    /// not `β·cwnd`: cwnd still holds the
    /// unvalidated jump. No growth follows (a recovery period) until
    /// [`Self::finish_safe_retreat`].
    pub(super) fn enter_safe_retreat(&mut self, now: Time) {
        let beta = self.ca.slow_start_exit_beta();
        let min = self.min_window();
        let iw = self.cfg.initial_window_bytes();
        let Some(cr) = self.careful_resume.as_mut() else {
            return;
        };
        let pre = self.cwnd;
        self.cwnd = cr.retreat(beta, iw).max(min);
        // pico's W: the window before its halving (quicly's reaction sets
        // it to the jump bytes acked, at least IW, first).
        let w = if cr.retreat_beta() == crate::careful_resume::RetreatBeta::Quicly {
            cr.jump_acked().max(iw)
        } else {
            pre
        };
        let ctx = CaContext {
            cwnd: pre,
            ..self.ca_context(now)
        };
        self.ca.on_safe_retreat(&ctx, w);
        self.saved = None;
        self.phase = Phase::Recovery;
    }

    /// RFC 9959: the last unvalidated packet was acknowledged during Safe
    /// Retreat (or the recovery period ended first): `ssthresh =
    /// β·PipeSize` with the PipeSize reached now, and normal congestion
    /// control from the retreat window.
    pub(super) fn finish_safe_retreat(&mut self) {
        let Some(cr) = self.careful_resume.take() else {
            return;
        };
        let min = self.min_window();
        self.ssthresh = cr
            .ssthresh_after_retreat(self.ca.slow_start_exit_beta())
            .max(min);
        self.phase = self.phase_for_window();
        self.send_one_pending = false;
    }

    /// The phase a reset window belongs to (after persistent congestion or
    /// an undo): RFC 9002 Appendix B.5, slow start only while
    /// cwnd < ssthresh, congestion avoidance otherwise.
    pub(super) fn phase_for_window(&self) -> Phase {
        if self.cwnd < self.ssthresh {
            Phase::SlowStart
        } else {
            Phase::CongestionAvoidance
        }
    }

    /// RFC 9002 §7.6.2: collapse to the minimum window, back to slow start
    /// — or straight to congestion avoidance when ssthresh is already at the
    /// minimum window (Appendix B.5: slow start only while cwnd < ssthresh).
    pub(super) fn persistent_congestion(&mut self) {
        self.metrics.num_persistent_congestion += 1;
        let min = self.min_window();
        if self.ssthresh == u64::MAX {
            // Persistent congestion inside Rapid Start's recovery (no
            // ssthresh yet): keep what the reduction had reached
            // (docs/algorithms.md ambiguity #11).
            self.ssthresh = self.cwnd.max(min);
        }
        self.cwnd = min;
        self.recovery_start = None;
        self.phase = self.phase_for_window();
        self.hystart = None;
        self.first_flight = FirstFlight::Done;
        self.careful_resume = None;
        self.prr = None;
        self.saved = None;
        self.ca.on_persistent_congestion();
    }
}
