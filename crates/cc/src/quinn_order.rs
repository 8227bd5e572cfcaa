//! RFC 9002 order for controllers driven in quinn's.
//!
//! RFC 9002 Appendix A processes an ACK frame as: RTT sample, ECN,
//! losses, then the acknowledged packets. quinn 0.11 calls a controller with
//! the frame's acknowledgements and its end first, and the congestion
//! events the same frame found after (the simulator reproduces that with
//! [`EventOrder::AcksFirst`]). Under the RFC order, the acknowledgements of
//! the frame that opens a recovery period were sent before it and do not
//! grow the window; Rapid Start charges a loss before the ACK that would end
//! its recovery; PRR judges the frame with its losses. A controller written
//! for the RFC order gets all of that wrong under quinn's.
//!
//! [`RfcOrder`] fixes the order for any controller, so none has to know:
//! it snapshots the controller before a frame's first acknowledgement, and
//! when a congestion event the frame found ([`crate::EventSource::AckFrame`])
//! follows the frame's end at the same instant, it
//! restores the snapshot, delivers the frame's events first and then
//! replays its acknowledgements and its end, with the frame's lost bytes
//! taken out of the reported bytes in flight (quinn reports them before its
//! loss detection runs). It lives in ramp-cc, beside the controllers it
//! wraps, so that the recovery tests drive any controller through it in
//! quinn's order without a QUIC stack.

use core::fmt;

use crate::config::EventOrder;
use crate::controller::{
    AckFrameSummary, AckedPacket, CongestionEvent, CongestionSignal, Controller, EventSource,
};
use crate::rtt::RttEstimator;
use ramp_vocab::time::Time;

/// One ACK frame as the wrapper saw it.
#[derive(Clone, Debug)]
struct Frame<C> {
    at: Time,
    /// The controller before the frame's first acknowledgement.
    before: C,
    acks: Vec<(AckedPacket, RttEstimator, bool)>,
    end: Option<(AckFrameSummary, RttEstimator)>,
    events: Vec<(CongestionEvent, RttEstimator)>,
}

/// A controller `C` that sees RFC 9002 Appendix A's order whatever order
/// its caller uses (see the module documentation).
#[derive(Clone)]
pub struct RfcOrder<C> {
    inner: C,
    order: EventOrder,
    frame: Option<Frame<C>>,
}

impl<C: fmt::Debug> fmt::Debug for RfcOrder<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RfcOrder")
            .field("inner", &self.inner)
            .field("order", &self.order)
            .finish()
    }
}

/// Reading through to the wrapped controller (its own methods: state,
/// estimates).
impl<C> core::ops::Deref for RfcOrder<C> {
    type Target = C;

    fn deref(&self) -> &C {
        &self.inner
    }
}

impl<C: Controller + Clone> RfcOrder<C> {
    /// Wraps `inner`, called in `order`. With [`EventOrder::Rfc9002`] the
    /// wrapper only passes calls through.
    pub fn new(inner: C, order: EventOrder) -> RfcOrder<C> {
        RfcOrder {
            inner,
            order,
            frame: None,
        }
    }

    /// The wrapped controller.
    pub fn inner(&self) -> &C {
        &self.inner
    }

    /// Unwraps the controller.
    pub fn into_inner(self) -> C {
        self.inner
    }

    fn reorders(&self) -> bool {
        self.order == EventOrder::AcksFirst
    }

    /// The frame being received at `now`, or a new one from the controller
    /// as it is (a frame ends with its end; anything after starts another).
    fn frame_at(&mut self, now: Time) -> &mut Frame<C> {
        let stale = self
            .frame
            .as_ref()
            .is_some_and(|f| f.at != now || f.end.is_some());
        if stale {
            self.frame = None;
        }
        let inner = &self.inner;
        self.frame.get_or_insert_with(|| Frame {
            at: now,
            before: inner.clone(),
            acks: Vec::new(),
            end: None,
            events: Vec::new(),
        })
    }

    /// Rebuilds the controller from the frame's snapshot in RFC order:
    /// the frame's events, then its acknowledgements, then its end.
    fn replay(&mut self, now: Time) {
        let Some(f) = &self.frame else {
            return;
        };
        let mut c = f.before.clone();
        let mut lost = 0u64;
        for (e, rtt) in &f.events {
            if let CongestionSignal::Loss { lost_bytes } = e.signal {
                lost = lost.saturating_add(lost_bytes);
            }
            c.on_congestion_event(now, e, rtt);
        }
        for (p, rtt, app_limited) in &f.acks {
            c.on_packet_acked(now, p, rtt, *app_limited);
        }
        if let Some((summary, rtt)) = &f.end {
            let summary = AckFrameSummary {
                bytes_in_flight: summary.bytes_in_flight.saturating_sub(lost),
                ..*summary
            };
            c.on_ack_frame_end(now, &summary, rtt);
        }
        self.inner = c;
    }
}

impl<C: Controller + Clone + 'static> Controller for RfcOrder<C> {
    fn on_packet_sent(
        &mut self,
        now: Time,
        packet_number: Option<u64>,
        bytes: u64,
        bytes_in_flight: u64,
    ) {
        self.frame = None;
        self.inner
            .on_packet_sent(now, packet_number, bytes, bytes_in_flight);
    }

    fn on_packet_acked(
        &mut self,
        now: Time,
        packet: &AckedPacket,
        rtt: &RttEstimator,
        app_limited: bool,
    ) {
        if self.reorders() {
            self.frame_at(now)
                .acks
                .push((*packet, rtt.clone(), app_limited));
        }
        self.inner.on_packet_acked(now, packet, rtt, app_limited);
    }

    fn on_packets_acked(
        &mut self,
        now: Time,
        packets: &[AckedPacket],
        rtt: &RttEstimator,
        app_limited: bool,
    ) {
        if self.reorders() {
            let f = self.frame_at(now);
            f.acks
                .extend(packets.iter().map(|p| (*p, rtt.clone(), app_limited)));
        }
        self.inner.on_packets_acked(now, packets, rtt, app_limited);
    }

    fn on_ack_frame_end(&mut self, now: Time, summary: &AckFrameSummary, rtt: &RttEstimator) {
        if self.reorders() {
            self.frame_at(now).end = Some((*summary, rtt.clone()));
        }
        self.inner.on_ack_frame_end(now, summary, rtt);
    }

    fn on_congestion_event(&mut self, now: Time, event: &CongestionEvent, rtt: &RttEstimator) {
        // A loss-detection timer's event is no frame's, even at a frame's
        // instant: it reaches the controller where it happened.
        let same_frame = self.reorders()
            && event.source == EventSource::AckFrame
            && self
                .frame
                .as_ref()
                .is_some_and(|f| f.at == now && f.end.is_some());
        if same_frame {
            if let Some(f) = &mut self.frame {
                f.events.push((*event, rtt.clone()));
            }
            self.replay(now);
        } else {
            self.frame = None;
            self.inner.on_congestion_event(now, event, rtt);
        }
    }

    fn on_spurious_congestion(&mut self, now: Time) {
        self.frame = None;
        self.inner.on_spurious_congestion(now);
    }

    fn on_mtu_update(&mut self, max_datagram_size: u64) {
        self.frame = None;
        self.inner.on_mtu_update(max_datagram_size);
    }

    crate::forward_controller!(|c| c.inner;
        resume_from, window, ssthresh, pacing_rate, pacing_burst, phase, metrics,
        initial_window, name);

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CcPhase;

    /// Records the calls it sees, in order.
    #[derive(Clone, Debug, Default)]
    struct Log(Vec<String>);

    impl Controller for Log {
        fn on_packet_sent(&mut self, _: Time, pn: Option<u64>, _: u64, _: u64) {
            self.0.push(format!("sent {pn:?}"));
        }
        fn on_packet_acked(&mut self, _: Time, p: &AckedPacket, _: &RttEstimator, _: bool) {
            self.0.push(format!("ack {:?}", p.packet_number));
        }
        fn on_ack_frame_end(&mut self, _: Time, s: &AckFrameSummary, _: &RttEstimator) {
            self.0.push(format!("end {}", s.bytes_in_flight));
        }
        fn on_congestion_event(&mut self, _: Time, e: &CongestionEvent, _: &RttEstimator) {
            self.0.push(format!("event {:?}", e.signal));
        }
        fn window(&self) -> u64 {
            2400
        }
        fn phase(&self) -> CcPhase {
            CcPhase::new("log", false)
        }
        fn initial_window(&self) -> u64 {
            2400
        }
        fn name(&self) -> String {
            "log".into()
        }
        fn clone_box(&self) -> Box<dyn Controller> {
            Box::new(self.clone())
        }
    }

    fn quinn_frame(c: &mut RfcOrder<Log>, t: Time, pns: &[u64], lost: Option<u64>) {
        let rtt = RttEstimator::default();
        for &pn in pns {
            let p = AckedPacket {
                packet_number: Some(pn),
                time_sent: Time::ZERO,
                bytes: 1200,
            };
            c.on_packet_acked(t, &p, &rtt, false);
        }
        let s = AckFrameSummary {
            bytes_in_flight: 6000,
            largest_acked: pns.last().copied(),
            rtt_sample: None,
            app_limited: false,
        };
        c.on_ack_frame_end(t, &s, &rtt);
        if let Some(lost_bytes) = lost {
            let e = CongestionEvent {
                signal: CongestionSignal::Loss { lost_bytes },
                time_sent: Time::ZERO,
                persistent_congestion: false,
                source: EventSource::AckFrame,
            };
            c.on_congestion_event(t, &e, &rtt);
        }
    }

    #[test]
    fn rfc9002_a_7_a_frame_s_losses_reach_the_controller_before_its_acks() {
        let mut c = RfcOrder::new(Log::default(), EventOrder::AcksFirst);
        let t = Time::from_millis(10);
        quinn_frame(&mut c, t, &[1, 2], None);
        // A second frame at the same instant, with a loss: only it is
        // reordered, and its end reports the flight without the lost bytes.
        quinn_frame(&mut c, t, &[3], Some(1200));
        assert_eq!(
            c.inner().0,
            [
                "ack Some(1)",
                "ack Some(2)",
                "end 6000",
                "event Loss { lost_bytes: 1200 }",
                "ack Some(3)",
                "end 4800"
            ]
        );
    }

    #[test]
    fn the_rfc_order_passes_through() {
        let mut c = RfcOrder::new(Log::default(), EventOrder::Rfc9002);
        let t = Time::from_millis(10);
        quinn_frame(&mut c, t, &[1], Some(1200));
        assert_eq!(
            c.inner().0,
            ["ack Some(1)", "end 6000", "event Loss { lost_bytes: 1200 }"]
        );
    }
}
