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

use crate::element::{self, ElementError};
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

    /// Aggregation over an interval a user wrote (`4ms`): positive and at
    /// most [`AckAggregation::MAX`]. The scenario file's
    /// `path.ack_aggregation` and the `--ack-aggregation` flag both read it
    /// here; the error's key is `ack_aggregation`.
    pub fn parse(text: &str) -> Result<AckAggregation, ElementError> {
        let interval = element::duration(text.trim())
            .map_err(|reason| ElementError::value(Self::KEY, reason))?;
        Self::check(interval)?;
        AckAggregation::new(interval)
            .ok_or_else(|| ElementError::value(Self::KEY, "must be positive"))
    }

    /// The key it is written under, in a scenario file (`path.`…) and as a
    /// flag (`--ack-aggregation`).
    pub const KEY: &'static str = "ack_aggregation";

    /// Checks an interval given by a user; the error says the range.
    pub fn check(interval: Duration) -> Result<(), ElementError> {
        if interval.is_zero() {
            return Err(ElementError::value(Self::KEY, "must be positive"));
        }
        if interval > Self::MAX {
            return Err(ElementError::value(
                Self::KEY,
                format!("{interval:?} is above the maximum {:?}", Self::MAX),
            ));
        }
        Ok(())
    }

    /// The interval.
    pub fn interval(&self) -> Duration {
        Duration::from_nanos(self.interval_ns)
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
        assert_eq!(AckAggregation::parse(" 4ms"), Ok(a));
        assert_eq!(
            AckAggregation::parse("0ms").unwrap_err().to_string(),
            "ack_aggregation: must be positive"
        );
        assert_eq!(a.interval(), Duration::from_millis(4));
    }
}
