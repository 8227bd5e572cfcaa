//! One direction of the relay (and of `ramp shell`): the simulator's link
//! model (`ramp-link`), driven by the forwarder's clock.
//!
//! The relay and `ramp-sim` run the same code for the queue and for every
//! element around it (a cellular link's light phase and delay drift, Wi-Fi
//! delay variation, ACK aggregation, a delivery trace): admission
//! (drop-tail counts the packet in service against the byte limit), the
//! queue discipline, random loss after the queue, the order in which the
//! generators are drawn. The one difference is the clock: the relay's is
//! the time since it started. Datagrams are not ECN-capable here (the relay
//! reads UDP payloads, not the IP header's ECN field), so an AQM drops
//! where it would mark.

use std::sync::Arc;
use std::time::Duration;

use ramp_cc::Rate;
use ramp_link::{queue_bytes_for, Aqm, DeliveryTrace, Link, LinkConfig, LinkElements, LossModel};

/// The properties of one direction.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkParams {
    /// Serialisation rate.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Buffer, as time at `rate`.
    pub queue: Duration,
    /// Queue discipline.
    pub aqm: Aqm,
    /// Deliver at a Mahimahi trace's opportunities instead of at `rate`.
    pub trace: Option<Arc<DeliveryTrace>>,
    /// The optional elements: policer, random loss, cellular behaviour,
    /// Wi-Fi delay variation, ACK aggregation (the simulator puts the last
    /// on its reverse path, the rest on its forward link).
    pub elements: LinkElements,
    /// The path's base RTT, which a cellular link's delay drift is a share
    /// of (as the simulator's forward link has it).
    pub base_rtt: Duration,
}

impl LinkParams {
    /// A plain direction: rate, delay, buffer, Bernoulli loss of
    /// probability `loss`, discipline; no policer, trace, delay variation,
    /// cellular behaviour or aggregation.
    pub fn new(rate: Rate, delay: Duration, queue: Duration, loss: f64, aqm: Aqm) -> LinkParams {
        LinkParams {
            rate,
            delay,
            queue,
            aqm,
            trace: None,
            elements: LinkElements {
                loss: LossModel::bernoulli(loss),
                ..LinkElements::default()
            },
            base_rtt: Duration::ZERO,
        }
    }

    /// Delivers at `trace` from now on; the rate becomes its mean rate
    /// (which sizes the buffer given as time).
    pub fn set_trace(&mut self, trace: Arc<DeliveryTrace>) {
        self.rate = trace.mean_rate();
        self.trace = Some(trace);
    }

    /// The direction's link, its random elements drawing from streams of
    /// `seed` (the relay passes `ramp_link::uplink_seed` or
    /// `downlink_seed` of its own seed).
    pub fn link<P>(&self, seed: u64) -> Link<P> {
        Link::new(&self.link_config(), seed)
    }

    /// The shared model's configuration of this direction.
    pub fn link_config(&self) -> LinkConfig {
        LinkConfig::new(
            self.rate,
            queue_bytes_for(self.rate, self.queue),
            self.delay,
        )
        .with_aqm(self.aqm)
        .with_trace(self.trace.clone())
        .with_elements(self.elements)
        .with_base_rtt(self.base_rtt)
    }
}

#[cfg(test)]
mod tests {
    use ramp_cc::{EcnCodepoint, Time};
    use ramp_link::{Cellular, Delivery, Offer, Packet};

    use super::*;

    /// The simulator test's path (20 Mbit/s, 20 ms each way,
    /// `a_cellular_link_slows_a_short_transfer_more_than_a_long_one`), with
    /// a buffer that takes a whole 4 MB burst offered at once.
    fn params(cellular: Option<Cellular>) -> LinkParams {
        let mut p = LinkParams::new(
            Rate::from_bits_per_sec(20_000_000),
            Duration::from_millis(20),
            Duration::from_secs(10),
            0.0,
            Aqm::DropTail,
        );
        p.elements.cellular = cellular;
        p.base_rtt = Duration::from_millis(40);
        p
    }

    /// Offers `bytes` in 1200-byte datagrams at `at` and returns the last
    /// one's arrival (everything fits the buffer or the test fails).
    fn burst(l: &mut Link<()>, at: Time, bytes: u64) -> Time {
        let mut last = at;
        for _ in 0..bytes.div_ceil(1200) {
            let p = Packet {
                payload: (),
                size: 1200,
                ecn: EcnCodepoint::NotEct,
                flow: 0,
            };
            match l.offer(at, p) {
                Offer::Now(Delivery::Arrives { at, .. }) => last = at,
                o => panic!("{o:?}"),
            }
        }
        last
    }

    /// How much longer than on a plain link a burst of `bytes` takes to
    /// arrive, when it follows `warm` bytes by `gap`.
    fn slowdown(cell: Cellular, warm: u64, gap: Duration, bytes: u64) -> f64 {
        let took = |p: LinkParams| {
            let mut l = p.link(ramp_link::downlink_seed(1));
            let t0 = if warm > 0 {
                burst(&mut l, Time::ZERO, warm) + gap
            } else {
                Time::ZERO
            };
            (burst(&mut l, t0, bytes) - t0).as_secs_f64()
        };
        took(params(Some(cell))) / took(params(None))
    }

    #[test]
    fn a_cellular_direction_slows_a_short_burst_after_idle_more_than_a_long_one_and_is_seeded() {
        // CellReplay's light phase: the first 280 KB of a burst after 50 ms
        // of idle link go at half the rate. A 200 KB burst lies wholly in
        // it; a 4 MB one mostly after it.
        let cell = Cellular {
            drift_mean: 0.0,
            ..Cellular::CELLREPLAY
        };
        let short = slowdown(cell, 0, Duration::ZERO, 200_000);
        let long = slowdown(cell, 0, Duration::ZERO, 4_000_000);
        assert!(
            short > long && long > 1.0,
            "short ×{short:.3}, long ×{long:.3}"
        );
        // After 1 s of idle link the next short burst is light again;
        // 10 ms after a burst that used its light bytes it is not.
        let after_idle = slowdown(cell, 400_000, Duration::from_secs(1), 200_000);
        let back_to_back = slowdown(cell, 400_000, Duration::from_millis(10), 200_000);
        assert!(
            after_idle > 1.5 && (back_to_back - 1.0).abs() < 0.01,
            "after idle ×{after_idle:.3}, back to back ×{back_to_back:.3}"
        );

        // The drift: single datagrams 10 ms apart over 20 s see the base
        // delay rise by 0 to 30 % of the 40 ms RTT, 15 % on average,
        // never reordered, the same with the same seed and not with
        // another.
        let extras = |seed: u64| {
            let mut l: Link<()> = params(Some(Cellular::CELLREPLAY)).link(seed);
            (0..2000u64)
                .map(|i| {
                    let t = Time::from_millis(10 * i);
                    let a = burst(&mut l, t, 1200);
                    // Idle link each time: the light phase's serialisation.
                    let plain = t
                        + Duration::from_millis(20)
                        + Rate::from_bits_per_sec(10_000_000).transmit_time(1200);
                    (a - plain).as_secs_f64()
                })
                .collect::<Vec<_>>()
        };
        let a = extras(ramp_link::downlink_seed(1));
        assert_eq!(a, extras(ramp_link::downlink_seed(1)));
        assert_ne!(a, extras(ramp_link::downlink_seed(2)));
        let mean = a.iter().sum::<f64>() / a.len() as f64;
        let (lo, hi) = a
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
        assert!(lo >= -1e-9 && hi <= 0.012 + 1e-9, "extra {lo} .. {hi} s");
        assert!(hi - lo > 0.004, "the delay does not drift: {lo} .. {hi} s");
        // 20 drift periods: the mean of 20 uniform draws on [0, 12 ms]
        // lies within 6 ms ± 2.5 ms (more than 3 sigma).
        assert!((mean - 0.006).abs() < 0.0025, "mean extra {mean} s");
    }
}
