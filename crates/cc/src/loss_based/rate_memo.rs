//! The last pacing rate a [`LossBased`](super::LossBased) controller
//! computed, kept until something it depends on may have changed.
//!
//! A sender asks for the rate before every packet, and between two packets
//! of a burst nothing it depends on moves: sending changes the window only
//! while PRR runs or the one packet of §7.3.2 is pending. Every other
//! controller call clears the memo, and the smoothed RTT it was computed
//! for is its key. Atomics only because a [`Controller`](crate::Controller)
//! is `Sync`; relaxed loads and stores are plain moves on x86-64 and
//! AArch64.

use core::sync::atomic::{AtomicU64, Ordering};
use core::time::Duration;

use ramp_vocab::time::{duration_nanos, Rate};

/// No rate remembered (no smoothed RTT is `u64::MAX` ns: 584 years
/// saturate to it, and the rate for any of them is the same).
const EMPTY: u64 = u64::MAX;

/// A remembered rate and the smoothed RTT (ns) it was computed for.
#[derive(Debug)]
pub(super) struct RateMemo {
    srtt: AtomicU64,
    rate: AtomicU64,
}

impl Default for RateMemo {
    fn default() -> Self {
        RateMemo {
            srtt: AtomicU64::new(EMPTY),
            rate: AtomicU64::new(0),
        }
    }
}

impl Clone for RateMemo {
    fn clone(&self) -> Self {
        RateMemo {
            srtt: AtomicU64::new(self.srtt.load(Ordering::Relaxed)),
            rate: AtomicU64::new(self.rate.load(Ordering::Relaxed)),
        }
    }
}

impl RateMemo {
    /// The rate remembered for `srtt`, if any.
    pub(super) fn get(&self, srtt: Duration) -> Option<Rate> {
        let key = duration_nanos(srtt);
        (key != EMPTY && self.srtt.load(Ordering::Relaxed) == key)
            .then(|| Rate::from_bytes_per_sec(self.rate.load(Ordering::Relaxed)))
    }

    /// Remembers `rate` for `srtt`.
    pub(super) fn set(&self, srtt: Duration, rate: Rate) {
        self.srtt.store(duration_nanos(srtt), Ordering::Relaxed);
        self.rate.store(rate.bytes_per_sec(), Ordering::Relaxed);
    }

    /// Forgets the rate: the state it was computed from may have moved.
    pub(super) fn clear(&mut self) {
        *self.srtt.get_mut() = EMPTY;
    }
}
