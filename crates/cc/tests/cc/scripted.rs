//! A scripted sender for conformance tests against reference
//! implementations: one packet-number space, every packet `MDS` bytes,
//! each ACK frame delivered in RFC 9002 order (congestion events, then
//! acknowledgements, then the frame end) with explicit acked, lost and
//! CE-marked packets.

use std::collections::BTreeMap;
use std::time::Duration;

use ramp_cc::prague::Prague;
use ramp_cc::{
    AckFrameSummary, AckedPacket, CcConfig, CongestionEvent, CongestionSignal, Controller,
    ControllerSpec, EventSource, LossBased, RttEstimator, Time,
};

pub const MDS: u64 = 1200;

pub fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

pub fn us(v: u64) -> Duration {
    Duration::from_micros(v)
}

#[derive(Clone)]
pub struct Script {
    pub cc: LossBased,
    pub rtt: RttEstimator,
    pub now: Time,
    next: u64,
    sent: BTreeMap<u64, Time>,
    pub inflight: u64,
}

impl Script {
    pub fn new(spec: &str) -> Script {
        let s: ControllerSpec = spec.parse().unwrap();
        Script {
            cc: s.build_loss_based(&CcConfig::default()).unwrap(),
            rtt: RttEstimator::default(),
            now: Time::ZERO,
            next: 0,
            sent: BTreeMap::new(),
            inflight: 0,
        }
    }

    pub fn adv(&mut self, d: Duration) {
        self.now = self.now.saturating_add(d);
    }

    /// Sends `n` packets now.
    pub fn send(&mut self, n: u64) -> Vec<u64> {
        (0..n)
            .map(|_| {
                let pn = self.next;
                self.next += 1;
                self.inflight += MDS;
                self.sent.insert(pn, self.now);
                self.cc
                    .on_packet_sent(self.now, Some(pn), MDS, self.inflight);
                pn
            })
            .collect()
    }

    /// Fills the window.
    pub fn fill(&mut self) -> Vec<u64> {
        let n = self.cc.window().saturating_sub(self.inflight) / MDS;
        self.send(n)
    }

    /// One ACK frame: `acked` newly acknowledged, `lost` declared lost,
    /// `ce` of the acked packets newly reported CE.
    pub fn frame(&mut self, acked: &[u64], lost: &[u64], ce: u64) {
        let acked: Vec<(u64, Time)> = acked
            .iter()
            .map(|p| (*p, self.sent.remove(p).unwrap()))
            .collect();
        let lost: Vec<(u64, Time)> = lost
            .iter()
            .map(|p| (*p, self.sent.remove(p).unwrap()))
            .collect();
        let largest = acked.iter().max_by_key(|a| a.0).copied();
        let sample = largest.map(|(_, t)| self.now.saturating_since(t));
        if let Some(s) = sample {
            self.rtt.update(s, Duration::ZERO, ms(25), true);
        }
        let now = self.now;
        if let (true, Some((_, t))) = (ce > 0, largest) {
            let e = CongestionEvent {
                signal: CongestionSignal::Ecn {
                    ce_packets: ce,
                    ce_bytes: ce * MDS,
                },
                time_sent: t,
                persistent_congestion: false,
                source: EventSource::AckFrame,
            };
            self.cc.on_congestion_event(now, &e, &self.rtt);
        }
        if let Some(t) = lost.iter().map(|l| l.1).max() {
            let lb = lost.len() as u64 * MDS;
            self.inflight -= lb;
            let e = CongestionEvent {
                signal: CongestionSignal::Loss { lost_bytes: lb },
                time_sent: t,
                persistent_congestion: false,
                source: EventSource::AckFrame,
            };
            self.cc.on_congestion_event(now, &e, &self.rtt);
        }
        for (pn, t) in &acked {
            self.inflight -= MDS;
            let p = AckedPacket {
                packet_number: Some(*pn),
                time_sent: *t,
                bytes: MDS,
            };
            self.cc.on_packet_acked(now, &p, &self.rtt, false);
        }
        let s = AckFrameSummary {
            bytes_in_flight: self.inflight,
            largest_acked: largest.map(|l| l.0),
            rtt_sample: sample,
            app_limited: false,
        };
        self.cc.on_ack_frame_end(now, &s, &self.rtt);
    }

    /// Acknowledges `pns` two at a time, `gap` apart, refilling the
    /// window after each frame when `refill`; returns what was sent.
    pub fn ack_pairs(&mut self, pns: &[u64], gap: Duration, refill: bool) -> Vec<u64> {
        let mut out = vec![];
        for c in pns.chunks(2) {
            self.frame(c, &[], 0);
            if refill {
                out.extend(self.fill());
            }
            self.adv(gap);
        }
        out
    }

    pub fn prague(&self) -> &Prague {
        self.cc.ca_as::<Prague>().expect("not prague")
    }
}
