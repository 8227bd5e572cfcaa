//! A model of the pacer in quinn-proto 0.11.19 (`connection/pacing.rs`),
//! reproducing its arithmetic: it ignores the controller's rate and refills
//! at `1.25 · window / smoothed_rtt`, with a bucket of
//! `clamp(window · 2 ms / smoothed_rtt, 10·MTU, 256·MTU)` and, when short, a
//! wait until a **full** bucket has refilled, times 4/5. It shows what stock
//! quinn does to a paced first flight (docs/recovery.md).

use core::time::Duration;

use ramp_vocab::time::Time;

use super::{mtu_u16, Pacing, PacingInput};

/// quinn 0.11.19's burst interval: the bucket holds 2 ms of window.
const QUINN_BURST_INTERVAL_NANOS: u128 = 2_000_000;
/// quinn 0.11.19's minimum bucket, packets.
const QUINN_MIN_BURST_PACKETS: u64 = 10;
/// quinn 0.11.19's maximum bucket, packets.
const QUINN_MAX_BURST_PACKETS: u64 = 256;

/// A model of quinn-proto 0.11.19's token-bucket pacer, arithmetic for
/// arithmetic (including its `f64` refill, its truncating casts and its
/// lazy refill, which happens only when a call finds the bucket short).
///
/// The [`Pacing`] implementation feeds it `window`, `smoothed_rtt` and
/// `max_datagram_size` from [`PacingInput`] and ignores `rate`, as quinn
/// does. A zero-length wait (only when the deficit is a few bytes against a
/// window of hundreds of kilobytes per millisecond of RTT) is reported as
/// "send now", so a virtual-time caller cannot livelock.
/// quinn calls `on_transmit` for every packet with a non-empty size,
/// ACK-only ones included, and consults the pacer only for ack-eliciting
/// packets when no loss probe is pending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuinnPacer {
    capacity: u64,
    last_window: u64,
    tokens: u64,
    prev: Time,
}

/// quinn's `optimal_capacity`: `clamp(window · 2 ms / srtt, 10·mtu, 256·mtu)`.
pub fn quinn_optimal_capacity(smoothed_rtt: Duration, window: u64, mtu: u16) -> u64 {
    let rtt = smoothed_rtt.as_nanos().max(1);
    // quinn truncates the u128 quotient to u64.
    let capacity = ((u128::from(window) * QUINN_BURST_INTERVAL_NANOS) / rtt) as u64;
    capacity.clamp(
        QUINN_MIN_BURST_PACKETS * u64::from(mtu),
        QUINN_MAX_BURST_PACKETS * u64::from(mtu),
    )
}

impl QuinnPacer {
    /// quinn's `Pacer::new`: a full bucket sized for `window` and
    /// `smoothed_rtt` (quinn makes it with the initial RTT and window).
    pub fn new(smoothed_rtt: Duration, window: u64, mtu: u16, now: Time) -> Self {
        let capacity = quinn_optimal_capacity(smoothed_rtt, window, mtu);
        QuinnPacer {
            capacity,
            last_window: window,
            tokens: capacity,
            prev: now,
        }
    }

    /// Bucket capacity, bytes.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Tokens in the bucket as of the last refill, bytes.
    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    /// quinn's `on_transmit`.
    pub fn on_transmit(&mut self, packet_length: u16) {
        self.tokens = self.tokens.saturating_sub(packet_length.into());
    }

    /// quinn's `delay`: `None` to send at once, else when to ask again.
    /// (quinn debug-asserts a non-zero window; here a zero window is
    /// unpaced.)
    pub fn delay(
        &mut self,
        smoothed_rtt: Duration,
        bytes_to_send: u64,
        mtu: u16,
        window: u64,
        now: Time,
    ) -> Option<Time> {
        if window != self.last_window {
            self.capacity = quinn_optimal_capacity(smoothed_rtt, window, mtu);
            self.tokens = self.capacity.min(self.tokens);
            self.last_window = window;
        }
        if self.tokens >= bytes_to_send {
            return None;
        }
        if window > u64::from(u32::MAX) || window == 0 {
            return None;
        }
        let window = window as u32;
        let elapsed = now.saturating_since(self.prev);
        if smoothed_rtt.as_nanos() == 0 {
            return None;
        }
        let elapsed_rtts = elapsed.as_secs_f64() / smoothed_rtt.as_secs_f64();
        let new_tokens = f64::from(window) * 1.25 * elapsed_rtts;
        // `f64 as u64` saturates, as in quinn.
        self.tokens = self
            .tokens
            .saturating_add(new_tokens as u64)
            .min(self.capacity);
        self.prev = now;
        if self.tokens >= bytes_to_send {
            return None;
        }
        // quinn casts the byte deficit to u32 for Duration::checked_mul.
        let deficit = (bytes_to_send.max(self.capacity) - self.tokens) as u32;
        let unscaled = smoothed_rtt
            .checked_mul(deficit)
            .unwrap_or(Duration::new(u64::MAX, 999_999_999))
            / window;
        Some(self.prev.saturating_add((unscaled / 5) * 4))
    }
}

impl Pacing for QuinnPacer {
    fn next_send_time(&mut self, now: Time, input: &PacingInput, bytes: u64) -> Time {
        let mtu = mtu_u16(input.max_datagram_size);
        match self.delay(input.smoothed_rtt, bytes, mtu, input.window, now) {
            Some(t) if t > now => t,
            // A zero-length wait: in real time quinn would poll again a few
            // microseconds later and refill; in virtual time a 1 ns retry
            // refills nothing (the refill truncates), so send now.
            None | Some(_) => now,
        }
    }
    fn on_packet_sent(&mut self, _now: Time, bytes: u64, _input: &PacingInput) {
        self.on_transmit(mtu_u16(bytes));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn quinn_first_flight_is_two_bursts_of_ten() {
        // quinn-proto 0.11 (connection/pacing.rs): IW 12,000 B, jump window 24,000 B, srtt 50 ms:
        // 10 packets at once, then a 20 ms wait.
        let t0 = Time::from_millis(10);
        let mut q = QuinnPacer::new(ms(50), 24_000, 1200, t0);
        assert_eq!(q.capacity(), 12_000);
        for _ in 0..10 {
            assert_eq!(q.delay(ms(50), 1200, 1200, 24_000, t0), None);
            q.on_transmit(1200);
        }
        assert_eq!(q.delay(ms(50), 1200, 1200, 24_000, t0), Some(t0 + ms(20)));
        // At that time quinn's f64 refill gives 30000 · (0.02 / 0.05) =
        // 11999.999… → 11,999 tokens (truncated): only 9 packets go, and the
        // 10th waits (12000 − 1199) · 50 ms / 24000 · 4/5 = 18.0016 ms more.
        let t1 = t0 + ms(20);
        for _ in 0..9 {
            assert_eq!(q.delay(ms(50), 1200, 1200, 24_000, t1), None);
            q.on_transmit(1200);
        }
        assert_eq!(q.tokens(), 1199);
        assert_eq!(
            q.delay(ms(50), 1200, 1200, 24_000, t1),
            Some(t1 + Duration::from_nanos(18_001_664))
        );
    }

    #[test]
    fn quinn_capacity_clamps_and_follows_window() {
        assert_eq!(quinn_optimal_capacity(ms(50), 2_000_000, 1500), 80_000);
        assert_eq!(
            quinn_optimal_capacity(Duration::ZERO, 2_000_000, 1500),
            384_000
        );
        assert_eq!(quinn_optimal_capacity(ms(50), 1, 1500), 15_000);
        let t = Time::ZERO;
        let mut q = QuinnPacer::new(ms(50), 2_000_000, 1500, t);
        q.delay(ms(50), 1500, 1500, 1_000_000, t);
        assert_eq!((q.capacity(), q.tokens()), (40_000, 40_000));
    }

    #[test]
    fn quinn_half_refill_after_half_the_pause() {
        // quinn's own `computes_pause_correctly` scenario, as a fact check.
        let (w, mtu, rtt) = (2_000_000u64, 1000u16, ms(50));
        let t0 = Time::from_millis(1);
        let mut q = QuinnPacer::new(rtt, w, mtu, t0);
        for _ in 0..q.capacity() / 1000 {
            assert_eq!(q.delay(rtt, 1000, mtu, w, t0), None);
            q.on_transmit(mtu);
        }
        let pause = Duration::from_micros(1600);
        assert_eq!(q.delay(rtt, 1000, mtu, w, t0), Some(t0 + pause));
        assert_eq!(q.delay(rtt, 1000, mtu, w, t0 + pause / 2), None);
        assert_eq!(q.tokens(), q.capacity() / 2);
    }
}
