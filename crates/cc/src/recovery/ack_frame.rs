//! The ACK frame as the loss detector sees it (RFC 9000 §19.3), and the
//! errors a peer's ACK can raise.

use core::fmt;
use core::ops::RangeInclusive;
use core::time::Duration;

/// The ECN counts an ACK frame may carry (RFC 9000 §19.3.2): cumulative
/// packets the peer received with each codepoint, per packet-number space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EcnCounts {
    /// Packets received marked ECT(0).
    pub ect0: u64,
    /// Packets received marked ECT(1).
    pub ect1: u64,
    /// Packets received marked ECN-CE.
    pub ce: u64,
}

/// An ACK frame, decoded.
///
/// `ranges` are the acknowledged packet numbers, **descending and disjoint**:
/// the first range holds the largest acknowledged packet, as on the wire.
/// The fields are public so a caller can reuse one frame (and its `Vec`)
/// across ACKs; [`LossDetector::on_ack_received`](super::LossDetector::on_ack_received)
/// validates them again, so a malformed frame is an error, never a panic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AckFrame {
    /// Acknowledged packet numbers, descending, disjoint, non-empty.
    pub ranges: Vec<RangeInclusive<u64>>,
    /// The peer-reported ACK delay, already decoded (exponent applied).
    pub ack_delay: Duration,
    /// ECN counts, if the frame was an ACK_ECN frame.
    pub ecn: Option<EcnCounts>,
}

impl AckFrame {
    /// A validated frame (see [`AckFrame::validate`]).
    pub fn new(
        ranges: Vec<RangeInclusive<u64>>,
        ack_delay: Duration,
        ecn: Option<EcnCounts>,
    ) -> Result<AckFrame, AckError> {
        let frame = AckFrame {
            ranges,
            ack_delay,
            ecn,
        };
        frame.validate()?;
        Ok(frame)
    }

    /// A frame acknowledging the single range `lo..=hi` (no ECN counts).
    pub fn single(lo: u64, hi: u64, ack_delay: Duration) -> Result<AckFrame, AckError> {
        AckFrame::new(vec![lo..=hi], ack_delay, None)
    }

    /// The largest acknowledged packet number, or `None` for an empty frame.
    pub fn largest(&self) -> Option<u64> {
        self.ranges.first().map(|r| *r.end())
    }

    /// The smallest acknowledged packet number, or `None` for an empty frame.
    pub fn smallest(&self) -> Option<u64> {
        self.ranges.last().map(|r| *r.start())
    }

    /// Checks the shape RFC 9000 §19.3.1's encoding guarantees: at least one
    /// range, each with `start <= end`, in descending order without overlap.
    /// (Adjacent ranges, which the wire encoding cannot express, are
    /// accepted: they are unambiguous.)
    pub fn validate(&self) -> Result<(), AckError> {
        self.validate_head(self.ranges.len())
    }

    /// [`AckFrame::validate`] for a frame whose ranges from `known` on are
    /// already known to be well formed and descending (they repeat a frame
    /// validated before): only the ranges above them, and the step down to
    /// the first of them, are checked. The error, if any, is the one
    /// `validate` gives.
    #[inline]
    pub(crate) fn validate_head(&self, known: usize) -> Result<(), AckError> {
        if self.ranges.is_empty() {
            return Err(AckError::NoRanges);
        }
        // The common case in one tight pass, inlined into the ACK path
        // (every frame is validated, and a frame on a lossy path carries
        // one range per hole); `first_error` names the offending range.
        let checked = &self.ranges[..(known + 1).min(self.ranges.len())];
        let well_formed = checked
            .windows(2)
            .all(|w| w[0].start() <= w[0].end() && w[1].end() < w[0].start())
            && checked.last().is_some_and(|r| r.start() <= r.end());
        if well_formed {
            return Ok(());
        }
        self.first_error()
    }

    /// The error [`AckFrame::validate`] reports: the first range that is
    /// inverted or does not descend below the one before it.
    #[cold]
    fn first_error(&self) -> Result<(), AckError> {
        let mut below: Option<u64> = None;
        for (index, r) in self.ranges.iter().enumerate() {
            if r.start() > r.end() {
                return Err(AckError::InvertedRange {
                    index,
                    start: *r.start(),
                    end: *r.end(),
                });
            }
            if let Some(prev_start) = below {
                if *r.end() >= prev_start {
                    return Err(AckError::RangesNotDescending {
                        index,
                        end: *r.end(),
                        previous_start: prev_start,
                    });
                }
            }
            below = Some(*r.start());
        }
        Ok(())
    }
}

/// Why an ACK frame was rejected. Every variant is peer misbehaviour (or a
/// caller's decoding bug); RFC 9000 §13.1 makes an ACK of an unsent packet a
/// connection error of type PROTOCOL_VIOLATION. A rejected frame changes no
/// state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckError {
    /// The frame has no ranges.
    NoRanges,
    /// Range `index` has `start > end`.
    InvertedRange {
        /// Position of the range in the frame.
        index: usize,
        /// Its start.
        start: u64,
        /// Its end.
        end: u64,
    },
    /// Range `index` overlaps or lies above the range before it.
    RangesNotDescending {
        /// Position of the range in the frame.
        index: usize,
        /// Its end.
        end: u64,
        /// Start of the range before it.
        previous_start: u64,
    },
    /// The frame acknowledges a packet number larger than any sent in that
    /// space.
    UnsentPacket {
        /// The largest packet number the frame acknowledges.
        packet_number: u64,
        /// The largest sent in that space, if any was.
        largest_sent: Option<u64>,
    },
    /// The frame acknowledges a packet number the sender skipped.
    SkippedPacket {
        /// The skipped packet number.
        packet_number: u64,
    },
}

impl fmt::Display for AckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AckError::NoRanges => f.write_str("ACK frame has no ranges"),
            AckError::InvertedRange { index, start, end } => {
                write!(f, "ACK range {index} is inverted ({start}..={end})")
            }
            AckError::RangesNotDescending {
                index,
                end,
                previous_start,
            } => write!(
                f,
                "ACK range {index} ends at {end}, not below the previous range's start {previous_start}"
            ),
            AckError::UnsentPacket {
                packet_number,
                largest_sent: Some(l),
            } => write!(
                f,
                "ACK of packet {packet_number}, larger than the largest sent ({l})"
            ),
            AckError::UnsentPacket {
                packet_number,
                largest_sent: None,
            } => write!(
                f,
                "ACK of packet {packet_number} in a space where nothing was sent"
            ),
            AckError::SkippedPacket { packet_number } => {
                write!(f, "ACK of packet {packet_number}, which was never sent (skipped)")
            }
        }
    }
}

impl std::error::Error for AckError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::reversed_empty_ranges)] // an inverted range is the point
    fn validate_rejects_malformed_frames() {
        let d = Duration::ZERO;
        assert_eq!(AckFrame::new(vec![], d, None), Err(AckError::NoRanges));
        assert!(matches!(
            AckFrame::new(vec![5..=3], d, None),
            Err(AckError::InvertedRange { index: 0, .. })
        ));
        assert!(matches!(
            AckFrame::new(vec![1..=2, 4..=5], d, None),
            Err(AckError::RangesNotDescending { index: 1, .. })
        ));
        assert!(matches!(
            AckFrame::new(vec![4..=6, 2..=4], d, None),
            Err(AckError::RangesNotDescending { index: 1, .. })
        ));
        let ok = AckFrame::new(vec![7..=9, 4..=6, 0..=1], d, None).unwrap();
        assert_eq!((ok.largest(), ok.smallest()), (Some(9), Some(0)));
    }
}
