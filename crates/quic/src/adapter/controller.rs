//! [`RampController`]'s own workings: construction, the controller's
//! clock, the cached window and rate, the acknowledgements buffered per
//! ACK frame, the batch numbers and the times events are told at.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ramp_cc::quinn_order::RfcOrder;
use ramp_cc::{AckFrameSummary, AckedPacket, EventOrder, EventSource, Rate, RttEstimator, Time};

use super::{Gate, RampController, ShimCounters, DEFAULT_MAX_ACK_DELAY};
use crate::probe::ConnProbe;

impl RampController {
    /// Wraps `inner`; `base` is the epoch of the controller's [`Time`].
    pub(crate) fn new(
        inner: Box<dyn ramp_cc::Controller>,
        base: Instant,
        probe: Option<Arc<ConnProbe>>,
    ) -> RampController {
        let mut c = RampController {
            window: 0,
            ssthresh: None,
            pacing_bps: None,
            // quinn 0.11 reports a frame's losses and CE after
            // `on_end_acks`; without the reordering the frame that reveals
            // a loss grows the window before the reduction (3 % overshoot
            // in Rapid Start's worked example; docs/algorithms.md,
            // ambiguity 33).
            inner: Box::new(RfcOrder::new(inner, EventOrder::AcksFirst)),
            base,
            rtt: RttEstimator::default(),
            batches: BTreeMap::new(),
            next_batch: 0,
            pending: Vec::new(),
            pending_newest_sent: None,
            last_sent: None,
            bytes_in_flight: 0,
            counters: ShimCounters::default(),
            probe,
            mds: ramp_cc::config::DEFAULT_MAX_DATAGRAM_SIZE,
            gate: None,
            ack_clock: None,
            frame_end_at: None,
        };
        c.refresh();
        c
    }

    /// The controller's counters.
    #[cfg(test)]
    pub(crate) fn cc_metrics(&mut self) -> ramp_cc::Metrics {
        self.inner_mut().metrics()
    }

    /// The shim's own RTT estimator (samples not adjusted for ack delay).
    #[cfg(test)]
    pub(crate) fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    /// The shim's counters.
    #[cfg(test)]
    pub(crate) fn counters(&self) -> ShimCounters {
        self.counters
    }

    pub(super) fn inner_mut(&mut self) -> &mut Box<dyn ramp_cc::Controller> {
        &mut self.inner
    }

    pub(super) fn time(&self, t: Instant) -> Time {
        Time::from_nanos(ramp_vocab::time::duration_nanos(
            t.saturating_duration_since(self.base),
        ))
    }

    pub(super) fn refresh(&mut self) {
        let rtt = self.rtt.clone();
        let inner = self.inner_mut();
        let window = inner.window();
        let ssthresh = inner.ssthresh();
        let pacing_bps = inner.pacing_rate(&rtt).map(|r| r.bits_per_sec());
        self.window = window;
        self.ssthresh = ssthresh;
        self.pacing_bps = pacing_bps;
        if let Some(g) = &mut self.gate {
            g.pacer.set_rate(pacing_bps.map(Rate::from_bits_per_sec));
        }
    }

    /// The gate, when it is in charge: asked for, attached to the
    /// connection, and given a rate by the controller.
    pub(super) fn active_gate(&self) -> Option<&Gate> {
        self.gate
            .as_ref()
            .filter(|g| g.wake.is_attached() && g.pacer.rate().is_some())
    }

    /// quinn is not inside a send pass (it takes ACKs and losses between
    /// passes): grants the gate made since the last batch stand for no
    /// datagram.
    pub(super) fn end_send_pass(&self) {
        if let Some(g) = &self.gate {
            g.pacer.end_pass();
        }
    }

    /// The number of an acknowledged packet sent at `sent`: the next of
    /// that send time's run, or the last number of the newest earlier run.
    pub(super) fn packet_number_of(&mut self, sent: Instant) -> u64 {
        match self.batches.range_mut(..=sent).next_back() {
            Some((&t, run)) if t == sent => run.hand_out(),
            Some((_, run)) => run.last,
            None => 0,
        }
    }

    /// One newly acknowledged packet sent at `sent` (buffered until the
    /// frame ends).
    pub(super) fn ack(&mut self, sent: Instant, bytes: u64) {
        self.counters.packets_acked += 1;
        self.counters.bytes_acked += bytes;
        let packet = AckedPacket {
            packet_number: Some(self.packet_number_of(sent)),
            time_sent: self.time(sent),
            bytes,
        };
        self.pending.push(packet);
        if self.pending_newest_sent.is_none_or(|s| sent > s) {
            self.pending_newest_sent = Some(sent);
        }
    }

    /// Delivers the buffered acknowledgements (and the frame end) to the
    /// controller.
    /// The RTT sample is taken at `now` (the frame's arrival); the
    /// controller is told at `clock` (no earlier than the newest send:
    /// [`RampController::controller_time`]).
    pub(super) fn flush_acks(
        &mut self,
        now: Instant,
        clock: Instant,
        in_flight: u64,
        app_limited: bool,
    ) {
        let largest = self.pending.iter().filter_map(|p| p.packet_number).max();
        let sample = self
            .pending_newest_sent
            .take()
            .map(|sent| now.saturating_duration_since(sent));
        if let Some(latest) = sample {
            self.rtt
                .update(latest, Duration::ZERO, DEFAULT_MAX_ACK_DELAY, true);
        }
        let t = self.time(clock);
        let rtt = self.rtt.clone();
        let mut pending = std::mem::take(&mut self.pending);
        {
            let inner = self.inner_mut();
            for p in &pending {
                inner.on_packet_acked(t, p, &rtt, app_limited);
            }
            let summary = AckFrameSummary {
                bytes_in_flight: in_flight,
                largest_acked: largest,
                rtt_sample: sample,
                app_limited,
            };
            inner.on_ack_frame_end(t, &summary, &rtt);
        }
        pending.clear();
        self.pending = pending;
    }
}

impl RampController {
    /// The time the controller is told an ACK frame or a congestion event
    /// at `at` (its kernel arrival, or quinn's `now`): never before the
    /// newest send. RFC 9002 §7.3.2 starts a recovery period when the
    /// sender processes the loss (`now()` in `OnCongestionEvent`): every
    /// packet sent before then was sent without knowing of it and belongs
    /// to the period. The frame's kernel arrival time, or the `now` quinn's
    /// endpoint driver read before handing the datagram over, can be older
    /// than a batch the connection sent while the datagram waited; timed
    /// there, the period would leave that batch out, and its loss would be
    /// taken for a second congestion event (a second reduction). The frame
    /// and its loss event move together, so that `RfcOrder` still takes the
    /// event for the frame's (it matches them by time). In the simulator
    /// nothing is sent between an ACK's arrival and its processing, and
    /// this changes nothing. The RTT sample stays the kernel's.
    pub(super) fn controller_time(&self, at: Instant) -> Instant {
        self.last_sent.map_or(at, |s| at.max(s))
    }

    /// Where quinn found a loss event reported at `now`. quinn-proto 0.11
    /// (`Connection::on_ack_received`) runs an ACK frame's loss detection
    /// right after `on_end_acks`, with the same `now`, and reports at most
    /// one loss event from it; the loss-detection timer
    /// (`on_loss_detection_timeout`) reports outside any frame and gives
    /// the controller no other sign. So a loss event is the frame's when
    /// it is the first one after a frame's end at the same `now` with no
    /// send between, and the timer's otherwise. (A timer handled at the
    /// very `now` of a frame that found no loss would be taken for the
    /// frame's: quinn's driver reads the clock afresh for its timers.)
    pub(super) fn loss_source(&mut self, now: Instant) -> EventSource {
        match self.frame_end_at.take() {
            Some(at) if at == now => EventSource::AckFrame,
            _ => EventSource::LossTimer,
        }
    }
}
