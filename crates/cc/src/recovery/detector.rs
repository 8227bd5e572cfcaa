//! The loss detector: RFC 9002 §6 and Appendix A, driving a [`Controller`].

use core::time::Duration;

use super::ack_frame::{AckError, AckFrame};
use super::config::RecoveryConfig;
use super::ecn::{EcnSpace, EcnValidation, NewlyAcked};
use super::outcome::{AckOutcome, TimeoutKind, TimeoutOutcome};
use super::received::{Stamp, TrackedAckFrame};
use super::sent::{SentPacket, SentPackets};
use super::spurious::{Episode, LostMemory};
use super::stats::RecoveryStats;
use super::Space;
use crate::config::EventOrder;
use crate::controller::{
    AckFrameSummary, AckedPacket, CongestionEvent, CongestionSignal, Controller, EventSource,
};
use crate::rtt::RttEstimator;
use ramp_vocab::time::Time;

/// Per-space state (RFC 9002 Appendix A.3's arrays indexed by space).
#[derive(Clone, Debug)]
pub(super) struct SpaceState<P> {
    pub(super) sent: SentPackets<P>,
    /// `largest_acked_packet[space]`.
    pub(super) largest_acked: Option<u64>,
    /// Latest send time of a packet acknowledged in this space.
    pub(super) largest_acked_time_sent: Option<Time>,
    /// `loss_time[space]`.
    pub(super) loss_time: Option<Time>,
    /// `time_of_last_ack_eliciting_packet[space]`.
    pub(super) time_of_last_ack_eliciting: Option<Time>,
    /// `ecn_ce_counters[space]` and the other two counts, with what was
    /// sent (RFC 9000 §13.4.2).
    pub(super) ecn: EcnSpace,
    /// Recently declared-lost packets, for spurious-loss detection.
    pub(super) lost: LostMemory,
}

impl<P> Default for SpaceState<P> {
    fn default() -> Self {
        SpaceState {
            sent: SentPackets::default(),
            largest_acked: None,
            largest_acked_time_sent: None,
            loss_time: None,
            time_of_last_ack_eliciting: None,
            ecn: EcnSpace::default(),
            lost: LostMemory::default(),
        }
    }
}

/// RFC 9002 loss detection for one path, generic over a per-packet payload.
///
/// See the [module documentation](super) for the call order, and
/// `docs/recovery.md` for the rules and choices.
#[derive(Clone, Debug)]
pub struct LossDetector<P> {
    pub(super) config: RecoveryConfig,
    pub(super) rtt: RttEstimator,
    pub(super) spaces: [SpaceState<P>; 3],
    pub(super) pto_count: u32,
    pub(super) handshake_confirmed: bool,
    /// The server is at its anti-amplification limit (RFC 9000 §8.1):
    /// no timer (Appendix A.8).
    pub(super) amplification_blocked: bool,
    /// `first_rtt_sample`: when the first RTT sample was taken.
    pub(super) first_rtt_sample: Option<Time>,
    /// Send times are forced to be non-decreasing (see `on_packet_sent`).
    last_sent_time: Time,
    pub(super) stats: RecoveryStats,
    pub(super) episode: Option<Episode>,
    pub(super) next_episode_id: u64,
    /// The frame's newly acknowledged in-flight packets as the controller
    /// is told of them (`on_packets_acked`); reused across frames.
    acked_for_cc: Vec<AckedPacket>,
}

impl<P> LossDetector<P> {
    /// A detector with nothing sent. The RTT estimator starts at
    /// `config.initial_rtt`.
    pub fn new(config: RecoveryConfig) -> Self {
        LossDetector {
            rtt: RttEstimator::new(config.initial_rtt),
            handshake_confirmed: config.handshake_confirmed,
            amplification_blocked: false,
            config,
            spaces: core::array::from_fn(|_| SpaceState::default()),
            pto_count: 0,
            first_rtt_sample: None,
            last_sent_time: Time::ZERO,
            stats: RecoveryStats::default(),
            episode: None,
            next_episode_id: 1,
            acked_for_cc: Vec::new(),
        }
    }

    /// RFC 9002 Appendix A.5 `OnPacketSent`.
    ///
    /// Packet numbers must increase within a space (gaps are allowed and
    /// remembered as skipped); a number not above the largest sent is a
    /// caller bug and the packet is ignored (debug builds panic). Send times
    /// are made non-decreasing (`max(now, previous send)`), which the
    /// detector relies on to stop its loss scan at the first packet not lost.
    ///
    /// In-flight packets are reported to `cc.on_packet_sent` with the bytes in
    /// flight including them; ACK-only packets are tracked (an ACK of one is
    /// not an error) but are not congestion controlled (§7).
    ///
    /// `packet.time_sent` is when it was sent (RFC 9002 A.5's `now`).
    pub fn on_packet_sent(&mut self, space: Space, packet: SentPacket<P>, cc: &mut dyn Controller) {
        let time_sent = packet.time_sent.max(self.last_sent_time);
        let (packet_number, size) = (packet.packet_number, packet.size);
        let (ack_eliciting, in_flight) = (packet.ack_eliciting, packet.in_flight);
        let ecn = packet.ecn;
        let sp = &mut self.spaces[space.index()];
        let packet = SentPacket {
            time_sent,
            ..packet
        };
        if sp.sent.insert(packet).is_err() {
            debug_assert!(
                false,
                "packet number {packet_number} in {space} does not increase"
            );
            return;
        }
        self.last_sent_time = time_sent;
        sp.ecn.on_sent(ecn);
        if in_flight && ack_eliciting {
            sp.time_of_last_ack_eliciting = Some(time_sent);
        }
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size;
        if in_flight {
            let in_flight_bytes = self.bytes_in_flight();
            let app_pn = space.application_number(packet_number);
            cc.on_packet_sent(time_sent, app_pn, size, in_flight_bytes);
        }
    }

    /// RFC 9002 Appendix A.7 `OnAckReceived`, in the RFC's order (see the
    /// [module documentation](super)).
    ///
    /// `app_limited` is whether the sender was application- or
    /// flow-control-limited before this ACK (§7.8); it is passed through to
    /// the controller. `out` is cleared first. An error (malformed ranges, an
    /// ACK of a packet never sent) leaves every state unchanged.
    ///
    /// A frame that newly acknowledges no outstanding packet ends after the
    /// spurious-loss accounting, as Appendix A.7 returns early: no RTT
    /// sample, ECN, loss detection or controller call (except
    /// `on_spurious_congestion` if it proved the current episode spurious).
    pub fn on_ack_received(
        &mut self,
        now: Time,
        space: Space,
        ack: &AckFrame,
        app_limited: bool,
        cc: &mut dyn Controller,
        out: &mut AckOutcome<P>,
    ) -> Result<(), AckError> {
        self.on_ack(now, space, ack, None, app_limited, cc, out)
    }

    /// [`LossDetector::on_ack_received`] for a frame written by a
    /// [`ReceivedRanges`](super::ReceivedRanges): the same result, but the
    /// ranges the frame repeats from the one before it need not be
    /// compared with the last frame processed when that was the one
    /// before it (see [`TrackedAckFrame`]).
    pub fn on_tracked_ack_received(
        &mut self,
        now: Time,
        space: Space,
        ack: &TrackedAckFrame,
        app_limited: bool,
        cc: &mut dyn Controller,
        out: &mut AckOutcome<P>,
    ) -> Result<(), AckError> {
        self.on_ack(now, space, ack.frame(), ack.stamp(), app_limited, cc, out)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn on_ack(
        &mut self,
        now: Time,
        space: Space,
        ack: &AckFrame,
        stamp: Option<Stamp>,
        app_limited: bool,
        cc: &mut dyn Controller,
        out: &mut AckOutcome<P>,
    ) -> Result<(), AckError> {
        out.clear();
        let si = space.index();
        // The ranges that repeat the previous frame's were validated with
        // it: a frame on a lossy path carries one range per hole, and most
        // of them are the last frame's again.
        let tail = self.spaces[si].lost.stamped_tail(&ack.ranges, stamp);
        ack.validate_head(tail.map_or(ack.ranges.len(), |t| t.at))?;
        let largest = ack.largest().ok_or(AckError::NoRanges)?;
        {
            let sent = &self.spaces[si].sent;
            match sent.largest_sent() {
                Some(l) if largest <= l => {}
                largest_sent => {
                    return Err(AckError::UnsentPacket {
                        packet_number: largest,
                        largest_sent,
                    })
                }
            }
            if sent.has_skipped() {
                for r in &ack.ranges {
                    if let Some(pn) = sent.any_skipped_in(*r.start(), *r.end()) {
                        return Err(AckError::SkippedPacket { packet_number: pn });
                    }
                }
            }
        }
        self.stats.ack_frames += 1;

        // Largest acknowledged, then the newly acknowledged packets.
        let episode_id = self.episode.map_or(0, |e| e.id);
        let sp = &mut self.spaces[si];
        let advanced = sp.largest_acked.is_none_or(|l| largest > l);
        sp.largest_acked = Some(sp.largest_acked.map_or(largest, |l| l.max(largest)));
        // Ranges wholly below the oldest outstanding packet acknowledge
        // nothing new; the ranges descend, so those are a tail. A frame on
        // a lossy path carries one range per hole, but only the newest few
        // reach the oldest outstanding packet: a walk from the top stops
        // after them, cheaper than a binary search over every range (and
        // each range it passes is then walked by `ack_range` anyway).
        let base = sp.sent.base();
        let reaching = ack
            .ranges
            .iter()
            .position(|r| *r.end() < base)
            .unwrap_or(ack.ranges.len());
        for r in ack.ranges[..reaching].iter().rev() {
            sp.sent
                .ack_range(*r.start(), *r.end(), |p| out.acked.push(p));
        }
        sp.sent.trim_front();
        let hits = sp.lost.acked(&ack.ranges, tail, episode_id, stamp);
        out.spurious = hits.packets;
        self.stats.spurious_losses += hits.packets;
        self.stats.spurious_bytes += hits.bytes;
        if let Some(e) = self.episode.as_mut() {
            e.outstanding = e.outstanding.saturating_sub(hits.in_episode);
            e.spurious += hits.in_episode;
        }
        let Some(newest) = out.acked.last() else {
            self.maybe_undo(now, cc, out);
            return Ok(());
        };
        let (newest_pn, newest_time) = (newest.packet_number, newest.time_sent);
        sp.largest_acked_time_sent = Some(
            sp.largest_acked_time_sent
                .map_or(newest_time, |t| t.max(newest_time)),
        );
        // §5.1: a sample only if the largest acknowledged is newly
        // acknowledged and at least one newly acknowledged packet is
        // ack-eliciting.
        let sample = (newest_pn == largest && out.acked.iter().any(|p| p.ack_eliciting))
            .then(|| now.saturating_since(newest_time));
        out.rtt_sample = sample;
        // The send time a CE increase is dated by: the frame's largest
        // acknowledged packet; if an earlier frame acknowledged (or declared
        // lost) it, the newest acknowledged send time.
        let ce_time_sent = if newest_pn == largest {
            newest_time
        } else {
            sp.largest_acked_time_sent.unwrap_or(newest_time)
        };

        match self.config.event_order {
            EventOrder::Rfc9002 => {
                if let Some(latest) = sample {
                    self.take_rtt_sample(now, space, latest, ack.ack_delay);
                }
                self.process_ecn(now, space, ack, advanced, ce_time_sent, cc, out);
                let pass = self.detect_lost(space, now, &mut out.lost, &mut out.lost_by);
                self.on_loss_pass(now, space, &out.lost, pass, EventSource::AckFrame, cc);
                out.persistent_congestion = pass.persistent;
                self.report_acked(now, space, app_limited, cc, out);
                self.pto_count = 0;
                self.maybe_undo(now, cc, out);
                self.frame_end(now, space, newest_pn, app_limited, cc, out);
            }
            EventOrder::AcksFirst => {
                // quinn 0.11's `on_ack_received`: the acknowledgements and
                // the frame end, then the losses, and ECN last. quinn
                // itself updates its RTT estimate after the frame end, but
                // ramp's real-mode shim keeps its own estimator and feeds
                // it the frame's sample first; the simulator does the same,
                // so controllers see this frame's sample in both orders
                // (RFC 9002 Appendix A.7 takes it first).
                if let Some(latest) = sample {
                    self.take_rtt_sample(now, space, latest, ack.ack_delay);
                }
                self.report_acked(now, space, app_limited, cc, out);
                self.frame_end(now, space, newest_pn, app_limited, cc, out);
                let pass = self.detect_lost(space, now, &mut out.lost, &mut out.lost_by);
                self.on_loss_pass(now, space, &out.lost, pass, EventSource::AckFrame, cc);
                out.persistent_congestion = pass.persistent;
                self.process_ecn(now, space, ack, advanced, ce_time_sent, cc, out);
                self.pto_count = 0;
                self.maybe_undo(now, cc, out);
            }
        }
        Ok(())
    }

    /// Feeds one RTT sample to the estimator (§5.3).
    fn take_rtt_sample(&mut self, now: Time, space: Space, latest: Duration, ack_delay: Duration) {
        // §5.3: the ACK delay MAY be ignored for Initial packets (it is
        // meaningless there); quinn and quicly ignore it.
        let ack_delay = match space {
            Space::Initial => Duration::ZERO,
            Space::Handshake | Space::Application => ack_delay,
        };
        self.rtt.update(
            latest,
            ack_delay,
            self.config.max_ack_delay,
            self.handshake_confirmed,
        );
        self.first_rtt_sample.get_or_insert(now);
        self.stats.rtt_samples += 1;
    }

    /// ECN (§7.1, RFC 9000 §13.4.2): the frame's counts are validated
    /// (§13.4.2.1; a failure turns ECN off for the connection,
    /// §13.4.2.2), and an increase of the space's CE count is one
    /// congestion event carrying the newly marked packets and bytes.
    ///
    /// The two tests that usually end it are inlined into the ACK path;
    /// the counting is not.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn process_ecn(
        &mut self,
        now: Time,
        space: Space,
        ack: &AckFrame,
        advanced: bool,
        time_sent: Time,
        cc: &mut dyn Controller,
        out: &mut AckOutcome<P>,
    ) {
        if self.stats.ecn_validation != EcnValidation::Capable {
            return;
        }
        if ack.ecn.is_none() && !self.spaces[space.index()].ecn.sent_any_ect() {
            // Nothing sent ECT, no counts: on_ack would return no increase.
            return;
        }
        self.process_ecn_counts(now, space, ack, advanced, time_sent, cc, out);
    }

    /// [`LossDetector::process_ecn`] past its two early returns.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn process_ecn_counts(
        &mut self,
        now: Time,
        space: Space,
        ack: &AckFrame,
        advanced: bool,
        time_sent: Time,
        cc: &mut dyn Controller,
        out: &mut AckOutcome<P>,
    ) {
        let mut newly = NewlyAcked::default();
        for p in &out.acked {
            newly.add(p.ecn, p.size);
        }
        let sp = &mut self.spaces[space.index()];
        let inc = match sp.ecn.on_ack(ack.ecn, &newly, advanced) {
            Ok(inc) => inc,
            Err(why) => {
                self.stats.ecn_validation = EcnValidation::Failed(why);
                return;
            }
        };
        self.stats.ecn_ect0 += inc.ect0;
        self.stats.ecn_ect1 += inc.ect1;
        if inc.ce == 0 {
            return;
        }
        let ce_packets = inc.ce;
        self.stats.ecn_ce += ce_packets;
        self.stats.ecn_ce_events += 1;
        out.ce_increase = true;
        let event = CongestionEvent {
            signal: CongestionSignal::Ecn {
                ce_packets,
                ce_bytes: newly.ce_bytes(ce_packets),
            },
            time_sent,
            persistent_congestion: false,
            source: EventSource::AckFrame,
        };
        cc.on_congestion_event(now, &event, &self.rtt);
        self.enter_episode(now, time_sent, false, false, 0);
    }

    /// The newly acknowledged in-flight packets to the controller, in one
    /// `on_packets_acked` call (`on_packet_acked` for each, by default).
    fn report_acked(
        &mut self,
        now: Time,
        space: Space,
        app_limited: bool,
        cc: &mut dyn Controller,
        out: &AckOutcome<P>,
    ) {
        self.acked_for_cc.clear();
        for p in &out.acked {
            self.stats.packets_acked += 1;
            self.stats.bytes_acked += p.size;
            if p.in_flight {
                self.acked_for_cc.push(AckedPacket {
                    packet_number: space.application_number(p.packet_number),
                    time_sent: p.time_sent,
                    bytes: p.size,
                });
            }
        }
        if !self.acked_for_cc.is_empty() {
            cc.on_packets_acked(now, &self.acked_for_cc, &self.rtt, app_limited);
        }
    }

    /// `on_ack_frame_end` with the bytes in flight as they stand.
    fn frame_end(
        &mut self,
        now: Time,
        space: Space,
        newest_pn: u64,
        app_limited: bool,
        cc: &mut dyn Controller,
        out: &AckOutcome<P>,
    ) {
        let summary = AckFrameSummary {
            bytes_in_flight: self.bytes_in_flight(),
            largest_acked: space.application_number(newest_pn),
            rtt_sample: out.rtt_sample,
            app_limited,
        };
        cc.on_ack_frame_end(now, &summary, &self.rtt);
    }

    /// RFC 9002 Appendix A.9 `OnLossDetectionTimeout`, to be called when
    /// [`LossDetector::timer`] is due. Called before the timer (or with no
    /// timer), it does nothing and reports [`TimeoutKind::Idle`].
    ///
    /// The loss timer declares packets lost by the time threshold and raises
    /// the same congestion event as an ACK would. Otherwise the PTO fires:
    /// `pto_count` grows (doubling the next PTO) and the outcome asks for 1
    /// or 2 probes; nothing is declared lost and the controller is not
    /// called (§6.2.4).
    pub fn on_timeout(&mut self, now: Time, cc: &mut dyn Controller, out: &mut TimeoutOutcome<P>) {
        out.clear();
        if let Some((t, space)) = self.earliest_loss_time() {
            if now < t {
                return;
            }
            out.kind = TimeoutKind::LossTimer { space };
            let pass = self.detect_lost(space, now, &mut out.lost, &mut out.lost_by);
            self.on_loss_pass(now, space, &out.lost, pass, EventSource::LossTimer, cc);
            out.persistent_congestion = pass.persistent;
            return;
        }
        // Appendix A.8: the anti-amplification limit suppresses the PTO
        // only; a loss time (above) still fires.
        if self.amplification_blocked {
            return;
        }
        let Some((t, space)) = self.pto_time_and_space() else {
            return;
        };
        if now < t {
            return;
        }
        out.kind = TimeoutKind::Pto {
            space,
            probes: self.config.pto_probes.clamp(1, 2),
        };
        self.pto_count = self.pto_count.saturating_add(1);
        self.stats.ptos += 1;
    }

    /// Bytes in flight over all spaces: the sum of the sizes of in-flight
    /// packets neither acknowledged nor declared lost (§2).
    pub fn bytes_in_flight(&self) -> u64 {
        self.spaces.iter().map(|s| s.sent.bytes_in_flight()).sum()
    }

    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    /// Consecutive PTO expirations without an acknowledgement (§6.2.1).
    pub fn pto_count(&self) -> u32 {
        self.pto_count
    }

    /// Whether ECN is still in use (RFC 9000 §13.4.2.2: after a failed
    /// validation the sender stops marking its packets ECT).
    pub fn ecn_capable(&self) -> bool {
        self.stats.ecn_validation == EcnValidation::Capable
    }

    /// Counters since the detector was made.
    pub fn stats(&self) -> &RecoveryStats {
        &self.stats
    }

    /// The configuration.
    pub fn config(&self) -> &RecoveryConfig {
        &self.config
    }

    /// When the first RTT sample was taken (`first_rtt_sample`, §7.6.2).
    pub fn first_rtt_sample(&self) -> Option<Time> {
        self.first_rtt_sample
    }

    /// The largest packet number acknowledged in `space`.
    pub fn largest_acked(&self, space: Space) -> Option<u64> {
        self.spaces[space.index()].largest_acked
    }

    /// The largest packet number sent in `space`.
    pub fn largest_sent(&self, space: Space) -> Option<u64> {
        self.spaces[space.index()].sent.largest_sent()
    }

    /// Whether sending is limited by the congestion window rather than by
    /// the application: `bytes_in_flight >= cwnd` (§7.8). A sender whose
    /// pacer held back a packet it had should also count as window-limited.
    pub fn is_cwnd_limited(&self, cwnd_bytes: u64) -> bool {
        self.bytes_in_flight() >= cwnd_bytes
    }

    /// The handshake is confirmed (RFC 9001 §4.1.2): the Application Data
    /// PTO may be armed and ACK delays are capped at `max_ack_delay`.
    pub fn set_handshake_confirmed(&mut self) {
        self.handshake_confirmed = true;
    }

    /// The server reached (`true`) or left (`false`) its anti-amplification
    /// limit (RFC 9000 §8.1: at most 3× the bytes received from an
    /// unvalidated client). While blocked, no timer is armed (Appendix A.8
    /// `SetLossDetectionTimer`: nothing could be sent when it fired); the
    /// caller clears it when a datagram from the client lifts the limit, and
    /// the timer comes back as it was.
    pub fn set_amplification_blocked(&mut self, blocked: bool) {
        self.amplification_blocked = blocked;
    }

    /// Whether the detector was told the server is at its
    /// anti-amplification limit.
    pub fn amplification_blocked(&self) -> bool {
        self.amplification_blocked
    }

    /// Whether the handshake is confirmed.
    pub fn handshake_confirmed(&self) -> bool {
        self.handshake_confirmed
    }

    /// Keys of `space` were discarded (RFC 9002 §6.4): its packets leave
    /// bytes in flight without being acknowledged or lost, its timers stop,
    /// and `pto_count` is reset. The controller is not called. Later ACKs in
    /// that space acknowledge nothing (or are errors if they name packet
    /// numbers above the largest sent).
    pub fn discard_space(&mut self, space: Space) {
        let sp = &mut self.spaces[space.index()];
        sp.sent.discard(|_| {});
        sp.loss_time = None;
        sp.time_of_last_ack_eliciting = None;
        sp.largest_acked_time_sent = None;
        sp.ecn = EcnSpace::default();
        sp.lost.clear();
        if let Some(e) = self.episode.as_mut() {
            // Its remembered losses are gone: the episode can't be proven
            // spurious any more if it had losses there.
            if e.outstanding > 0 {
                e.undoable = false;
            }
        }
        self.pto_count = 0;
    }
}
