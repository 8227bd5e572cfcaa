//! A tiny scripted "loss detector" that drives a controller the way
//! ramp's recovery module (RFC 9002 order) or quinn (acks first) would.

pub mod arb;

use std::collections::BTreeMap;
use std::time::Duration;

use ramp_cc::quinn_order::RfcOrder;
use ramp_cc::{
    AckFrameSummary, AckedPacket, CcConfig, CongestionEvent, CongestionSignal, Controller,
    ControllerSpec, EventOrder, EventSource, LossBased, RttEstimator, Time,
};

pub const MDS: u64 = 1200;

/// Which order a frame's events reach the controller in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// RFC 9002 Appendix A: ECN, losses, acks, frame end.
    Rfc,
    /// quinn 0.11: acks, frame end, then congestion events.
    Quinn,
}

pub struct Driver {
    /// The controller; in quinn's order wrapped so that it sees the RFC's.
    pub cc: RfcOrder<LossBased>,
    spec: String,
    cfg: CcConfig,
    pub rtt: RttEstimator,
    pub now: Time,
    pub order: Order,
    next_pn: u64,
    sent: BTreeMap<u64, (Time, u64)>,
    pub in_flight: u64,
    /// A frame's acknowledgements in one `on_packets_acked` call instead
    /// of one `on_packet_acked` each.
    pub batch_acks: bool,
}

pub fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

impl Driver {
    pub fn new(spec: &str) -> Driver {
        Driver::with_config(spec, &CcConfig::default())
    }

    /// Rebuilds the (unused) controller for the given call order.
    pub fn with_order(mut self, order: Order) -> Driver {
        let fresh = Driver::with_config(&self.spec, &self.cfg);
        let event_order = match order {
            Order::Rfc => EventOrder::Rfc9002,
            Order::Quinn => EventOrder::AcksFirst,
        };
        self.cc = RfcOrder::new(fresh.cc.into_inner(), event_order);
        self.order = order;
        self
    }

    pub fn with_config(spec: &str, cfg: &CcConfig) -> Driver {
        let spec: ControllerSpec = match spec.parse() {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        Driver {
            cc: match spec.build_loss_based(cfg) {
                Some(c) => RfcOrder::new(c, EventOrder::Rfc9002),
                None => panic!("{spec} is not loss-based"),
            },
            spec: spec.to_string(),
            cfg: *cfg,
            rtt: RttEstimator::default(),
            now: Time::ZERO,
            order: Order::Rfc,
            next_pn: 0,
            sent: BTreeMap::new(),
            in_flight: 0,
            batch_acks: false,
        }
    }

    pub fn advance(&mut self, d: Duration) {
        self.now += d;
    }

    /// Packet numbers sent and neither acked nor lost, oldest first.
    pub fn outstanding(&self) -> Vec<u64> {
        self.sent.keys().copied().collect()
    }

    /// Sends `n` full-size packets now; returns their numbers.
    /// IW 10 with a jump (`rapidstart` or `jumpstart` specs): one packet's
    /// ACK gives the first RTT sample, and the window jumps to 20 packets
    /// with nothing in flight.
    pub fn jumped(spec: &str) -> Driver {
        let mut d = Driver::new(spec);
        let first = d.send(1);
        d.advance(ms(30));
        d.ack(&first);
        assert_eq!(d.cc.state(), ramp_cc::LossBasedState::JumpStart);
        assert_eq!(d.window(), 20 * MDS);
        d
    }

    pub fn send(&mut self, n: u64) -> Vec<u64> {
        self.send_sized(n, MDS)
    }

    pub fn send_sized(&mut self, n: u64, bytes: u64) -> Vec<u64> {
        (0..n)
            .map(|_| {
                let pn = self.next_pn;
                self.next_pn += 1;
                self.in_flight += bytes;
                self.sent.insert(pn, (self.now, bytes));
                self.cc
                    .on_packet_sent(self.now, Some(pn), bytes, self.in_flight);
                pn
            })
            .collect()
    }

    /// Sends as many full packets as the window allows.
    pub fn fill_window(&mut self) -> Vec<u64> {
        let w = self.cc.window();
        let n = w.saturating_sub(self.in_flight) / MDS;
        self.send(n)
    }

    /// One ACK frame acknowledging `acked` and declaring `lost` lost, with
    /// an RTT sample from the largest acknowledged packet, optionally a CE
    /// increase and a persistent-congestion verdict.
    pub fn frame(&mut self, acked: &[u64], lost: &[u64], ce: bool, pc: bool, app_limited: bool) {
        let acked: Vec<(u64, Time, u64)> = acked
            .iter()
            .filter_map(|pn| self.sent.remove(pn).map(|(t, b)| (*pn, t, b)))
            .collect();
        let lost: Vec<(u64, Time, u64)> = lost
            .iter()
            .filter_map(|pn| self.sent.remove(pn).map(|(t, b)| (*pn, t, b)))
            .collect();
        let largest = acked.iter().max_by_key(|a| a.0).copied();
        let sample = largest.map(|(_, t, _)| self.now - t);
        if let Some(s) = sample {
            self.rtt.update(s, Duration::ZERO, ms(25), true);
        }
        for (_, _, b) in &acked {
            self.in_flight -= b;
        }
        let lost_bytes: u64 = lost.iter().map(|l| l.2).sum();
        self.in_flight -= lost_bytes;
        let ce_event = match (ce, largest) {
            (true, Some((_, t, _))) => Some(CongestionEvent {
                signal: CongestionSignal::Ecn {
                    ce_packets: 1,
                    ce_bytes: 1200,
                },
                time_sent: t,
                persistent_congestion: false,
                source: EventSource::AckFrame,
            }),
            _ => None,
        };
        let loss_event = lost.iter().map(|l| l.1).max().map(|t| CongestionEvent {
            signal: CongestionSignal::Loss { lost_bytes },
            time_sent: t,
            persistent_congestion: pc,
            source: EventSource::AckFrame,
        });
        // quinn reports in-flight at the end of the acks, before its loss
        // detection has removed the lost packets.
        let reported_in_flight = match self.order {
            Order::Rfc => self.in_flight,
            Order::Quinn => self.in_flight + lost_bytes,
        };
        let summary = AckFrameSummary {
            bytes_in_flight: reported_in_flight,
            largest_acked: largest.map(|l| l.0),
            rtt_sample: sample,
            app_limited,
        };
        let now = self.now;
        if self.order == Order::Rfc {
            self.events(ce_event, loss_event);
        }
        let acked: Vec<AckedPacket> = acked
            .into_iter()
            .map(|(pn, t, b)| AckedPacket {
                packet_number: Some(pn),
                time_sent: t,
                bytes: b,
            })
            .collect();
        if self.batch_acks {
            self.cc
                .on_packets_acked(now, &acked, &self.rtt, app_limited);
        } else {
            for p in &acked {
                self.cc.on_packet_acked(now, p, &self.rtt, app_limited);
            }
        }
        self.cc.on_ack_frame_end(now, &summary, &self.rtt);
        if self.order == Order::Quinn {
            self.events(ce_event, loss_event);
        }
    }

    fn events(&mut self, ce: Option<CongestionEvent>, loss: Option<CongestionEvent>) {
        for e in [ce, loss].into_iter().flatten() {
            self.cc.on_congestion_event(self.now, &e, &self.rtt);
        }
    }

    pub fn ack(&mut self, acked: &[u64]) {
        self.frame(acked, &[], false, false, false);
    }

    /// Acknowledges each packet in its own frame.
    pub fn ack_each(&mut self, acked: &[u64]) {
        for pn in acked {
            self.ack(&[*pn]);
        }
    }

    pub fn lose(&mut self, lost: &[u64]) {
        self.frame(&[], lost, false, false, false);
    }

    /// The loss-detection timer declares `lost` lost now (RFC 9002
    /// Appendix A.9 `OnLossDetectionTimeout`): one congestion event outside
    /// any ACK frame, in either order.
    pub fn timer_lose(&mut self, lost: &[u64]) {
        let lost: Vec<(Time, u64)> = lost.iter().filter_map(|pn| self.sent.remove(pn)).collect();
        let lost_bytes: u64 = lost.iter().map(|l| l.1).sum();
        self.in_flight -= lost_bytes;
        if let Some(t) = lost.iter().map(|l| l.0).max() {
            let e = CongestionEvent {
                signal: CongestionSignal::Loss { lost_bytes },
                time_sent: t,
                persistent_congestion: false,
                source: EventSource::LossTimer,
            };
            self.cc.on_congestion_event(self.now, &e, &self.rtt);
        }
    }

    /// One round: send `n` packets, wait `rtt`, ack each in its own frame.
    pub fn round(&mut self, n: u64, rtt: Duration) -> Vec<u64> {
        let pns = self.send(n);
        self.advance(rtt);
        self.ack_each(&pns);
        pns
    }

    pub fn window(&self) -> u64 {
        self.cc.window()
    }
}
