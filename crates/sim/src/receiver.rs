//! The client's receive side: which packet numbers arrived, when to send an
//! ACK (the ACK policy), and the ACK frames themselves.

use core::fmt;
use core::time::Duration;

use ramp_cc::recovery::{EcnCounts, ReceivedRanges, TrackedAckFrame};
use ramp_cc::EcnCodepoint;
use ramp_cc::Time;

/// Google quiche `kMinReceivedBeforeAckDecimation`: ack every 2 packets for
/// the first 100 packets received.
pub(crate) const CHROME_PACKETS_BEFORE_DECIMATION: u64 = 100;
/// Google quiche `kMaxRetransmittablePacketsBeforeAck`: then every 10.
pub(crate) const CHROME_DECIMATED_PACKETS: u64 = 10;
/// RFC 9000 §13.2.2: acknowledge at least every second ack-eliciting packet.
pub(crate) const RFC9000_PACKET_TOLERANCE: u64 = 2;
/// The most ACK ranges a frame carries (quicly and quinn keep a bounded
/// set; 32 is plenty for the loss patterns simulated here).
pub(crate) const MAX_ACK_RANGES: usize = 32;
/// RFC 9000 §18.2 default `ack_delay_exponent`: ACK delays travel in units
/// of 8 µs, so the sender sees them truncated to that.
pub(crate) const ACK_DELAY_UNIT_NS: u64 = 8_000;

/// When the receiver sends ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckPolicy {
    /// RFC 9000 §13.2: every 2 ack-eliciting packets, else after
    /// max_ack_delay; immediately on a gap or a packet that fills one.
    Rfc9000,
    /// Chromium: every 2 for the first 100 packets, then every 10 or after
    /// min(max_ack_delay, min_rtt / 4); immediately on a gap.
    Chrome,
    /// draft-ietf-quic-ack-frequency: every `packets` ack-eliciting packets
    /// or after `delay`; immediately on a gap (reordering threshold 1).
    AckFrequency {
        /// Ack-eliciting threshold.
        packets: u64,
        /// Requested max ACK delay.
        delay: Duration,
    },
}

impl AckPolicy {
    /// Parses `rfc9000`, `chrome`, or `ackfreq(N,DELAY)` (`ackfreq(10,25ms)`).
    pub fn parse(s: &str) -> Result<AckPolicy, AckPolicyError> {
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "rfc9000" => return Ok(AckPolicy::Rfc9000),
            "chrome" | "chrome-decimation" => return Ok(AckPolicy::Chrome),
            _ => {}
        }
        let given = || s.to_string();
        let inner = t
            .strip_prefix("ackfreq(")
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(|| AckPolicyError::Unknown(given()))?;
        let (n, d) = inner
            .split_once(',')
            .ok_or_else(|| AckPolicyError::Arguments(given()))?;
        let packets: u64 = n
            .trim()
            .parse()
            .map_err(|_| AckPolicyError::Count(given()))?;
        if packets == 0 {
            return Err(AckPolicyError::ZeroCount(given()));
        }
        let delay = ramp_vocab::units::parse_duration(d).map_err(AckPolicyError::Delay)?;
        Ok(AckPolicy::AckFrequency { packets, delay })
    }
}

/// Why an ACK policy's text does not parse ([`AckPolicy::parse`]); each
/// variant holds the text as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AckPolicyError {
    /// Not `rfc9000`, `chrome` or `ackfreq(…)`.
    Unknown(String),
    /// `ackfreq(…)` without its two arguments.
    Arguments(String),
    /// `ackfreq`'s packet count is not an integer.
    Count(String),
    /// `ackfreq`'s packet count is 0.
    ZeroCount(String),
    /// `ackfreq`'s delay is not a duration.
    Delay(ramp_vocab::units::UnitError),
}

impl fmt::Display for AckPolicyError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            AckPolicyError::Unknown(s) => write!(
                f,
                "`{s}`: unknown ACK policy (use rfc9000, chrome, or ackfreq(N,DELAY))"
            ),
            AckPolicyError::Arguments(s) => {
                write!(
                    f,
                    "`{s}`: ackfreq takes two arguments, e.g. ackfreq(10,25ms)"
                )
            }
            AckPolicyError::Count(s) => write!(f, "`{s}`: ackfreq packet count must be an integer"),
            AckPolicyError::ZeroCount(s) => {
                write!(f, "`{s}`: ackfreq packet count must be at least 1")
            }
            AckPolicyError::Delay(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for AckPolicyError {}

impl fmt::Display for AckPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AckPolicy::Rfc9000 => f.write_str("rfc9000"),
            AckPolicy::Chrome => f.write_str("chrome"),
            AckPolicy::AckFrequency { packets, delay } => {
                write!(f, "ackfreq({packets},{}us)", delay.as_micros())
            }
        }
    }
}

/// What the receiver wants after a packet arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AckAction {
    /// Send an ACK now.
    Now,
    /// Make sure an ACK goes out by this time.
    By(Time),
    /// Nothing (the packet was not ack-eliciting, or a timer is set).
    None,
}

/// Received packet numbers of one space, and the ACK-sending state.
#[derive(Clone, Debug)]
pub(crate) struct AckState {
    policy: AckPolicy,
    max_ack_delay: Duration,
    /// Disjoint received ranges, ascending by packet number (kept by
    /// ramp-cc's type so that the frames written say which ranges repeat
    /// the previous frame's).
    ranges: ReceivedRanges,
    largest_recv_time: Time,
    received: u64,
    unacked_eliciting: u64,
    ack_deadline: Option<Time>,
    ecn: Option<EcnCounts>,
}

impl AckState {
    /// An empty state. `ecn` says whether frames carry ECN counts.
    pub(crate) fn new(policy: AckPolicy, max_ack_delay: Duration, ecn: bool) -> AckState {
        AckState {
            policy,
            max_ack_delay,
            ranges: ReceivedRanges::with_capacity(8),
            largest_recv_time: Time::ZERO,
            received: 0,
            unacked_eliciting: 0,
            ack_deadline: None,
            ecn: ecn.then(EcnCounts::default),
        }
    }

    /// The ACK deadline, if an ACK is pending.
    pub(crate) fn deadline(&self) -> Option<Time> {
        self.ack_deadline
    }

    /// Records packet `pn` arriving at `now`. Returns whether it was new
    /// (duplicates are ignored) and what to do about ACKs. `min_rtt` is the
    /// receiver's RTT estimate (Chrome's decimated delay uses it).
    ///
    /// Inline: called once per packet from the engine loop, and when rustc
    /// chose not to inline it the call cost about 14 instructions a packet.
    #[inline]
    pub(crate) fn on_packet(
        &mut self,
        now: Time,
        pn: u64,
        ack_eliciting: bool,
        ecn: EcnCodepoint,
        min_rtt: Duration,
    ) -> (bool, AckAction) {
        let largest_before = self.ranges.last().map(|r| r.1);
        let (new, out_of_order) = self.insert(pn, largest_before);
        if !new {
            // RFC 9000 §13.2.1 does not require acking duplicates promptly.
            return (false, AckAction::None);
        }
        // RFC 9000 §13.4.1: one count per codepoint received.
        if let Some(e) = &mut self.ecn {
            match ecn {
                EcnCodepoint::Ect0 => e.ect0 += 1,
                EcnCodepoint::Ect1 => e.ect1 += 1,
                EcnCodepoint::Ce => e.ce += 1,
                EcnCodepoint::NotEct => {}
            }
        }
        let ce = ecn == EcnCodepoint::Ce;
        self.received += 1;
        if largest_before.is_none_or(|l| pn > l) {
            self.largest_recv_time = now;
        }
        if !ack_eliciting {
            return (true, AckAction::None);
        }
        self.unacked_eliciting += 1;
        // A CE mark also calls for an immediate ACK (RFC 9000 §13.2.1).
        if out_of_order || ce {
            return (true, AckAction::Now);
        }
        let (threshold, delay) = match self.policy {
            AckPolicy::Rfc9000 => (RFC9000_PACKET_TOLERANCE, self.max_ack_delay),
            AckPolicy::Chrome => {
                if self.received <= CHROME_PACKETS_BEFORE_DECIMATION {
                    (RFC9000_PACKET_TOLERANCE, self.max_ack_delay)
                } else {
                    (
                        CHROME_DECIMATED_PACKETS,
                        self.max_ack_delay.min(min_rtt / 4),
                    )
                }
            }
            AckPolicy::AckFrequency { packets, delay } => (packets, delay),
        };
        if self.unacked_eliciting >= threshold {
            return (true, AckAction::Now);
        }
        let deadline = now + delay;
        match self.ack_deadline {
            Some(d) if d <= deadline => (true, AckAction::None),
            _ => {
                self.ack_deadline = Some(deadline);
                (true, AckAction::By(deadline))
            }
        }
    }

    /// Inserts `pn`; returns (new, out_of_order): out of order means it
    /// created a gap above the largest, or filled one below it.
    fn insert(&mut self, pn: u64, largest: Option<u64>) -> (bool, bool) {
        let Some(largest) = largest else {
            self.ranges.push((pn, pn));
            return (true, pn != 0);
        };
        if pn == largest + 1 {
            if let Some(last) = self.ranges.last_mut() {
                last.1 = pn;
            }
            return (true, false);
        }
        if pn > largest {
            self.ranges.push((pn, pn));
            self.trim();
            return (true, true);
        }
        // Below the largest: find the range it falls in or next to.
        let ranges = self.ranges.as_slice();
        let idx = ranges.partition_point(|r| r.1 < pn);
        if idx < ranges.len() && ranges[idx].0 <= pn {
            return (false, false);
        }
        // pn lies between ranges[idx-1] and ranges[idx] (if they exist).
        let joins_prev = idx > 0 && ranges[idx - 1].1 + 1 == pn;
        let joins_next = idx < ranges.len() && ranges[idx].0 == pn + 1;
        match (joins_prev, joins_next) {
            (true, true) => {
                let (_, hi) = self.ranges.remove(idx);
                if let Some(r) = self.ranges.get_mut(idx - 1) {
                    r.1 = hi;
                }
            }
            (true, false) => {
                if let Some(r) = self.ranges.get_mut(idx - 1) {
                    r.1 = pn;
                }
            }
            (false, true) => {
                if let Some(r) = self.ranges.get_mut(idx) {
                    r.0 = pn;
                }
            }
            (false, false) => {
                self.ranges.insert(idx, (pn, pn));
                self.trim();
            }
        }
        (true, true)
    }

    fn trim(&mut self) {
        // Keep the newest ranges only: old gaps are long repaired or given up.
        if self.ranges.len() > 4 * MAX_ACK_RANGES {
            let drop = self.ranges.len() - 2 * MAX_ACK_RANGES;
            self.ranges.drain_oldest(drop);
        }
    }

    /// Fills `frame` with an ACK for everything received (newest
    /// `MAX_ACK_RANGES` ranges) and resets the ACK-sending state. Returns
    /// false if nothing was received yet.
    pub(crate) fn write_ack(&mut self, now: Time, frame: &mut TrackedAckFrame) -> bool {
        if self.ranges.is_empty() {
            return false;
        }
        let delay_ns = (now - self.largest_recv_time).as_nanos() as u64;
        let ack_delay = Duration::from_nanos(delay_ns / ACK_DELAY_UNIT_NS * ACK_DELAY_UNIT_NS);
        self.ranges
            .write(MAX_ACK_RANGES, ack_delay, self.ecn, frame);
        self.unacked_eliciting = 0;
        self.ack_deadline = None;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: Duration = Duration::from_millis(30);

    fn t(us: u64) -> Time {
        Time::from_micros(us)
    }

    #[test]
    fn rfc9000_13_2_2_ack_every_second_packet_else_max_ack_delay() {
        let mut a = AckState::new(AckPolicy::Rfc9000, Duration::from_millis(25), false);
        assert_eq!(
            a.on_packet(t(0), 0, true, EcnCodepoint::NotEct, RTT).1,
            AckAction::By(t(25_000))
        );
        assert_eq!(
            a.on_packet(t(10), 1, true, EcnCodepoint::NotEct, RTT).1,
            AckAction::Now
        );
        let mut f = TrackedAckFrame::default();
        assert!(a.write_ack(t(10), &mut f));
        assert_eq!(f.frame().ranges, vec![0..=1]);
        assert_eq!(a.deadline(), None);
    }

    #[test]
    fn rfc9000_13_2_1_immediate_ack_on_gap_and_on_fill() {
        let mut a = AckState::new(AckPolicy::Rfc9000, Duration::from_millis(25), false);
        a.on_packet(t(0), 0, true, EcnCodepoint::NotEct, RTT);
        let mut f = TrackedAckFrame::default();
        a.write_ack(t(0), &mut f);
        // 2 is missing 1: a gap.
        assert_eq!(
            a.on_packet(t(5), 2, true, EcnCodepoint::NotEct, RTT).1,
            AckAction::Now
        );
        a.write_ack(t(5), &mut f);
        assert_eq!(f.frame().ranges, vec![2..=2, 0..=0]);
        // 1 fills the gap.
        assert_eq!(
            a.on_packet(t(6), 1, true, EcnCodepoint::NotEct, RTT).1,
            AckAction::Now
        );
        a.write_ack(t(6), &mut f);
        assert_eq!(f.frame().ranges, vec![0..=2]);
        // Duplicate: ignored.
        assert!(!a.on_packet(t(7), 1, true, EcnCodepoint::NotEct, RTT).0);
    }

    #[test]
    fn chrome_decimates_after_100_packets() {
        let mut a = AckState::new(AckPolicy::Chrome, Duration::from_millis(25), false);
        let mut f = TrackedAckFrame::default();
        let mut acks_at = Vec::new();
        for pn in 0..140u64 {
            if a.on_packet(t(pn), pn, true, EcnCodepoint::NotEct, RTT).1 == AckAction::Now {
                a.write_ack(t(pn), &mut f);
                acks_at.push(pn);
            }
        }
        // Every 2 up to packet 100 (pn 99), then every 10.
        assert_eq!(acks_at.iter().filter(|&&p| p < 100).count(), 50);
        assert_eq!(&acks_at[50..], &[109, 119, 129, 139]);
        // The decimated delay is min(25 ms, min_rtt/4) = 7.5 ms.
        assert_eq!(
            a.on_packet(t(1000), 140, true, EcnCodepoint::NotEct, RTT).1,
            AckAction::By(t(1000 + 7_500))
        );
    }

    #[test]
    fn rfc9000_19_3_2_ack_delay_is_quantised_and_each_codepoint_counted() {
        let mut a = AckState::new(AckPolicy::Rfc9000, Duration::from_millis(25), true);
        a.on_packet(t(0), 0, true, EcnCodepoint::Ect0, RTT);
        a.on_packet(t(1), 1, true, EcnCodepoint::Ce, RTT);
        a.on_packet(t(2), 2, true, EcnCodepoint::Ect1, RTT);
        a.on_packet(t(3), 3, true, EcnCodepoint::NotEct, RTT);
        let mut f = TrackedAckFrame::default();
        a.write_ack(t(3 + 13), &mut f);
        assert_eq!(f.frame().ack_delay, Duration::from_micros(8));
        // RFC 9000 §19.3.2: each codepoint counted on its own.
        assert_eq!(
            f.frame().ecn,
            Some(EcnCounts {
                ect0: 1,
                ect1: 1,
                ce: 1
            })
        );
    }

    #[test]
    fn ranges_match_a_set_model_under_random_arrivals() {
        // Random reordering, duplicates and gaps: the frame must list the
        // newest received packet numbers exactly, descending and disjoint.
        let mut rng = ramp_vocab::rng::Rng::from_u64(99);
        for _ in 0..200 {
            let mut a = AckState::new(AckPolicy::Rfc9000, Duration::from_millis(25), false);
            let mut model = std::collections::BTreeSet::new();
            for i in 0..300u64 {
                let pn = (i + rng.next_u64() % 8).saturating_sub(4);
                let (new, _) = a.on_packet(t(i), pn, true, EcnCodepoint::NotEct, RTT);
                assert_eq!(new, model.insert(pn));
            }
            let mut f = TrackedAckFrame::default();
            assert!(a.write_ack(t(400), &mut f));
            assert!(f.frame().validate().is_ok());
            let listed: Vec<u64> = f
                .frame()
                .ranges
                .iter()
                .flat_map(|r| r.clone().rev())
                .collect();
            let expect: Vec<u64> = model.iter().rev().copied().take(listed.len()).collect();
            assert_eq!(listed, expect);
            if f.frame().ranges.len() < MAX_ACK_RANGES {
                assert_eq!(listed.len(), model.len());
            }
        }
    }

    #[test]
    fn parse_policies() {
        assert_eq!(AckPolicy::parse("rfc9000"), Ok(AckPolicy::Rfc9000));
        assert_eq!(AckPolicy::parse("Chrome"), Ok(AckPolicy::Chrome));
        assert_eq!(
            AckPolicy::parse("ackfreq(10, 25ms)"),
            Ok(AckPolicy::AckFrequency {
                packets: 10,
                delay: Duration::from_millis(25)
            })
        );
        assert!(AckPolicy::parse("ackfreq(0,1ms)").is_err());
        assert!(AckPolicy::parse("sometimes").is_err());
    }
}
