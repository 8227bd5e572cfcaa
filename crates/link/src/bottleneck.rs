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
mod tests;
