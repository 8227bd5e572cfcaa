//! ECN validation at the sender (RFC 9000 §13.4.2): the ACK frames' three
//! counts are checked against what was sent and newly acknowledged, and
//! the increase of the CE count is what the controller is told.

use super::ack_frame::EcnCounts;
use ramp_vocab::ecn::EcnCodepoint;

/// Whether the path and peer have shown they carry ECN (RFC 9000 §13.4.2).
///
/// ramp starts in `Capable` and skips the RFC's optional testing period
/// (§13.4.2 "an endpoint MAY ... test"): the simulated path never bleaches
/// the field, and a failure still turns ECN off for the rest of the
/// connection, as §13.4.2.2 requires.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnValidation {
    /// Counts have matched so far: keep sending the configured codepoint.
    #[default]
    Capable,
    /// A check of §13.4.2.1 failed: send Not-ECT from now on and ignore
    /// the counts (§13.4.2.2).
    Failed(EcnFailure),
}

/// Which check of RFC 9000 §13.4.2.1 failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnFailure {
    /// The frame newly acknowledged ECT packets but carried no counts.
    MissingCounts,
    /// ECT(0) + CE grew by less than the ECT(0) packets newly acknowledged
    /// (or ECT(1) + CE by less than the ECT(1) ones).
    CountsTooLow,
    /// A count exceeds the packets sent with that codepoint.
    CountsAboveSent,
}

/// What the sender knows about the ECN counts of one packet-number space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct EcnSpace {
    /// The largest counts seen so far (a frame arriving out of order may
    /// carry lower ones; they are not a decrease, §13.4.2.1).
    pub(super) seen: EcnCounts,
    /// Packets sent with ECT(0) and with ECT(1).
    pub(super) sent_ect0: u64,
    pub(super) sent_ect1: u64,
}

/// The ECT packets one ACK frame newly acknowledges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct NewlyAcked {
    pub(super) ect0: u64,
    pub(super) ect1: u64,
    /// Bytes of the ECT packets.
    pub(super) ect_bytes: u64,
    /// All newly acknowledged packets and their bytes (the CE byte
    /// estimate falls back on them when no ECT packet is among them).
    pub(super) packets: u64,
    pub(super) bytes: u64,
}

impl NewlyAcked {
    /// Counts one newly acknowledged packet sent with `ecn`.
    pub(super) fn add(&mut self, ecn: EcnCodepoint, bytes: u64) {
        self.packets += 1;
        self.bytes += bytes;
        match ecn {
            EcnCodepoint::Ect0 => self.ect0 += 1,
            EcnCodepoint::Ect1 => self.ect1 += 1,
            EcnCodepoint::NotEct | EcnCodepoint::Ce => return,
        }
        self.ect_bytes += bytes;
    }

    /// Bytes behind `ce_packets` newly CE-marked packets. QUIC's counts
    /// are packets (RFC 9000 §19.3.2), so the bytes are estimated as that
    /// many packets of the frame's mean ECT packet size.
    pub(super) fn ce_bytes(&self, ce_packets: u64) -> u64 {
        let (n, b) = match self.ect0 + self.ect1 {
            0 => (self.packets, self.bytes),
            n => (n, self.ect_bytes),
        };
        if n == 0 {
            return 0;
        }
        let mean = b / n;
        ce_packets.saturating_mul(mean)
    }
}

/// The increases a valid frame brings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct EcnIncrease {
    pub(super) ect0: u64,
    pub(super) ect1: u64,
    pub(super) ce: u64,
}

impl EcnSpace {
    /// RFC 9000 §13.4.2.1 for one ACK frame. `counts` are the frame's,
    /// `newly` what it newly acknowledges, `advanced` whether it raised the
    /// largest acknowledged packet number (if not, the checks are skipped:
    /// "an endpoint SHOULD skip ECN validation" for a frame that may be
    /// out of order). On success the counts are taken and the increases
    /// returned.
    pub(super) fn on_ack(
        &mut self,
        counts: Option<EcnCounts>,
        newly: &NewlyAcked,
        advanced: bool,
    ) -> Result<EcnIncrease, EcnFailure> {
        let Some(c) = counts else {
            // §13.4.2.1: "MUST NOT fail ECN validation as a result of
            // processing an ACK frame that does not increase the largest
            // acknowledged packet number", the missing-counts check too.
            if advanced && newly.ect0 + newly.ect1 > 0 {
                return Err(EcnFailure::MissingCounts);
            }
            return Ok(EcnIncrease::default());
        };
        let inc = EcnIncrease {
            ect0: c.ect0.saturating_sub(self.seen.ect0),
            ect1: c.ect1.saturating_sub(self.seen.ect1),
            ce: c.ce.saturating_sub(self.seen.ce),
        };
        if advanced {
            if inc.ect0 + inc.ce < newly.ect0 || inc.ect1 + inc.ce < newly.ect1 {
                return Err(EcnFailure::CountsTooLow);
            }
            if c.ect0 > self.sent_ect0 || c.ect1 > self.sent_ect1 {
                return Err(EcnFailure::CountsAboveSent);
            }
        }
        self.seen = EcnCounts {
            ect0: self.seen.ect0.max(c.ect0),
            ect1: self.seen.ect1.max(c.ect1),
            ce: self.seen.ce.max(c.ce),
        };
        Ok(inc)
    }

    /// Whether any ECT packet was sent in this space: if not, and a frame
    /// carries no counts, it has nothing to validate or report (the fast
    /// path of Not-ECT flows).
    pub(super) fn sent_any_ect(&self) -> bool {
        self.sent_ect0 + self.sent_ect1 > 0
    }

    /// Counts a packet sent with `ecn`.
    pub(super) fn on_sent(&mut self, ecn: EcnCodepoint) {
        match ecn {
            EcnCodepoint::Ect0 => self.sent_ect0 += 1,
            EcnCodepoint::Ect1 => self.sent_ect1 += 1,
            EcnCodepoint::NotEct | EcnCodepoint::Ce => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn newly(ect0: u64, ect1: u64) -> NewlyAcked {
        let mut n = NewlyAcked::default();
        (0..ect0).for_each(|_| n.add(EcnCodepoint::Ect0, 1200));
        (0..ect1).for_each(|_| n.add(EcnCodepoint::Ect1, 1200));
        n
    }

    fn sent(ect0: u64, ect1: u64) -> EcnSpace {
        let mut s = EcnSpace::default();
        (0..ect0).for_each(|_| s.on_sent(EcnCodepoint::Ect0));
        (0..ect1).for_each(|_| s.on_sent(EcnCodepoint::Ect1));
        s
    }

    fn counts(ect0: u64, ect1: u64, ce: u64) -> Option<EcnCounts> {
        Some(EcnCounts { ect0, ect1, ce })
    }

    #[test]
    fn rfc9000_13_4_2_1_missing_counts_fail_when_ect_packets_are_acked() {
        let mut s = sent(3, 0);
        assert_eq!(
            s.on_ack(None, &newly(1, 0), true),
            Err(EcnFailure::MissingCounts)
        );
        // Only Not-ECT packets acknowledged: no counts are expected.
        let mut n = NewlyAcked::default();
        n.add(EcnCodepoint::NotEct, 1200);
        assert_eq!(s.on_ack(None, &n, true), Ok(EcnIncrease::default()));
    }

    #[test]
    fn rfc9000_13_4_2_1_ce_counts_towards_either_ect_codepoint() {
        let mut s = sent(2, 2);
        // Two ECT(0) and two ECT(1) acked; one of each came back CE.
        let inc = s.on_ack(counts(1, 1, 2), &newly(2, 2), true);
        assert_eq!(
            inc,
            Ok(EcnIncrease {
                ect0: 1,
                ect1: 1,
                ce: 2
            })
        );
    }

    #[test]
    fn rfc9000_13_4_2_1_too_low_an_increase_fails() {
        let mut s = sent(4, 0);
        assert_eq!(
            s.on_ack(counts(1, 0, 0), &newly(2, 0), true),
            Err(EcnFailure::CountsTooLow)
        );
        // ECT(1) packets reported as ECT(0) (a remarking path) fail too.
        let mut s = sent(0, 2);
        assert_eq!(
            s.on_ack(counts(2, 0, 0), &newly(0, 2), true),
            Err(EcnFailure::CountsTooLow)
        );
    }

    #[test]
    fn rfc9000_13_4_2_1_counts_above_sent_fail() {
        let mut s = sent(1, 0);
        assert_eq!(
            s.on_ack(counts(2, 0, 0), &newly(1, 0), true),
            Err(EcnFailure::CountsAboveSent)
        );
    }

    #[test]
    fn rfc9000_13_4_2_1_a_frame_that_does_not_advance_is_not_validated() {
        let mut s = sent(4, 0);
        assert_eq!(
            s.on_ack(counts(3, 0, 0), &newly(3, 0), true)
                .map(|i| i.ect0),
            Ok(3)
        );
        // An older frame with lower counts: no failure, no decrease.
        assert_eq!(
            s.on_ack(counts(1, 0, 0), &newly(0, 0), false),
            Ok(EcnIncrease::default())
        );
        assert_eq!(s.seen.ect0, 3);
    }

    #[test]
    fn ce_bytes_are_the_mean_ect_packet_size() {
        let mut n = NewlyAcked::default();
        n.add(EcnCodepoint::Ect1, 1000);
        n.add(EcnCodepoint::Ect1, 1200);
        n.add(EcnCodepoint::NotEct, 50);
        assert_eq!(n.ce_bytes(2), 2200);
        assert_eq!(NewlyAcked::default().ce_bytes(3), 0);
    }
}
