//! Time and rate types.
//!
//! ramp's controllers never read a clock: every call takes `now` as an argument. A
//! [`Time`] is an integer count of nanoseconds since an epoch the caller
//! chooses (the simulator's virtual start, or an `Instant` taken when a real
//! connection opened), so the same controller runs identically in virtual
//! and in real time, and no float rounding ever reorders two events.

use core::fmt;
use core::ops::{Add, AddAssign, Sub};
use core::time::Duration;

/// A point in time, in nanoseconds since a caller-chosen epoch.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(u64);

impl Time {
    /// The epoch itself.
    pub const ZERO: Time = Time(0);
    /// A time later than any a connection will reach; used as "never".
    pub const MAX: Time = Time(u64::MAX);

    /// A time `ns` nanoseconds after the epoch.
    pub const fn from_nanos(ns: u64) -> Time {
        Time(ns)
    }
    /// A time `us` microseconds after the epoch (saturating).
    pub const fn from_micros(us: u64) -> Time {
        Time(us.saturating_mul(1_000))
    }
    /// A time `ms` milliseconds after the epoch (saturating).
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms.saturating_mul(1_000_000))
    }
    /// Nanoseconds since the epoch.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Microseconds since the epoch (truncated).
    pub const fn as_micros(self) -> u64 {
        self.0 / 1_000
    }
    /// Whole milliseconds since the epoch (truncated): the clock quicly
    /// keeps its RTT samples and pacer on.
    pub const fn as_millis(self) -> u64 {
        self.0 / 1_000_000
    }
    /// Milliseconds since the epoch, as a float (for traces and charts).
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// The span from `earlier` to `self`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }
    /// `self + d`, saturating at [`Time::MAX`].
    pub fn saturating_add(self, d: Duration) -> Time {
        Time(self.0.saturating_add(duration_nanos(d)))
    }
    /// `self - d`, saturating at [`Time::ZERO`].
    pub fn saturating_sub(self, d: Duration) -> Time {
        Time(self.0.saturating_sub(duration_nanos(d)))
    }
}

/// A duration in milliseconds, as the float nearest its exact value, for
/// records, labels and messages. `d.as_secs_f64() * 1e3` rounds twice and
/// prints float noise: 15.3 ms became `15.299999999999999`, 4.488 ms
/// `4.4879999999999995`. Whole nanoseconds divided by 1e6 round once
/// (both are exact below 2^53 ns, 104 days), so a duration typed in
/// decimal milliseconds prints as typed.
pub fn duration_millis_f64(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e6
}

/// A duration in whole nanoseconds, saturating at `u64::MAX` (584 years).
pub fn duration_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        self.saturating_add(d)
    }
}

impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, d: Duration) {
        *self = self.saturating_add(d);
    }
}

impl Sub<Duration> for Time {
    type Output = Time;
    fn sub(self, d: Duration) -> Time {
        self.saturating_sub(d)
    }
}

/// `later - earlier` saturates at zero: a duration is never negative.
impl Sub<Time> for Time {
    type Output = Duration;
    fn sub(self, earlier: Time) -> Duration {
        self.saturating_since(earlier)
    }
}

impl fmt::Debug for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}ms", self.as_millis_f64())
    }
}

/// A data rate in bytes per second.
///
/// Pacing rates, link rates and delivery rates all use this one type so that
/// a bits/bytes mix-up cannot compile. `Rate::ZERO` means "nothing may be
/// sent"; an unpaced sender has no `Rate` at all (`Option<Rate>::None`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Rate(u64);

impl Rate {
    /// Zero bytes per second.
    pub const ZERO: Rate = Rate(0);

    /// A rate of `bytes_per_sec` bytes per second.
    pub const fn from_bytes_per_sec(bytes_per_sec: u64) -> Rate {
        Rate(bytes_per_sec)
    }
    /// A rate of `bits_per_sec` bits per second (rounded down to whole bytes).
    pub const fn from_bits_per_sec(bits_per_sec: u64) -> Rate {
        Rate(bits_per_sec / 8)
    }
    /// The rate that moves `bytes` in `d` (zero if `d` is zero).
    pub fn from_bytes_over(bytes: u64, d: Duration) -> Rate {
        let ns = duration_nanos(d);
        if ns == 0 {
            return Rate(u64::MAX);
        }
        // u64 when the product fits (any transfer below 18 GB): the same
        // quotient without a 128-bit division, which is a measurable share
        // of a simulation (this runs for every paced packet).
        if let Some(b) = bytes.checked_mul(1_000_000_000) {
            return Rate(b / ns);
        }
        let r = (u128::from(bytes) * 1_000_000_000) / u128::from(ns);
        Rate(u64::try_from(r).unwrap_or(u64::MAX))
    }
    /// Bytes per second.
    pub const fn bytes_per_sec(self) -> u64 {
        self.0
    }
    /// Bits per second (saturating).
    pub const fn bits_per_sec(self) -> u64 {
        self.0.saturating_mul(8)
    }
    /// The rate scaled by `num / den` (saturating; `den == 0` gives the maximum rate).
    pub fn scaled(self, num: u64, den: u64) -> Rate {
        if den == 0 {
            return Rate(u64::MAX);
        }
        if let Some(p) = self.0.checked_mul(num) {
            return Rate(p / den);
        }
        let r = u128::from(self.0) * u128::from(num) / u128::from(den);
        Rate(u64::try_from(r).unwrap_or(u64::MAX))
    }
    /// How long `bytes` take at this rate, rounded up to the next nanosecond.
    /// A zero rate never finishes: the result is `Duration::MAX`.
    pub fn transmit_time(self, bytes: u64) -> Duration {
        if self.0 == 0 {
            return Duration::MAX;
        }
        Duration::from_nanos(self.transmit_nanos(bytes))
    }
    /// [`Rate::transmit_time`] in nanoseconds (saturating; `u64::MAX` for a
    /// zero rate), for callers that keep time as [`Time`]'s integer
    /// nanoseconds: a pacer asks this for every paced packet, and the
    /// round trip through `Duration` costs more than the division.
    pub fn transmit_nanos(self, bytes: u64) -> u64 {
        if self.0 == 0 {
            return u64::MAX;
        }
        if let Some(b) = bytes.checked_mul(1_000_000_000) {
            return b.div_ceil(self.0);
        }
        let ns = (u128::from(bytes) * 1_000_000_000).div_ceil(u128::from(self.0));
        u64::try_from(ns).unwrap_or(u64::MAX)
    }
    /// Bytes this rate moves in `d` (rounded down, saturating).
    pub fn bytes_in(self, d: Duration) -> u64 {
        match u64::try_from(d.as_nanos()) {
            Ok(ns) => self.bytes_in_nanos(ns),
            Err(_) => {
                let b = u128::from(self.0) * d.as_nanos() / 1_000_000_000;
                u64::try_from(b).unwrap_or(u64::MAX)
            }
        }
    }
    /// [`Rate::bytes_in`] over `ns` nanoseconds (rounded down, saturating).
    pub fn bytes_in_nanos(self, ns: u64) -> u64 {
        if let Some(b) = self.0.checked_mul(ns) {
            return b / 1_000_000_000;
        }
        let b = u128::from(self.0) * u128::from(ns) / 1_000_000_000;
        u64::try_from(b).unwrap_or(u64::MAX)
    }
}

impl fmt::Debug for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3}Mbit/s", self.bits_per_sec() as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_print_as_typed_without_float_noise() {
        for (ns, shown) in [
            (15_300_000u64, "15.3"),
            (4_488_000, "4.488"),
            (20_300_000, "20.3"),
            (1_680_000_000, "1680"),
            (88_201_000, "88.201"),
            (1_088_660_000, "1088.66"),
        ] {
            let d = Duration::from_nanos(ns);
            assert_eq!(duration_millis_f64(d).to_string(), shown);
        }
        // What it replaces printed noise for these.
        assert_eq!(
            (Duration::from_nanos(15_300_000).as_secs_f64() * 1e3).to_string(),
            "15.299999999999999"
        );
    }

    #[test]
    fn time_arithmetic_saturates() {
        let t = Time::from_millis(5);
        assert_eq!(t - Time::from_millis(7), Duration::ZERO);
        assert_eq!(Time::MAX + Duration::from_secs(1), Time::MAX);
        assert_eq!(Time::ZERO - Duration::from_secs(1), Time::ZERO);
        assert_eq!((t + Duration::from_micros(250)).as_micros(), 5_250);
    }

    #[test]
    fn rate_transmit_time_rounds_up() {
        // 100 Mbit/s = 12.5 MB/s: a 1500-byte packet takes exactly 120 µs.
        let r = Rate::from_bits_per_sec(100_000_000);
        assert_eq!(r.transmit_time(1500), Duration::from_micros(120));
        // 1 byte at 3 B/s is 333,333,333.3 ns: rounded up.
        assert_eq!(
            Rate::from_bytes_per_sec(3).transmit_time(1),
            Duration::from_nanos(333_333_334)
        );
        assert_eq!(Rate::ZERO.transmit_time(1), Duration::MAX);
        assert_eq!(r.bytes_in(Duration::from_millis(1)), 12_500);
        assert_eq!(Rate::from_bytes_over(12_500, Duration::from_millis(1)), r);
    }

    /// The 128-bit formulas the u64 fast paths must agree with.
    fn reference(rate: u64, bytes: u64, ns: u64, num: u64, den: u64) -> [u128; 4] {
        let sat = |v: u128| v.min(u128::from(u64::MAX));
        [
            sat(u128::from(bytes) * 1_000_000_000 / u128::from(ns.max(1))),
            sat(u128::from(rate) * u128::from(num) / u128::from(den.max(1))),
            sat((u128::from(bytes) * 1_000_000_000).div_ceil(u128::from(rate.max(1)))),
            sat(u128::from(rate) * u128::from(ns) / 1_000_000_000),
        ]
    }

    fn fast(rate: u64, bytes: u64, ns: u64, num: u64, den: u64) -> [u128; 4] {
        let r = Rate::from_bytes_per_sec(rate.max(1));
        let d = Duration::from_nanos(ns);
        // The nanosecond forms are the same numbers.
        assert_eq!(
            r.transmit_nanos(bytes),
            duration_nanos(r.transmit_time(bytes))
        );
        let r0 = Rate::from_bytes_per_sec(rate);
        assert_eq!(r0.bytes_in_nanos(ns), r0.bytes_in(d));
        [
            u128::from(Rate::from_bytes_over(bytes, Duration::from_nanos(ns.max(1))).0),
            u128::from(Rate::from_bytes_per_sec(rate).scaled(num, den.max(1)).0),
            u128::from(duration_nanos(r.transmit_time(bytes))),
            u128::from(Rate::from_bytes_per_sec(rate).bytes_in(d)),
        ]
    }

    #[test]
    fn rate_arithmetic_fast_paths_match_128_bit_arithmetic_at_the_edges() {
        let edges = [
            0,
            1,
            2,
            999_999_999,
            1_000_000_000,
            18_446_744_073,
            18_446_744_074,
        ];
        let big = [u64::MAX / 2, u64::MAX - 1, u64::MAX];
        for &a in edges.iter().chain(&big) {
            for &b in edges.iter().chain(&big) {
                let (rate, bytes, ns) = (a.max(1), b, a.max(1));
                assert_eq!(
                    fast(rate, bytes, ns, b, a),
                    reference(rate, bytes, ns, b, a),
                    "{a} {b}"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn rate_arithmetic_fast_paths_match_128_bit_arithmetic(
            rate in 1u64..,
            bytes: u64,
            ns in 1u64..,
            num: u64,
            den in 1u64..,
            small in 0u32..4,
        ) {
            // Mostly operands of realistic size (the fast path), some not.
            let shrink = |v: u64| if small > 0 { v >> (small * 16) } else { v };
            let (rate, bytes, ns, num) = (shrink(rate).max(1), shrink(bytes), shrink(ns).max(1), shrink(num));
            proptest::prop_assert_eq!(
                fast(rate, bytes, ns, num, den),
                reference(rate, bytes, ns, num, den)
            );
        }
    }
}
