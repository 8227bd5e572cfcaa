//! Data-path delay variation that delays without reordering, as a Wi-Fi
//! hop adds it: each packet leaving the queue is held a random extra time
//! before the propagation delay, but never overtakes the packet before it
//! (802.11 delivers a station's frames in order: a frame held for
//! retransmission or a busy channel holds the frames behind it).
//!
//! The extra delay is log-normal, given by its median and 90th percentile.
//! The shape and the default magnitude are Sui et al., "Characterizing and
//! Improving WiFi Latency in Large-Scale Operational Networks" (MobiSys
//! 2016; 47,000 devices): Wi-Fi hop latency has a long tail, median about
//! 3 ms and 90th percentile about 20 ms. A log-normal through those two
//! points puts the 99th percentile at about 94 ms where they measured about
//! 250 ms: the model's tail is the lighter one.

use std::time::Duration;

use ramp_vocab::rng::Rng;
use ramp_vocab::Time;

/// The standard normal's 90th percentile.
const Z90: f64 = 1.281_551_565_545;

/// No single packet is held more than this (the log-normal has no bound;
/// an 802.11 frame is dropped after its retry limit long before).
pub const MAX_JITTER: Duration = Duration::from_secs(1);

/// Log-normal extra delay per packet, by its median and 90th percentile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Jitter {
    /// Median extra delay.
    pub median: Duration,
    /// 90th percentile of the extra delay (at least the median).
    pub p90: Duration,
}

impl Jitter {
    /// WiFiSeer's Wi-Fi hop latency (Sui et al., MobiSys 2016): median
    /// 3 ms, 90th percentile 20 ms.
    pub const WIFI_SUI_2016: Jitter = Jitter {
        median: Duration::from_millis(3),
        p90: Duration::from_millis(20),
    };

    /// Checks the ranges (0 < median <= p90 <= [`MAX_JITTER`]); the
    /// error says the range.
    pub fn check(&self) -> Result<(), String> {
        if self.median.is_zero() || self.p90 < self.median || self.p90 > MAX_JITTER {
            return Err(format!("need 0 < median <= p90 <= {MAX_JITTER:?}"));
        }
        Ok(())
    }
}

/// The element: parameters on the log scale, its generator, and the last
/// arrival it let out (the no-overtaking floor).
#[derive(Clone, Debug)]
pub(crate) struct JitterElement {
    mu: f64,
    sigma: f64,
    rng: Rng,
    last: Time,
}

impl JitterElement {
    pub(crate) fn new(j: Jitter, rng: Rng) -> JitterElement {
        let median = j.median.as_secs_f64().max(1e-9);
        let p90 = j.p90.as_secs_f64().max(median);
        JitterElement {
            mu: median.ln(),
            sigma: (p90 / median).ln() / Z90,
            rng,
            last: Time::ZERO,
        }
    }

    /// When a packet that would arrive at `at` arrives: one draw per
    /// packet, in delivery order.
    pub(crate) fn apply(&mut self, at: Time) -> Time {
        // Box–Muller; 1 - u keeps the logarithm finite.
        let u1 = 1.0 - self.rng.next_f64();
        let u2 = self.rng.next_f64();
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let extra = (self.mu + self.sigma * z)
            .exp()
            .min(MAX_JITTER.as_secs_f64());
        let t = (at + Duration::from_secs_f64(extra)).max(self.last);
        self.last = t;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_delay_has_the_given_median_and_p90_and_never_reorders() {
        let mut e = JitterElement::new(Jitter::WIFI_SUI_2016, Rng::new(1, 5));
        let mut extra = Vec::new();
        let mut last = Time::ZERO;
        // Packets 100 ms apart: the floor rarely binds, so the extras are
        // the distribution's draws.
        for i in 0..20_000u64 {
            let at = Time::from_millis(100 * i);
            let t = e.apply(at);
            assert!(t >= last && t >= at, "reordered at {i}");
            last = t;
            extra.push((t - at).as_secs_f64() * 1e3);
        }
        extra.sort_by(f64::total_cmp);
        let (p50, p90) = (extra[10_000], extra[18_000]);
        assert!((p50 - 3.0).abs() < 0.2, "median {p50}");
        assert!((p90 - 20.0).abs() < 1.5, "p90 {p90}");
        // Back to back (10 µs apart), arrivals still never go backwards.
        let mut e = JitterElement::new(Jitter::WIFI_SUI_2016, Rng::new(2, 5));
        let mut last = Time::ZERO;
        for i in 0..10_000u64 {
            let t = e.apply(Time::from_micros(10 * i));
            assert!(t >= last);
            last = t;
        }
    }
}
