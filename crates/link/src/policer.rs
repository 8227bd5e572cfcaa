//! A token-bucket policer: no queue, so no delay signal, only drops.

use ramp_vocab::{Rate, Time};

/// A token-bucket policer with no queue: a packet passes if the bucket holds
/// its size in tokens, and is dropped otherwise.
#[derive(Clone, Debug)]
pub struct Policer {
    rate: Rate,
    burst_bytes: u64,
    /// Tokens, in bytes x 10^9 (byte-nanoseconds at 1 B/s) for exact refill.
    tokens_scaled: u128,
    last: Time,
}

impl Policer {
    /// A policer refilling at `rate` with a bucket of `burst_bytes`, full at start.
    pub fn new(rate: Rate, burst_bytes: u64) -> Policer {
        Policer {
            rate,
            burst_bytes,
            tokens_scaled: u128::from(burst_bytes) * 1_000_000_000,
            last: Time::ZERO,
        }
    }

    /// Whether a packet of `size` bytes arriving at `now` passes.
    pub fn admit(&mut self, now: Time, size: u32) -> bool {
        let elapsed = u128::from((now - self.last).as_nanos() as u64);
        self.last = self.last.max(now);
        let cap = u128::from(self.burst_bytes) * 1_000_000_000;
        self.tokens_scaled =
            (self.tokens_scaled + elapsed * u128::from(self.rate.bytes_per_sec())).min(cap);
        let need = u128::from(size) * 1_000_000_000;
        if self.tokens_scaled >= need {
            self.tokens_scaled -= need;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn mbit(v: u64) -> Rate {
        Rate::from_bits_per_sec(v * 1_000_000)
    }

    #[test]
    fn policer_passes_burst_then_rate() {
        // 1 Mbit/s = 125,000 B/s; bucket 3000 bytes.
        let mut p = Policer::new(mbit(1), 3000);
        let t = Time::from_millis(10);
        assert!(p.admit(t, 1000));
        assert!(p.admit(t, 1000));
        assert!(p.admit(t, 1000));
        assert!(!p.admit(t, 1000));
        // 8 ms later, 1000 bytes of tokens have accrued.
        let t2 = t + Duration::from_millis(8);
        assert!(p.admit(t2, 1000));
        assert!(!p.admit(t2, 1000));
        // Long idle: the bucket caps at the burst.
        let t3 = t2 + Duration::from_secs(10);
        assert!((0..3).all(|_| p.admit(t3, 1000)));
        assert!(!p.admit(t3, 1000));
    }
}
