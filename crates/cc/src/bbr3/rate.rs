//! Delivery-rate sampling (draft-ietf-ccwg-bbr-06 §4.1, from
//! draft-cheng-iccrg-delivery-rate-estimation): every sent packet
//! snapshots how much had been delivered, and when; its acknowledgement
//! turns the difference into a rate sample over the longer of the send and
//! ACK intervals, marked application-limited if the packet was sent in an
//! application-limited bubble.
//!
//! Sans-IO: the snapshots are keyed by application-space packet number
//! (Initial and Handshake packets count as delivered but give no sample).

use core::time::Duration;
use std::collections::VecDeque;

use ramp_vocab::time::{Rate, Time};

/// What the sender knew when it sent one packet (§4.1.2.1.2, "P.").
#[derive(Clone, Copy, Debug)]
struct Snapshot {
    packet_number: u64,
    send_time: Time,
    size: u64,
    /// `C.delivered` at send time.
    delivered: u64,
    /// `C.delivered_time` at send time.
    delivered_time: Time,
    /// `C.first_send_time` at send time.
    first_send_time: Time,
    is_app_limited: bool,
    /// `C.inflight` just after sending it (including it).
    tx_in_flight: u64,
    /// `C.lost` at send time.
    lost: u64,
    /// `C.delivered_ce` at send time.
    delivered_ce: u64,
    acked: bool,
}

/// The rate sample of one ACK frame (§4.1.2.1.3, "RS.").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// `delivered / interval`, when the interval was long enough to trust.
    pub delivery_rate: Option<Rate>,
    /// The newest acknowledged packet was sent application-limited.
    pub is_app_limited: bool,
    /// Bytes delivered over the sampling interval.
    pub delivered: u64,
    /// `C.delivered` when the newest acknowledged packet was sent.
    pub prior_delivered: u64,
    /// Bytes newly acknowledged by this frame.
    pub newly_acked: u64,
    /// `C.inflight` just after the newest acknowledged packet was sent.
    pub tx_in_flight: u64,
    /// Bytes declared lost since the newest acknowledged packet was sent.
    pub lost: u64,
    /// CE-marked bytes reported since the newest acknowledged packet was
    /// sent (Linux BBRv3's `rs->delivered_ce`).
    pub delivered_ce: u64,
    /// Whether any acknowledged packet had a snapshot (an application
    /// packet): without one there is no sample at all.
    pub has_data: bool,
}

/// The per-connection half of the sampler (§4.1.2.1.1, "C.").
#[derive(Clone, Debug)]
pub struct RateSampler {
    packets: VecDeque<Snapshot>,
    delivered: u64,
    delivered_time: Time,
    first_send_time: Time,
    /// `C.app_limited`: the delivered count that ends the current
    /// application-limited bubble, or 0.
    app_limited: u64,
    lost: u64,
    /// `C.delivered_ce`: bytes newly reported CE-marked so far.
    delivered_ce: u64,
    /// The sample being built for the current ACK frame.
    rs: RateSample,
    send_elapsed: Duration,
    ack_elapsed: Duration,
    last_acked_packet: u64,
    prior_time: Option<Time>,
}

/// Snapshots kept at most; older ones are dropped (their packets were
/// long declared lost).
const MAX_SNAPSHOTS: usize = 1 << 20;

impl Default for RateSampler {
    fn default() -> Self {
        RateSampler {
            packets: VecDeque::new(),
            delivered: 0,
            delivered_time: Time::ZERO,
            first_send_time: Time::ZERO,
            app_limited: 0,
            lost: 0,
            delivered_ce: 0,
            rs: RateSample::default(),
            send_elapsed: Duration::ZERO,
            ack_elapsed: Duration::ZERO,
            last_acked_packet: 0,
            prior_time: None,
        }
    }
}

impl RateSampler {
    /// Bytes delivered so far (`C.delivered`).
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Bytes declared lost so far (`C.lost`).
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// §4.1.2.2 `OnPacketSent`: `in_flight` includes the packet.
    pub fn on_sent(&mut self, now: Time, packet_number: Option<u64>, size: u64, in_flight: u64) {
        if in_flight <= size {
            // Nothing was in flight: the interval starts now.
            self.first_send_time = now;
            self.delivered_time = now;
        }
        let Some(pn) = packet_number else {
            return;
        };
        if self.packets.len() >= MAX_SNAPSHOTS {
            self.packets.pop_front();
        }
        self.packets.push_back(Snapshot {
            packet_number: pn,
            send_time: now,
            size,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_send_time: self.first_send_time,
            is_app_limited: self.app_limited != 0,
            tx_in_flight: in_flight,
            lost: self.lost,
            delivered_ce: self.delivered_ce,
            acked: false,
        });
    }

    fn index_of(&self, packet_number: u64) -> Option<usize> {
        self.packets
            .binary_search_by_key(&packet_number, |s| s.packet_number)
            .ok()
    }

    /// §4.1.2.3 `UpdateRateSample` for one newly acknowledged packet.
    pub fn on_acked(&mut self, now: Time, packet_number: Option<u64>, size: u64) {
        self.delivered += size;
        self.delivered_time = now;
        self.rs.newly_acked += size;
        let Some(i) = packet_number.and_then(|pn| self.index_of(pn)) else {
            return;
        };
        let p = self.packets[i];
        if p.acked {
            return;
        }
        self.packets[i].acked = true;
        let newest = p.send_time > self.first_send_time
            || (p.send_time == self.first_send_time && p.packet_number > self.last_acked_packet);
        if !self.rs.has_data || newest {
            self.rs.has_data = true;
            self.rs.prior_delivered = p.delivered;
            self.prior_time = Some(p.delivered_time);
            self.rs.is_app_limited = p.is_app_limited;
            self.rs.tx_in_flight = p.tx_in_flight;
            self.rs.lost = self.lost.saturating_sub(p.lost);
            self.rs.delivered_ce = self.delivered_ce.saturating_sub(p.delivered_ce);
            self.send_elapsed = p.send_time.saturating_since(p.first_send_time);
            self.ack_elapsed = self.delivered_time.saturating_since(p.delivered_time);
            self.last_acked_packet = p.packet_number;
            self.first_send_time = p.send_time;
        }
    }

    /// Bytes declared lost (`C.lost` grows).
    pub fn on_lost(&mut self, bytes: u64) {
        self.lost += bytes;
    }

    /// Bytes newly reported CE-marked (`C.delivered_ce` grows). RFC 9002's
    /// order reports a frame's CE increase before its acknowledgements, so
    /// the frame's sample counts them.
    pub fn on_ce(&mut self, bytes: u64) {
        self.delivered_ce += bytes;
    }

    /// The snapshot of the newest packet sent at or before `time_sent`:
    /// what a loss event's largest lost packet saw when it left, as
    /// `(tx_in_flight, lost since then, size, is_app_limited)`.
    pub fn lost_packet(&self, time_sent: Time) -> Option<(u64, u64, u64, bool)> {
        let end = self.packets.partition_point(|s| s.send_time <= time_sent);
        let p = self.packets.get(end.checked_sub(1)?)?;
        Some((
            p.tx_in_flight,
            self.lost.saturating_sub(p.lost),
            p.size,
            p.is_app_limited,
        ))
    }

    /// §4.1.2.3 `GenerateRateSample` at the end of the ACK frame; returns
    /// the sample and starts the next one. `min_rtt` rejects intervals too
    /// short to trust; `stale_after` drops snapshots of packets that were
    /// sent that long before the newest acknowledged one and never
    /// acknowledged (they were lost).
    pub fn finish(&mut self, min_rtt: Option<Duration>, stale_after: Duration) -> RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let mut rs = core::mem::take(&mut self.rs);
        if self.prior_time.take().is_some() {
            let interval = self.send_elapsed.max(self.ack_elapsed);
            rs.delivered = self.delivered - rs.prior_delivered;
            let trusted = min_rtt.is_none_or(|m| interval >= m);
            if trusted && !interval.is_zero() {
                rs.delivery_rate = Some(Rate::from_bytes_over(rs.delivered, interval));
            }
        }
        let horizon = self.first_send_time.saturating_sub(stale_after);
        while self
            .packets
            .front()
            .is_some_and(|p| p.acked || p.send_time < horizon)
        {
            self.packets.pop_front();
        }
        rs
    }

    /// §4.1.2.4 `MarkConnectionAppLimited`: samples of packets sent from
    /// now until the bubble is delivered are application-limited.
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// Whether the connection is in an application-limited bubble.
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Time {
        Time::ZERO.saturating_add(Duration::from_millis(n))
    }

    #[test]
    fn draft_4_1_2_a_full_window_acked_one_rtt_later_gives_the_path_rate() {
        let mut s = RateSampler::default();
        // Ten 1000-byte packets back to back at t=0, acked at t=100 ms.
        for pn in 0..10 {
            s.on_sent(ms(0), Some(pn), 1000, (pn + 1) * 1000);
        }
        for pn in 0..10 {
            s.on_acked(ms(100), Some(pn), 1000);
        }
        let rs = s.finish(Some(Duration::from_millis(100)), Duration::from_secs(1));
        assert_eq!(rs.delivered, 10_000);
        assert_eq!(rs.newly_acked, 10_000);
        assert_eq!(
            rs.delivery_rate,
            Some(Rate::from_bytes_per_sec(100_000)),
            "10 kB over 100 ms"
        );
        assert_eq!(rs.tx_in_flight, 10_000, "the newest packet's flight");
    }

    #[test]
    fn draft_4_1_2_3_intervals_shorter_than_min_rtt_give_no_rate() {
        let mut s = RateSampler::default();
        s.on_sent(ms(0), Some(0), 1000, 1000);
        s.on_acked(ms(10), Some(0), 1000);
        let rs = s.finish(Some(Duration::from_millis(50)), Duration::from_secs(1));
        assert!(rs.has_data);
        assert_eq!(rs.delivery_rate, None);
    }

    #[test]
    fn draft_4_1_2_4_app_limited_marks_packets_until_the_bubble_is_delivered() {
        let mut s = RateSampler::default();
        s.mark_app_limited(0);
        s.on_sent(ms(0), Some(0), 1000, 1000);
        s.on_acked(ms(50), Some(0), 1000);
        let rs = s.finish(None, Duration::from_secs(1));
        assert!(rs.is_app_limited);
        assert!(!s.is_app_limited(), "the bubble (1 byte) is delivered");
        s.on_sent(ms(50), Some(1), 1000, 1000);
        s.on_acked(ms(100), Some(1), 1000);
        assert!(!s.finish(None, Duration::from_secs(1)).is_app_limited);
    }

    #[test]
    fn duplicate_acks_count_once_and_lost_packets_are_pruned() {
        let mut s = RateSampler::default();
        for pn in 0..4 {
            s.on_sent(ms(pn), Some(pn), 1000, (pn + 1) * 1000);
        }
        s.on_lost(1000); // packet 0
        s.on_acked(ms(60), Some(3), 1000);
        let rs = s.finish(None, Duration::ZERO);
        assert_eq!(rs.lost, 1000, "lost since packet 3 was sent");
        assert_eq!(s.packets.len(), 0, "0..2 stale, 3 acked");
        s.on_acked(ms(61), Some(3), 1000);
        assert!(!s.finish(None, Duration::from_millis(1)).has_data);
    }
}
