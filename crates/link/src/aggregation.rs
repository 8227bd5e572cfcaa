//! ACK aggregation on a path's return direction: packets are held and let
//! out together at multiples of an interval, as a Wi-Fi access point or a
//! DOCSIS/cellular uplink grants the return direction in batches, so a
//! data sender sees its ACKs arrive in bursts (the effect BBR's
//! `extra_acked` estimates: draft-ietf-ccwg-bbr §4.5.1 "aggregation
//! effects"). The simulator's reverse path applies it to every client
//! packet; the real-time forwarders' uplink applies it to every packet
//! leaving the queue.

use core::time::Duration;

use ramp_vocab::time::duration_nanos;
use ramp_vocab::Time;

/// Releases at multiples of an interval since the clock's epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckAggregation {
    interval_ns: u64,
}

impl AckAggregation {
    /// The longest interval a path may aggregate over.
    pub const MAX: Duration = Duration::from_secs(1);

    /// Aggregation over `interval`; None for a zero interval (no
    /// aggregation).
    pub fn new(interval: Duration) -> Option<AckAggregation> {
        let interval_ns = duration_nanos(interval);
        (interval_ns > 0).then_some(AckAggregation { interval_ns })
    }

    /// Checks an interval given by a user; the error says the range.
    pub fn check(interval: Duration) -> Result<(), String> {
        if interval.is_zero() {
            return Err("must be positive".into());
        }
        if interval > Self::MAX {
            return Err(format!("{interval:?} is above the maximum {:?}", Self::MAX));
        }
        Ok(())
    }

    /// When a packet ready at `t` leaves: the next multiple of the
    /// interval at or after `t`.
    #[inline]
    pub fn release(&self, t: Time) -> Time {
        Time::from_nanos(
            t.as_nanos()
                .div_ceil(self.interval_ns)
                .saturating_mul(self.interval_ns),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_at_the_next_multiple_of_the_interval() {
        let a = AckAggregation::new(Duration::from_millis(4)).unwrap();
        assert_eq!(a.release(Time::ZERO), Time::ZERO);
        assert_eq!(a.release(Time::from_micros(1)), Time::from_millis(4));
        assert_eq!(a.release(Time::from_millis(4)), Time::from_millis(4));
        assert_eq!(a.release(Time::from_micros(4001)), Time::from_millis(8));
        assert_eq!(AckAggregation::new(Duration::ZERO), None);
        assert!(AckAggregation::check(Duration::ZERO).is_err());
        assert!(AckAggregation::check(Duration::from_secs(2)).is_err());
        assert_eq!(AckAggregation::check(Duration::from_millis(4)), Ok(()));
    }
}
