//! Loss-detection counters for stats records (the docs/formats.md key each
//! feeds is named).

use super::ecn::EcnValidation;

/// Counters since the detector was made, over all spaces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecoveryStats {
    /// Packets sent (record key `num-packets.sent`).
    pub packets_sent: u64,
    /// Bytes sent (record key `num-bytes.sent`).
    pub bytes_sent: u64,
    /// Packets newly acknowledged, excluding spurious losses (record key `num-packets.ack-received`).
    pub packets_acked: u64,
    /// Bytes newly acknowledged, excluding spurious losses (record key `num-bytes.ack-received`).
    pub bytes_acked: u64,
    /// Packets declared lost (record key `num-packets.lost`).
    pub packets_lost: u64,
    /// Bytes declared lost (record key `num-bytes.lost`).
    pub bytes_lost: u64,
    /// Of `packets_lost`, those found by the packet threshold (§6.1.1).
    pub lost_by_packet_threshold: u64,
    /// Of `packets_lost`, those found by the time threshold only (§6.1.2).
    pub lost_by_time_threshold: u64,
    /// Packets declared lost and acknowledged later (record key `num-packets.lost-spurious`).
    pub spurious_losses: u64,
    /// Bytes of those.
    pub spurious_bytes: u64,
    /// Loss events reported to the controller (one per detection pass with
    /// ack-eliciting in-flight losses).
    pub loss_events: u64,
    /// Times every loss of a recovery episode turned out spurious and the
    /// controller was told (`on_spurious_congestion`).
    pub spurious_episodes: u64,
    /// PTO expirations (record key `num-ptos`).
    pub ptos: u64,
    /// Loss events that established persistent congestion (§7.6).
    pub persistent_congestions: u64,
    /// Sum of increases of the peer-reported ECN-CE counts.
    pub ecn_ce: u64,
    /// ACK frames that raised the CE count (one congestion event each).
    pub ecn_ce_events: u64,
    /// Sum of increases of the peer-reported ECT(0) counts.
    pub ecn_ect0: u64,
    /// Sum of increases of the peer-reported ECT(1) counts.
    pub ecn_ect1: u64,
    /// The ECN validation state (RFC 9000 §13.4.2).
    pub ecn_validation: EcnValidation,
    /// ACK frames processed without error.
    pub ack_frames: u64,
    /// RTT samples taken (§5.1).
    pub rtt_samples: u64,
}
