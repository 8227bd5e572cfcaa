//! quicly's pacer behind the gate: an arm that says `pacer=quicly` (the
//! Rapid Start seed arms) is paced in real mode by the same
//! [`QuiclyPacer`] the simulator runs (h2o/quicly `include/quicly/pacer.h`
//! at 45bf8a37): a whole-millisecond clock, a burst of `max(9·MTU + 1,
//! rate)` bytes, grants of at least 2 packets, at the controller's rate
//! (quicly's multipliers are the seed arms' pacing gains).
//!
//! quicly asks its pacer once per `quicly_send` call
//! (`quicly_pacer_get_window`), sends packets while the granted window
//! lasts, and charges each one (`quicly_pacer_consume_window`); h2o and
//! quicly's `cli` call `quicly_send` for at most 10 datagrams at a time and
//! send them with one GSO write. quinn's counterpart of one call is one
//! send batch: it asks `window()` before each datagram of a batch of up to
//! 10 and reports the batch with one `on_sent`. So here:
//!
//! - the first question of a batch starts a call: if
//!   `quicly_pacer_can_send_at` is later than the current millisecond the
//!   gate closes until that millisecond (quicly's timer fires on the
//!   millisecond), else `get_window` grants the call its window;
//! - each datagram while the window lasts is granted and charged at once,
//!   as quicly charges each packet it builds (a window that runs out in
//!   the middle of a batch starts a new call there, as a second
//!   `quicly_send` would);
//! - `on_sent` settles the charges with the bytes quinn reports and ends
//!   the call; a pass that ends without a batch (quinn takes ACKs between
//!   passes) takes back its charges; a full congestion window ends the
//!   call, as it ends `quicly_send`.
//!
//! A grant of up to 10 packets thus leaves as one GSO batch, as quicly's
//! `cli` sends it.

use std::sync::Mutex;

use ramp_cc::pacer::{bytes_per_msec, QuiclyPacer};
use ramp_cc::{Rate, Time};

/// The pacer and the call in progress.
#[derive(Debug, Default)]
struct State {
    pacer: QuiclyPacer,
    /// What is left of the current call's window, bytes (0: no call).
    left: u64,
    /// Bytes charged for grants quinn has not reported yet.
    charged: u64,
}

/// quicly's pacer, asked as quinn asks `window()`.
#[derive(Debug, Default)]
pub(crate) struct QuiclyGate {
    /// `window(&self)` asks: interior mutability, uncontended (quinn
    /// drives one connection from one task at a time).
    state: Mutex<State>,
}

impl QuiclyGate {
    /// A pacer that has sent nothing (`quicly_pacer_reset`): the first
    /// call gets a full burst.
    pub(crate) fn new() -> QuiclyGate {
        QuiclyGate::default()
    }

    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        // A panic elsewhere while holding the lock leaves plain numbers
        // behind: carry on with them.
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut s)
    }

    /// May a datagram of `datagram` bytes leave at `now` at `rate`?
    /// `Ok` grants it (and charges it); `Err(t)` says the pacer has no
    /// window before `t`.
    pub(crate) fn grant(&self, now: Time, rate: Rate, datagram: u64) -> Result<(), Time> {
        if rate == Rate::ZERO {
            return Err(Time::MAX);
        }
        let bpm = bytes_per_msec(rate);
        let mtu = u16::try_from(datagram).unwrap_or(u16::MAX);
        self.with(|s| {
            if s.left == 0 {
                let now_ms = now.as_millis();
                let at = s.pacer.can_send_at(bpm, mtu);
                if at > now_ms {
                    return Err(Time::from_millis(at));
                }
                s.left = s.pacer.get_window(now_ms, bpm, mtu);
                if s.left == 0 {
                    // Not reached (can_send_at allowed the call); closed
                    // until the next millisecond rather than spinning.
                    return Err(Time::from_millis(now_ms.saturating_add(1)));
                }
            }
            // The last packet of a window may overshoot it (quicly's
            // `send_window` is signed).
            s.left = s.left.saturating_sub(datagram);
            s.pacer.consume_window(datagram);
            s.charged = s.charged.saturating_add(datagram);
            Ok(())
        })
    }

    /// The call ends (a full congestion window ends `quicly_send`).
    pub(crate) fn end_call(&self) {
        self.with(|s| s.left = 0);
    }

    /// quinn reported a batch of `bytes`: the charges are settled with the
    /// true bytes (the last datagram of a response may be short) and the
    /// call ends.
    pub(crate) fn on_sent(&self, bytes: u64) {
        self.with(|s| {
            if bytes >= s.charged {
                s.pacer.consume_window(bytes - s.charged);
            } else {
                s.pacer.refund_window(s.charged - bytes);
            }
            s.charged = 0;
            s.left = 0;
        });
    }

    /// A pass ended without a batch for the grants made: no datagram
    /// followed them, so their charges are taken back and the call ends.
    pub(crate) fn end_pass(&self) {
        self.with(|s| {
            s.pacer.refund_window(s.charged);
            s.charged = 0;
            s.left = 0;
        });
    }

    /// `bytes_sent` of the pacer, bytes (for tests and traces).
    #[cfg(test)]
    pub(crate) fn bytes_sent(&self) -> u64 {
        self.with(|s| s.pacer.bytes_sent())
    }
}

#[cfg(test)]
mod tests {
    //! The simulator's tests of `QuiclyPacer` (ramp-cc `pacer/quicly.rs`),
    //! asked as quinn asks: per datagram, twice, in GSO batches of up to 10
    //! reported with one `on_sent`.
    use std::time::Duration;

    use ramp_cc::pacer::{QUICLY_PACER_BURST_HIGH, QUICLY_PACER_BURST_LOW};
    use ramp_cc::{Rate, Time};

    use super::super::gate::{PacingGate, Verdict};

    const MDS: u64 = 1252;

    /// IW 30 at 2·cwnd/srtt over 30 ms: 2504 B/ms.
    fn gate_2504() -> PacingGate {
        let mut g = PacingGate::quicly(MDS);
        g.set_rate(Some(Rate::from_bytes_per_sec(2_504_000)));
        g
    }

    /// One quinn send pass at `now` of up to 10 datagrams of `MDS` under
    /// an open window; returns how many it built and the gate's last word.
    fn gso_pass(g: &mut PacingGate, now: Time) -> (u64, Verdict) {
        let mut built = 0;
        let last = loop {
            if built == 10 {
                break Verdict::Open;
            }
            let v = g.ask(now, 0, u64::MAX);
            if v != Verdict::Open {
                break v;
            }
            assert_eq!(g.ask(now, 0, u64::MAX), Verdict::Open, "second question");
            built += 1;
        };
        if built > 0 {
            g.on_sent(now, built * MDS);
        }
        (built, last)
    }

    /// A sender that always has data, woken when the gate says: the send
    /// time of every datagram up to `n`.
    fn run(g: &mut PacingGate, start: Time, n: usize) -> Vec<Time> {
        let mut times = Vec::new();
        let mut now = start;
        while times.len() < n {
            let (built, last) = gso_pass(g, now);
            times.extend(std::iter::repeat_n(now, built as usize));
            if let Verdict::PacedUntil(t) = last {
                assert!(t > now, "a closed gate names a later time");
                now = t;
            }
        }
        times.truncate(n);
        times
    }

    #[test]
    fn quicly_send_first_flight_is_ten_in_one_gso_batch_then_two_per_millisecond() {
        // ramp-cc's quicly_send_first_flight_is_ten_then_two_per_millisecond,
        // through the gate: the ten leave as one batch.
        let mut g = gate_2504();
        let t0 = Time::from_micros(30_400);
        assert_eq!(gso_pass(&mut g, t0).0, QUICLY_PACER_BURST_HIGH);
        assert_eq!(
            gso_pass(&mut g, t0),
            (0, Verdict::PacedUntil(Time::from_millis(31))),
            "quicly's timer fires on the millisecond"
        );
        let times = run(&mut g, Time::from_millis(31), 20);
        for (i, t) in times.iter().enumerate() {
            assert_eq!(
                *t,
                Time::from_millis(31 + i as u64 / 2),
                "packet {}",
                i + 10
            );
        }
    }

    #[test]
    fn quicly_pacer_h_design_bound_holds_through_the_gate() {
        // pacer.h: rate·duration + 8·mtu ≤ bytes_sent < rate·duration + 10·mtu,
        // at one packet per millisecond, woken late by up to 0.9 ms.
        let mut g = PacingGate::quicly(MDS);
        g.set_rate(Some(Rate::from_bytes_per_sec(MDS * 1000)));
        let mut sent = 0u64;
        let mut now = Time::ZERO;
        for step in 0..400u64 {
            let (built, last) = gso_pass(&mut g, now);
            sent += built * MDS;
            let ms = now.as_millis();
            let floor = MDS * ms + QUICLY_PACER_BURST_LOW * MDS;
            let ceil = MDS * (ms + 1) + QUICLY_PACER_BURST_HIGH * MDS;
            assert!(sent >= floor && sent < ceil, "at {now:?}: {sent}");
            let late = Duration::from_micros(step * 37 % 900);
            now = match last {
                Verdict::PacedUntil(t) => t.saturating_add(late),
                _ => now,
            };
        }
    }

    #[test]
    fn a_fast_rate_grants_more_than_one_batch_per_call() {
        // 20 000 B/ms is 16 packets of burst (a ms at the rate): quinn's
        // first batch takes 10, the next call at the same instant the
        // remaining 6 (get_window: ceil((20 000 − 12 520) / 1252)).
        let mut g = PacingGate::quicly(MDS);
        g.set_rate(Some(Rate::from_bytes_per_sec(20_000_000)));
        let t = Time::from_millis(5);
        assert_eq!(gso_pass(&mut g, t).0, 10);
        assert_eq!(gso_pass(&mut g, t).0, 6);
        assert!(matches!(gso_pass(&mut g, t), (0, Verdict::PacedUntil(_))));
    }

    #[test]
    fn grants_without_a_datagram_are_taken_back() {
        // A stray question (quinn's `Connection::stats` reads the window)
        // and an ACK before any batch: the charge is refunded, and the next
        // batch is the full first burst.
        let g = gate_2504();
        assert_eq!(g.ask(Time::from_millis(1), 0, u64::MAX), Verdict::Open);
        g.end_pass();
        let mut g = g;
        assert_eq!(gso_pass(&mut g, Time::from_millis(1)).0, 10);
    }

    #[test]
    fn the_bytes_reported_are_what_the_pacer_is_charged() {
        // Ten granted, reported as nine full datagrams and one of 100 B
        // (the end of a response): bytes_sent is the true 11 368.
        let mut g = gate_2504();
        let t = Time::from_millis(1);
        for _ in 0..10 {
            assert_eq!(g.ask(t, 0, u64::MAX), Verdict::Open);
            assert_eq!(g.ask(t, 0, u64::MAX), Verdict::Open);
        }
        g.on_sent(t, 9 * MDS + 100);
        let Some(q) = g.quicly_gate() else {
            panic!("a quicly gate");
        };
        assert_eq!(q.bytes_sent(), 9 * MDS + 100);
    }

    #[test]
    fn rfc9002_7_a_full_window_ends_the_call() {
        // Four datagrams fit the window; the fifth question finds it full
        // and ends quicly_send's call, so the window granted to it is not
        // carried to a later instant (the next call is judged afresh).
        let mut g = gate_2504();
        let t = Time::from_millis(1);
        let window = 4 * MDS;
        for _ in 0..4 {
            assert_eq!(g.ask(t, 0, window), Verdict::Open);
            assert_eq!(g.ask(t, 0, window), Verdict::Open);
        }
        assert_eq!(g.ask(t, 0, window), Verdict::WindowFull);
        g.on_sent(t, 4 * MDS);
        // 5008 B outstanding < 8·1252 + 1: a new call at once, granted
        // ceil((9·1252 + 1 − 5008) / 1252) = 6 packets (ramp-cc's
        // quicly_send_window_is_per_call).
        let later = Time::from_micros(1_500);
        assert_eq!(gso_pass(&mut g, later).0, 6);
    }

    #[test]
    fn a_zero_rate_closes_the_gate_for_good() {
        let mut g = PacingGate::quicly(MDS);
        g.set_rate(Some(Rate::ZERO));
        assert_eq!(
            g.ask(Time::ZERO, 0, u64::MAX),
            Verdict::PacedUntil(Time::MAX)
        );
    }
}
