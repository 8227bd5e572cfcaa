//! The path as the engine sees it: the forward link (policer -> queue
//! discipline and bottleneck -> random loss -> propagation delay, the model
//! `ramp relay` runs too) shared by every flow, and the reverse path
//! (optional serialisation and ACK aggregation, then propagation delay;
//! lossless), ending in the data sender's receive loop when ACK batching
//! at the sender is on (`crate::wakeup`).

use core::time::Duration;

use ramp_cc::Time;

use crate::scenario::PathConfig;
use crate::server::Datagram;
use ramp_link::{AckAggregation, Delivery, Link, Offer, Packet};

/// What the forward link carries: a datagram and its flow's index.
pub(crate) type Carried = (u32, Datagram);

/// The whole path.
#[derive(Debug)]
pub(crate) struct Path {
    /// Server -> client: the shared link model (policer, queue
    /// discipline, random loss, delay, rate steps).
    forward: Link<Carried>,
    reverse_delay: Duration,
    reverse_rate: Option<ramp_cc::Rate>,
    reverse_busy_until: Time,
    ack_aggregation: Option<AckAggregation>,
    /// The data sender's receive loop (ACK batching at the sender).
    wakeup: Option<crate::wakeup::WakeupElement>,
    last_reverse_arrival: Time,
    /// Bytes each packet costs the links beyond its datagram
    /// (`PathConfig::header_bytes`).
    header_bytes: u32,
}

impl Path {
    /// The path of `cfg`, with random elements seeded from `seed`.
    pub(crate) fn new(cfg: &PathConfig, seed: u64) -> Path {
        Path {
            forward: Link::new(&cfg.forward_link(), seed),
            reverse_delay: cfg.reverse_delay,
            reverse_rate: cfg.reverse_rate,
            reverse_busy_until: Time::ZERO,
            ack_aggregation: cfg.elements.aggregation,
            wakeup: cfg.ack_batching.clone().map(|l| {
                crate::wakeup::WakeupElement::new(
                    l,
                    ramp_vocab::rng::Stream::SenderWakeup.rng(seed),
                )
            }),
            last_reverse_arrival: Time::ZERO,
            header_bytes: cfg.header_bytes,
        }
    }

    /// Offers flow `flow`'s server datagram `d` to the forward link at `now`.
    #[inline]
    pub(crate) fn forward(&mut self, now: Time, flow: u32, d: Datagram) -> Offer<Carried> {
        self.forward.offer(
            now,
            Packet {
                payload: (flow, d),
                size: d.size + self.header_bytes,
                ecn: d.ecn,
                flow,
            },
        )
    }

    /// When the forward link next dequeues a held packet (CoDel, FQ-CoDel).
    pub(crate) fn next_wake(&self) -> Option<Time> {
        self.forward.next_wake()
    }

    /// Runs the forward link's dequeues due by `now`; `out` gets each
    /// packet's fate.
    pub(crate) fn poll(&mut self, now: Time, out: impl FnMut(Delivery<Carried>)) {
        self.forward.poll(now, out);
    }

    /// Reports every bottleneck departure up to `now` (time, backlog after,
    /// queueing delay then), for the dequeue side of queue traces.
    pub(crate) fn drain_queue(&mut self, now: Time, on_departure: impl FnMut(Time, u64, Duration)) {
        self.forward.bottleneck().drain_reporting(now, on_departure);
    }

    /// Bottleneck backlog (bytes) and the delay a packet arriving at `now`
    /// would see, for traces.
    pub(crate) fn queue_state(&self, now: Time) -> (u64, Duration) {
        let b = self.forward.bottleneck_ref();
        (b.backlog_bytes(), b.queue_delay(now))
    }

    /// Sends a client packet of `size` bytes at `now`; returns its arrival
    /// time at the server. Arrivals are non-decreasing (the reverse path is
    /// FIFO), which lets each flow keep its in-flight client packets in a
    /// plain queue.
    #[inline]
    pub(crate) fn reverse(&mut self, now: Time, size: u32) -> Time {
        let mut t = now;
        if let Some(r) = self.reverse_rate {
            let start = self.reverse_busy_until.max(now);
            t = start + r.transmit_time(u64::from(size + self.header_bytes));
            self.reverse_busy_until = t;
        }
        if let Some(agg) = &self.ack_aggregation {
            t = agg.release(t);
        }
        let mut at = (t + self.reverse_delay).max(self.last_reverse_arrival);
        if let Some(w) = &mut self.wakeup {
            // Arrivals are non-decreasing, and so are wake-ups.
            at = w.process_at(at);
        }
        self.last_reverse_arrival = at;
        at
    }
}
