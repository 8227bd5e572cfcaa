//! quicly's smoothed RTT on its millisecond clock, for the pacing rate
//! (`pacing_rtt=ms`).
//!
//! quicly reads time in whole milliseconds (h2o/quicly 45bf8a37,
//! `lib/defaults.c` `default_now`: `gettimeofday` rounded down to the
//! millisecond), so an RTT sample is the difference of two whole
//! milliseconds, and `quicly_rtt_update` (`include/quicly/loss.h`) smooths
//! it in integer arithmetic: the first sample is the smoothed RTT, then
//! `smoothed = (7·smoothed + latest) / 8`, rounded down. Its pacer divides
//! the window by that whole-millisecond figure
//! (`quicly_pacer_calc_send_rate(multiplier, cwnd, rtt.smoothed)`,
//! `lib/quicly.c` `calc_pacer_send_rate`). On a path whose RTT is 30.1 ms
//! the samples are 30 or 31 ms depending on where the connection's packets
//! fall within the millisecond, and the pacing rate differs by 3 % between
//! the two: the phase of the connection on quicly's clock decides it
//! (docs/interop.md, "quicly's millisecond clock").
//!
//! Not modelled: quicly subtracts the peer's ACK delay (whole ms) from a
//! sample above `min_rtt + ack_delay`; the controller is not told the ACK
//! delay, so samples here are not adjusted. A client that acknowledges
//! every second packet at once (quicly's `cli`, ramp's simulated client)
//! reports ACK delays well under a millisecond, which quicly's whole-ms
//! delay rounds to 0.

use core::time::Duration;

use ramp_vocab::time::Time;

use crate::rapid_floor::whole_ms_sample;

/// `quicly_rtt_t`'s `latest` and `smoothed`, whole milliseconds (its
/// `minimum` serves only the ACK-delay test, not modelled).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct WholeMsRtt {
    /// 0 before the first sample (quicly's `is_first_sample` test).
    latest: u64,
    smoothed: u64,
}

impl WholeMsRtt {
    /// `quicly_rtt_update` for an ACK frame at `now` whose exact RTT sample
    /// was `sample` (the frame's largest acknowledged packet was sent at
    /// `now − sample`), read on the millisecond clock.
    pub(super) fn update(&mut self, now: Time, sample: Duration) {
        let latest = whole_ms_sample(now, sample);
        let first = self.latest == 0;
        self.latest = latest;
        self.smoothed = if first {
            latest
        } else {
            (self.smoothed * 7 + latest) / 8
        };
    }

    /// The smoothed RTT, whole milliseconds; `None` before the first sample
    /// (quicly then divides by its initial RTT, as the exact estimator
    /// does).
    pub(super) fn smoothed(&self) -> Option<Duration> {
        (self.latest != 0).then(|| Duration::from_millis(self.smoothed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_us(us: u64) -> Time {
        Time::ZERO + Duration::from_micros(us)
    }

    #[test]
    fn quicly_rtt_update_first_sample_is_the_smoothed_rtt_in_whole_ms() {
        let mut r = WholeMsRtt::default();
        assert_eq!(r.smoothed(), None);
        // Sent at 15.000 ms, acknowledged at 45.104 ms: 45 − 15 = 30.
        r.update(at_us(45_104), Duration::from_micros(30_104));
        assert_eq!(r.smoothed(), Some(Duration::from_millis(30)));
        // The same 30.104 ms sent at 15.900 ms: 46 − 15 = 31.
        let mut s = WholeMsRtt::default();
        s.update(at_us(46_004), Duration::from_micros(30_104));
        assert_eq!(s.smoothed(), Some(Duration::from_millis(31)));
    }

    #[test]
    fn quicly_rtt_update_smooths_by_seven_eighths_rounded_down() {
        let mut r = WholeMsRtt::default();
        r.update(at_us(31_000), Duration::from_millis(31));
        // (7·31 + 40) / 8 = 257 / 8 = 32 (rounded down from 32.125).
        r.update(at_us(100_000), Duration::from_millis(40));
        assert_eq!(r.smoothed(), Some(Duration::from_millis(32)));
        // (7·32 + 30) / 8 = 254 / 8 = 31 (from 31.75).
        r.update(at_us(200_000), Duration::from_millis(30));
        assert_eq!(r.smoothed(), Some(Duration::from_millis(31)));
    }

    #[test]
    fn quicly_rtt_update_forces_a_zero_sample_to_1_ms() {
        let mut r = WholeMsRtt::default();
        r.update(at_us(10_400), Duration::from_micros(300));
        assert_eq!(r.smoothed(), Some(Duration::from_millis(1)));
    }
}
