//! quinn's [`Controller`] calls on a [`RampController`], translated into
//! ramp-cc's (the table in the module documentation of [`super`]).

use std::any::Any;
use std::time::{Duration, Instant};

use quinn_proto::congestion::{Controller, ControllerMetrics};
use ramp_cc::{CongestionEvent, CongestionSignal, EventSource};

use super::gate::{Verdict, CLOSED_WINDOW, OPEN_WINDOW};
use super::{stats_read, BatchRun, RampController, BATCH_MEMORY};

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
