//! One direction of a path, as both the simulator and the real-time
//! forwarders (`ramp relay`, `ramp shell`) model it: policer → bottleneck
//! (queue discipline + serialisation, cellular light phase) → random loss
//! → ACK aggregation → Wi-Fi delay variation → propagation delay →
//! cellular base-delay drift, with optional rate steps.
//!
//! The two differ only in their clock: the simulator passes virtual time,
//! the relay the time since it started. Every decision (admission, marks,
//! which packets random loss takes, in which order the generators are
//! drawn) is this module's, so a real run and a simulated one see the same
//! queue.

use std::sync::Arc;
use std::time::Duration;

use ramp_vocab::rng::Stream;
use ramp_vocab::{Rate, Time};

use crate::aggregation::AckAggregation;
use crate::aqm::Aqm;
use crate::bottleneck::{Admission, Bottleneck, Departure, Dequeue};
use crate::cellular::DriftElement;
use crate::elements::LinkElements;
use crate::jitter::JitterElement;
use crate::loss::LossElement;
use crate::packet::{Delivery, DropCause, Packet};
use crate::policer::Policer;
use crate::trace::DeliveryTrace;

/// One change of the bottleneck rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateStep {
    /// When it takes effect, since the clock's epoch.
    pub at: Duration,
    /// The new rate.
    pub rate: Rate,
}

/// A link direction's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkConfig {
    /// Serialisation rate.
    pub rate: Rate,
    /// Buffer limit, bytes (the packet in service included).
    pub limit_bytes: u64,
    /// Queue discipline.
    pub aqm: Aqm,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Rate changes, in time order.
    pub rate_steps: Vec<RateStep>,
    /// Deliver at a Mahimahi trace's opportunities instead of at `rate`
    /// (which should then be the trace's mean rate, as it sizes nothing
    /// but time-given buffers). Rate steps do not apply to a trace.
    pub trace: Option<Arc<DeliveryTrace>>,
    /// The optional elements around the queue: policer, random loss,
    /// cellular behaviour, Wi-Fi delay variation, ACK aggregation.
    pub elements: LinkElements,
    /// The path's base RTT, which a cellular link's delay drift is a
    /// share of.
    pub base_rtt: Duration,
}

impl LinkConfig {
    /// A drop-tail link of `rate`, a buffer of `limit_bytes` and a one-way
    /// `delay`, with no other element; the `with_*` setters add them.
    pub fn new(rate: Rate, limit_bytes: u64, delay: Duration) -> LinkConfig {
        LinkConfig {
            rate,
            limit_bytes,
            aqm: Aqm::DropTail,
            delay,
            rate_steps: Vec::new(),
            trace: None,
            elements: LinkElements::default(),
            base_rtt: Duration::ZERO,
        }
    }

    /// With queue discipline `aqm`.
    pub fn with_aqm(mut self, aqm: Aqm) -> LinkConfig {
        self.aqm = aqm;
        self
    }

    /// With the optional elements `elements`.
    pub fn with_elements(mut self, elements: LinkElements) -> LinkConfig {
        self.elements = elements;
        self
    }

    /// With the path's base RTT `rtt`, which a cellular link's delay drift
    /// is a share of.
    pub fn with_base_rtt(mut self, rtt: Duration) -> LinkConfig {
        self.base_rtt = rtt;
        self
    }

    /// With rate changes, in time order.
    pub fn with_rate_steps(mut self, steps: Vec<RateStep>) -> LinkConfig {
        self.rate_steps = steps;
        self
    }

    /// Delivering at a trace's opportunities, or at the rate.
    pub fn with_trace(mut self, trace: Option<Arc<DeliveryTrace>>) -> LinkConfig {
        self.trace = trace;
        self
    }
}

/// What [`Link::offer`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Offer<P> {
    /// The packet's fate is decided.
    Now(Delivery<P>),
    /// A dequeue-time discipline holds it: poll at [`Link::next_wake`].
    /// `evicted` are packets FQ-CoDel dropped to make room.
    Held {
        /// Packets dropped from the fattest flow queue, in drop order.
        evicted: Vec<Delivery<P>>,
    },
}

/// One direction of a path.
#[derive(Clone, Debug)]
pub struct Link<P> {
    policer: Option<Policer>,
    bottleneck: Bottleneck<P>,
    loss: LossElement,
    delay: Duration,
    jitter: Option<JitterElement>,
    drift: Option<DriftElement>,
    aggregation: Option<AckAggregation>,
    /// Rate steps not yet applied, earliest last.
    rate_steps: Vec<RateStep>,
    /// [`Link::poll`]'s buffer of dequeued packets, kept so that a poll
    /// does not allocate.
    dequeued: Vec<Dequeue<P>>,
}

impl<P> Link<P> {
    /// A link of `cfg` whose random elements draw from streams of `seed`.
    pub fn new(cfg: &LinkConfig, seed: u64) -> Link<P> {
        let e = &cfg.elements;
        let mut link = Link {
            policer: e.policer.map(Policer::new),
            bottleneck: match &cfg.trace {
                None => Bottleneck::new(cfg.rate, cfg.limit_bytes, cfg.aqm, Stream::Aqm.rng(seed)),
                Some(t) => Bottleneck::with_trace(
                    Arc::clone(t),
                    cfg.limit_bytes,
                    cfg.aqm,
                    Stream::Aqm.rng(seed),
                ),
            },
            loss: LossElement::new(e.loss, Stream::Loss.rng(seed)),
            delay: cfg.delay,
            jitter: e
                .jitter
                .map(|j| JitterElement::new(j, Stream::Jitter.rng(seed))),
            drift: e
                .cellular
                .filter(|c| c.drift_mean > 0.0)
                .map(|c| DriftElement::new(c, cfg.base_rtt, Stream::Drift.rng(seed))),
            aggregation: e.aggregation,
            rate_steps: cfg.rate_steps.iter().rev().copied().collect(),
            dequeued: Vec::new(),
        };
        if let Some(c) = e.cellular {
            link.bottleneck.set_cellular(c);
        }
        link
    }

    /// The bottleneck (for traces: backlog, delay, departures).
    pub fn bottleneck(&mut self) -> &mut Bottleneck<P> {
        &mut self.bottleneck
    }

    /// The bottleneck, read-only.
    pub fn bottleneck_ref(&self) -> &Bottleneck<P> {
        &self.bottleneck
    }

    /// When [`Link::poll`] next has work (dequeue-time disciplines only).
    pub fn next_wake(&self) -> Option<Time> {
        self.bottleneck.next_dequeue()
    }

    /// After the queue: random loss, then the propagation delay.
    #[inline]
    fn deliver(&mut self, d: Departure<P>) -> Delivery<P> {
        if self.loss.drops() {
            Delivery::Dropped {
                payload: d.packet.payload,
                at: d.at,
                cause: DropCause::Random,
            }
        } else {
            Delivery::Arrives {
                payload: d.packet.payload,
                at: {
                    let left = match &self.aggregation {
                        Some(a) => a.release(d.at),
                        None => d.at,
                    };
                    let at = match &mut self.jitter {
                        Some(j) => j.apply(left) + self.delay,
                        None => left + self.delay,
                    };
                    match &mut self.drift {
                        Some(dr) => dr.apply(d.at, at),
                        None => at,
                    }
                },
                ecn: if d.ce {
                    d.packet.ecn.marked()
                } else {
                    d.packet.ecn
                },
            }
        }
    }

    /// Offers `packet` at `now`.
    #[inline]
    pub fn offer(&mut self, now: Time, packet: Packet<P>) -> Offer<P> {
        // A rate step applies to the packets offered from its time on.
        while let Some(s) = self.rate_steps.last().copied() {
            if Time::ZERO + s.at > now {
                break;
            }
            self.rate_steps.pop();
            self.bottleneck.set_rate(s.rate);
        }
        if let Some(p) = &mut self.policer {
            if !p.admit(now, packet.size) {
                return Offer::Now(Delivery::Dropped {
                    payload: packet.payload,
                    at: now,
                    cause: DropCause::Policer,
                });
            }
        }
        match self.bottleneck.offer(now, packet) {
            Admission::Departs(d) => Offer::Now(self.deliver(d)),
            Admission::Dropped { packet, cause } => Offer::Now(Delivery::Dropped {
                payload: packet.payload,
                at: now,
                cause,
            }),
            Admission::Held { evicted } => Offer::Held {
                evicted: evicted
                    .into_iter()
                    .map(|p| Delivery::Dropped {
                        payload: p.payload,
                        at: now,
                        cause: DropCause::Queue,
                    })
                    .collect(),
            },
        }
    }

    /// Runs the dequeues due by `now` (dequeue-time disciplines), reporting
    /// each packet's fate in dequeue order.
    pub fn poll(&mut self, now: Time, mut out: impl FnMut(Delivery<P>)) {
        let mut dequeued = std::mem::take(&mut self.dequeued);
        self.bottleneck.poll(now, |d| dequeued.push(d));
        for d in dequeued.drain(..) {
            out(match d {
                Dequeue::Departs(d) => self.deliver(d),
                Dequeue::Dropped { packet, at } => Delivery::Dropped {
                    payload: packet.payload,
                    at,
                    cause: DropCause::Aqm,
                },
            });
        }
        self.dequeued = dequeued;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ramp_vocab::EcnCodepoint;

    fn cfg(rate_mbit: u64, delay_ms: u64, queue_ms: u64, loss: f64) -> LinkConfig {
        let rate = Rate::from_bits_per_sec(rate_mbit * 1_000_000);
        let limit = crate::queue_bytes_for(rate, Duration::from_millis(queue_ms));
        LinkConfig::new(rate, limit, Duration::from_millis(delay_ms)).with_elements(LinkElements {
            loss: crate::LossModel::bernoulli(loss),
            ..LinkElements::default()
        })
    }

    fn pkt(size: u32) -> Packet<()> {
        Packet {
            payload: (),
            size,
            ecn: EcnCodepoint::NotEct,
            flow: 0,
        }
    }

    #[test]
    fn idle_link_delivers_after_serialisation_and_delay() {
        let mut l = Link::new(&cfg(20, 20, 40, 0.0), 7);
        // 1250 bytes at 20 Mbit/s = 500 µs.
        assert_eq!(
            l.offer(Time::from_millis(1), pkt(1250)),
            Offer::Now(Delivery::Arrives {
                payload: (),
                at: Time::from_micros(21_500),
                ecn: EcnCodepoint::NotEct
            })
        );
    }

    #[test]
    fn drop_tail_at_queue_capacity() {
        // 40 ms at 20 Mbit/s = 100,000 bytes = 80 packets of 1250.
        let mut l = Link::new(&cfg(20, 20, 40, 0.0), 7);
        let fates: Vec<_> = (0..200).map(|_| l.offer(Time::ZERO, pkt(1250))).collect();
        let delivered = fates
            .iter()
            .filter(|f| matches!(f, Offer::Now(Delivery::Arrives { .. })))
            .count();
        assert_eq!(delivered, 80);
        // Once the queue drains by one packet, one more is admitted.
        let t = Time::from_micros(500);
        assert!(matches!(
            l.offer(t, pkt(1250)),
            Offer::Now(Delivery::Arrives { .. })
        ));
        assert!(matches!(
            l.offer(t, pkt(1250)),
            Offer::Now(Delivery::Dropped {
                cause: DropCause::Queue,
                ..
            })
        ));
    }

    #[test]
    fn random_loss_after_the_queue_is_seeded() {
        let mut a = Link::new(&cfg(1000, 0, 1000, 0.05), 3);
        let mut b = Link::new(&cfg(1000, 0, 1000, 0.05), 3);
        let mut lost = 0;
        for i in 0..20_000u64 {
            let t = Time::from_micros(i * 100);
            let fa = a.offer(t, pkt(100));
            assert_eq!(fa, b.offer(t, pkt(100)));
            if let Offer::Now(Delivery::Dropped { cause, .. }) = fa {
                assert_eq!(cause, DropCause::Random);
                lost += 1;
            }
        }
        // 5 % of 20,000 = 1,000; 4 sigma ≈ 123.
        assert!((877..=1123).contains(&lost), "lost {lost}");
    }

    #[test]
    fn rate_step_applies_to_packets_offered_after_it() {
        let mut c = cfg(10, 0, 1000, 0.0);
        c.rate_steps = vec![RateStep {
            at: Duration::from_millis(10),
            rate: Rate::from_bits_per_sec(5_000_000),
        }];
        let mut l = Link::new(&c, 1);
        let at = |o| match o {
            Offer::Now(Delivery::Arrives { at, .. }) => at,
            o => panic!("{o:?}"),
        };
        // 1250 bytes: 1 ms at 10 Mbit/s, 2 ms at 5.
        assert_eq!(at(l.offer(Time::ZERO, pkt(1250))), Time::from_millis(1));
        assert_eq!(
            at(l.offer(Time::from_millis(10), pkt(1250))),
            Time::from_millis(12)
        );
    }

    /// A trace link with `text`'s opportunities, 20 ms of delay and a
    /// large buffer.
    fn trace_link(text: &str) -> Link<u32> {
        let t = Arc::new(DeliveryTrace::parse(text, "t.trace").unwrap());
        let mut c = cfg(1, 20, 1000, 0.0);
        c.rate = t.mean_rate();
        c.limit_bytes = 100_000_000;
        c.trace = Some(t);
        Link::new(&c, 1)
    }

    #[test]
    fn trace_link_delivers_at_the_trace_rate_over_repetitions() {
        // A bursty 30 ms trace: 20 opportunities at 5 ms, 10 at 17 ms, 30
        // at 30 ms = 60 per period, 24 Mbit/s on average. A backlogged
        // sender gets exactly 60 x 1500 bytes per period, period after
        // period, each delivered at an opportunity's time plus the delay.
        let text: String = [(5, 20), (17, 10), (30, 30)]
            .iter()
            .flat_map(|&(t, n)| std::iter::repeat_n(format!("{t}\n"), n))
            .collect();
        let mut l = trace_link(&text);
        let mut arrivals = Vec::new();
        for i in 0..3000u32 {
            match l.offer(
                Time::ZERO,
                Packet {
                    payload: i,
                    size: 1500,
                    ecn: EcnCodepoint::NotEct,
                    flow: 0,
                },
            ) {
                Offer::Now(Delivery::Arrives { at, .. }) => arrivals.push(at),
                o => panic!("{o:?}"),
            }
        }
        assert_eq!(l.bottleneck_ref().rate().bits_per_sec(), 24_000_000);
        // 10 periods (300 ms) carry 600 packets; the 601st waits for the
        // 11th period's first opportunity, at 305 ms (+ 20 ms delay).
        assert_eq!(arrivals[599], Time::from_millis(320));
        assert_eq!(arrivals[600], Time::from_millis(325));
        let per_ms = |ms: u64| {
            arrivals
                .iter()
                .filter(|&&a| a == Time::from_millis(ms + 20))
                .count()
        };
        for c in 0..10 {
            assert_eq!(
                (per_ms(30 * c + 5), per_ms(30 * c + 17)),
                (20, 10),
                "period {c}"
            );
        }
        // 3000 packets take 50 periods: the last leaves at 1500 ms.
        assert_eq!(arrivals[2999], Time::from_millis(1520));
    }

    #[test]
    fn trace_link_loses_opportunities_when_idle() {
        // One opportunity per ms; a packet every 4 ms uses one in four and
        // waits at most until the next whole millisecond.
        let text: String = (1..=8).map(|i| format!("{i}\n")).collect();
        let mut l = trace_link(&text);
        for i in 0..40u64 {
            let now = Time::from_micros(i * 4000 + 300);
            match l.offer(
                now,
                Packet {
                    payload: 0,
                    size: 1200,
                    ecn: EcnCodepoint::NotEct,
                    flow: 0,
                },
            ) {
                Offer::Now(Delivery::Arrives { at, .. }) => {
                    assert_eq!(at, Time::from_millis(i * 4 + 1 + 20))
                }
                o => panic!("{o:?}"),
            }
        }
    }

    #[test]
    fn trace_link_buffer_counts_bytes_until_their_opportunity() {
        // 3000-byte buffer, one opportunity every 10 ms: two packets queue,
        // the third is dropped until the first opportunity has fired.
        let t = Arc::new(DeliveryTrace::parse("10\n", "t.trace").unwrap());
        let mut c = cfg(1, 0, 1000, 0.0);
        c.limit_bytes = 3000;
        c.trace = Some(t);
        let mut l: Link<()> = Link::new(&c, 1);
        let fate = |l: &mut Link<()>, ms| match l.offer(Time::from_millis(ms), pkt(1500)) {
            Offer::Now(Delivery::Arrives { at, .. }) => Some(at),
            Offer::Now(Delivery::Dropped { .. }) => None,
            o => panic!("{o:?}"),
        };
        assert_eq!(fate(&mut l, 0), Some(Time::from_millis(10)));
        assert_eq!(fate(&mut l, 0), Some(Time::from_millis(20)));
        assert_eq!(fate(&mut l, 0), None);
        assert_eq!(fate(&mut l, 10), Some(Time::from_millis(30)));
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Whatever arrives, under any discipline: deliveries leave in
            /// order, at least one serialisation time apart, never before
            /// arrival + serialisation + delay; every packet is accounted
            /// for exactly once; the buffer limit holds.
            #[test]
            fn link_invariants(
                rate_kbit in 100u64..1_000_000,
                delay_us in 0u64..200_000,
                queue_us in 1_000u64..200_000,
                aqm in prop_oneof![
                    Just(Aqm::DropTail),
                    Just(Aqm::Step { threshold: Duration::from_millis(1) }),
                    Just(Aqm::CoDel(Default::default())),
                    Just(Aqm::FqCoDel(Default::default())),
                    Just(Aqm::Pie(crate::PieParams::RFC8033)),
                    Just(Aqm::Pie(crate::PieParams::DOCSIS)),
                    Just(Aqm::DualPi2(crate::DualPi2Params::LINUX)),
                ],
                arrivals in proptest::collection::vec((0u64..5_000, 1u32..1500, 0u32..4, 0usize..4), 1..300),
            ) {
                let rate = Rate::from_bits_per_sec(rate_kbit * 1000);
                let limit = crate::queue_bytes_for(rate, Duration::from_micros(queue_us)).max(1500);
                let c = LinkConfig::new(rate, limit, Duration::from_micros(delay_us)).with_aqm(aqm);
                let mut l: Link<(usize, Time, u32)> = Link::new(&c, 5);
                let mut now = Time::ZERO;
                let mut fates = Vec::new();
                for (i, (gap_us, size, flow, ect)) in arrivals.iter().copied().enumerate() {
                    now += Duration::from_micros(gap_us);
                    l.poll(now, |d| fates.push(d));
                    let ecn = EcnCodepoint::ALL[ect];
                    let p = Packet { payload: (i, now, size), size, ecn, flow };
                    match l.offer(now, p) {
                        Offer::Now(d) => fates.push(d),
                        Offer::Held { evicted } => fates.extend(evicted),
                    }
                    prop_assert!(l.bottleneck_ref().backlog_bytes() <= c.limit_bytes + 1500);
                }
                l.poll(Time::MAX, |d| fates.push(d));
                let mut seen = vec![0u32; arrivals.len()];
                let mut last: Option<Time> = None;
                for f in &fates {
                    match *f {
                        Delivery::Arrives { payload: (i, sent, size), at, .. } => {
                            seen[i] += 1;
                            let tx = rate.transmit_time(u64::from(size));
                            prop_assert!(at >= sent + tx + c.delay);
                            if let Some(prev) = last {
                                prop_assert!(at >= prev + tx);
                            }
                            last = Some(at);
                        }
                        Delivery::Dropped { payload: (i, _, _), cause, .. } => {
                            seen[i] += 1;
                            prop_assert!(cause != DropCause::Random && cause != DropCause::Policer);
                        }
                    }
                }
                prop_assert!(seen.iter().all(|n| *n == 1), "{seen:?}");
            }
        }
    }
}
