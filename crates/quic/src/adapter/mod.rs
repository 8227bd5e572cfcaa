//! A ramp-cc [`Controller`](ramp_cc::Controller) inside quinn.
//!
//! [`RampFactory`] is a quinn [`ControllerFactory`]; each connection gets a
//! [`RampController`] that owns one `Box<dyn ramp_cc::Controller>` and
//! translates quinn's callbacks (quinn-proto 0.11.19) into ramp-cc's:
//!
//! | quinn | ramp-cc |
//! |---|---|
//! | `on_sent(now, bytes, last_pn)` (once per send batch) | `on_packet_sent` per datagram of the batch |
//! | `on_ack(now, sent, bytes, app_limited, _)` (per packet) | buffered, then `on_packet_acked` |
//! | `on_end_acks(now, in_flight, app_limited, largest)` | own RTT sample, the buffered `on_packet_acked`s, `on_ack_frame_end` |
//! | `on_congestion_event(now, sent, pc, lost_bytes)` | `on_congestion_event` (`lost_bytes == 0` is ECN-CE in 0.11) |
//! | `on_mtu_update(mtu)` | `on_mtu_update` |
//! | `window()` | `window()`, or the pacing gate's open/closed answer ([`gate`]) |
//!
//! Why the acknowledgements of a frame are buffered: quinn calls `on_ack`
//! before it updates its RTT estimator with the frame's sample, and keeps
//! `latest_rtt` private. The shim therefore keeps its own RFC 9002 §5
//! [`RttEstimator`], takes the sample `now − time_sent` of the newest packet
//! the frame acknowledges (not adjusted for ack delay, which quinn does not
//! expose to controllers), updates the estimator, and only then hands the
//! packets to the controller, so that they see the same up-to-date RTT as in
//! ramp's own loss detector (RFC 9002 Appendix A.7 order).
//!
//! Send batches: with segmentation offload quinn sends up to ten
//! datagrams in one batch and reports them with one `on_sent` of their
//! total bytes. Every datagram of a GSO batch but the last has the
//! batch's segment size, at most the path MTU, so the shim hands the
//! controller `ceil(bytes / MTU)` datagrams (the batch's bytes split
//! evenly), each with a number of its own, as the simulator sends them.
//!
//! Packet numbers: quinn reports one `last_packet_number` per send batch,
//! numbered per packet-number space, and none per acknowledged packet;
//! packets of one batch share their send time. Numbers of different spaces
//! do not compare (RFC 9000 §12.3), and quinn does not say which space a
//! batch or an ACK frame belongs to, so the shim numbers the batches itself
//! in send order across spaces, remembers `send time → batch number`, and
//! gives each acknowledged packet its batch's number and each frame the
//! largest of its packets. quinn stamps every batch of one driver pass
//! with the same `now`, so several batches can share a send time: the
//! shim keeps the run of numbers per send time and hands them out in
//! order as that time's packets are acknowledged (quinn reports a frame's
//! packets in packet-number order), so that each packet still gets a
//! number of its own (BBR's delivery-rate sampler keys its per-packet
//! state by it). Round tracking (HyStart++, Rapid Start) is
//! therefore batch-granular and in send order: a Handshake ACK covers only
//! batches sent before the 1-RTT flight it might otherwise have ended.
//! (quinn's own `largest_packet_num_acked` is not used.)
//!
//! Bytes in flight at `on_packet_sent`: quinn does not pass it; the shim
//! uses the value of the last `on_end_acks` plus the bytes sent since,
//! minus the bytes declared lost since. While the pacing gate is in
//! charge, a batch quinn sent without asking the gate (ACK-only packets,
//! which quinn neither counts in flight nor ever acknowledges, and PTO
//! probes) is left out until the next `on_end_acks`
//! ([`gate::PacingGate::asked_since_report`]); quinn's statistics are read
//! through [`stats_of`], whose `window()` call the gate does not take for
//! a question before a datagram.
//!
//! ACK times: quinn processes every datagram of one endpoint wake-up
//! with the same `now`. With an [`ArrivalLog`]
//! ([`RampFactory::with_arrivals`]), the shim gives the controller (and
//! takes its RTT sample at) each ACK frame's kernel arrival time instead
//! ([`crate::arrival`]). The controller is told of the frame, and of a
//! loss event it reveals, at that time but never before the newest send:
//! a batch sent while the datagram waited for quinn was sent before the
//! sender knew of the loss and belongs to the recovery period (RFC 9002
//! §7.3.2); the RTT sample stays the kernel's.
//!
//! Pacing: with a [`ConnWake`] ([`RampFactory::paced_by_controller`]), the
//! shim sends at the controller's `pacing_rate()` instead of quinn's
//! `1.25 · window / srtt`, through a gate behind `window()` ([`gate`]) and
//! a waker thread that brings quinn back when the gate reopens ([`wake`]).

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use quinn_proto::congestion::{Controller, ControllerFactory, ControllerMetrics};
use ramp_cc::quinn_order::RfcOrder;
use ramp_cc::{
    AckFrameSummary, AckedPacket, CongestionEvent, CongestionSignal, EventOrder, EventSource, Rate,
    RttEstimator, SendRule, Time,
};

use crate::arrival::{AckClock, ArrivalLog};
use crate::probe::ConnProbe;

pub(crate) mod gate;
pub(crate) mod quicly_gate;
mod stats_read;
pub(crate) mod wake;

use gate::{PacingGate, Verdict, CLOSED_WINDOW, OPEN_WINDOW};
pub(crate) use stats_read::stats_of;
pub(crate) use wake::ConnWake;

/// RFC 9000 §18.2 default `max_ack_delay` (25 ms): the bound the shim's RTT
/// estimator uses; quinn does not tell controllers the peer's value.
const DEFAULT_MAX_ACK_DELAY: Duration = Duration::from_millis(25);

/// How long a send batch is remembered for packet-number lookup: far beyond
/// any loss-detection horizon (RFC 9002 §6.1.2 time threshold, PTO).
const BATCH_MEMORY: Duration = Duration::from_secs(10);

/// Builds a ramp-cc controller for a connection, given the path MTU (bytes)
/// quinn starts with.
pub(crate) type BuildController = dyn Fn(u16) -> Box<dyn ramp_cc::Controller> + Send + Sync;

/// A quinn [`ControllerFactory`] that wraps ramp-cc controllers.
pub(crate) struct RampFactory {
    build: Arc<BuildController>,
    probe: Option<Arc<ConnProbe>>,
    wake: Option<Arc<ConnWake>>,
    /// The gate runs quicly's pacer instead of the leaky bucket.
    quicly_pacer: bool,
    /// Which packets the gate's window test lets out.
    send_rule: SendRule,
    arrivals: Option<Arc<ArrivalLog>>,
}

impl RampFactory {
    /// A factory calling `build` for each new connection.
    #[cfg(test)]
    pub(crate) fn new(build: Arc<BuildController>) -> RampFactory {
        RampFactory {
            build,
            probe: None,
            wake: None,
            quicly_pacer: false,
            send_rule: SendRule::default(),
            arrivals: None,
        }
    }

    /// A factory for one connection whose controller reports to `probe`
    /// (the end-of-transfer detection and counters of `ramp serve`).
    pub(crate) fn with_probe(build: Arc<BuildController>, probe: Arc<ConnProbe>) -> RampFactory {
        RampFactory {
            build,
            probe: Some(probe),
            wake: None,
            quicly_pacer: false,
            send_rule: SendRule::default(),
            arrivals: None,
        }
    }

    /// The connection's sends follow the controller's pacing rate once
    /// `wake` is attached to the established connection (until then, and
    /// if it never is, quinn paces). Segmentation offload may stay on: the
    /// gate charges each datagram of a batch ([`gate`]).
    pub(crate) fn paced_by_controller(mut self, wake: Arc<ConnWake>) -> RampFactory {
        self.wake = Some(wake);
        self
    }

    /// With [`RampFactory::paced_by_controller`]: the gate runs the
    /// simulator's model of quicly's pacer ([`quicly_gate`]) instead of the
    /// leaky bucket, as an arm with `pacer=quicly` asks.
    pub(crate) fn with_quicly_pacer(mut self) -> RampFactory {
        self.quicly_pacer = true;
        self
    }

    /// With [`RampFactory::paced_by_controller`]: the gate's window test
    /// lets packets out by `rule` (the arm's `send_rule=`). quinn's own
    /// test (`Connection::poll_transmit`: blocked at `in_flight +
    /// datagram >= window()`) cannot be changed, but the gate answers
    /// `window()` for it while it is active.
    pub(crate) fn with_send_rule(mut self, rule: SendRule) -> RampFactory {
        self.send_rule = rule;
        self
    }

    /// ACK frames are timed by their datagrams' kernel arrival, read from
    /// `log` (the server socket's, [`crate::arrival::wrap`]).
    pub(crate) fn with_arrivals(mut self, log: Arc<ArrivalLog>) -> RampFactory {
        self.arrivals = Some(log);
        self
    }
}

impl ControllerFactory for RampFactory {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let mut c = RampController::new((self.build)(current_mtu), now, self.probe.clone());
        c.mds = u64::from(current_mtu);
        c.ack_clock = self.arrivals.clone().map(AckClock::new);
        if let Some(wake) = &self.wake {
            let pacer = if self.quicly_pacer {
                PacingGate::quicly(c.mds)
            } else {
                PacingGate::new(c.mds)
            };
            c.gate = Some(Gate {
                pacer: pacer.with_send_rule(self.send_rule),
                wake: wake.clone(),
            });
            c.refresh();
        }
        Box::new(c)
    }
}

/// Counters the shim keeps beside the controller (h2o's `num-packets.*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ShimCounters {
    /// Ack-eliciting packets newly acknowledged.
    pub packets_acked: u64,
    /// Their bytes.
    pub bytes_acked: u64,
    /// ACK frames processed (`on_end_acks` calls).
    pub ack_frames: u64,
    /// Send batches (`on_sent` calls).
    pub send_batches: u64,
    /// Datagrams handed to the controller (`ceil(bytes / MTU)` per batch).
    pub datagrams_sent: u64,
    /// Congestion events reported by quinn (loss passes and CE increases).
    pub congestion_events: u64,
    /// ACK frames timed by their datagram's kernel arrival.
    pub ack_frames_kernel_timed: u64,
}

/// The batch numbers that share one send time: `next..=last`, handed out
/// to acknowledgements in order.
#[derive(Clone, Copy, Debug)]
struct BatchRun {
    next: u64,
    last: u64,
}

impl BatchRun {
    /// The next number of the run (the last once all were handed out: a
    /// duplicate report then maps where it did before).
    fn hand_out(&mut self) -> u64 {
        let pn = self.next.min(self.last);
        self.next = pn + 1;
        pn
    }
}

/// The pacing gate and the waker end that brings quinn back to it (never
/// cloned: a `clone_box` snapshot has no gate).
struct Gate {
    pacer: PacingGate,
    wake: Arc<ConnWake>,
}

/// A quinn [`Controller`] running a ramp-cc controller.
pub(crate) struct RampController {
    /// The ramp-cc controller (`Send + Sync`, as quinn requires).
    inner: Box<dyn ramp_cc::Controller>,
    /// `window()` and `metrics()` take `&self`: cached after each call.
    window: u64,
    ssthresh: Option<u64>,
    pacing_bps: Option<u64>,
    base: Instant,
    rtt: RttEstimator,
    /// Send time of remembered batches → their numbers in send order.
    batches: BTreeMap<Instant, BatchRun>,
    /// The number of the next send batch.
    next_batch: u64,
    /// The acknowledgements of the ACK frame being processed.
    pending: Vec<AckedPacket>,
    pending_newest_sent: Option<Instant>,
    /// quinn's time of the newest send batch: a congestion event is never
    /// timed before it (`on_congestion_event`).
    last_sent: Option<Instant>,
    bytes_in_flight: u64,
    counters: ShimCounters,
    probe: Option<Arc<ConnProbe>>,
    /// The current maximum datagram size, bytes (the gate's packet).
    mds: u64,
    /// The controller's pacing, when the factory asked for it.
    gate: Option<Gate>,
    /// Kernel arrival times of ACK frames, when the factory has them.
    ack_clock: Option<AckClock>,
    /// quinn's `now` of the last ACK frame's end while that frame's loss
    /// detection may still report: see [`RampController::loss_source`].
    frame_end_at: Option<Instant>,
}

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

    fn inner_mut(&mut self) -> &mut Box<dyn ramp_cc::Controller> {
        &mut self.inner
    }

    fn time(&self, t: Instant) -> Time {
        Time::from_nanos(ramp_vocab::time::duration_nanos(
            t.saturating_duration_since(self.base),
        ))
    }

    fn refresh(&mut self) {
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
    fn active_gate(&self) -> Option<&Gate> {
        self.gate
            .as_ref()
            .filter(|g| g.wake.is_attached() && g.pacer.rate().is_some())
    }

    /// quinn is not inside a send pass (it takes ACKs and losses between
    /// passes): grants the gate made since the last batch stand for no
    /// datagram.
    fn end_send_pass(&self) {
        if let Some(g) = &self.gate {
            g.pacer.end_pass();
        }
    }

    /// The number of an acknowledged packet sent at `sent`: the next of
    /// that send time's run, or the last number of the newest earlier run.
    fn packet_number_of(&mut self, sent: Instant) -> u64 {
        match self.batches.range_mut(..=sent).next_back() {
            Some((&t, run)) if t == sent => run.hand_out(),
            Some((_, run)) => run.last,
            None => 0,
        }
    }

    /// One newly acknowledged packet sent at `sent` (buffered until the
    /// frame ends).
    fn ack(&mut self, sent: Instant, bytes: u64) {
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
    fn flush_acks(&mut self, now: Instant, clock: Instant, in_flight: u64, app_limited: bool) {
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
    fn controller_time(&self, at: Instant) -> Instant {
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
    fn loss_source(&mut self, now: Instant) -> EventSource {
        match self.frame_end_at.take() {
            Some(at) if at == now => EventSource::AckFrame,
            _ => EventSource::LossTimer,
        }
    }
}

impl Controller for RampController {
    fn on_sent(&mut self, now: Instant, bytes: u64, _last_packet_number: u64) {
        self.counters.send_batches += 1;
        self.frame_end_at = None;
        self.last_sent = Some(self.last_sent.map_or(now, |s| s.max(now)));
        let t = self.time(now);
        // While the gate is in charge, a batch quinn built without asking
        // it held no packet quinn counts in flight, or a PTO probe
        // ([`gate::PacingGate::asked_since_report`]); it stays out of the
        // estimate until the next ACK frame's end brings quinn's own count.
        // Counted, an ACK-only packet's bytes would hold the window shut
        // with nothing in flight to bring that ACK frame.
        let in_flight_grows = self
            .active_gate()
            .is_none_or(|g| g.pacer.asked_since_report());
        let datagrams = bytes.div_ceil(self.mds.max(1)).max(1);
        for i in 0..datagrams {
            // Even split: the sizes add up to the batch's bytes exactly.
            let size = bytes * (i + 1) / datagrams - bytes * i / datagrams;
            let number = self.next_batch;
            self.next_batch += 1;
            self.batches
                .entry(now)
                .and_modify(|run| run.last = number)
                .or_insert(BatchRun {
                    next: number,
                    last: number,
                });
            if in_flight_grows {
                self.bytes_in_flight = self.bytes_in_flight.saturating_add(size);
            }
            let in_flight = self.bytes_in_flight;
            self.inner_mut()
                .on_packet_sent(t, Some(number), size, in_flight);
        }
        self.counters.datagrams_sent += datagrams;
        if self.active_gate().is_some() {
            // The gate's clock is the one `window()` reads: quinn's `now`
            // is taken once per driver pass, before the pass's datagrams.
            let sent_at = self.time(Instant::now());
            if let Some(g) = &mut self.gate {
                g.pacer.on_sent(sent_at, bytes);
            }
        }
        self.refresh();
    }

    fn on_ack(
        &mut self,
        _now: Instant,
        sent: Instant,
        bytes: u64,
        _app_limited: bool,
        _rtt: &quinn_proto::RttEstimator,
    ) {
        self.ack(sent, bytes);
    }

    fn on_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        _largest_packet_num_acked: Option<u64>,
    ) {
        self.counters.ack_frames += 1;
        self.end_send_pass();
        self.frame_end_at = Some(now);
        self.bytes_in_flight = in_flight;
        let at = match &mut self.ack_clock {
            Some(clock) => {
                let (at, stamped) = clock.frame_time(now);
                self.counters.ack_frames_kernel_timed += u64::from(stamped);
                at
            }
            None => now,
        };
        let clock = self.controller_time(at);
        self.flush_acks(at, clock, in_flight, app_limited);
        if let Some(horizon) = now.checked_sub(BATCH_MEMORY) {
            // Keep the newest batch at or before the horizon so a lookup
            // for an ancient packet still finds a number.
            let keep_from = self.batches.range(..=horizon).next_back().map(|(&t, _)| t);
            if let Some(k) = keep_from {
                self.batches = self.batches.split_off(&k);
            }
        }
        self.refresh();
        if let Some(probe) = &self.probe {
            let metrics = self.inner.metrics();
            probe.on_ack_frame(now, in_flight, self.rtt.clone(), metrics, self.counters);
        }
    }

    fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        lost_bytes: u64,
    ) {
        self.counters.congestion_events += 1;
        self.end_send_pass();
        let ecn = lost_bytes == 0;
        let source = if ecn {
            // A CE increase is only ever read from an ACK frame.
            EventSource::AckFrame
        } else {
            self.loss_source(now)
        };
        let now = self.ack_clock.as_ref().map_or(now, |c| c.event_time(now));
        // No earlier than the newest send: the frame's rule.
        let now = self.controller_time(now);
        if !self.pending.is_empty() {
            // Acks without a frame end (quinn's Retry path): deliver them first.
            let in_flight = self.bytes_in_flight;
            self.flush_acks(now, now, in_flight, false);
        }
        let signal = if ecn {
            // quinn 0.11 reports an ECN-CE increase as a zero-byte event,
            // without the count: at least one packet was marked, taken as
            // one full-size datagram.
            CongestionSignal::Ecn {
                ce_packets: 1,
                ce_bytes: self.mds,
            }
        } else {
            self.bytes_in_flight = self.bytes_in_flight.saturating_sub(lost_bytes);
            CongestionSignal::Loss { lost_bytes }
        };
        if is_persistent_congestion {
            // RFC 9002 §5.2: re-establish min_rtt after persistent congestion.
            self.rtt.reset_min_to_latest();
        }
        let event = CongestionEvent {
            signal,
            time_sent: self.time(sent),
            persistent_congestion: is_persistent_congestion,
            source,
        };
        let t = self.time(now);
        let rtt = self.rtt.clone();
        self.inner_mut().on_congestion_event(t, &event, &rtt);
        self.refresh();
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.mds = u64::from(new_mtu);
        if let Some(g) = &mut self.gate {
            g.pacer.set_datagram_size(self.mds);
        }
        self.inner_mut().on_mtu_update(u64::from(new_mtu));
        self.refresh();
    }

    fn window(&self) -> u64 {
        if stats_read::reading_stats() {
            // `Connection::stats` asks outside any send pass: no datagram
            // follows, so the gate is not asked (`stats.path.cwnd` shows
            // the controller's window).
            return self.window;
        }
        let Some(g) = self.active_gate() else {
            return self.window;
        };
        // quinn gives `window()` no clock; it asks just before it builds
        // the datagram, so now is the send time to judge.
        let now = Instant::now();
        match g
            .pacer
            .ask(self.time(now), self.bytes_in_flight, self.window)
        {
            Verdict::Open => OPEN_WINDOW,
            Verdict::WindowFull => CLOSED_WINDOW,
            Verdict::PacedUntil(t) => {
                g.wake.book(self.base + Duration::from_nanos(t.as_nanos()));
                CLOSED_WINDOW
            }
        }
    }

    fn metrics(&self) -> ControllerMetrics {
        let mut m = ControllerMetrics::default();
        m.congestion_window = self.window;
        m.ssthresh = self.ssthresh;
        m.pacing_rate = self.pacing_bps;
        m
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(RampController {
            inner: self.inner.clone_box(),
            window: self.window,
            ssthresh: self.ssthresh,
            pacing_bps: self.pacing_bps,
            base: self.base,
            rtt: self.rtt.clone(),
            batches: self.batches.clone(),
            next_batch: self.next_batch,
            pending: self.pending.clone(),
            pending_newest_sent: self.pending_newest_sent,
            last_sent: self.last_sent,
            bytes_in_flight: self.bytes_in_flight,
            counters: self.counters,
            // A copy is a snapshot: it must not report to the live probe
            // nor book wake-ups for the live connection.
            probe: None,
            mds: self.mds,
            gate: None,
            ack_clock: self.ack_clock.clone(),
            frame_end_at: self.frame_end_at,
        })
    }

    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

#[cfg(test)]
mod gate_tests;
#[cfg(test)]
mod tests;
