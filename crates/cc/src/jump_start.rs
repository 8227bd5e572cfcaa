//! The full-RTT paced first flight (Rapid Start -02 §3.1).
//!
//! Classic paced slow start sends the initial window at `2·IW/srtt`, i.e.
//! over half an RTT. Pacing the first flight over the *whole* RTT at that
//! same rate allows a first flight of `2·IW`. Used alone this is the
//! "jumpstart" arm of the seed experiment; Rapid Start uses it too.
//!
//! Deferral (docs/algorithms.md ambiguity #1, our choice (b)): before the first RTT sample
//! `srtt` is `kInitialRtt` (333 ms), so the window stays at IW until a
//! sample exists (for a server: the client's first ACK) and the jump is
//! paced over the measured RTT. `defer=off` jumps at connection start.

/// The first flight's progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FirstFlight {
    /// Waiting for the first RTT sample before jumping.
    Waiting,
    /// The window was raised to the jump window; `marker` is the first
    /// packet sent after that, whose acknowledgement ends the first flight.
    Active {
        /// First packet number sent in the jump round.
        marker: Option<u64>,
    },
    /// Over (or abandoned by a congestion event).
    Done,
}

impl FirstFlight {
    /// A packet was sent.
    pub(crate) fn on_packet_sent(&mut self, packet_number: u64) {
        if let FirstFlight::Active { marker: m @ None } = self {
            *m = Some(packet_number);
        }
    }

    /// Whether an ACK with this largest acknowledged packet ends the flight.
    pub(crate) fn ends_with(&self, largest_acked: Option<u64>) -> bool {
        match (self, largest_acked) {
            (FirstFlight::Active { marker: Some(m) }, Some(l)) => l >= *m,
            _ => false,
        }
    }

    /// Whether an acknowledged packet was sent before the jump: while the
    /// flight is out, such ACKs must not grow the window, since the jump
    /// window `2·IW` already includes the packets sent before it (quicly and
    /// Careful Resume likewise size the jump against what is in flight).
    /// Initial and Handshake packets (`None`) count as sent before it.
    pub(crate) fn predates(&self, packet_number: Option<u64>) -> bool {
        match (self, packet_number) {
            (FirstFlight::Active { marker: Some(m) }, Some(pn)) => pn < *m,
            (FirstFlight::Active { .. }, _) => true,
            _ => false,
        }
    }

    /// Whether the first flight is being sent now.
    pub(crate) fn is_active(&self) -> bool {
        matches!(self, FirstFlight::Active { .. })
    }
}

/// The bytes of the jump packets acknowledged: quicly's
/// `jumpstart.bytes_acked` (h2o/quicly 45bf8a37, include/quicly/cc.h),
/// which counts the ACKs of packets sent from the jump until the first of
/// them is acknowledged (`[enter_pn, exit_pn)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct JumpTally {
    first: Option<u64>,
    last: Option<u64>,
    /// When the first and the last jump packet were sent.
    first_sent: Option<ramp_vocab::time::Time>,
    last_sent: Option<ramp_vocab::time::Time>,
    acked: u64,
}

impl JumpTally {
    /// A packet was sent while the jump is unvalidated: it is a jump
    /// packet.
    pub(crate) fn on_jump_packet_sent(&mut self, packet_number: u64) {
        self.first.get_or_insert(packet_number);
        self.last = Some(packet_number);
    }

    /// The last jump packet so far was sent at `now`.
    pub(crate) fn note_sent_at(&mut self, now: ramp_vocab::time::Time) {
        self.first_sent.get_or_insert(now);
        self.last_sent = Some(now);
    }

    /// Whether a packet sent at `time_sent` is a jump packet, for pico's W
    /// (quicly `quicly_cc_is_jumpstart_ack`: `enter_pn <= pn < exit_pn`):
    /// sent between the first and the last jump packet. A packet of the
    /// initial window sent before the jump is not one.
    pub(crate) fn is_jump_packet(&self, time_sent: ramp_vocab::time::Time) -> bool {
        matches!((self.first_sent, self.last_sent),
            (Some(a), Some(b)) if a <= time_sent && time_sent <= b)
    }

    /// A packet was acknowledged; counted if it is a jump packet.
    pub(crate) fn on_acked(&mut self, packet_number: Option<u64>, bytes: u64) {
        if matches!(
            (packet_number, self.first, self.last),
            (Some(pn), Some(first), Some(last)) if first <= pn && pn <= last
        ) {
            self.acked = self.acked.saturating_add(bytes);
        }
    }

    /// Bytes of jump packets acknowledged so far.
    pub(crate) fn acked(&self) -> u64 {
        self.acked
    }
}

/// The jump window: `2·IW` (-02 §3.1, "up to 2 × IW").
pub(crate) fn jump_window(initial_window: u64) -> u64 {
    initial_window.saturating_mul(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ramp_vocab::time::Time;

    #[test]
    fn quicly_cc_is_jumpstart_ack_needs_enter_pn_at_or_below_pn() {
        // quicly 45bf8a37 include/quicly/cc.h `quicly_cc_is_jumpstart_ack`:
        // `enter_pn <= pn && pn < exit_pn`. A packet of the initial
        // window, sent before the jump, does not count as a jump packet.
        let mut t = JumpTally::default();
        let ms = Time::from_millis;
        for (pn, at) in [(10, 40), (11, 41), (12, 42)] {
            t.on_jump_packet_sent(pn);
            t.note_sent_at(ms(at));
        }
        assert!(!t.is_jump_packet(ms(0)), "an IW packet sent at 0");
        assert!(t.is_jump_packet(ms(40)) && t.is_jump_packet(ms(42)));
        assert!(!t.is_jump_packet(ms(43)));
        assert!(!JumpTally::default().is_jump_packet(ms(0)));
    }
}
