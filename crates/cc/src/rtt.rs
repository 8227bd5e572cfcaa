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
    has_sample: bool,
    initial: Duration,
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
            return;
        }
        self.min = self.min.min(latest_rtt);
        let ack_delay = if handshake_confirmed {
            ack_delay.min(max_ack_delay)
        } else {
            ack_delay
        };
        let adjusted = if latest_rtt >= self.min + ack_delay {
            latest_rtt - ack_delay
        } else {
            latest_rtt
        };
        let deviation = self.smoothed.abs_diff(adjusted);
        self.var = (self.var * 3 + deviation) / 4;
        self.smoothed = (self.smoothed * 7 + adjusted) / 8;
    }

    /// RFC 9002 §5.2: after persistent congestion the minimum SHOULD be
    /// re-established from the newest sample.
    pub fn reset_min_to_latest(&mut self) {
        self.min = self.latest;
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
    pub(crate) fn pto_base_nanos(&self, max_ack_delay: u64) -> u64 {
        let var4 = duration_nanos(self.var)
            .saturating_mul(4)
            .max(duration_nanos(GRANULARITY));
        duration_nanos(self.smoothed)
            .saturating_add(var4)
            .saturating_add(max_ack_delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let r = RttEstimator {
            latest: ms(100),
            min: ms(100),
            smoothed: ms(100),
            var: ms(10),
            has_sample: true,
            initial: INITIAL_RTT,
        };
        assert_eq!(r.pto_base(ms(25)), ms(165));
        // kGranularity floors 4·rttvar.
        let r0 = RttEstimator {
            var: Duration::ZERO,
            ..r
        };
        assert_eq!(r0.pto_base(Duration::ZERO), ms(101));
    }

    proptest::proptest! {
        /// RFC 9002 §6.2.1's PTO base in integer nanoseconds equals the
        /// `Duration` formula.
        #[test]
        fn rfc9002_6_2_1_pto_base_matches_duration_arithmetic(
            smoothed in 0u64..(1 << 50), var in 0u64..(1 << 48), mad in 0u64..(1 << 40),
        ) {
            let r = RttEstimator {
                smoothed: Duration::from_nanos(smoothed),
                var: Duration::from_nanos(var),
                ..RttEstimator::new(INITIAL_RTT)
            };
            let mad = Duration::from_nanos(mad);
            proptest::prop_assert_eq!(
                r.pto_base(mad),
                r.smoothed + (r.var * 4).max(GRANULARITY) + mad
            );
        }
    }
}
