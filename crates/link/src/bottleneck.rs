//! The bottleneck: a queue discipline in front of the constant-rate
//! server, behind a byte limit.
//!
//! Two kinds of discipline, one interface. Drop-tail, step marking and PIE
//! decide a packet's fate on arrival, so its departure is known at once and
//! [`Bottleneck::offer`] returns it ([`Admission::Departs`]): no dequeue
//! event, which keeps the simulator's common case as fast as a bare FIFO.
//! CoDel and FQ-CoDel decide at dequeue, from the time a packet spent
//! queued; they hold the packet ([`Admission::Held`]) and the caller calls
//! [`Bottleneck::poll`] at [`Bottleneck::next_dequeue`], when the server
//! finishes the packet before and pulls the next one.

use std::time::Duration;

use ramp_vocab::rng::Rng;
use ramp_vocab::{Rate, Time};

use crate::aqm::Aqm;
use crate::codel::{Backlog, CoDel, CoDelParams, HeldQueue};
use crate::dualpi2::DualPi2;
use crate::fq_codel::FqCoDel;
use crate::packet::{DropCause, Packet};
use crate::pie::{Pie, PieVerdict};
use crate::server::Server;
use crate::trace::DeliveryTrace;

/// A packet leaving the bottleneck.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Departure<P> {
    /// The packet.
    pub packet: Packet<P>,
    /// When its last bit leaves the link.
    pub at: Time,
    /// Whether the discipline CE-marked it.
    pub ce: bool,
}

/// What the bottleneck did with an arriving packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Admission<P> {
    /// Accepted; it leaves at a time already known.
    Departs(Departure<P>),
    /// Held by a dequeue-time discipline; it leaves through
    /// [`Bottleneck::poll`]. FQ-CoDel may have dropped packets of the
    /// fattest flow to make room (`evicted`).
    Held {
        /// Packets dropped from the fattest queue on overflow, in drop
        /// order: one when packets are of one size, more when a large
        /// packet's arrival is paid for with small ones.
        evicted: Vec<Packet<P>>,
    },
    /// Dropped on arrival.
    Dropped {
        /// The packet.
        packet: Packet<P>,
        /// Tail drop ([`DropCause::Queue`]) or PIE's early drop
        /// ([`DropCause::Aqm`]).
        cause: DropCause,
    },
}

/// What [`Bottleneck::poll`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dequeue<P> {
    /// The packet starts serialisation and leaves at `at`.
    Departs(Departure<P>),
    /// CoDel dropped it at dequeue time `at`.
    Dropped {
        /// The packet.
        packet: Packet<P>,
        /// When it was dropped.
        at: Time,
    },
}

/// The per-discipline state.
#[derive(Clone, Debug)]
enum Discipline<P> {
    DropTail {
        step: Option<Duration>,
    },
    Pie(Box<Pie>),
    CoDel {
        codel: CoDel,
        params: CoDelParams,
        q: HeldQueue<P>,
    },
    FqCoDel(Box<FqCoDel<P>>),
    DualPi2(Box<DualPi2<P>>),
}

/// A queue discipline, a byte limit and the link's server.
#[derive(Clone, Debug)]
pub struct Bottleneck<P> {
    server: Server,
    limit_bytes: u64,
    discipline: Discipline<P>,
    /// When a held packet is next pulled (held disciplines only; `None`
    /// while nothing is held).
    next_dequeue: Option<Time>,
}

impl<P> Bottleneck<P> {
    /// A link of `rate` running `aqm` over a buffer of `limit_bytes` (the
    /// packet in service included). `rng` feeds PIE's random drops.
    pub fn new(rate: Rate, limit_bytes: u64, aqm: Aqm, rng: Rng) -> Bottleneck<P> {
        Bottleneck::with_server(Server::new(rate), limit_bytes, aqm, rng)
    }

    /// A link that delivers at `trace`'s opportunities (Mahimahi's
    /// trace-driven link) instead of at a constant rate; [`Bottleneck::rate`]
    /// is then the trace's mean rate.
    pub fn with_trace(
        trace: std::sync::Arc<DeliveryTrace>,
        limit_bytes: u64,
        aqm: Aqm,
        rng: Rng,
    ) -> Bottleneck<P> {
        Bottleneck::with_server(Server::with_trace(trace), limit_bytes, aqm, rng)
    }

    fn with_server(server: Server, limit_bytes: u64, aqm: Aqm, rng: Rng) -> Bottleneck<P> {
        let discipline = match aqm {
            Aqm::DropTail => Discipline::DropTail { step: None },
            Aqm::Step { threshold } => Discipline::DropTail {
                step: Some(threshold),
            },
            Aqm::Pie(p) => Discipline::Pie(Box::new(Pie::new(p, limit_bytes, rng))),
            Aqm::CoDel(params) => Discipline::CoDel {
                codel: CoDel::default(),
                params,
                q: HeldQueue::new(),
            },
            Aqm::FqCoDel(p) => Discipline::FqCoDel(Box::new(FqCoDel::new(p))),
            Aqm::DualPi2(p) => {
                let p = p.at_rate(server.rate().bits_per_sec());
                Discipline::DualPi2(Box::new(DualPi2::new(p, rng)))
            }
        };
        Bottleneck {
            server,
            limit_bytes,
            discipline,
            next_dequeue: None,
        }
    }

    /// The link rate (a trace-driven link's mean rate).
    pub fn rate(&self) -> Rate {
        self.server.rate()
    }

    /// The delivery trace of a trace-driven link.
    pub fn trace(&self) -> Option<&DeliveryTrace> {
        self.server.trace()
    }

    /// Makes the link cellular: the first bytes of each burst after idle
    /// go slower (`crate::cellular`).
    pub fn set_cellular(&mut self, c: crate::Cellular) {
        self.server.set_cellular(c);
    }

    /// Serves packets from now on at `rate` (a rate step); packets already
    /// in service keep their departure times.
    pub fn set_rate(&mut self, rate: Rate) {
        self.server.set_rate(rate);
    }

    fn held_bytes(&self) -> u64 {
        match &self.discipline {
            Discipline::CoDel { q, .. } => q.bytes(),
            Discipline::FqCoDel(fq) => fq.bytes(),
            Discipline::DualPi2(d) => d.bytes(),
            _ => 0,
        }
    }

    /// Bytes queued or in service, as of the last offer or poll.
    pub fn backlog_bytes(&self) -> u64 {
        self.server.backlog_bytes() + self.held_bytes()
    }

    /// The queueing delay a packet arriving at `now` would see if the
    /// discipline served it in order (for traces).
    pub fn queue_delay(&self, now: Time) -> Duration {
        self.server.wait(now) + self.server.rate().transmit_time(self.held_bytes())
    }

    /// DualPI2's base probability p′, if it runs DualPI2 (read by the
    /// conformance tests against RFC 9332's overload rule).
    pub fn dualpi2_base_probability(&self) -> Option<f64> {
        match &self.discipline {
            Discipline::DualPi2(d) => Some(d.base_probability()),
            _ => None,
        }
    }

    /// When [`Bottleneck::poll`] next has something to do.
    pub fn next_dequeue(&self) -> Option<Time> {
        self.next_dequeue
    }

    /// Reports the departures up to `now` as `(time, backlog after, wait it
    /// had)`, for the dequeue half of queue traces; it changes nothing an
    /// offer would not change the same way.
    pub fn drain_reporting(&mut self, now: Time, on_departure: impl FnMut(Time, u64, Duration)) {
        self.server.drain(now, on_departure);
    }

    /// Offers `packet` at `now`.
    #[inline]
    pub fn offer(&mut self, now: Time, packet: Packet<P>) -> Admission<P> {
        self.server.drain(now, |_, _, _| {});
        let size = u64::from(packet.size);
        let backlog = self.server.backlog_bytes() + self.held_bytes();
        match &mut self.discipline {
            Discipline::DropTail { step } => {
                if backlog + size > self.limit_bytes {
                    return Admission::Dropped {
                        packet,
                        cause: DropCause::Queue,
                    };
                }
                let step = *step;
                let (at, waited) = self.server.accept(now, packet.size);
                let ce = packet.ecn.is_ect() && step.is_some_and(|th| waited > th);
                Admission::Departs(Departure { packet, at, ce })
            }
            Discipline::Pie(pie) => {
                if backlog + size > self.limit_bytes {
                    return Admission::Dropped {
                        packet,
                        cause: DropCause::Queue,
                    };
                }
                let busy_until = self.server.busy_until();
                pie.catch_up(now, |t| busy_until - t);
                let ce = match pie.on_arrival(packet.size, packet.ecn.is_ect(), backlog) {
                    PieVerdict::Drop => {
                        return Admission::Dropped {
                            packet,
                            cause: DropCause::Aqm,
                        }
                    }
                    PieVerdict::Mark => true,
                    PieVerdict::Pass => false,
                };
                let (at, _) = self.server.accept(now, packet.size);
                Admission::Departs(Departure { packet, at, ce })
            }
            Discipline::CoDel { q, .. } => {
                if backlog + size > self.limit_bytes {
                    return Admission::Dropped {
                        packet,
                        cause: DropCause::Queue,
                    };
                }
                q.push(now, packet);
                self.arm(now);
                Admission::Held {
                    evicted: Vec::new(),
                }
            }
            Discipline::FqCoDel(fq) => {
                fq.enqueue(now, packet);
                // RFC 8290 §4.1: on overflow, drop from the head of the
                // fattest queue, until the buffer holds again. One drop
                // makes room for a packet of the dropped one's size; a
                // 1 500-byte arrival paid for with 1-byte drops must keep
                // dropping, or the backlog creeps past the buffer.
                let mut evicted = Vec::new();
                while self.server.backlog_bytes() + fq.bytes() > self.limit_bytes {
                    match fq.drop_from_fattest() {
                        Some(p) => evicted.push(p),
                        None => break,
                    }
                }
                self.arm(now);
                Admission::Held { evicted }
            }
            Discipline::DualPi2(d) => {
                // Linux sch_dualpi2 tail-drops at its limit, for both
                // queues alike.
                if backlog + size > self.limit_bytes {
                    return Admission::Dropped {
                        packet,
                        cause: DropCause::Queue,
                    };
                }
                d.enqueue(now, packet);
                self.arm(now);
                Admission::Held {
                    evicted: Vec::new(),
                }
            }
        }
    }

    /// A packet is held: if the server is idle, it pulls it now.
    fn arm(&mut self, now: Time) {
        if self.next_dequeue.is_none() {
            self.next_dequeue = Some(self.server.busy_until().max(now));
        }
    }

    /// Runs every dequeue due by `now`, in time order, reporting each
    /// packet that starts serialisation and each packet CoDel drops.
    pub fn poll(&mut self, now: Time, mut out: impl FnMut(Dequeue<P>)) {
        while let Some(t) = self.next_dequeue {
            if t > now {
                break;
            }
            self.server.drain(t, |_, _, _| {});
            let mut on_drop = |packet| out(Dequeue::Dropped { packet, at: t });
            let got = match &mut self.discipline {
                Discipline::CoDel { codel, params, q } => {
                    codel.dequeue(t, q, params, Backlog::Own, &mut on_drop)
                }
                Discipline::FqCoDel(fq) => fq.dequeue(t, &mut on_drop),
                Discipline::DualPi2(d) => d.dequeue(t, &mut on_drop).map(|(p, ce, _)| (p, ce)),
                Discipline::DropTail { .. } | Discipline::Pie(_) => None,
            };
            let Some((packet, ce)) = got else {
                self.next_dequeue = None;
                break;
            };
            let (at, _) = self.server.accept(t, packet.size);
            out(Dequeue::Departs(Departure { packet, at, ce }));
            let empty = match &self.discipline {
                Discipline::CoDel { q, .. } => q.is_empty(),
                Discipline::FqCoDel(fq) => fq.is_empty(),
                Discipline::DualPi2(d) => d.is_empty(),
                _ => true,
            };
            self.next_dequeue = if empty { None } else { Some(at) };
        }
    }
}

/// Bytes a queue of `queue` holds at `rate` (the quicly convention: a
/// queue is configured as time at the link rate and enforced in bytes).
pub fn queue_bytes_for(rate: Rate, queue: Duration) -> u64 {
    rate.bytes_in(queue)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ramp_vocab::EcnCodepoint;

    fn mbit(v: u64) -> Rate {
        Rate::from_bits_per_sec(v * 1_000_000)
    }

    fn pkt(flow: u32, ect: bool) -> Packet<()> {
        Packet {
            payload: (),
            size: 1000,
            ecn: if ect {
                EcnCodepoint::Ect0
            } else {
                EcnCodepoint::NotEct
            },
            flow,
        }
    }

    fn link(aqm: Aqm, limit: u64) -> Bottleneck<()> {
        Bottleneck::new(mbit(10), limit, aqm, Rng::new(1, 3))
    }

    #[test]
    fn drop_tail_at_the_byte_limit() {
        // Room for exactly 3 packets of 1000 bytes.
        let mut b = link(Aqm::DropTail, 3000);
        let t = Time::from_millis(5);
        for _ in 0..3 {
            assert!(matches!(b.offer(t, pkt(0, false)), Admission::Departs(_)));
        }
        assert!(matches!(
            b.offer(t, pkt(0, false)),
            Admission::Dropped {
                cause: DropCause::Queue,
                ..
            }
        ));
        assert_eq!(b.backlog_bytes(), 3000);
        // After one serialisation time (800 µs at 10 Mbit/s), one slot frees.
        let later = t + Duration::from_micros(800);
        assert!(matches!(
            b.offer(later, pkt(0, false)),
            Admission::Departs(_)
        ));
        assert!(matches!(
            b.offer(later, pkt(0, false)),
            Admission::Dropped { .. }
        ));
    }

    #[test]
    fn queue_ms_converts_at_link_rate() {
        // 30 ms at 100 Mbit/s = 375,000 bytes.
        assert_eq!(
            queue_bytes_for(mbit(100), Duration::from_millis(30)),
            375_000
        );
    }

    #[test]
    fn step_marks_only_above_the_threshold() {
        let mut b = link(
            Aqm::Step {
                threshold: Duration::from_micros(1000),
            },
            1_000_000,
        );
        let t = Time::from_millis(1);
        // Waits of 0, 800 and 1600 µs: only the third is marked.
        let marks: Vec<bool> = (0..3)
            .map(|_| match b.offer(t, pkt(0, true)) {
                Admission::Departs(d) => d.ce,
                a => panic!("{a:?}"),
            })
            .collect();
        assert_eq!(marks, [false, false, true]);
        // Not ECN-capable: never marked.
        assert!(matches!(
            b.offer(t, pkt(0, false)),
            Admission::Departs(Departure { ce: false, .. })
        ));
    }

    /// Offers `n` packets of `flow` at `t` and polls through `until`;
    /// returns (departures, drops) with their times.
    fn run_held(
        b: &mut Bottleneck<()>,
        arrivals: &[(Time, u32, bool)],
        until: Time,
    ) -> (Vec<(Time, u32, bool)>, Vec<Time>) {
        let mut deps = Vec::new();
        let mut drops = Vec::new();
        for &(t, flow, ect) in arrivals {
            b.poll(t, |d| match d {
                Dequeue::Departs(d) => deps.push((d.at, d.packet.flow, d.ce)),
                Dequeue::Dropped { at, .. } => drops.push(at),
            });
            match b.offer(t, pkt(flow, ect)) {
                Admission::Held { evicted } if evicted.is_empty() => {}
                a => panic!("{a:?}"),
            }
        }
        b.poll(until, |d| match d {
            Dequeue::Departs(d) => deps.push((d.at, d.packet.flow, d.ce)),
            Dequeue::Dropped { at, .. } => drops.push(at),
        });
        (deps, drops)
    }

    #[test]
    fn codel_link_serves_at_rate_and_drops_a_standing_queue() {
        // 2 packets per ms offered to a 1.25 packet/ms link for 1 s: a
        // standing queue builds, and CoDel drops from 100 ms above target on.
        let mut b = link(Aqm::CoDel(CoDelParams::default()), 10_000_000);
        let arrivals: Vec<_> = (0..2000u64)
            .map(|i| (Time::from_micros(i * 500), 0, false))
            .collect();
        let (deps, drops) = run_held(&mut b, &arrivals, Time::from_millis(3000));
        // Departures are one serialisation time (800 µs) apart while busy.
        for w in deps.windows(2).take(500) {
            assert!(w[1].0 - w[0].0 >= Duration::from_micros(800));
        }
        assert!(!drops.is_empty());
        // The sojourn time passes target within a few ms; the first drop
        // comes one interval after that, so not before 100 ms.
        assert!(drops[0] >= Time::from_millis(100), "{:?}", drops[0]);
        assert_eq!(deps.len() + drops.len(), 2000);
    }

    #[test]
    fn codel_marks_ect_where_it_would_drop() {
        let arrivals = |ect| -> Vec<(Time, u32, bool)> {
            (0..2000u64)
                .map(|i| (Time::from_micros(i * 500), 0, ect))
                .collect()
        };
        let mut plain = link(Aqm::CoDel(CoDelParams::default()), 10_000_000);
        let (_, drops) = run_held(&mut plain, &arrivals(false), Time::from_millis(3000));
        let mut ecn = link(Aqm::CoDel(CoDelParams::default()), 10_000_000);
        let (deps, no_drops) = run_held(&mut ecn, &arrivals(true), Time::from_millis(3000));
        assert!(no_drops.is_empty());
        let first_mark = deps.iter().find(|d| d.2).map(|d| d.0);
        // The first mark is on the packet dequeued when the first drop
        // would have been; it leaves one serialisation time later.
        assert_eq!(first_mark, Some(drops[0] + Duration::from_micros(800)));
    }

    #[test]
    fn rfc8290_fq_isolation_sparse_flow_delay_unaffected_by_bulk_flow() {
        // Flow 1 overloads the link (2 packets/ms on 1.25/ms); flow 2 sends
        // one packet every 20 ms. Under FQ-CoDel flow 2's packets wait at
        // most about one packet's serialisation; under drop-tail and CoDel
        // they wait behind flow 1's standing queue.
        let mut arrivals = Vec::new();
        for i in 0..2000u64 {
            arrivals.push((Time::from_micros(i * 500), 1, false));
            if i % 40 == 7 {
                arrivals.push((Time::from_micros(i * 500), 2, false));
            }
        }
        let sparse_delays = |aqm| {
            // The payload is the arrival time, so each departure gives its
            // packet's own delay (CoDel may drop a sparse packet too).
            let mut b: Bottleneck<Time> =
                Bottleneck::new(mbit(10), 10_000_000, aqm, Rng::new(1, 3));
            let mut worst = Duration::ZERO;
            let mut got = 0;
            let mut note = |d: Dequeue<Time>| {
                if let Dequeue::Departs(d) = d {
                    if d.packet.flow == 2 {
                        worst = worst.max(d.at - d.packet.payload);
                        got += 1;
                    }
                }
            };
            for &(t, flow, _) in &arrivals {
                b.poll(t, &mut note);
                let p = Packet {
                    payload: t,
                    size: 1000,
                    ecn: EcnCodepoint::NotEct,
                    flow,
                };
                assert!(matches!(b.offer(t, p), Admission::Held { .. }));
            }
            b.poll(Time::from_millis(5000), &mut note);
            (worst, got)
        };
        let (fq, got) = sparse_delays(Aqm::FqCoDel(Default::default()));
        assert_eq!(got, 50, "FQ-CoDel never drops the sparse flow");
        let (codel, _) = sparse_delays(Aqm::CoDel(Default::default()));
        // Two serialisation times: the packet in service, then its own.
        assert!(fq <= Duration::from_micros(1600), "fq {fq:?}");
        assert!(codel > Duration::from_millis(5), "codel {codel:?}");
    }

    #[test]
    fn rfc8290_4_1_overflow_drops_from_the_fattest_until_the_buffer_holds() {
        // Flow 1 fills a 10 000-byte buffer with 1-byte packets; a
        // 1 000-byte packet of flow 2 then arrives. One
        // drop frees one byte: the fattest queue must keep giving up its
        // head until the arrival fits, or the backlog creeps past the
        // buffer with every such arrival.
        let mut b = link(Aqm::FqCoDel(Default::default()), 10_000);
        let t = Time::ZERO;
        let small = |flow| Packet {
            payload: (),
            size: 1,
            ecn: EcnCodepoint::NotEct,
            flow,
        };
        for _ in 0..10_000 {
            match b.offer(t, small(1)) {
                Admission::Held { evicted } => assert!(evicted.is_empty()),
                a => panic!("{a:?}"),
            }
        }
        let Admission::Held { evicted } = b.offer(t, pkt(2, false)) else {
            panic!("FQ-CoDel holds every arrival");
        };
        assert_eq!(
            evicted.len(),
            1000,
            "as many 1-byte drops as the arrival needs"
        );
        assert!(evicted.iter().all(|p| p.flow == 1 && p.size == 1));
        assert!(b.backlog_bytes() <= 10_000, "{}", b.backlog_bytes());
        // Packets of one size: one arrival costs one drop, as before.
        let mut b = link(Aqm::FqCoDel(Default::default()), 10_000);
        for i in 0..12 {
            let Admission::Held { evicted } = b.offer(t, pkt(1, false)) else {
                panic!("FQ-CoDel holds every arrival");
            };
            assert_eq!(evicted.len(), usize::from(i >= 10), "arrival {i}");
        }
    }

    #[test]
    fn pie_drops_early_on_a_standing_queue_and_marks_ect() {
        for ect in [false, true] {
            let mut b = link(Aqm::Pie(crate::PieParams::RFC8033), 10_000_000);
            let mut drops = 0;
            let mut marks = 0;
            for i in 0..20_000u64 {
                match b.offer(Time::from_micros(i * 500), pkt(0, ect)) {
                    Admission::Dropped { cause, .. } => {
                        assert_eq!(cause, DropCause::Aqm);
                        drops += 1
                    }
                    Admission::Departs(d) => marks += u32::from(d.ce),
                    Admission::Held { .. } => unreachable!(),
                }
            }
            if ect {
                // Above 10 % drop probability PIE drops even ECT packets;
                // this load needs 37.5 %, so some marks first, then drops.
                assert!(marks > 0, "marks {marks}");
            } else {
                assert_eq!(marks, 0);
                // 16 Mbit/s offered to 10 Mbit/s: the link carries 62.5 %,
                // so PIE must drop about 37.5 % (the buffer never fills).
                assert!((6500..8500).contains(&drops), "drops {drops}");
            }
        }
    }
}
