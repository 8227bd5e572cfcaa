//! ACK batching at the data sender: the host's receive path.
//!
//! A real server does not process each client datagram when it arrives. Its
//! receive loop sleeps until the socket is readable; once woken (after the
//! scheduler's latency) it reads every datagram queued by then and hands
//! them to the QUIC stack with one `now` (quinn 0.11: `drive_recv(cx, now)`
//! stamps every datagram of a wake-up with one time). So ACK frames that
//! arrive close together are processed together, stamped with one time, and
//! all later than they arrived.
//!
//! The model: a datagram that arrives while no wake-up is pending schedules
//! one after a latency drawn from [`WakeupLatency`]; every datagram arriving
//! until then is processed at that wake-up. Arrivals stay in order (the
//! reverse path is FIFO).
//!
//! The latency's distribution is measured, not chosen: the built-in table
//! is ramp's real mode on this repository's 2-core VM
//! (`bench/real/ack-batching.py`, docs/real-pacing.md "ACK frames
//! processed together at the sender"): the relay logs when it handed each
//! client datagram to the server's socket, the server's controller logs
//! when it processed each ACK frame, and the latency of a wake-up is the
//! time from the first datagram it took to its processing.

use core::time::Duration;

use ramp_vocab::rng::Rng;
use ramp_vocab::Time;

/// A wake-up latency distribution: an empirical inverse CDF given by
/// quantile points `(p, latency)`, p rising from 0 to 1, latency
/// non-decreasing; draws interpolate linearly between the points.
#[derive(Clone, Debug, PartialEq)]
pub struct WakeupLatency {
    points: Vec<(f64, Duration)>,
}

/// `(p, µs)` of the built-in table: `real_vs_sim --path 100m-30ms --runs 5
/// --cc bbr3 --trace --ack-timing driver` under `chrt -f 10`, twice, through
/// `bench/real/ack-batching.py` (both traces joined): 8 351 wake-ups that
/// took a client datagram, on the idle 2-core x86-64 VM (load average
/// 0.9), 2026-11-26. Median 35 µs, mean 41 µs, p99 125 µs, largest 1.6 ms;
/// 98 % of wake-ups took one datagram. The 0.999 point keeps the single
/// largest latency from spreading over the top percent of draws.
const REAL_MODE_QUIET_US: [(f64, u64); 14] = [
    (0.0, 1),
    (0.1, 18),
    (0.2, 22),
    (0.3, 26),
    (0.4, 30),
    (0.5, 35),
    (0.6, 39),
    (0.7, 46),
    (0.8, 54),
    (0.9, 71),
    (0.95, 86),
    (0.99, 125),
    (0.999, 321),
    (1.0, 1_613),
];

/// Why [`WakeupLatency::new`] refused a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WakeupTableError {
    /// Fewer than two quantile points.
    TooFewPoints,
    /// The points do not start at p = 0 and end at p = 1.
    NotZeroToOne,
    /// p does not rise, or a latency falls.
    NotRising,
    /// A latency above the longest a table may give (1 s).
    TooLong,
}

impl core::fmt::Display for WakeupTableError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            WakeupTableError::TooFewPoints => f.write_str("give at least two quantile points"),
            WakeupTableError::NotZeroToOne => {
                f.write_str("quantile points must run from p = 0 to p = 1")
            }
            WakeupTableError::NotRising => f.write_str("p must rise and latencies must not fall"),
            WakeupTableError::TooLong => write!(f, "latencies at most {MAX_WAKEUP_LATENCY:?}"),
        }
    }
}

impl std::error::Error for WakeupTableError {}

/// The longest latency a table may give.
pub(crate) const MAX_WAKEUP_LATENCY: Duration = Duration::from_secs(1);

impl WakeupLatency {
    /// ramp's real-mode server on the 2-core VM (see the table's comment).
    pub fn real_mode_measured() -> WakeupLatency {
        WakeupLatency {
            points: REAL_MODE_QUIET_US
                .iter()
                .map(|&(p, us)| (p, Duration::from_micros(us)))
                .collect(),
        }
    }

    /// A table of quantile points; checked: at least two points, p from
    /// exactly 0 to exactly 1 and rising, latencies non-decreasing and at
    /// most `MAX_WAKEUP_LATENCY`.
    pub fn new(points: Vec<(f64, Duration)>) -> Result<WakeupLatency, WakeupTableError> {
        let (Some(first), Some(last)) = (points.first(), points.last()) else {
            return Err(WakeupTableError::TooFewPoints);
        };
        if points.len() < 2 || first.0 != 0.0 || last.0 != 1.0 {
            return Err(WakeupTableError::NotZeroToOne);
        }
        for w in points.windows(2) {
            if w[1].0 <= w[0].0 || w[1].1 < w[0].1 {
                return Err(WakeupTableError::NotRising);
            }
        }
        if last.1 > MAX_WAKEUP_LATENCY {
            return Err(WakeupTableError::TooLong);
        }
        Ok(WakeupLatency { points })
    }

    /// The latency at probability `u` in [0, 1).
    pub fn quantile(&self, u: f64) -> Duration {
        let i = self.points.partition_point(|&(p, _)| p <= u).max(1);
        let Some(&(p1, d1)) = self.points.get(i) else {
            return self.points.last().map_or(Duration::ZERO, |&(_, d)| d);
        };
        let (p0, d0) = self.points[i - 1];
        let f = ((u - p0) / (p1 - p0)).clamp(0.0, 1.0);
        d0 + (d1 - d0).mul_f64(f)
    }
}

/// The sender's receive loop: when the pending wake-up falls.
#[derive(Clone, Debug)]
pub(crate) struct WakeupElement {
    latency: WakeupLatency,
    rng: Rng,
    /// The pending wake-up, if a datagram is waiting for it.
    wake_at: Option<Time>,
}

impl WakeupElement {
    pub(crate) fn new(latency: WakeupLatency, rng: Rng) -> WakeupElement {
        WakeupElement {
            latency,
            rng,
            wake_at: None,
        }
    }

    /// When a datagram arriving at `at` (non-decreasing from call to call)
    /// is processed.
    pub(crate) fn process_at(&mut self, at: Time) -> Time {
        match self.wake_at {
            Some(w) if at <= w => w,
            _ => {
                let w = at + self.latency.quantile(self.rng.next_f64());
                self.wake_at = Some(w);
                w
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_the_table() {
        let w = WakeupLatency::real_mode_measured();
        assert_eq!(w.quantile(0.0), Duration::from_micros(1));
        assert_eq!(w.quantile(0.5), Duration::from_micros(35));
        assert_eq!(w.quantile(0.55), Duration::from_micros(37));
        assert!(w.quantile(0.999_999) <= Duration::from_micros(1_613));
    }

    #[test]
    fn bad_tables_are_refused() {
        let d = Duration::from_micros;
        assert!(WakeupLatency::new(vec![(0.0, d(1))]).is_err());
        assert!(WakeupLatency::new(vec![(0.1, d(1)), (1.0, d(2))]).is_err());
        assert!(WakeupLatency::new(vec![(0.0, d(3)), (1.0, d(2))]).is_err());
        assert!(WakeupLatency::new(vec![(0.0, d(1)), (0.0, d(2)), (1.0, d(2))]).is_err());
        assert!(WakeupLatency::new(vec![(0.0, d(1)), (1.0, Duration::from_secs(2))]).is_err());
        assert!(WakeupLatency::new(vec![(0.0, d(1)), (1.0, d(2))]).is_ok());
    }

    #[test]
    fn datagrams_within_a_pending_wakeup_share_its_time() {
        // A constant 1 ms latency: the first arrival opens a wake-up at
        // +1 ms, arrivals until then join it, the next one opens another.
        let ms = Duration::from_millis;
        let lat = WakeupLatency::new(vec![(0.0, ms(1)), (1.0, ms(1))]).unwrap();
        let mut e = WakeupElement::new(lat, Rng::new(1, 1));
        let t = |us: u64| Time::ZERO + Duration::from_micros(us);
        assert_eq!(e.process_at(t(0)), t(1000));
        assert_eq!(e.process_at(t(400)), t(1000));
        assert_eq!(e.process_at(t(1000)), t(1000));
        assert_eq!(e.process_at(t(1001)), t(2001));
    }

    #[test]
    fn processing_times_never_fall_and_never_precede_arrival() {
        let mut e = WakeupElement::new(WakeupLatency::real_mode_measured(), Rng::new(7, 3));
        let mut last = Time::ZERO;
        let mut at = Time::ZERO;
        let mut r = Rng::new(9, 9);
        for _ in 0..10_000 {
            at += Duration::from_micros((r.next_f64() * 400.0) as u64);
            let p = e.process_at(at);
            assert!(p >= at && p >= last);
            last = p;
        }
    }
}
