//! The controller's pacing in real mode: a gate in front of quinn's sends.
//!
//! quinn 0.11 paces every connection itself, at `1.25 · window / srtt`,
//! and never asks the controller for its rate (docs/real-pacing.md shows
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
//! - a late wake-up may make up for lost time: when the gate closed for
//!   the pacer until T and is asked again at `now` within [`WAKE_SLACK`]
//!   after T, a datagram may leave up to `now − T` early (Chromium's
//!   pacing sender does the same with its 1 ms alarm granularity). Idle
//!   credit otherwise stays at the simulator's [`BURST_QUANTUM_PACKETS`],
//!   so a window-limited stretch cannot save up a burst: when several ACK
//!   frames reach quinn at once and open the window by many packets, they
//!   leave at the pacing rate. (An earlier version let credit build to
//!   1 ms at the rate whatever the cause; on seed-100m's path BBRv3's
//!   Startup then sent up to 15 datagrams at once into a nearly full
//!   queue and lost 53–83 packets where the simulator lost 24.)

use std::sync::atomic::{AtomicU64, Ordering};
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

/// How late a wake-up may come and still make up for the time lost: 1 ms,
/// the alarm granularity of Chromium's QUIC pacing sender (and the span
/// of BBR's send quantum, draft-ietf-ccwg-bbr §5.6.3). Later than that,
/// the connection is treated as having idled.
pub const WAKE_SLACK: Duration = Duration::from_millis(1);

/// `paced_until` when the gate is not waiting for the pacer.
const NOT_PACED: u64 = u64::MAX;

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
#[derive(Debug)]
pub struct PacingGate {
    pacer: Pacer,
    rate: Option<Rate>,
    /// When the gate last closed for the pacer, the time it would open
    /// (nanoseconds of [`Time`]; [`NOT_PACED`] otherwise). Written by
    /// [`PacingGate::verdict`], which quinn's `window(&self)` calls, hence
    /// an atomic.
    paced_until: AtomicU64,
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
            paced_until: AtomicU64::new(NOT_PACED),
        }
    }

    /// The controller's current pacing rate; `None` leaves the gate
    /// without a rate (the caller then lets quinn pace).
    pub fn set_rate(&mut self, rate: Option<Rate>) {
        self.rate = rate;
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
            // The window, not the pacer, holds the sender: no lost time
            // to make up when it reopens.
            self.paced_until.store(NOT_PACED, Ordering::Relaxed);
            return Verdict::WindowFull;
        }
        let at = self.pacer.next_send_time(now, self.rate, datagram);
        if at <= now.saturating_add(self.lateness(now)) {
            Verdict::Open
        } else {
            self.paced_until.store(at.as_nanos(), Ordering::Relaxed);
            Verdict::PacedUntil(at)
        }
    }

    /// How late the wake-up for the last pacing delay came, if within
    /// [`WAKE_SLACK`]: the time a datagram may now leave early.
    fn lateness(&self, now: Time) -> Duration {
        let until = self.paced_until.load(Ordering::Relaxed);
        if until == NOT_PACED {
            return Duration::ZERO;
        }
        let late = now.saturating_since(Time::from_nanos(until));
        if late > WAKE_SLACK {
            Duration::ZERO
        } else {
            late
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
        g.set_rate(Some(Rate::from_bytes_over(
            24 * MDS,
            Duration::from_millis(40),
        )));
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
        g.set_rate(Some(Rate::from_bits_per_sec(1_000_000_000)));
        assert_eq!(g.verdict(ms(5), 9 * MDS, 10 * MDS, MDS), Verdict::Open);
        assert_eq!(
            g.verdict(ms(5), 9 * MDS + 1, 10 * MDS, MDS),
            Verdict::WindowFull
        );
    }

    /// 100 Mbit/s: one 1200-byte datagram every 96 µs.
    fn gate_100m() -> PacingGate {
        let mut g = PacingGate::new(MDS);
        g.set_rate(Some(Rate::from_bits_per_sec(100_000_000)));
        g
    }

    /// Sends every datagram the gate lets out at `now` (stepping 1 ns per
    /// datagram); returns how many left.
    fn drain(g: &mut PacingGate, mut now: Time) -> u64 {
        let mut sent = 0;
        while g.verdict(now, 0, u64::MAX, MDS) == Verdict::Open {
            g.on_sent(now, MDS);
            sent += 1;
            now = now.saturating_add(Duration::from_nanos(1));
        }
        sent
    }

    #[test]
    fn a_late_wake_up_makes_up_for_the_lost_time() {
        let mut g = gate_100m();
        g.on_sent(ms(0), MDS);
        let Verdict::PacedUntil(t) = g.verdict(ms(0), 0, u64::MAX, MDS) else {
            panic!("the second datagram must wait");
        };
        // Woken 480 µs late: the credit the bucket holds (its idle
        // quantum, 2 datagrams) and five more sent early (480 / 96).
        let late = t.saturating_add(Duration::from_micros(480));
        assert_eq!(drain(&mut g, late), BURST_QUANTUM_PACKETS + 5);
    }

    #[test]
    fn a_wake_up_later_than_the_slack_is_an_idle_restart() {
        let mut g = gate_100m();
        g.on_sent(ms(0), MDS);
        assert!(matches!(
            g.verdict(ms(0), 0, u64::MAX, MDS),
            Verdict::PacedUntil(_)
        ));
        // 50 ms later: only the idle quantum (2 datagrams) leaves at once.
        assert_eq!(drain(&mut g, ms(50)), BURST_QUANTUM_PACKETS);
    }

    #[test]
    fn a_window_limited_stretch_saves_up_no_burst() {
        // The window closes the gate while the pacer waits; when ACKs
        // reopen it 0.5 ms later, the idle quantum leaves, not 0.5 ms of
        // catch-up.
        let mut g = gate_100m();
        g.on_sent(ms(0), MDS);
        assert!(matches!(
            g.verdict(ms(0), 0, u64::MAX, MDS),
            Verdict::PacedUntil(_)
        ));
        assert_eq!(
            g.verdict(ms(0), 10 * MDS, 10 * MDS, MDS),
            Verdict::WindowFull
        );
        let reopened = Time::from_micros(600);
        assert_eq!(drain(&mut g, reopened), BURST_QUANTUM_PACKETS);
    }

    #[test]
    fn no_rate_means_no_pacing() {
        let g = PacingGate::new(MDS);
        assert_eq!(g.rate(), None);
        assert_eq!(g.verdict(ms(1), 0, 10 * MDS, MDS), Verdict::Open);
    }
}
