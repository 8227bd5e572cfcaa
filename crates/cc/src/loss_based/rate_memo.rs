//! The last pacing rate and window a [`LossBased`](super::LossBased)
//! controller computed, kept until something they depend on may have
//! changed.
//!
//! A sender asks for the rate before every packet and for the window two
//! or three times a packet, and between two packets of a burst nothing
//! they depend on moves: sending changes the window only while PRR runs or
//! the one packet of §7.3.2 is pending. Every other controller call clears
//! the memo, and the smoothed RTT the rate was computed for is its key.
//! Atomics only because a [`Controller`](crate::Controller) is `Sync`;
//! relaxed loads and stores are plain moves on x86-64 and AArch64.

use core::sync::atomic::{AtomicU64, Ordering};
use core::time::Duration;

use ramp_vocab::time::Rate;

/// No rate remembered: [`key`] of no smoothed RTT.
const EMPTY: u64 = u64::MAX;

/// The memo's key for `srtt`: its seconds and nanoseconds in one word,
/// cheaper than a conversion to nanoseconds; [`EMPTY`] (not remembered)
/// from 2^32 seconds (136 years) up.
fn key(srtt: Duration) -> u64 {
    let secs = srtt.as_secs();
    if secs >> 32 != 0 {
        return EMPTY;
    }
    (secs << 32) | u64::from(srtt.subsec_nanos())
}

/// A remembered rate and the [`key`] of the smoothed RTT it was computed
/// for, and a remembered window.
#[derive(Debug)]
pub(super) struct RateMemo {
    srtt: AtomicU64,
    rate: AtomicU64,
    /// The window, [`EMPTY`] if not remembered (a window of `u64::MAX`
    /// bytes is recomputed every time: correct, and never met).
    window: AtomicU64,
}

impl Default for RateMemo {
    fn default() -> Self {
        RateMemo {
            srtt: AtomicU64::new(EMPTY),
            rate: AtomicU64::new(0),
            window: AtomicU64::new(EMPTY),
        }
    }
}

impl Clone for RateMemo {
    fn clone(&self) -> Self {
        RateMemo {
            srtt: AtomicU64::new(self.srtt.load(Ordering::Relaxed)),
            rate: AtomicU64::new(self.rate.load(Ordering::Relaxed)),
            window: AtomicU64::new(self.window.load(Ordering::Relaxed)),
        }
    }
}

impl RateMemo {
    /// The rate remembered for `srtt`, if any.
    #[inline]
    pub(super) fn get(&self, srtt: Duration) -> Option<Rate> {
        let k = key(srtt);
        (k != EMPTY && self.srtt.load(Ordering::Relaxed) == k)
            .then(|| Rate::from_bytes_per_sec(self.rate.load(Ordering::Relaxed)))
    }

    /// Remembers `rate` for `srtt`.
    pub(super) fn set(&self, srtt: Duration, rate: Rate) {
        self.srtt.store(key(srtt), Ordering::Relaxed);
        self.rate.store(rate.bytes_per_sec(), Ordering::Relaxed);
    }

    /// The remembered window, if any.
    #[inline]
    pub(super) fn window(&self) -> Option<u64> {
        let w = self.window.load(Ordering::Relaxed);
        (w != EMPTY).then_some(w)
    }

    /// Remembers the window.
    #[inline]
    pub(super) fn set_window(&self, window: u64) {
        self.window.store(window, Ordering::Relaxed);
    }

    /// Forgets the rate and the window: the state they were computed from
    /// may have moved.
    #[inline]
    pub(super) fn clear(&mut self) {
        *self.srtt.get_mut() = EMPTY;
        *self.window.get_mut() = EMPTY;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_memo_keys_by_the_exact_smoothed_rtt() {
        let mut m = RateMemo::default();
        let srtt = Duration::new(1, 5);
        assert_eq!(m.get(srtt), None);
        m.set(srtt, Rate::from_bytes_per_sec(7));
        assert_eq!(m.get(srtt), Some(Rate::from_bytes_per_sec(7)));
        assert_eq!(m.get(Duration::new(1, 6)), None);
        assert_eq!(m.get(Duration::new(5, 1)), None);
        assert_eq!(m.clone().get(srtt), Some(Rate::from_bytes_per_sec(7)));
        m.clear();
        assert_eq!(m.get(srtt), None);
        // Beyond 2^32 s nothing is remembered.
        let far = Duration::from_secs(1 << 32);
        m.set(far, Rate::from_bytes_per_sec(1));
        assert_eq!(m.get(far), None);
    }

    #[test]
    fn window_memo_is_forgotten_with_the_rate() {
        let mut m = RateMemo::default();
        assert_eq!(m.window(), None);
        m.set_window(12_000);
        m.set(Duration::new(0, 30_000_000), Rate::from_bytes_per_sec(7));
        assert_eq!(m.window(), Some(12_000));
        assert_eq!(m.clone().window(), Some(12_000));
        m.clear();
        assert_eq!(m.window(), None);
        m.set_window(u64::MAX);
        assert_eq!(m.window(), None, "u64::MAX is the empty mark");
    }
}
