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
//! Segmentation offload stays on. quinn builds a GSO batch of up to ten
//! datagrams in one pass and asks `window()` before each of them, but
//! reports the whole batch with one `on_sent` at the end. The gate
//! therefore counts what it has granted since the last report: each
//! datagram it lets out is charged, provisionally, as one datagram of the
//! current size, so the next question in the same pass is judged as the
//! simulator's pacer would judge the packet after it (its window check
//! too). `on_sent` then charges the batch's true bytes to the pacer and
//! clears the grants. quinn asks twice per datagram (its congestion check,
//! then again for the argument of its own pacer's `delay`); the second
//! question of a granted datagram is answered open without a new grant
//! ([`PacingGate::ask`]). docs/real-pacing.md measures what this keeps of
//! GSO's saving.
//!
//! The window test counts the shim's estimate of bytes in flight, which
//! must not go stale while nothing is in flight: then no ACK frame and no
//! PTO would come to correct it, and with a response queued quinn sends
//! nothing at all, not even ACKs (an ACK-only packet is exempt from its
//! congestion check only when nothing ack-eliciting waits). So batches
//! quinn sent without asking the gate (ACK-only packets, PTO probes) stay
//! out of the estimate ([`PacingGate::asked_since_report`]), a closed
//! answer forgets the grants of the pass ([`PacingGate::ask`]), and
//! `Connection::stats` is read without asking the gate
//! ([`super::stats_of`]). Before, `ramp serve` with path-MTU discovery at
//! 6550-byte datagrams and a two-datagram window stalled a `ramp load`
//! connection until its 10 s idle timeout on an ACK-only packet's 34
//! bytes plus one grant a `stats` read had left (3 of about 800 test
//! rounds beside other tests). Leaving a PTO probe out lets at most its bytes
//! (one or two datagrams of at most 1200 bytes) past the window until the
//! next ACK frame.
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
//!
//! An arm that names quicly's pacer (`pacer=quicly`) gets
//! [`PacingGate::quicly`] instead: the same questions and the same GSO
//! accounting, answered by the simulator's [`ramp_cc::QuiclyPacer`]
//! ([`super::quicly_gate`]), without the late-wake-up allowance (quicly's
//! clock is whole milliseconds, so a wake-up late within its millisecond
//! already changes nothing).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use ramp_cc::pacer::{Pacer, PacerConfig, BURST_QUANTUM_PACKETS};
use ramp_cc::{Rate, SendRule, Time};

use super::quicly_gate::QuiclyGate;

/// `window()`'s answer when a datagram may leave now: above quinn-proto's
/// `u32::MAX` bound, beyond which its own pacer does not delay, and far
/// above any bytes in flight.
pub(crate) const OPEN_WINDOW: u64 = 1 << 62;

/// `window()`'s answer when no datagram may leave: every `in_flight +
/// datagram` reaches it.
pub(crate) const CLOSED_WINDOW: u64 = 1;

/// How late a wake-up may come and still make up for the time lost: 1 ms,
/// the alarm granularity of Chromium's QUIC pacing sender (and the span
/// of BBR's send quantum, draft-ietf-ccwg-bbr §5.6.3). Later than that,
/// the connection is treated as having idled.
pub(crate) const WAKE_SLACK: Duration = Duration::from_millis(1);

/// `paced_until` when the gate is not waiting for the pacer.
const NOT_PACED: u64 = u64::MAX;

/// What the gate says about the next datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// It may leave now.
    Open,
    /// The controller's window is full: an ACK will reopen it.
    WindowFull,
    /// The pacer has no credit until this time.
    PacedUntil(Time),
}

/// The leaky bucket behind `window()`, at the controller's rate.
#[derive(Debug)]
pub(crate) struct PacingGate {
    pacer: Pacer,
    rate: Option<Rate>,
    /// The datagram size the gate charges for each grant, bytes.
    datagram: u64,
    /// When the gate last closed for the pacer, the time it would open
    /// (nanoseconds of [`Time`]; [`NOT_PACED`] otherwise). Written by
    /// [`PacingGate::ask`], which quinn's `window(&self)` calls, hence
    /// an atomic.
    paced_until: AtomicU64,
    /// Datagrams granted since the last [`PacingGate::on_sent`]: the part
    /// of quinn's batch in progress that the pacer has not been told of.
    granted: AtomicU64,
    /// The last question was a grant, so the next one is quinn's second
    /// question about the same datagram.
    second_ask: AtomicBool,
    /// A datagram was granted since the last [`PacingGate::on_sent`]: the
    /// batch quinn reports next holds a datagram it congestion-checked
    /// ([`PacingGate::asked_since_report`]).
    asked: AtomicBool,
    /// quicly's pacer in place of the leaky bucket (`pacer=quicly`).
    quicly: Option<QuiclyGate>,
    /// Which packets the window lets out (`send_rule=`).
    send_rule: SendRule,
}

impl PacingGate {
    /// A gate with no credit beyond its first datagram, for datagrams of
    /// `max_datagram_size` bytes.
    pub(crate) fn new(max_datagram_size: u64) -> PacingGate {
        PacingGate {
            pacer: Pacer::new(PacerConfig {
                initial_burst_packets: 1,
                burst_quantum_packets: BURST_QUANTUM_PACKETS,
                max_datagram_size,
            }),
            rate: None,
            datagram: max_datagram_size,
            paced_until: AtomicU64::new(NOT_PACED),
            granted: AtomicU64::new(0),
            second_ask: AtomicBool::new(false),
            asked: AtomicBool::new(false),
            quicly: None,
            send_rule: SendRule::default(),
        }
    }

    /// A gate run by quicly's pacer ([`super::quicly_gate`]), as the
    /// simulator's `pacer=quicly`, for datagrams of `max_datagram_size`
    /// bytes (quicly's pacer counts its bursts in them).
    pub(crate) fn quicly(max_datagram_size: u64) -> PacingGate {
        PacingGate {
            quicly: Some(QuiclyGate::new()),
            ..PacingGate::new(max_datagram_size)
        }
    }

    /// The gate's window test lets packets out by `rule`.
    pub(crate) fn with_send_rule(self, rule: SendRule) -> PacingGate {
        PacingGate {
            send_rule: rule,
            ..self
        }
    }

    /// Which pacer model the gate runs: `leaky-bucket` or `quicly`
    /// (`ramp_cc::PacerKind::as_str`'s names).
    #[cfg(test)]
    pub(crate) fn model_name(&self) -> &'static str {
        if self.quicly.is_some() {
            "quicly"
        } else {
            "leaky-bucket"
        }
    }

    /// quicly's pacer, when the gate runs it.
    #[cfg(test)]
    pub(crate) fn quicly_gate(&self) -> Option<&QuiclyGate> {
        self.quicly.as_ref()
    }

    /// The controller's current pacing rate; `None` leaves the gate
    /// without a rate (the caller then lets quinn pace).
    pub(crate) fn set_rate(&mut self, rate: Option<Rate>) {
        self.rate = rate;
    }

    /// The rate the gate paces at.
    pub(crate) fn rate(&self) -> Option<Rate> {
        self.rate
    }

    /// The path's datagram size changed (PMTUD): grants are charged at
    /// the new size.
    pub(crate) fn set_datagram_size(&mut self, bytes: u64) {
        self.datagram = bytes;
    }

    /// quinn's question before a datagram, as `window()` receives it: may
    /// one more datagram leave at `now`, with `in_flight` bytes reported
    /// outstanding under a window of `window` bytes? quinn asks twice per
    /// datagram (its congestion check, then for its own pacer's `delay`
    /// argument); a grant answers both, and counts once.
    ///
    /// A closed answer ends quinn's pass (quinn-proto 0.11.19
    /// `Connection::poll_transmit`: a congestion-blocked application space
    /// is the last one it fills, and a pacing block breaks the loop), so
    /// the grants made so far are forgotten there: in a pass they are
    /// reported by the `on_sent` that follows anyway, and a grant made
    /// outside any pass (a question no datagram followed) can then close
    /// the gate at most once.
    pub(crate) fn ask(&self, now: Time, in_flight: u64, window: u64) -> Verdict {
        if self.second_ask.swap(false, Ordering::Relaxed) {
            return Verdict::Open;
        }
        let granted = self.granted.load(Ordering::Relaxed);
        let verdict = self.verdict_after(now, granted, in_flight, window, self.datagram);
        if verdict == Verdict::Open {
            self.granted.store(granted + 1, Ordering::Relaxed);
            self.second_ask.store(true, Ordering::Relaxed);
            self.asked.store(true, Ordering::Relaxed);
        } else {
            self.granted.store(0, Ordering::Relaxed);
        }
        verdict
    }

    /// Whether the gate granted a datagram since the last
    /// [`PacingGate::on_sent`]. quinn-proto 0.11.19 asks `window()` before
    /// every datagram it builds for ack-eliciting frames except loss
    /// probes (`Connection::poll_transmit`: the congestion check runs `if
    /// ack_eliciting && loss_probes == 0`), so a batch reported with no
    /// grant before it held only packets quinn did not check: ACK-only
    /// (and CONNECTION_CLOSE) packets, which quinn counts in flight only
    /// when padded and whose acknowledgement it never reports
    /// (`PacketBuilder::finish_and_track`, `on_ack_received`), or PTO
    /// probes (RFC 9002 §6.2.4).
    pub(crate) fn asked_since_report(&self) -> bool {
        self.asked.load(Ordering::Relaxed)
    }

    /// Forgets grants no datagram followed. quinn takes ACKs and losses
    /// outside its send pass, so a grant still open then was a question
    /// from elsewhere or a datagram quinn dropped from the end of its
    /// batch.
    pub(crate) fn end_pass(&self) {
        self.granted.store(0, Ordering::Relaxed);
        self.second_ask.store(false, Ordering::Relaxed);
        self.asked.store(false, Ordering::Relaxed);
        if let Some(q) = &self.quicly {
            q.end_pass();
        }
    }

    /// May a datagram of `datagram` bytes leave at `now`, after `granted`
    /// datagrams of the same size that were let out but not yet reported,
    /// with `in_flight` bytes outstanding under a window of `window` bytes?
    /// RFC 9002 §7: not if it would take bytes in flight past the window;
    /// quicly's rule: not once they have reached it ([`SendRule`]).
    /// The grants are charged to a copy of the pacer at `now`, as the
    /// simulator charges each packet of a burst when it leaves. (A quicly
    /// gate charges each grant as it makes it, so an `Open` verdict there
    /// is a grant.)
    pub(crate) fn verdict_after(
        &self,
        now: Time,
        granted: u64,
        in_flight: u64,
        window: u64,
        datagram: u64,
    ) -> Verdict {
        let pending = granted.saturating_mul(datagram);
        if !self
            .send_rule
            .allows(in_flight.saturating_add(pending), datagram, window)
        {
            // The window, not the pacer, holds the sender: no lost time
            // to make up when it reopens.
            self.paced_until.store(NOT_PACED, Ordering::Relaxed);
            if let Some(q) = &self.quicly {
                q.end_call();
            }
            return Verdict::WindowFull;
        }
        if let Some(q) = &self.quicly {
            let Some(rate) = self.rate else {
                return Verdict::Open;
            };
            return match q.grant(now, rate, datagram) {
                Ok(()) => Verdict::Open,
                Err(at) => Verdict::PacedUntil(at),
            };
        }
        let at = if pending == 0 {
            self.pacer.next_send_time(now, self.rate, datagram)
        } else {
            let mut after = self.pacer.clone();
            after.on_packet_sent(now, pending, self.rate);
            after.next_send_time(now, self.rate, datagram)
        };
        if at <= now.saturating_add(self.lateness(now)) {
            Verdict::Open
        } else {
            self.paced_until.store(at.as_nanos(), Ordering::Relaxed);
            Verdict::PacedUntil(at)
        }
    }

    /// May a datagram of `datagram` bytes leave at `now`, nothing granted
    /// and unreported ([`PacingGate::verdict_after`] with no grants)?
    #[cfg(test)]
    pub(crate) fn verdict(&self, now: Time, in_flight: u64, window: u64, datagram: u64) -> Verdict {
        self.verdict_after(now, 0, in_flight, window, datagram)
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

    /// quinn sent `bytes` at `now` (one datagram, or a GSO batch of
    /// several): the pacer is charged the true bytes and the grants that
    /// stood for them are cleared.
    pub(crate) fn on_sent(&mut self, now: Time, bytes: u64) {
        if let Some(q) = &self.quicly {
            q.on_sent(bytes);
            self.granted.store(0, Ordering::Relaxed);
            self.second_ask.store(false, Ordering::Relaxed);
            self.asked.store(false, Ordering::Relaxed);
            return;
        }
        self.pacer.on_packet_sent(now, bytes, self.rate);
        self.end_pass();
    }
}

#[cfg(test)]
mod tests;
