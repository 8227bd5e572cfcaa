//! The controller's pacing in real mode: a gate in front of quinn's sends.
//!
//! quinn 0.11 paces every connection itself, at `1.25 · window / srtt`,
//! and never asks the controller for its rate (docs/real-mode.md shows
//! what that does to Rapid Start's first flight and 3× growth, and BBR
//! paces by design). The only call quinn makes before each datagram is
//! `Controller::window()`, compared as `in_flight + datagram >= window`
//! ("blocked"). The gate answers it:
//!
//! - [`OPEN_WINDOW`] (2^62) when the controller's own window has room for
//!   another datagram (RFC 9002 §7: bytes in flight may reach the window
//!   but not pass it, as in the simulator; quinn's own test blocks one
//!   datagram earlier) and ramp-cc's
//!   leaky-bucket [`Pacer`], run at the controller's
//!   [`pacing_rate`](ramp_cc::Controller::pacing_rate), has credit for it.
//!   quinn-proto's pacer stands aside for windows above `u32::MAX`
//!   (`Pacer::delay`), so the datagram leaves at once;
//! - [`CLOSED_WINDOW`] (1) otherwise: quinn counts the connection as
//!   congestion-blocked (not application-limited). When the pacer is what
//!   closed it, quinn has no timer to come back, so the gate books a
//!   wake-up with [`super::wake`] for the instant the credit will be there.
//!
//! The server turns quinn's segmentation offload off while the gate is
//! used, so quinn asks before every datagram and reports each in
//! `on_sent` (one GSO batch could otherwise carry ten datagrams through
//! one open answer).
//!
//! The pacer is the simulator's (one definition of the leaky bucket) with
//! two real-mode settings:
//! - no initial burst: the gate takes over once the handshake is done, and
//!   the connection's initial burst was its handshake flight, which quinn
//!   sent. A Rapid Start first flight is therefore spread over the whole
//!   RTT as draft-kazuho-ccwg-rapid-start §3.1 intends, where the
//!   simulator lets its first ten packets out at once;
//! - credit may build up to [`WAKE_SLACK`] at the current rate (at least
//!   [`BURST_QUANTUM_PACKETS`]), the size of BBR's send quantum: a wake-up
//!   that comes late by up to that much loses no sending time. With the
//!   simulator's two-packet cap, a 100 µs late wake-up at 200 Mbit/s would.

use std::time::Duration;

use ramp_cc::pacer::{Pacer, PacerConfig, BURST_QUANTUM_PACKETS};
use ramp_cc::{Rate, Time};

/// `window()`'s answer when a datagram may leave now: above quinn-proto's
/// `u32::MAX` bound, beyond which its own pacer does not delay, and far
/// above any bytes in flight.
pub const OPEN_WINDOW: u64 = 1 << 62;

/// `window()`'s answer when no datagram may leave: every `in_flight +
/// datagram` reaches it.
pub const CLOSED_WINDOW: u64 = 1;

/// How late a wake-up may come without costing sending time: the credit
/// cap is this long at the pacing rate. 1 ms, the span of BBR's send
/// quantum (draft-ietf-ccwg-bbr §5.6.3) and of Linux's TSO autosizing.
pub const WAKE_SLACK: Duration = Duration::from_millis(1);

/// What the gate says about the next datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It may leave now.
    Open,
    /// The controller's window is full: an ACK will reopen it.
    WindowFull,
    /// The pacer has no credit until this time.
    PacedUntil(Time),
}

/// The leaky bucket behind `window()`, at the controller's rate.
#[derive(Clone, Debug)]
pub struct PacingGate {
    pacer: Pacer,
    rate: Option<Rate>,
}

impl PacingGate {
    /// A gate with no credit beyond its first datagram, for datagrams of
    /// `max_datagram_size` bytes.
    pub fn new(max_datagram_size: u64) -> PacingGate {
        PacingGate {
            pacer: Pacer::new(PacerConfig {
                initial_burst_packets: 1,
                burst_quantum_packets: BURST_QUANTUM_PACKETS,
                max_datagram_size,
            }),
            rate: None,
        }
    }

    /// The controller's current pacing rate; `None` leaves the gate
    /// without a rate (the caller then lets quinn pace).
    pub fn set_rate(&mut self, rate: Option<Rate>, max_datagram_size: u64) {
        self.rate = rate;
        if let Some(r) = rate {
            let packets = r.bytes_in(WAKE_SLACK) / max_datagram_size.max(1);
            self.pacer
                .set_burst_quantum_packets(packets.max(BURST_QUANTUM_PACKETS));
        }
    }

    /// The rate the gate paces at.
    pub fn rate(&self) -> Option<Rate> {
        self.rate
    }

    /// May a datagram of `datagram` bytes leave at `now`, with `in_flight`
    /// bytes outstanding under a window of `window` bytes? RFC 9002 §7: not
    /// if it would take bytes in flight past the window.
    pub fn verdict(&self, now: Time, in_flight: u64, window: u64, datagram: u64) -> Verdict {
        if in_flight.saturating_add(datagram) > window {
            return Verdict::WindowFull;
        }
        let at = self.pacer.next_send_time(now, self.rate, datagram);
        if at <= now {
            Verdict::Open
        } else {
            Verdict::PacedUntil(at)
        }
    }

    /// A datagram of `bytes` left at `now`.
    pub fn on_sent(&mut self, now: Time, bytes: u64) {
        self.pacer.on_packet_sent(now, bytes, self.rate);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MDS: u64 = 1200;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    #[test]
    fn the_first_datagram_leaves_then_the_rate_spaces_the_rest() {
        // 24 packets per 40 ms: one every 1.667 ms.
        let mut g = PacingGate::new(MDS);
        g.set_rate(
            Some(Rate::from_bytes_over(24 * MDS, Duration::from_millis(40))),
            MDS,
        );
        assert_eq!(g.verdict(ms(0), 0, 100 * MDS, MDS), Verdict::Open);
        g.on_sent(ms(0), MDS);
        let Verdict::PacedUntil(t) = g.verdict(ms(0), MDS, 100 * MDS, MDS) else {
            panic!("the second packet must wait");
        };
        let gap = t.saturating_since(ms(0));
        assert!(
            gap >= Duration::from_micros(1600) && gap <= Duration::from_micros(1700),
            "{gap:?}"
        );
        assert_eq!(g.verdict(t, MDS, 100 * MDS, MDS), Verdict::Open);
    }

    #[test]
    fn rfc9002_7_a_full_window_closes_the_gate_whatever_the_credit() {
        // 9 packets of 1200 in flight: the 10th fills a 12 000-byte window
        // exactly and may leave; an 11th would pass it.
        let mut g = PacingGate::new(MDS);
        g.set_rate(Some(Rate::from_bits_per_sec(1_000_000_000)), MDS);
        assert_eq!(g.verdict(ms(5), 9 * MDS, 10 * MDS, MDS), Verdict::Open);
        assert_eq!(
            g.verdict(ms(5), 9 * MDS + 1, 10 * MDS, MDS),
            Verdict::WindowFull
        );
    }

    #[test]
    fn a_late_wake_up_catches_up_by_one_millisecond_at_the_rate() {
        // 100 Mbit/s: 12.5 kB per ms, 10 packets of credit after a long
        // pause; the 11th waits.
        let mut g = PacingGate::new(MDS);
        g.set_rate(Some(Rate::from_bits_per_sec(100_000_000)), MDS);
        g.on_sent(ms(0), MDS);
        let mut now = ms(50);
        let mut sent = 0;
        while g.verdict(now, 0, u64::MAX, MDS) == Verdict::Open {
            g.on_sent(now, MDS);
            sent += 1;
            now = now.saturating_add(Duration::from_nanos(1));
        }
        assert_eq!(sent, 10);
    }

    #[test]
    fn no_rate_means_no_pacing() {
        let g = PacingGate::new(MDS);
        assert_eq!(g.rate(), None);
        assert_eq!(g.verdict(ms(1), 0, 10 * MDS, MDS), Verdict::Open);
    }
}
