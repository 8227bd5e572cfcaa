//! A cellular link: capacity that depends on the load, and a base RTT that
//! drifts.
//!
//! **Load-dependent capacity.** A cellular scheduler gives a UE that has
//! just started sending after a pause less capacity than one that has been
//! saturating the link: the base station learns of the UE's backlog from
//! its buffer status reports and grows the grant over the burst. CellReplay
//! (Sentosa et al., "CellReplay: Towards accurate record-and-replay for
//! cellular networks", NSDI 2025) measured this as two delivery schedules
//! recorded at once on a live 5G network, a "light" one seen by short
//! packet trains and a "heavy" one seen by a saturating flow, and replays a
//! burst that starts after an idle gap on the light schedule until the
//! burst has used the train's delivery opportunities, then on the heavy one
//! (its emulator, `src/frontend/cellular_queue.cc`, commit 23de1af:
//! `long_to_short_timer` is the idle gap, the train's opportunities the
//! light schedule). Here the heavy schedule is the link's rate, and the
//! light one is that rate times [`Cellular::light_fraction`] for the first
//! [`Cellular::light_bytes`] of a burst that starts after
//! [`Cellular::idle_reset`] of idle link.
//!
//! **Base-RTT drift.** A cellular path's base delay is not constant: the
//! same paper found that replaying a fixed delay of half the minimum RTT
//! (Mahimahi's way) underestimates the RTT by 13–17 % on average, and
//! CellReplay replays a base delay it re-measures with every packet train
//! and interpolates linearly between. Here the forward delay gains an
//! extra delay that moves linearly between values drawn every
//! [`Cellular::drift_period`], uniform between 0 and twice
//! [`Cellular::drift_mean`] of the base RTT (so the RTT averages that much
//! above its minimum), never reordering packets.

use std::time::Duration;

use crate::element::{Element, ElementError, ElementOption};
use crate::element_option;
use crate::elements::{option_field, Slot, SlotNames};

use ramp_vocab::rng::Rng;
use ramp_vocab::Time;

/// A cellular link's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cellular {
    /// Bytes of a burst served at the light rate.
    pub light_bytes: u64,
    /// The light rate as a fraction of the link rate, in (0, 1].
    pub light_fraction: f64,
    /// Idle link time after which the next packet starts a new burst.
    pub idle_reset: Duration,
    /// Mean extra delay as a fraction of the base RTT (0: no drift).
    pub drift_mean: f64,
    /// How often the drift draws a new target.
    pub drift_period: Duration,
}

impl Cellular {
    /// The defaults. Sourced: the mechanism (CellReplay), the drift's mean
    /// (+15 %, the middle of the 13–17 % RTT underestimate CellReplay
    /// reports for a fixed base delay), the light burst's length (200
    /// packets of 1 400 bytes, the packet-train size CellReplay's
    /// calibration scripts suggest, `record/scripts/calibration_gap_timer.py`
    /// `CALIBRATED_TRAIN_SIZE`) and the idle gap's range (those scripts
    /// calibrate it over 10–100 ms gaps; 50 ms here). Assumptions: the
    /// light rate as half the saturated rate, and a drift period of 1 s
    /// (the paper's numbers for either were not reachable here).
    pub const CELLREPLAY: Cellular = Cellular {
        light_bytes: 200 * 1400,
        light_fraction: 0.5,
        idle_reset: Duration::from_millis(50),
        drift_mean: 0.15,
        drift_period: Duration::from_secs(1),
    };
}

/// `[path.cellular]`, `--cellular=…`: every parameter, over CellReplay's.
impl Element for Cellular {
    const OPTIONS: &'static [ElementOption<Cellular>] = &[
        element_option!(light_bytes: size, "<size>", "bytes of a burst served at the light rate"),
        element_option!(
            light_fraction: number,
            "<fraction in (0, 1]>",
            "the light rate as a fraction of the link rate"
        ),
        element_option!(
            idle_reset: duration,
            "<duration>",
            "idle link time after which a burst starts light again"
        ),
        element_option!(
            drift_mean: number,
            "<fraction in [0, 1]>",
            "mean extra base delay as a fraction of the RTT (0: no drift)"
        ),
        element_option!(
            drift_period: duration,
            "<duration>",
            "how often the drift draws a new target"
        ),
    ];
    const DEFAULT: Cellular = Cellular::CELLREPLAY;

    /// Checks the ranges; the error names the field.
    fn check(&self) -> Result<(), ElementError> {
        let bad = ElementError::value;
        if !(self.light_fraction > 0.0 && self.light_fraction <= 1.0) {
            return Err(bad("light_fraction", "must lie in (0, 1]"));
        }
        if !(0.0..=1.0).contains(&self.drift_mean) {
            return Err(bad("drift_mean", "must lie in [0, 1]"));
        }
        if self.drift_period.is_zero() {
            return Err(bad("drift_period", "must be positive"));
        }
        if self.idle_reset > Duration::from_secs(60) {
            return Err(bad("idle_reset", "at most 60 s"));
        }
        Ok(())
    }
}

/// The load-dependent part, inside the link's server.
#[derive(Clone, Debug)]
pub(crate) struct LightPhase {
    cfg: Cellular,
    /// Light bytes left in the current burst.
    left: u64,
    /// A packet has been served.
    seen: bool,
}

impl LightPhase {
    pub(crate) fn new(cfg: Cellular) -> LightPhase {
        LightPhase {
            cfg,
            left: 0,
            seen: false,
        }
    }

    /// The serialisation time of a `size`-byte packet that starts service
    /// at `start`, on a link last busy until `busy_until`, whose full-rate
    /// time is `full`.
    pub(crate) fn serialisation(
        &mut self,
        start: Time,
        busy_until: Time,
        size: u32,
        full: Duration,
    ) -> Duration {
        // The link's first packet starts a burst too.
        if !self.seen || start >= busy_until + self.cfg.idle_reset {
            self.left = self.cfg.light_bytes;
        }
        self.seen = true;
        if self.left == 0 {
            return full;
        }
        self.left = self.left.saturating_sub(u64::from(size));
        full.div_f64(self.cfg.light_fraction)
    }
}

/// The base-delay drift, after the queue.
#[derive(Clone, Debug)]
pub(crate) struct DriftElement {
    /// Largest extra delay (twice the mean).
    max: Duration,
    period: Duration,
    rng: Rng,
    /// The segment the drift is on: (start, extra), (end, extra).
    from: (Time, Duration),
    to: (Time, Duration),
    /// The last arrival let out (the no-overtaking floor).
    last: Time,
}

impl DriftElement {
    /// `rtt` is the path's base RTT (the drift is a share of it).
    pub(crate) fn new(cfg: Cellular, rtt: Duration, mut rng: Rng) -> DriftElement {
        let max = rtt.mul_f64(2.0 * cfg.drift_mean);
        let a = max.mul_f64(rng.next_f64());
        let b = max.mul_f64(rng.next_f64());
        DriftElement {
            max,
            period: cfg.drift_period,
            rng,
            from: (Time::ZERO, a),
            to: (Time::ZERO + cfg.drift_period, b),
            last: Time::ZERO,
        }
    }

    /// The extra delay at `t` (non-decreasing `t` from call to call).
    fn extra(&mut self, t: Time) -> Duration {
        while t >= self.to.0 {
            self.from = self.to;
            let next = self.max.mul_f64(self.rng.next_f64());
            self.to = (self.from.0 + self.period, next);
        }
        let f = (t - self.from.0).as_secs_f64() / self.period.as_secs_f64();
        if self.to.1 >= self.from.1 {
            self.from.1 + (self.to.1 - self.from.1).mul_f64(f)
        } else {
            self.from.1 - (self.from.1 - self.to.1).mul_f64(f)
        }
    }

    /// When a packet that would arrive at `at` (leaving the queue at
    /// `left`) arrives.
    pub(crate) fn apply(&mut self, left: Time, at: Time) -> Time {
        let t = (at + self.extra(left)).max(self.last);
        self.last = t;
        t
    }
}

impl Slot for Cellular {
    const NAMES: SlotNames = SlotNames {
        table: "cellular",
        flag: "cellular",
        value_name: "KEY=VALUE,…",
        example: "light_bytes=100KB,drift_mean=0.1",
        help: "A cellular downlink (CellReplay, NSDI 2025): less capacity for a burst after \
               idle, a drifting base delay. Seeded by --seed.",
        about: "A cellular downlink (CellReplay, NSDI 2025): a burst that starts after idle_reset \
                of idle link gets light_fraction of the rate for its first light_bytes; the base \
                delay drifts by drift_mean of the RTT on average (0 to twice that), towards a new \
                draw every drift_period, without reordering. Seeded by --seed.",
        defaults_from: "CellReplay's defaults",
        field: "cellular",
    };
    option_field!(cellular);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cellreplay_defaults_pass_their_own_checks() {
        assert_eq!(Cellular::CELLREPLAY.check(), Ok(()));
        let mut c = Cellular::CELLREPLAY;
        c.light_fraction = 0.0;
        assert_eq!(c.check().unwrap_err().key(), "light_fraction");
        c = Cellular::CELLREPLAY;
        c.drift_period = Duration::ZERO;
        assert_eq!(c.check().unwrap_err().key(), "drift_period");
    }

    #[test]
    fn a_burst_after_idle_is_served_slower_until_its_light_bytes_are_used() {
        let mut l = LightPhase::new(Cellular {
            light_bytes: 3000,
            ..Cellular::CELLREPLAY
        });
        let full = Duration::from_micros(100);
        let t = |ms: u64| Time::from_millis(ms);
        // The first packet: light (half rate, twice as long).
        assert_eq!(l.serialisation(t(1), t(0), 1000, full), full * 2);
        l = LightPhase::new(Cellular {
            light_bytes: 3000,
            ..Cellular::CELLREPLAY
        });
        assert_eq!(l.serialisation(t(100), t(0), 1000, full), full * 2);
        assert_eq!(l.serialisation(t(100), t(100), 1000, full), full * 2);
        assert_eq!(l.serialisation(t(100), t(100), 1000, full), full * 2);
        // The light bytes are used: full rate while the burst goes on.
        assert_eq!(l.serialisation(t(100), t(100), 1000, full), full);
        assert_eq!(l.serialisation(t(120), t(101), 1000, full), full);
        // 50 ms idle: a new burst starts light again.
        assert_eq!(l.serialisation(t(200), t(101), 1000, full), full * 2);
    }

    #[test]
    fn drift_stays_within_its_range_averages_its_mean_and_never_reorders() {
        let rtt = Duration::from_millis(100);
        let mut d = DriftElement::new(Cellular::CELLREPLAY, rtt, Rng::new(1, 6));
        let (mut sum, mut n) = (0.0, 0u32);
        let mut last = Time::ZERO;
        for i in 0..200_000u64 {
            let left = Time::from_micros(i * 500);
            let at = left + Duration::from_millis(50);
            let got = d.apply(left, at);
            assert!(got >= at && got >= last);
            assert!(got - at <= Duration::from_millis(30));
            last = got;
            sum += (got - at).as_secs_f64();
            n += 1;
        }
        // Mean 15 % of 100 ms over 100 s (100 segments): within 3 ms.
        let mean = sum / f64::from(n);
        assert!((mean - 0.015).abs() < 0.003, "mean extra {mean}");
    }
}
