//! The bottleneck model of one direction of the relay, in pure arithmetic.
//!
//! A link of rate `R` serialises packets one after another; a packet that
//! arrives at `t` starts when the link is free, finishes `size / R` later,
//! and is delivered one propagation delay after that. The drop-tail queue is
//! the backlog not yet serialised, `(busy_until − t) · R` bytes, limited to
//! `queue · R` bytes (a queue given in milliseconds at the link rate). A
//! packet that would overflow it is dropped (tail drop); a packet that
//! survives the queue is dropped at random with probability `loss`
//! (Bernoulli, from a seeded generator, before it enters the queue so a
//! randomly lost packet takes no link time).
//!
//! The model needs no real queue: delivery times are computed on arrival
//! and are non-decreasing, so the sender thread only keeps a FIFO.

use std::time::Duration;

use ramp_cc::{Rate, Time};

/// The properties of one direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkParams {
    /// Serialisation rate.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Queue capacity, as time at `rate`.
    pub queue: Duration,
    /// Random loss probability.
    pub loss: f64,
}

/// What happened to an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Deliver at `deliver_at`; the queue held `queue_bytes` before it.
    Deliver {
        /// When the packet leaves the far end of the link.
        deliver_at: Time,
        /// Backlog found on arrival, bytes.
        queue_bytes: u64,
    },
    /// Tail drop: the queue was full.
    QueueFull {
        /// Backlog found on arrival, bytes.
        queue_bytes: u64,
    },
    /// Random loss.
    Lost,
}

/// One direction's state.
#[derive(Clone, Debug)]
pub struct Link {
    params: LinkParams,
    capacity_bytes: u64,
    busy_until: Time,
    rng: SplitMix64,
}

impl Link {
    /// A link with an empty queue, its random losses drawn from `seed`.
    pub fn new(params: LinkParams, seed: u64) -> Link {
        let capacity_bytes = params.rate.bytes_in(params.queue);
        Link {
            params,
            capacity_bytes,
            busy_until: Time::ZERO,
            rng: SplitMix64::new(seed),
        }
    }

    /// The queue capacity, bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.capacity_bytes
    }

    /// The backlog at `now`, bytes.
    pub fn queue_bytes(&self, now: Time) -> u64 {
        self.params.rate.bytes_in(self.busy_until - now)
    }

    /// A packet of `bytes` arrives at `now`.
    pub fn arrive(&mut self, now: Time, bytes: u64) -> Verdict {
        let queue_bytes = self.queue_bytes(now);
        // A packet is admitted when the backlog before it fits the queue:
        // with a queue of `queue` ms, the newest admitted packet waits at
        // most `queue` before its own serialisation starts.
        if queue_bytes > 0 && queue_bytes + bytes > self.capacity_bytes {
            return Verdict::QueueFull { queue_bytes };
        }
        if self.params.loss > 0.0 && self.rng.next_f64() < self.params.loss {
            return Verdict::Lost;
        }
        let start = self.busy_until.max(now);
        self.busy_until = start + self.params.rate.transmit_time(bytes);
        Verdict::Deliver {
            deliver_at: self.busy_until + self.params.delay,
            queue_bytes,
        }
    }
}

pub use ramp_cc::rng::SplitMix64;

#[cfg(test)]
mod tests {
    use super::*;

    fn link(rate_mbit: u64, delay_ms: u64, queue_ms: u64, loss: f64) -> Link {
        Link::new(
            LinkParams {
                rate: Rate::from_bits_per_sec(rate_mbit * 1_000_000),
                delay: Duration::from_millis(delay_ms),
                queue: Duration::from_millis(queue_ms),
                loss,
            },
            7,
        )
    }

    #[test]
    fn idle_link_delivers_after_serialisation_and_delay() {
        let mut l = link(20, 20, 40, 0.0);
        // 1250 bytes at 20 Mbit/s = 500 µs.
        let v = l.arrive(Time::from_millis(1), 1250);
        assert_eq!(
            v,
            Verdict::Deliver {
                deliver_at: Time::from_micros(21_500),
                queue_bytes: 0
            }
        );
    }

    #[test]
    fn back_to_back_packets_are_spaced_at_the_link_rate() {
        let mut l = link(20, 20, 40, 0.0);
        let mut last = Time::ZERO;
        for i in 0..10 {
            match l.arrive(Time::ZERO, 1250) {
                Verdict::Deliver { deliver_at, .. } => {
                    assert_eq!(deliver_at, Time::from_micros(20_000 + 500 * (i + 1)));
                    assert!(deliver_at >= last);
                    last = deliver_at;
                }
                v => panic!("unexpected {v:?}"),
            }
        }
    }

    #[test]
    fn drop_tail_at_queue_capacity() {
        // 40 ms at 20 Mbit/s = 100,000 bytes = 80 packets of 1250.
        let mut l = link(20, 20, 40, 0.0);
        assert_eq!(l.capacity_bytes(), 100_000);
        let mut delivered = 0;
        let mut dropped = 0;
        for _ in 0..200 {
            match l.arrive(Time::ZERO, 1250) {
                Verdict::Deliver { .. } => delivered += 1,
                Verdict::QueueFull { queue_bytes } => {
                    assert!(queue_bytes + 1250 > 100_000);
                    dropped += 1
                }
                Verdict::Lost => unreachable!(),
            }
        }
        assert_eq!((delivered, dropped), (80, 120));
        // Once the queue drains by one packet, one more is admitted.
        assert!(matches!(
            l.arrive(Time::from_micros(500), 1250),
            Verdict::Deliver { .. }
        ));
        assert!(matches!(
            l.arrive(Time::from_micros(500), 1250),
            Verdict::QueueFull { .. }
        ));
    }

    #[test]
    fn random_loss_rate_and_determinism() {
        let mut a = link(1000, 0, 1000, 0.05);
        let mut b = link(1000, 0, 1000, 0.05);
        let mut lost = 0;
        for i in 0..20_000u64 {
            let t = Time::from_micros(i * 100);
            let va = a.arrive(t, 100);
            assert_eq!(va, b.arrive(t, 100));
            if va == Verdict::Lost {
                lost += 1;
            }
        }
        // 5% of 20,000 = 1,000; 4 sigma ≈ 123.
        assert!((877..=1123).contains(&lost), "lost {lost}");
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Whatever arrives, deliveries leave in order, each at least
            /// one serialisation time after the previous, never before
            /// arrival + serialisation + delay, and an admitted packet never
            /// finds more than the queue's capacity ahead of it.
            #[test]
            fn link_invariants(
                rate_kbit in 100u64..1_000_000,
                delay_us in 0u64..200_000,
                queue_us in 1_000u64..200_000,
                arrivals in proptest::collection::vec((0u64..5_000, 1u64..1500), 1..300),
            ) {
                let params = LinkParams {
                    rate: Rate::from_bits_per_sec(rate_kbit * 1000),
                    delay: Duration::from_micros(delay_us),
                    queue: Duration::from_micros(queue_us),
                    loss: 0.0,
                };
                let mut l = Link::new(params, 3);
                let mut now = Time::ZERO;
                let mut last: Option<Time> = None;
                for (gap_us, bytes) in arrivals {
                    now += Duration::from_micros(gap_us);
                    match l.arrive(now, bytes) {
                        Verdict::Deliver { deliver_at, queue_bytes } => {
                            prop_assert!(queue_bytes == 0 || queue_bytes + bytes <= l.capacity_bytes());
                            let tx = params.rate.transmit_time(bytes);
                            prop_assert!(deliver_at >= now + tx + params.delay);
                            if let Some(prev) = last {
                                prop_assert!(deliver_at >= prev + tx);
                            }
                            last = Some(deliver_at);
                        }
                        Verdict::QueueFull { queue_bytes } => {
                            prop_assert!(queue_bytes > 0 && queue_bytes + bytes > l.capacity_bytes());
                        }
                        Verdict::Lost => prop_assert!(false, "no random loss configured"),
                    }
                }
            }
        }
    }
}
