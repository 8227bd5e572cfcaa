//! RTT estimation, RFC 9002 §5.
//!
//! One estimator per path feeds loss detection (time threshold, PTO), the
//! pacer and every controller. Samples are taken by the loss detector (§5.1:
//! only when an ACK newly acknowledges the largest acknowledged packet and at
//! least one newly acknowledged packet was ack-eliciting); this type only
//! does the arithmetic.

use core::time::Duration;

use ramp_vocab::time::duration_nanos;

/// RFC 9002 §6.2.2 `kInitialRtt`: the RTT assumed before any sample (333 ms,
/// so the first PTO is about one second).
pub(crate) const INITIAL_RTT: Duration = Duration::from_millis(333);

/// RFC 9002 §6.1.2 `kGranularity`: the system timer granularity, 1 ms. Used as
/// the floor of the loss delay and of `4·rttvar` in the PTO.
pub(crate) const GRANULARITY: Duration = Duration::from_millis(1);

/// The RFC 9002 §5 RTT estimator.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    latest: Duration,
    min: Duration,
    smoothed: Duration,
    var: Duration,
    /// `min`, `smoothed` and `var` in integer nanoseconds ([`Nanos`]),
    /// what [`RttEstimator::update`] and the PTO compute with.
    ns: Nanos,
    has_sample: bool,
    initial: Duration,
}

/// The estimator's `min_rtt`, `smoothed_rtt` and `rttvar` in nanoseconds
/// (`duration_nanos` of the `Duration` fields, always). A sample arrives
/// with every ACK frame that newly acknowledges its largest packet, and
/// `Duration`'s checked multiply, add and divide cost about three times
/// the integer arithmetic; the `Duration` fields are kept too, since the
/// controllers and the pacer read them for every packet.
#[derive(Clone, Copy, Debug)]
struct Nanos {
    min: u64,
    smoothed: u64,
    var: u64,
}

impl Nanos {
    fn of(min: Duration, smoothed: Duration, var: Duration) -> Nanos {
        Nanos {
            min: duration_nanos(min),
            smoothed: duration_nanos(smoothed),
            var: duration_nanos(var),
        }
    }
}

impl Default for RttEstimator {
    fn default() -> Self {
        Self::new(INITIAL_RTT)
    }
}

impl RttEstimator {
    /// A fresh estimator. `initial_rtt` is `kInitialRtt` (RFC 9002 §6.2.2),
    /// or a remembered value for a resumed connection.
    pub fn new(initial_rtt: Duration) -> Self {
        RttEstimator {
            latest: initial_rtt,
            min: initial_rtt,
            smoothed: initial_rtt,
            var: initial_rtt / 2,
            ns: Nanos::of(initial_rtt, initial_rtt, initial_rtt / 2),
            has_sample: false,
            initial: initial_rtt,
        }
    }

    /// Feeds one RTT sample (RFC 9002 §5.2 and §5.3).
    ///
    /// `latest_rtt` is `ack_time - time_sent(largest_acked)`; `ack_delay` is
    /// the peer-reported ACK delay. Once the handshake is confirmed the ack
    /// delay is capped at `max_ack_delay` (§5.3, MUST); before, it is used as
    /// reported. `min_rtt` is never adjusted for ack delay (§5.2), and the
    /// adjusted sample never falls below `min_rtt` (§5.3).
    ///
    /// The update order is RFC 6298's (rttvar from the old smoothed RTT, then
    /// smoothed), as in RFC 9002 Appendix A.7; §5.3's prose lists them the
    /// other way round, and the appendix order is what stacks implement.
    pub fn update(
        &mut self,
        latest_rtt: Duration,
        ack_delay: Duration,
        max_ack_delay: Duration,
        handshake_confirmed: bool,
    ) {
        self.latest = latest_rtt;
        if !self.has_sample {
            // §5.3: the first sample initialises the estimator.
            self.has_sample = true;
            self.min = latest_rtt;
            self.smoothed = latest_rtt;
            self.var = latest_rtt / 2;
            self.ns = Nanos::of(self.min, self.smoothed, self.var);
            return;
        }
        // In integer nanoseconds: the same values as `Duration`'s
        // arithmetic (`(var·3 + deviation) / 4` and `(srtt·7 + adjusted) /
        // 8` divide the whole nanosecond count, since 4 and 8 divide 10^9;
        // the property test below checks it); saturating from an RTT of 83
        // years up (7·srtt past u64 nanoseconds), where `Duration` would
        // still count.
        let latest = duration_nanos(latest_rtt);
        self.min = self.min.min(latest_rtt);
        let ns = &mut self.ns;
        ns.min = ns.min.min(latest);
        let ack_delay = duration_nanos(if handshake_confirmed {
            ack_delay.min(max_ack_delay)
        } else {
            ack_delay
        });
        let adjusted = if latest >= ns.min.saturating_add(ack_delay) {
            latest - ack_delay
        } else {
            latest
        };
        let deviation = ns.smoothed.abs_diff(adjusted);
        ns.var = ns.var.saturating_mul(3).saturating_add(deviation) / 4;
        ns.smoothed = ns.smoothed.saturating_mul(7).saturating_add(adjusted) / 8;
        self.var = Duration::from_nanos(ns.var);
        self.smoothed = Duration::from_nanos(ns.smoothed);
    }

    /// RFC 9002 §5.2: after persistent congestion the minimum SHOULD be
    /// re-established from the newest sample.
    pub fn reset_min_to_latest(&mut self) {
        self.min = self.latest;
        self.ns.min = duration_nanos(self.latest);
    }

    /// Whether any sample has been taken.
    pub fn has_sample(&self) -> bool {
        self.has_sample
    }
    /// The most recent raw sample (`latest_rtt`).
    pub fn latest(&self) -> Duration {
        self.latest
    }
    /// `min_rtt`: the minimum raw sample, never adjusted for ack delay.
    pub fn min(&self) -> Duration {
        self.min
    }
    /// `smoothed_rtt`.
    pub fn smoothed(&self) -> Duration {
        self.smoothed
    }
    /// `rttvar`.
    pub fn var(&self) -> Duration {
        self.var
    }
    /// The RTT the estimator started from (`kInitialRtt` unless configured).
    pub fn initial(&self) -> Duration {
        self.initial
    }
    /// `max(smoothed_rtt, latest_rtt)`, the base of the time threshold
    /// (RFC 9002 §6.1.2).
    pub fn conservative(&self) -> Duration {
        self.smoothed.max(self.latest)
    }

    /// The probe timeout before backoff, RFC 9002 §6.2.1:
    /// `smoothed_rtt + max(4·rttvar, kGranularity) + max_ack_delay`.
    /// Pass `max_ack_delay = 0` for the Initial and Handshake spaces.
    /// (Saturating at `u64::MAX` nanoseconds, 584 years.)
    pub fn pto_base(&self, max_ack_delay: Duration) -> Duration {
        Duration::from_nanos(self.pto_base_nanos(duration_nanos(max_ack_delay)))
    }

    /// [`RttEstimator::pto_base`] in nanoseconds, for the PTO deadline,
    /// which is recomputed whenever the timer may move (on `Time`'s
    /// integer clock; `Duration` arithmetic costs several times as much).
    #[inline]
    pub(crate) fn pto_base_nanos(&self, max_ack_delay: u64) -> u64 {
        let var4 = self
            .ns
            .var
            .saturating_mul(4)
            .max(duration_nanos(GRANULARITY));
        self.ns
            .smoothed
            .saturating_add(var4)
            .saturating_add(max_ack_delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl RttEstimator {
        /// An estimator with one sample taken and these values.
        fn with(min: Duration, smoothed: Duration, var: Duration) -> RttEstimator {
            RttEstimator {
                latest: smoothed,
                min,
                smoothed,
                var,
                ns: Nanos::of(min, smoothed, var),
                has_sample: true,
                initial: INITIAL_RTT,
            }
        }
    }

    /// RFC 9002 §5.3's update in `Duration` arithmetic, as written there
    /// (and as `update` computed it before it went to nanoseconds).
    fn reference_update(
        (min, smoothed, var): (Duration, Duration, Duration),
        latest: Duration,
        ack_delay: Duration,
    ) -> (Duration, Duration, Duration) {
        let min = min.min(latest);
        let adjusted = if latest >= min + ack_delay {
            latest - ack_delay
        } else {
            latest
        };
        let deviation = smoothed.abs_diff(adjusted);
        (
            min,
            (smoothed * 7 + adjusted) / 8,
            (var * 3 + deviation) / 4,
        )
    }

    proptest::proptest! {
        /// RFC 9002 §5.3: the update in integer nanoseconds gives the
        /// values of the `Duration` formulas, over runs of samples with ACK
        /// delays capped and uncapped, sub-nanosecond carries included.
        #[test]
        fn rfc9002_5_3_update_in_nanoseconds_matches_duration_arithmetic(
            samples in proptest::collection::vec(
                (1u64..(1 << 42), 0u64..(1 << 36), proptest::bool::ANY),
                1..40,
            ),
        ) {
            let max_ack_delay = Duration::from_millis(25);
            let mut r = RttEstimator::default();
            let mut want: Option<(Duration, Duration, Duration)> = None;
            for (latest, delay, confirmed) in samples {
                let (latest, delay) = (Duration::from_nanos(latest), Duration::from_nanos(delay));
                r.update(latest, delay, max_ack_delay, confirmed);
                let delay = if confirmed { delay.min(max_ack_delay) } else { delay };
                let w = match want {
                    None => (latest, latest, latest / 2),
                    Some(w) => reference_update(w, latest, delay),
                };
                want = Some(w);
                proptest::prop_assert_eq!((r.min(), r.smoothed(), r.var()), w);
                proptest::prop_assert_eq!(
                    (r.ns.min, r.ns.smoothed, r.ns.var),
                    (duration_nanos(w.0), duration_nanos(w.1), duration_nanos(w.2))
                );
            }
        }
    }

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn rfc9002_5_3_initial_values_before_any_sample() {
        let r = RttEstimator::default();
        assert_eq!(r.smoothed(), ms(333));
        assert_eq!(r.var(), Duration::from_micros(166_500));
        assert!(!r.has_sample());
    }

    #[test]
    fn rfc9002_5_3_first_sample_initialises() {
        let mut r = RttEstimator::default();
        r.update(ms(100), ms(10), ms(25), true);
        assert_eq!(
            (r.min(), r.smoothed(), r.var(), r.latest()),
            (ms(100), ms(100), ms(50), ms(100))
        );
    }

    #[test]
    fn rfc9002_5_3_ack_delay_subtracted_and_capped_after_confirmation() {
        let mut r = RttEstimator::default();
        r.update(ms(100), ms(0), ms(25), true);
        // 140 ms sample with 60 ms reported delay, capped at max_ack_delay 25 ms.
        r.update(ms(140), ms(60), ms(25), true);
        // adjusted = 115; rttvar = 3/4·50 + 1/4·15 = 41.25; srtt = 7/8·100 + 1/8·115.
        assert_eq!(r.smoothed(), Duration::from_micros(101_875));
        assert_eq!(r.var(), Duration::from_micros(41_250));
        assert_eq!(r.min(), ms(100));
    }

    #[test]
    fn rfc9002_5_3_ack_delay_uncapped_before_confirmation() {
        let mut r = RttEstimator::default();
        r.update(ms(100), ms(0), ms(25), false);
        r.update(ms(180), ms(60), ms(25), false);
        // adjusted = 120 (delay not capped), srtt = 102.5 ms.
        assert_eq!(r.smoothed(), Duration::from_micros(102_500));
    }

    #[test]
    fn rfc9002_5_3_adjustment_never_goes_below_min_rtt() {
        let mut r = RttEstimator::default();
        r.update(ms(100), ms(0), ms(25), true);
        // 110 ms with 20 ms delay would be 90 < min_rtt: use the raw sample.
        r.update(ms(110), ms(20), ms(25), true);
        assert_eq!(r.smoothed(), Duration::from_micros(101_250));
    }

    #[test]
    fn rfc9002_5_2_min_rtt_ignores_ack_delay() {
        let mut r = RttEstimator::default();
        r.update(ms(100), ms(0), ms(25), true);
        r.update(ms(80), ms(20), ms(25), true);
        assert_eq!(r.min(), ms(80));
    }

    #[test]
    fn rfc9002_6_2_1_pto_example() {
        // RFC 9002 §6.2.1: srtt 100 ms, rttvar 10 ms, max_ack_delay 25 ms -> 165 ms.
        let r = RttEstimator::with(ms(100), ms(100), ms(10));
        assert_eq!(r.pto_base(ms(25)), ms(165));
        // kGranularity floors 4·rttvar.
        let r0 = RttEstimator::with(ms(100), ms(100), Duration::ZERO);
        assert_eq!(r0.pto_base(Duration::ZERO), ms(101));
    }

    proptest::proptest! {
        /// RFC 9002 §6.2.1's PTO base in integer nanoseconds equals the
        /// `Duration` formula.
        #[test]
        fn rfc9002_6_2_1_pto_base_matches_duration_arithmetic(
            smoothed in 0u64..(1 << 50), var in 0u64..(1 << 48), mad in 0u64..(1 << 40),
        ) {
            let r = RttEstimator::with(
                INITIAL_RTT,
                Duration::from_nanos(smoothed),
                Duration::from_nanos(var),
            );
            let mad = Duration::from_nanos(mad);
            proptest::prop_assert_eq!(
                r.pto_base(mad),
                r.smoothed + (r.var * 4).max(GRANULARITY) + mad
            );
        }
    }
}
