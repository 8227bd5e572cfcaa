//! When the congestion window lets the next packet leave.
//!
//! - [`SendRule::Rfc9002`] (the default): RFC 9002 §7, "An endpoint MUST
//!   NOT send a packet if it would cause bytes_in_flight ... to be larger
//!   than the congestion window": the packet must fit.
//! - [`SendRule::Quicly`]: h2o/quicly at 45bf8a37 (lib/quicly.c).
//!   `do_send` computes `s->send_window` once with `calc_send_window`:
//!   `cwnd - bytes_in_flight` when the window is larger than the bytes in
//!   flight, else 0 (then capped by the pacer's window). `do_allocate_frame`
//!   opens a new ack-eliciting packet only while `s->send_window > 0`, and
//!   `commit_send_packet` subtracts the packet's whole size afterwards
//!   ("the value becomes negative when the sender uses more space than
//!   permitted", the comment on `send_window`). So quicly sends while the
//!   bytes in flight are below the window, and its last packet of a
//!   window may cross it by up to a packet less one byte.
//!
//! Probes (RFC 9002 §6.2.4) and the handshake bypass the window under
//! either rule: that is the sender's business, not the rule's.

/// Which packets the congestion window lets out (`send_rule=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SendRule {
    /// RFC 9002 §7: only a packet that fits in what is left of the window.
    #[default]
    Rfc9002,
    /// h2o/quicly 45bf8a37: any packet while bytes in flight are below the
    /// window; the last may cross it (module docs).
    Quicly,
}

impl SendRule {
    /// The spellings of `send_rule=`.
    pub const CHOICES: [(&'static str, SendRule); 2] =
        [("rfc", SendRule::Rfc9002), ("quicly", SendRule::Quicly)];

    /// Whether a packet of `size` bytes may leave with `bytes_in_flight`
    /// already in flight under a congestion window of `window` bytes.
    #[inline]
    pub fn allows(self, bytes_in_flight: u64, size: u64, window: u64) -> bool {
        match self {
            SendRule::Rfc9002 => bytes_in_flight.saturating_add(size) <= window,
            SendRule::Quicly => bytes_in_flight < window,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc9002_7_a_packet_that_would_exceed_the_window_waits() {
        assert!(SendRule::Rfc9002.allows(10_000, 2_000, 12_000));
        assert!(!SendRule::Rfc9002.allows(10_001, 2_000, 12_000));
    }

    /// lib/quicly.c at 45bf8a37: `calc_send_window` gives `cwnd -
    /// bytes_in_flight` (> 0 while below the window, else 0) and
    /// `do_allocate_frame` refuses a new ack-eliciting packet only at
    /// `send_window <= 0`.
    #[test]
    fn quicly_sends_while_bytes_in_flight_are_below_the_window() {
        assert!(SendRule::Quicly.allows(11_999, 1_280, 12_000));
        assert!(!SendRule::Quicly.allows(12_000, 1_280, 12_000));
        assert!(!SendRule::Quicly.allows(0, 1_280, 0));
    }

    /// The seed arms' initial window, 30 × 1,472 = 44,160 B, in quicly's
    /// 1,280-byte packets: 34 fit (43,520 B), and quicly sends a 35th
    /// (44,800 B in flight) because 43,520 B is still below the window.
    #[test]
    fn quicly_lets_35_packets_of_1280_bytes_out_of_an_initial_window_of_30x1472() {
        let count = |rule: SendRule| {
            let mut in_flight = 0;
            let mut n = 0;
            while rule.allows(in_flight, 1_280, 30 * 1_472) {
                in_flight += 1_280;
                n += 1;
            }
            n
        };
        assert_eq!(
            (count(SendRule::Rfc9002), count(SendRule::Quicly)),
            (34, 35)
        );
    }
}
