//! The path as the engine sees it: the forward chain (policer -> drop-tail
//! bottleneck -> propagation delay -> random loss) shared by every flow, and
//! the reverse path (optional serialisation and ACK aggregation, then
//! propagation delay; lossless).

use core::time::Duration;

use ramp_cc::time::duration_nanos;
use ramp_cc::{Rate, Time};

use crate::link::{Admission, Bottleneck, LossElement, Policer};
use crate::rng::Stream;
use crate::scenario::{PathConfig, RateStep};

/// Where a forward packet ended up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Arrives at the client at this time (CE-marked or not).
    Arrives {
        /// Arrival time at the receiver.
        at: Time,
        /// CE mark.
        ce: bool,
    },
    /// Dropped by the policer.
    Policed,
    /// Dropped at the queue tail.
    QueueFull,
    /// Dropped by random loss (after the queue).
    RandomLoss,
}

/// The whole path.
#[derive(Debug)]
pub struct Network {
    policer: Option<Policer>,
    bottleneck: Bottleneck,
    forward_delay: Duration,
    loss: LossElement,
    reverse_delay: Duration,
    reverse_rate: Option<Rate>,
    reverse_busy_until: Time,
    ack_aggregation_ns: Option<u64>,
    last_reverse_arrival: Time,
    /// Rate steps not yet applied, earliest first.
    rate_steps: Vec<RateStep>,
}

impl Network {
    /// The path of `cfg`, with random elements seeded from `seed`.
    pub fn new(cfg: &PathConfig, seed: u64) -> Network {
        Network {
            policer: cfg.policer.map(|(r, b)| Policer::new(r, b)),
            bottleneck: Bottleneck::new(cfg.rate, cfg.queue_bytes(), cfg.ecn_threshold),
            forward_delay: cfg.forward_delay,
            loss: LossElement::new(cfg.loss, Stream::ForwardLoss.rng(seed)),
            reverse_delay: cfg.reverse_delay,
            reverse_rate: cfg.reverse_rate,
            reverse_busy_until: Time::ZERO,
            ack_aggregation_ns: cfg.ack_aggregation.map(duration_nanos).filter(|n| *n > 0),
            last_reverse_arrival: Time::ZERO,
            rate_steps: cfg.rate_steps.iter().rev().copied().collect(),
        }
    }

    /// Sends a server packet of `size` bytes at `now`.
    #[inline]
    pub fn forward(&mut self, now: Time, size: u32, ect: bool) -> Fate {
        // A rate step applies to the packets offered from its time on.
        while self
            .rate_steps
            .last()
            .is_some_and(|s| Time::ZERO + s.at <= now)
        {
            if let Some(s) = self.rate_steps.pop() {
                self.bottleneck.set_rate(s.rate);
            }
        }
        if let Some(p) = &mut self.policer {
            if !p.admit(now, size) {
                return Fate::Policed;
            }
        }
        match self.bottleneck.offer(now, size, ect) {
            Admission::Dropped => Fate::QueueFull,
            Admission::Queued { departure, ce } => {
                if self.loss.drops() {
                    Fate::RandomLoss
                } else {
                    Fate::Arrives {
                        at: departure + self.forward_delay,
                        ce,
                    }
                }
            }
        }
    }

    /// Reports every bottleneck departure up to `now` (time, backlog after,
    /// queueing delay then), for the dequeue side of queue traces.
    pub fn drain_queue(&mut self, now: Time, on_departure: impl FnMut(Time, u64, Duration)) {
        self.bottleneck.drain_reporting(now, on_departure);
    }

    /// Bottleneck backlog (bytes) and the delay a packet arriving at `now`
    /// would see, for traces.
    pub fn queue_state(&self, now: Time) -> (u64, Duration) {
        (
            self.bottleneck.backlog_bytes(),
            self.bottleneck.queue_delay(now),
        )
    }

    /// Sends a client packet of `size` bytes at `now`; returns its arrival
    /// time at the server. Arrivals are non-decreasing (the reverse path is
    /// FIFO), which lets each flow keep its in-flight client packets in a
    /// plain queue.
    #[inline]
    pub fn reverse(&mut self, now: Time, size: u32) -> Time {
        let mut t = now;
        if let Some(r) = self.reverse_rate {
            let start = self.reverse_busy_until.max(now);
            t = start + r.transmit_time(u64::from(size));
            self.reverse_busy_until = t;
        }
        if let Some(agg) = self.ack_aggregation_ns {
            // Hold until the next multiple of the aggregation interval.
            let ns = t.as_nanos();
            t = Time::from_nanos(ns.div_ceil(agg).saturating_mul(agg));
        }
        let at = (t + self.reverse_delay).max(self.last_reverse_arrival);
        self.last_reverse_arrival = at;
        at
    }
}
