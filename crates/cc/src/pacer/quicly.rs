//! A model of quicly's pacer, the one the Rapid Start production
//! experiment's h2o servers ran: h2o/quicly `include/quicly/pacer.h` at
//! commit 45bf8a376ad2a56f67eb9f54c87d9441b8e3add7 (2026-03-09; the file
//! last changed on 2025-08-04, 40aa9dfb), driven as `lib/quicly.c` at that
//! commit drives it. Arithmetic for arithmetic, on quicly's millisecond
//! clock:
//!
//! - the rate is whole bytes per millisecond, rounded up and at least 1
//!   (`quicly_pacer_calc_send_rate`, `cwnd · multiplier / srtt_ms`);
//! - each call of `quicly_send` is granted a window by
//!   `quicly_pacer_get_window`: the credit left of a burst of
//!   `max(9·MTU + 1, rate)` bytes once the time since the last grant has
//!   paid off what was sent, rounded up to whole packets and never less
//!   than 2 packets; the call sends packets while any of it is left (the
//!   last packet may overshoot, as `send_window` is signed in quicly);
//! - a call may start only once `quicly_pacer_can_send_at` allows it: at
//!   once while less than `max(8·MTU + 1, rate)` bytes are outstanding,
//!   else `(bytes_sent − max(8·MTU + 1 − rate, 0)) / rate` whole
//!   milliseconds (rounded down) after the last grant.
//!
//! So a fresh or long-idle connection sends 10 packets at once (at rates
//! below 9 packets per millisecond), then 2 packets per grant at the rate:
//! over any paced stretch, `rate · duration + 8·MTU ≤ bytes sent < rate ·
//! duration + 10·MTU` (pacer.h's own statement of its design).
//!
//! The rate is the controller's ([`PacingInput::rate`]): quicly's
//! multiplier (`calc_pacer_send_rate` in lib/quicly.c: 1 in the jump, 3 in
//! Rapid Start's 3× growth, 2 otherwise, 2 after any loss) is the
//! controller's pacing gain, which the seed arms set to quicly's values
//! (`ca_gain=2`). ramp's smoothed RTT is not rounded to whole milliseconds
//! before the division (quicly's is); the rate is the controller's rate in
//! bytes per second divided by 1000 and rounded up.
//!
//! A call is one instant of the caller: the window granted at the first
//! [`Pacing::next_send_time`] of an instant lasts while the caller keeps
//! asking at that same instant, as the packets of one `quicly_send` call
//! share one send window. A later instant, even within the same
//! millisecond, is a new call (h2o calls `quicly_send` for every batch of
//! datagrams received and every timer that fires).

use ramp_vocab::time::{Rate, Time};

use super::{mtu_u16, Pacing, PacingInput};

/// `QUICLY_PACER_BURST_LOW` (include/quicly/pacer.h, 45bf8a37): the credit
/// below which a call may start at once, packets (plus one byte).
pub const QUICLY_PACER_BURST_LOW: u64 = 8;

/// `QUICLY_PACER_BURST_HIGH` (include/quicly/pacer.h, 45bf8a37): the burst
/// a grant rounds up to, packets (`(HIGH − 1)·MTU + 1` bytes, rounded up).
pub const QUICLY_PACER_BURST_HIGH: u64 = 10;

/// The least window a grant gives, packets: "spawn 2 full-sized packets at
/// once" (quicly commit fc7e0bdf, 2024-03-09; `window < 2` in
/// `quicly_pacer_get_window`).
pub const QUICLY_PACER_MIN_GRANT_PACKETS: u64 = 2;

/// `quicly_pacer_calc_send_rate`: `ceil(cwnd · multiplier / rtt)` bytes per
/// millisecond (`rtt` in milliseconds), capped at `u32::MAX`. quicly
/// divides by its smoothed RTT, which is at least 1 ms; a zero `rtt` here
/// is taken as 1.
pub fn quicly_pacer_calc_send_rate(multiplier: u32, cwnd: u32, rtt: u32) -> u32 {
    let rtt = u64::from(rtt.max(1));
    let ret = (u64::from(cwnd) * u64::from(multiplier)).div_ceil(rtt);
    u32::try_from(ret).unwrap_or(u32::MAX)
}

/// A controller's rate as quicly's `bytes_per_msec`: bytes per second over
/// 1000, rounded up (as `quicly_pacer_calc_send_rate` rounds up), at least
/// 1 and at most `u32::MAX`.
pub fn bytes_per_msec(rate: Rate) -> u32 {
    let v = rate.bytes_per_sec().div_ceil(1000).max(1);
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// quicly's pacer: its two fields (`at`, `bytes_sent`) and the window of the
/// current send call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuiclyPacer {
    /// `at`, ms; `None` is quicly's `INT64_MIN` (`quicly_pacer_reset`).
    at: Option<u64>,
    /// `bytes_sent`: credit spent as of `at`.
    bytes_sent: u64,
    /// The current call's instant and what is left of its window, bytes.
    call: Option<(Time, u64)>,
}

impl Default for QuiclyPacer {
    fn default() -> Self {
        Self::new()
    }
}

impl QuiclyPacer {
    /// `quicly_pacer_reset`: a pacer that has sent nothing (quicly resets
    /// it when the connection is created).
    pub fn new() -> Self {
        QuiclyPacer {
            at: None,
            bytes_sent: 0,
            call: None,
        }
    }

    /// `bytes_sent`, bytes.
    pub fn bytes_sent(&self) -> u64 {
        self.bytes_sent
    }

    /// `quicly_pacer_can_send_at`: the millisecond from which a call may
    /// send; 0 means at once.
    pub fn can_send_at(&self, bytes_per_msec: u32, mtu: u16) -> u64 {
        let rate = u64::from(bytes_per_msec.max(1));
        let burst_size = QUICLY_PACER_BURST_LOW * u64::from(mtu) + 1;
        let burst_credit = burst_size.saturating_sub(rate);
        if self.bytes_sent < rate + burst_credit {
            return 0;
        }
        // Rounded down: "better for a pacer to be a bit aggressive".
        let delay = (self.bytes_sent - burst_credit) / rate;
        self.at.unwrap_or(0).saturating_add(delay)
    }

    /// `quicly_pacer_get_window`: the bytes a call at `now_ms` may send
    /// (0 if [`QuiclyPacer::can_send_at`] is later); moves `at` to `now_ms`.
    pub fn get_window(&mut self, now_ms: u64, bytes_per_msec: u32, mtu: u16) -> u64 {
        if now_ms < self.can_send_at(bytes_per_msec, mtu) {
            return 0;
        }
        let rate = u64::from(bytes_per_msec.max(1));
        let mtu = u64::from(mtu.max(1));
        let burst_window = ((QUICLY_PACER_BURST_HIGH - 1) * mtu + 1).max(rate);
        // quicly's `at` starts at INT64_MIN: the first call finds an
        // unbounded delta.
        let delta = match self.at {
            Some(at) => now_ms.saturating_sub(at).saturating_mul(rate),
            None => u64::MAX,
        };
        let packets = if self.bytes_sent > delta {
            self.bytes_sent -= delta;
            if burst_window > self.bytes_sent {
                (burst_window - self.bytes_sent)
                    .div_ceil(mtu)
                    .max(QUICLY_PACER_MIN_GRANT_PACKETS)
            } else {
                QUICLY_PACER_MIN_GRANT_PACKETS
            }
        } else {
            self.bytes_sent = 0;
            burst_window.div_ceil(mtu)
        };
        self.at = Some(now_ms);
        packets * mtu
    }

    /// `quicly_pacer_consume_window`: `delta` bytes were sent.
    pub fn consume_window(&mut self, delta: u64) {
        self.bytes_sent = self.bytes_sent.saturating_add(delta);
    }

    /// Takes back `delta` bytes charged with [`QuiclyPacer::consume_window`]
    /// for packets that were not sent after all (quicly has no such call:
    /// it charges each packet once it is built; ramp's real mode charges a
    /// datagram when it grants it and settles with the bytes quinn reports).
    pub fn refund_window(&mut self, delta: u64) {
        self.bytes_sent = self.bytes_sent.saturating_sub(delta);
    }
}

// Inlined into `AnyPacer`'s dispatch: called before every packet of a
// seed arm (about 9 instructions a call in the call itself).
impl Pacing for QuiclyPacer {
    #[inline]
    fn next_send_time(&mut self, now: Time, input: &PacingInput, _bytes: u64) -> Time {
        let Some(rate) = input.rate else {
            return now;
        };
        if rate == Rate::ZERO {
            return Time::MAX;
        }
        if let Some((t, left)) = self.call {
            if t == now && left > 0 {
                return now;
            }
        }
        let bpm = bytes_per_msec(rate);
        let mtu = mtu_u16(input.max_datagram_size);
        let now_ms = now.as_millis();
        let at = self.can_send_at(bpm, mtu);
        if at > now_ms {
            // quicly's timer fires on the millisecond.
            return Time::from_millis(at);
        }
        let window = self.get_window(now_ms, bpm, mtu);
        self.call = Some((now, window));
        now
    }

    #[inline]
    fn on_packet_sent(&mut self, now: Time, bytes: u64, _input: &PacingInput) {
        self.consume_window(bytes);
        if let Some((t, left)) = self.call.as_mut() {
            if *t == now {
                *left = left.saturating_sub(bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u16 = 1252;

    #[test]
    fn quicly_pacer_calc_send_rate_rounds_up_and_caps() {
        // 30 packets of 1252 B at 2× over 30 ms: 2504 B/ms exactly.
        assert_eq!(quicly_pacer_calc_send_rate(2, 37_560, 30), 2504);
        // One byte more rounds up.
        assert_eq!(quicly_pacer_calc_send_rate(2, 37_561, 30), 2505);
        assert_eq!(quicly_pacer_calc_send_rate(3, u32::MAX, 1), u32::MAX);
        assert_eq!(quicly_pacer_calc_send_rate(1, 1, 0), 1);
        assert_eq!(
            bytes_per_msec(Rate::from_bytes_per_sec(2_504_000)),
            quicly_pacer_calc_send_rate(2, 37_560, 30)
        );
        assert_eq!(bytes_per_msec(Rate::from_bytes_per_sec(1)), 1);
    }

    #[test]
    fn quicly_pacer_get_window_first_call_is_ten_packets() {
        let mut p = QuiclyPacer::new();
        assert_eq!(p.can_send_at(2504, MTU), 0);
        assert_eq!(p.get_window(30, 2504, MTU), 10 * u64::from(MTU));
        // At a rate above 9 packets per ms the burst is one ms of the rate,
        // in whole packets.
        let mut fast = QuiclyPacer::new();
        assert_eq!(fast.get_window(0, 20_000, MTU), 16 * u64::from(MTU));
    }

    #[test]
    fn quicly_pacer_can_send_at_rounds_the_delay_down() {
        let mut p = QuiclyPacer::new();
        let w = p.get_window(30, 2504, MTU);
        p.consume_window(w);
        // 12520 − (10017 − 2504) = 5007 bytes over 2504 B/ms: 1 ms (1.99).
        assert_eq!(p.can_send_at(2504, MTU), 31);
        assert_eq!(p.get_window(30, 2504, MTU), 0);
        // One ms later 2504 B are paid off: 10016 B outstanding leave
        // ceil((9·1252 + 1 − 10016) / 1252) = 2 packets.
        assert_eq!(p.get_window(31, 2504, MTU), 2 * u64::from(MTU));
        assert_eq!(p.bytes_sent(), 10_016);
    }

    #[test]
    fn quicly_pacer_h_design_bound_holds_over_a_paced_stretch() {
        // pacer.h: rate·duration + 8·mtu ≤ bytes_sent < rate·duration + 10·mtu
        // for a sender that always has data, here at 1 packet per ms.
        let rate = u32::from(MTU);
        let mut p = QuiclyPacer::new();
        let mut sent = 0u64;
        for now in 0..200u64 {
            while now >= p.can_send_at(rate, MTU) {
                let w = p.get_window(now, rate, MTU);
                if w == 0 {
                    break;
                }
                p.consume_window(w);
                sent += w;
            }
            let floor = u64::from(rate) * now + 8 * u64::from(MTU);
            let ceil = u64::from(rate) * (now + 1) + 10 * u64::from(MTU);
            assert!(sent >= floor && sent < ceil, "at {now} ms: {sent}");
        }
    }

    #[test]
    fn quicly_pacer_get_window_after_idle_is_a_full_burst() {
        let mut p = QuiclyPacer::new();
        let w = p.get_window(0, 1000, MTU);
        p.consume_window(w);
        // 20 ms idle at 1000 B/ms pays off 20000 B: a fresh 10-packet burst.
        assert_eq!(p.get_window(20, 1000, MTU), 10 * u64::from(MTU));
        assert_eq!(p.bytes_sent(), 0);
    }

    fn input(rate: u64) -> PacingInput {
        PacingInput {
            rate: Some(Rate::from_bytes_per_sec(rate)),
            window: 37_560,
            smoothed_rtt: core::time::Duration::from_millis(30),
            max_datagram_size: u64::from(MTU),
            burst: None,
        }
    }

    #[test]
    fn quicly_send_first_flight_is_ten_then_two_per_millisecond() {
        // IW 30 at 2·cwnd/srtt (2504 B/ms), from 30.4 ms on.
        let inp = input(2_504_000);
        let mut p = QuiclyPacer::new();
        let t0 = Time::from_micros(30_400);
        let mut times = Vec::new();
        let mut now = t0;
        while times.len() < 30 {
            let at = p.next_send_time(now, &inp, u64::from(MTU));
            if at > now {
                now = at;
                continue;
            }
            p.on_packet_sent(now, u64::from(MTU), &inp);
            times.push(now);
        }
        assert!(times[..10].iter().all(|&t| t == t0), "{times:?}");
        // Then 2 packets on each millisecond from 31 ms.
        for (i, t) in times[10..].iter().enumerate() {
            assert_eq!(
                *t,
                Time::from_millis(31 + i as u64 / 2),
                "packet {}",
                i + 10
            );
        }
    }

    #[test]
    fn quicly_send_window_is_per_call() {
        // A call that stopped for another reason (the congestion window)
        // and a later call at another instant of the same millisecond get
        // separate grants, as two quicly_send calls do.
        let inp = input(2_504_000);
        let mut p = QuiclyPacer::new();
        let t0 = Time::from_micros(30_100);
        for _ in 0..4 {
            assert_eq!(p.next_send_time(t0, &inp, 1252), t0);
            p.on_packet_sent(t0, 1252, &inp);
        }
        let t1 = Time::from_micros(30_600);
        // bytes_sent 5008 < 10017: a new grant of ceil((11269 − 5008)/1252) = 6.
        for _ in 0..6 {
            assert_eq!(p.next_send_time(t1, &inp, 1252), t1);
            p.on_packet_sent(t1, 1252, &inp);
        }
        assert_eq!(p.next_send_time(t1, &inp, 1252), Time::from_millis(31));
    }

    #[test]
    fn quicly_pacer_unpaced_and_zero_rate() {
        let mut p = QuiclyPacer::new();
        let t = Time::from_millis(1);
        let mut inp = input(1);
        inp.rate = None;
        assert_eq!(p.next_send_time(t, &inp, 1252), t);
        inp.rate = Some(Rate::ZERO);
        assert_eq!(p.next_send_time(t, &inp, 1252), Time::MAX);
    }
}
