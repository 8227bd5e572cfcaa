//! Packet-timed round trips and the per-round minimum RTT.
//!
//! A round starts when the previous one ends; the first packet sent after
//! that marks it, and the round ends when an ACK covers that packet number
//! (RFC 9406 §4.2 `windowEnd`, in QUIC packet numbers). HyStart++ compares
//! `currentRoundMinRTT` with `lastRoundMinRTT`; Rapid Start uses the round
//! minimum as its `rtt_floor` (-02 §3.2; docs/algorithms.md ambiguity #4).

use core::time::Duration;

/// Tracks rounds and the RTT samples taken in each.
#[derive(Clone, Debug, Default)]
pub struct RoundTracker {
    /// First packet number sent in the current round; `None` until the
    /// first send after the round started.
    marker: Option<u64>,
    /// Rounds completed so far.
    count: u64,
    current_min: Option<Duration>,
    last_min: Option<Duration>,
    samples: u32,
}

impl RoundTracker {
    /// A tracker before anything was sent.
    pub fn new() -> Self {
        Self::default()
    }

    /// A packet was sent: the first one after a round boundary marks the
    /// new round.
    pub fn on_packet_sent(&mut self, packet_number: u64) {
        if self.marker.is_none() {
            self.marker = Some(packet_number);
        }
    }

    /// An ACK frame was processed. Returns `true` if it ended the round.
    ///
    /// The round boundary is applied before the frame's RTT sample is
    /// recorded, so the sample belongs to the new round (the ACK that covers
    /// the marker measures a packet of the new round's flight, and growth on
    /// this ACK sees an up-to-date floor: docs/algorithms.md ambiguity #4).
    pub fn on_ack_frame(
        &mut self,
        largest_acked: Option<u64>,
        rtt_sample: Option<Duration>,
    ) -> bool {
        let ended = match (self.marker, largest_acked) {
            (Some(m), Some(l)) => l >= m,
            _ => false,
        };
        if ended {
            self.count += 1;
            self.last_min = self.current_min;
            self.current_min = None;
            self.samples = 0;
            self.marker = None;
        }
        if let Some(rtt) = rtt_sample {
            self.current_min = Some(self.current_min.map_or(rtt, |m| m.min(rtt)));
            self.samples = self.samples.saturating_add(1);
        }
        ended
    }

    /// Rounds completed so far.
    pub fn count(&self) -> u64 {
        self.count
    }
    /// `currentRoundMinRTT`: the minimum sample of the current round.
    pub fn current_min(&self) -> Option<Duration> {
        self.current_min
    }
    /// `lastRoundMinRTT`: the minimum sample of the previous round.
    pub fn last_min(&self) -> Option<Duration> {
        self.last_min
    }
    /// `rttSampleCount`: RTT samples (one per ACK frame) in this round.
    pub fn samples(&self) -> u32 {
        self.samples
    }
    /// Rapid Start's `rtt_floor`: this round's minimum, or, while this
    /// round has no sample yet and `fallback` is set, the last round's.
    pub fn rtt_floor(&self, fallback: bool) -> Option<Duration> {
        match self.current_min {
            Some(m) => Some(m),
            None if fallback => self.last_min,
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn round_ends_when_ack_covers_first_packet_of_round() {
        let mut r = RoundTracker::new();
        r.on_packet_sent(0);
        r.on_packet_sent(1);
        assert!(!r.on_ack_frame(None, None));
        assert!(r.on_ack_frame(Some(0), Some(ms(50))));
        assert_eq!(r.count(), 1);
        // The sample of the ending ACK belongs to the new round.
        assert_eq!(
            (r.current_min(), r.last_min(), r.samples()),
            (Some(ms(50)), None, 1)
        );
        r.on_packet_sent(2);
        assert!(!r.on_ack_frame(Some(1), Some(ms(40))));
        assert_eq!(r.current_min(), Some(ms(40)));
        assert!(r.on_ack_frame(Some(2), Some(ms(60))));
        assert_eq!(
            (r.current_min(), r.last_min(), r.samples()),
            (Some(ms(60)), Some(ms(40)), 1)
        );
    }

    #[test]
    fn rtt_floor_falls_back_to_last_round_only_when_asked() {
        let mut r = RoundTracker::new();
        r.on_packet_sent(0);
        r.on_ack_frame(Some(0), Some(ms(30)));
        r.on_packet_sent(1);
        r.on_ack_frame(Some(1), None);
        assert_eq!(r.rtt_floor(true), Some(ms(30)));
        assert_eq!(r.rtt_floor(false), None);
    }
}
