//! Data-path delay variation as a Wi-Fi hop adds it: a packet leaving the
//! queue waits for its station's next transmission opportunity (TXOP), and
//! every packet waiting then leaves in it together (802.11 A-MPDU
//! aggregation), in order.
//!
//! The source is WiFiSeer (Sui et al., "Characterizing and Improving WiFi
//! Latency in Large-Scale Operational Networks", MobiSys 2016; 47,000
//! devices): Wi-Fi hop latency, measured with isolated probe pings, has a
//! median about 3 ms, a 90th percentile about 20 ms and a 99th about
//! 250 ms. A probe arriving at a random time waits for the channel's next
//! opportunity, so the model reads that distribution as the *residual*
//! wait of the station's opportunities: the opportunities are a renewal
//! process, independent of the traffic, whose wait seen from a random
//! instant has the given median and 90th percentile. A loaded flow's
//! packets arrive at instants unrelated to the channel's, so each of them
//! sees the same distribution the probe saw, and the packets that arrive
//! during one wait share it (one channel access per opportunity), rather
//! than each drawing its own and queueing behind the worst.
//!
//! Shape: the residual wait is Lomax (Pareto type II) through the median
//! and the 90th percentile. A renewal process's residual wait has a
//! non-increasing density, which a log-normal's is not; the Lomax is the
//! two-parameter heavy-tailed law that has one, and its gaps are then
//! Lomax too (shape one more, same scale), drawn by inversion. Through
//! 3 ms and 20 ms it puts the 99th percentile at about 128 ms where
//! WiFiSeer measured about 250 ms: the model's tail is the lighter one.
//!
//! Opportunity size: at most [`MAX_MPDUS`] packets leave in one
//! opportunity; the rest wait for the next. The A-MPDU's airtime is not
//! modelled (an assumption: the Wi-Fi PHY rate is well above the access
//! link's rate that the bottleneck serialises at).

use std::time::Duration;

use crate::element::{Element, ElementError, ElementOption};
use crate::element_option;
use crate::elements::{option_field, Slot, SlotNames};

use ramp_vocab::rng::Rng;
use ramp_vocab::Time;

/// The most packets (MPDUs) one transmission opportunity carries: an
/// 802.11n/ac A-MPDU is acknowledged by one compressed BlockAck frame,
/// whose bitmap covers 64 MPDUs (IEEE Std 802.11-2016 §10.24, block ack;
/// 802.11ax raises it to 256, which this model does not take).
pub const MAX_MPDUS: u32 = 64;

/// No gap between two opportunities is longer than this (the Lomax has no
/// bound; an 802.11 frame is dropped after its retry limit long before).
pub const MAX_JITTER: Duration = Duration::from_secs(1);

/// After this long with no packet the element restarts its opportunity
/// process from a fresh residual wait instead of walking the gaps in
/// between (a renewal process forgets its past; this bounds the work).
const FORGET_AFTER: Duration = Duration::from_secs(60);

/// Wi-Fi extra delay per packet, by the median and 90th percentile of the
/// wait a packet arriving at a random instant sees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Jitter {
    /// Median extra delay.
    pub median: Duration,
    /// 90th percentile of the extra delay (above the median).
    pub p90: Duration,
}

impl Jitter {
    /// WiFiSeer's Wi-Fi hop latency (Sui et al., MobiSys 2016): median
    /// 3 ms, 90th percentile 20 ms.
    pub const WIFI_SUI_2016: Jitter = Jitter {
        median: Duration::from_millis(3),
        p90: Duration::from_millis(20),
    };

    /// The residual wait's Lomax (shape, scale in seconds) through the
    /// median and p90: quantile q is `scale * ((1-q)^(-1/shape) - 1)`, so
    /// the p90/p50 ratio fixes the shape (it falls as the shape grows) and
    /// the median then the scale.
    fn lomax(&self) -> (f64, f64) {
        let median = self.median.as_secs_f64().max(1e-9);
        let ratio = (self.p90.as_secs_f64() / median).max(1.01);
        let r = |a: f64| (10f64.powf(1.0 / a) - 1.0) / (2f64.powf(1.0 / a) - 1.0);
        let (mut lo, mut hi) = (0.05f64, 1e4f64);
        for _ in 0..200 {
            let mid = (lo * hi).sqrt();
            if r(mid) > ratio {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let shape = (lo * hi).sqrt();
        (shape, median / (2f64.powf(1.0 / shape) - 1.0))
    }
}

/// `[path.jitter]`, `--wifi-jitter=…`: the median and 90th percentile,
/// over WiFiSeer's.
impl Element for Jitter {
    const OPTIONS: &'static [ElementOption<Jitter>] = &[
        element_option!(median: duration, "<duration>", "median extra delay"),
        element_option!(
            p90: duration,
            "<duration>",
            "90th percentile of the extra delay, above the median"
        ),
    ];
    const DEFAULT: Jitter = Jitter::WIFI_SUI_2016;

    /// Checks the ranges (0 < median, 1.01 median <= p90 <= [`MAX_JITTER`]);
    /// the error says the range. A Lomax's p90/p50 ratio exceeds 1, so a
    /// p90 at the median has no shape.
    fn check(&self) -> Result<(), ElementError> {
        if self.median.is_zero()
            || self.p90.as_secs_f64() < 1.01 * self.median.as_secs_f64()
            || self.p90 > MAX_JITTER
        {
            let key = if self.median.is_zero() {
                "median"
            } else {
                "p90"
            };
            return Err(ElementError::value(
                key,
                format!("need 0 < median, 1.01 x median <= p90 <= {MAX_JITTER:?}"),
            ));
        }
        Ok(())
    }
}

thread_local! {
    /// The last law [`lomax_of`] solved for on this thread, and its answer.
    static LAST_LAW: core::cell::Cell<Option<(Jitter, (f64, f64))>> =
        const { core::cell::Cell::new(None) };
}

/// [`Jitter::lomax`], remembered for the last `Jitter` asked on this thread.
/// The bisection costs 200 steps of two `powf`s (about 40,000
/// instructions), once per element; a fleet builds one element per Wi-Fi
/// connection, all from the few laws its population names, so on the fleet
/// mix it cost about 20 instructions per simulated packet. The answer is a
/// pure function of the law, so a remembered one is the same bits.
fn lomax_of(j: Jitter) -> (f64, f64) {
    LAST_LAW.with(|last| match last.get() {
        Some((law, answer)) if law == j => answer,
        _ => {
            let answer = j.lomax();
            last.set(Some((j, answer)));
            answer
        }
    })
}

/// The element: the opportunity process's law, its generator, the next
/// opportunity and how many packets it carries so far.
#[derive(Clone, Debug)]
pub(crate) struct JitterElement {
    /// The residual wait's Lomax shape; the gaps' is one more.
    shape: f64,
    /// The Lomax scale, seconds.
    scale: f64,
    rng: Rng,
    /// The next opportunity; `None` before the first packet.
    next: Option<Time>,
    /// Packets already leaving at `next`.
    carried: u32,
}

impl JitterElement {
    pub(crate) fn new(j: Jitter, rng: Rng) -> JitterElement {
        let (shape, scale) = lomax_of(j);
        JitterElement {
            shape,
            scale,
            rng,
            next: None,
            carried: 0,
        }
    }

    /// A Lomax draw of `shape` by inversion, capped at [`MAX_JITTER`];
    /// 1 - u keeps the power finite.
    fn draw(&mut self, shape: f64) -> Duration {
        let u = 1.0 - self.rng.next_f64();
        let x = self.scale * (u.powf(-1.0 / shape) - 1.0);
        Duration::from_secs_f64(x.min(MAX_JITTER.as_secs_f64()))
    }

    /// When a packet that would arrive at `at` arrives: at the first
    /// opportunity at or after `at` with room. Calls come in delivery
    /// order; an earlier `at` than the last still leaves no earlier than
    /// the last packet (no overtaking).
    pub(crate) fn apply(&mut self, at: Time) -> Time {
        let mut next = match self.next {
            // A stationary start: the first wait is a residual draw.
            None => at + self.draw(self.shape),
            Some(n) if at > n + FORGET_AFTER => at + self.draw(self.shape),
            Some(n) => n,
        };
        if Some(next) != self.next {
            self.carried = 0;
        }
        while next < at || self.carried >= MAX_MPDUS {
            next += self.draw(self.shape + 1.0);
            self.carried = 0;
        }
        self.carried += 1;
        self.next = Some(next);
        next
    }
}

impl Slot for Jitter {
    const NAMES: SlotNames = SlotNames {
        table: "jitter",
        flag: "wifi-jitter",
        value_name: "median=D,p90=D",
        example: "median=3ms,p90=20ms",
        help: "Wi-Fi delay variation on the downlink, without reordering (WiFiSeer, MobiSys \
               2016). Seeded by --seed.",
        about: "Wi-Fi delay variation on the downlink, without reordering: packets wait for the \
                next transmission opportunity and share it; the wait a packet sees has this \
                median and 90th percentile. Seeded by --seed.",
        defaults_from: "the Wi-Fi hop of Sui et al. (MobiSys 2016)",
        field: "jitter",
    };
    option_field!(jitter);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The remembered law is the solved one, bit for bit, whichever laws
    /// come before it (same law again, another law, back again).
    #[test]
    fn a_remembered_law_is_the_solved_law() {
        let other = Jitter {
            median: Duration::from_millis(1),
            p90: Duration::from_millis(9),
        };
        let bits = |(a, b): (f64, f64)| (a.to_bits(), b.to_bits());
        for j in [
            Jitter::WIFI_SUI_2016,
            Jitter::WIFI_SUI_2016,
            other,
            other,
            Jitter::WIFI_SUI_2016,
            other,
        ] {
            assert_eq!(bits(lomax_of(j)), bits(j.lomax()), "{j:?}");
        }
        assert_ne!(bits(lomax_of(other)), bits(lomax_of(Jitter::WIFI_SUI_2016)));
    }

    /// WiFiSeer's quantiles (Sui et al., MobiSys 2016), in ms.
    const SOURCE_P50: f64 = 3.0;
    const SOURCE_P90: f64 = 20.0;

    /// Realised extra delay (p50, p90, p99 in ms) of `n` packets offered
    /// every `gap`.
    fn realised(gap: Duration, n: u64, seed: u64) -> (f64, f64, f64) {
        let mut e = JitterElement::new(Jitter::WIFI_SUI_2016, Rng::new(seed, 5));
        let mut extra = Vec::new();
        let mut last = Time::ZERO;
        for i in 0..n {
            let at = Time::ZERO + gap * i as u32;
            let t = e.apply(at);
            assert!(t >= last && t >= at, "reordered at {i}");
            last = t;
            extra.push((t - at).as_secs_f64() * 1e3);
        }
        extra.sort_by(f64::total_cmp);
        let q = |p: f64| extra[(p * n as f64) as usize];
        (q(0.5), q(0.9), q(0.99))
    }

    fn within_2x(what: &str, (p50, p90, p99): (f64, f64, f64)) {
        eprintln!("{what}: extra delay p50 {p50:.2} ms, p90 {p90:.2} ms, p99 {p99:.1} ms");
        for (name, got, want) in [("p50", p50, SOURCE_P50), ("p90", p90, SOURCE_P90)] {
            assert!(
                got <= 2.0 * want && got >= want / 2.0,
                "{what}: {name} {got:.2} ms, source {want} ms"
            );
        }
    }

    #[test]
    fn isolated_packets_see_the_sources_median_and_p90() {
        let (p50, p90, p99) = realised(Duration::from_millis(100), 20_000, 1);
        assert!((p50 - SOURCE_P50).abs() < 0.25, "median {p50}");
        assert!((p90 - SOURCE_P90).abs() < 2.0, "p90 {p90}");
        // The documented lighter tail: about 128 ms against WiFiSeer's 250.
        assert!(p99 > 90.0 && p99 < 180.0, "p99 {p99}");
    }

    #[test]
    fn one_packet_per_ms_stays_within_2x_of_the_source() {
        within_2x("1 pkt/ms", realised(Duration::from_millis(1), 100_000, 2));
    }

    #[test]
    fn back_to_back_at_20_mbit_stays_within_2x_of_the_source() {
        // 1,200 B at 20 Mbit/s: one packet every 480 µs.
        within_2x(
            "20 Mbit/s",
            realised(Duration::from_micros(480), 200_000, 3),
        );
    }

    #[test]
    fn packets_waiting_together_share_one_opportunity() {
        let mut e = JitterElement::new(Jitter::WIFI_SUI_2016, Rng::new(4, 5));
        let mut leaves = Vec::new();
        for i in 0..10_000u64 {
            leaves.push(e.apply(Time::from_micros(10 * i)));
        }
        // 10 µs apart, most packets share their opportunity with the one
        // before, and none carries more than MAX_MPDUS.
        let mut run = 1u32;
        let mut shared = 0;
        for w in leaves.windows(2) {
            assert!(w[1] >= w[0]);
            if w[1] == w[0] {
                shared += 1;
                run += 1;
                assert!(run <= MAX_MPDUS, "{run} packets in one opportunity");
            } else {
                run = 1;
            }
        }
        assert!(shared > 9_000, "{shared} shared");
    }

    #[test]
    fn same_seed_same_delays() {
        let a = realised(Duration::from_millis(1), 5_000, 9);
        let b = realised(Duration::from_millis(1), 5_000, 9);
        assert_eq!(a, b);
    }

    #[test]
    fn check_rejects_a_p90_at_the_median() {
        let j = Jitter {
            median: Duration::from_millis(3),
            p90: Duration::from_millis(3),
        };
        assert!(j.check().is_err());
        assert!(Jitter::WIFI_SUI_2016.check().is_ok());
    }
}
