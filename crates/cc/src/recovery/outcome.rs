//! What one ACK frame or one timer expiry did, handed back to the caller.
//! Both outcomes own `Vec`s that are cleared, not freed, on each call, so a
//! caller that keeps one around allocates nothing in steady state.

use core::time::Duration;

use super::sent::SentPacket;
use super::Space;

/// Why RFC 9002 §6.1 declared a packet lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LossTrigger {
    /// §6.1.1: `kPacketThreshold` newer packets were acknowledged.
    PacketThreshold,
    /// §6.1.2: it was sent more than the loss delay before the newest
    /// acknowledged packet (or the loss timer fired).
    TimeThreshold,
}

impl LossTrigger {
    /// qlog's `packet_lost` trigger name.
    pub fn qlog_name(self) -> &'static str {
        match self {
            LossTrigger::PacketThreshold => "reordering_threshold",
            LossTrigger::TimeThreshold => "time_threshold",
        }
    }
}

/// The result of [`LossDetector::on_ack_received`](super::LossDetector::on_ack_received).
#[derive(Clone, Debug)]
pub struct AckOutcome<P> {
    /// Packets newly acknowledged by this frame, ascending packet number
    /// (all of them, in flight or not).
    pub acked: Vec<SentPacket<P>>,
    /// Packets declared lost while processing this frame, ascending packet
    /// number.
    pub lost: Vec<SentPacket<P>>,
    /// Why each of `lost` was declared lost (same order).
    pub lost_by: Vec<LossTrigger>,
    /// The RTT sample the frame produced (raw, not adjusted for ack delay).
    pub rtt_sample: Option<Duration>,
    /// The frame raised the peer's ECN-CE count.
    pub ce_increase: bool,
    /// Packets previously declared lost that this frame acknowledged.
    pub spurious: u64,
    /// The losses of this frame established persistent congestion (§7.6).
    pub persistent_congestion: bool,
    /// Every loss of the current recovery episode has turned out spurious,
    /// and `Controller::on_spurious_congestion` was called.
    pub spurious_episode: bool,
}

impl<P> Default for AckOutcome<P> {
    fn default() -> Self {
        AckOutcome {
            acked: Vec::new(),
            lost: Vec::new(),
            lost_by: Vec::new(),
            rtt_sample: None,
            ce_increase: false,
            spurious: 0,
            persistent_congestion: false,
            spurious_episode: false,
        }
    }
}

impl<P> AckOutcome<P> {
    /// An empty outcome.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties it, keeping the `Vec`s' capacity.
    pub fn clear(&mut self) {
        self.acked.clear();
        self.lost.clear();
        self.lost_by.clear();
        self.rtt_sample = None;
        self.ce_increase = false;
        self.spurious = 0;
        self.persistent_congestion = false;
        self.spurious_episode = false;
    }
}

/// Which timer expired in [`LossDetector::on_timeout`](super::LossDetector::on_timeout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutKind {
    /// Nothing was due at `now` (no timer, or called before it): no-op.
    Idle,
    /// The loss timer: packets were declared lost by the time threshold
    /// (§6.1.2) in `space`.
    LossTimer {
        /// The space whose loss time expired.
        space: Space,
    },
    /// A probe timeout (§6.2.4): send `probes` ack-eliciting datagrams in
    /// `space` (new data, else a retransmission, else a PING). Probes bypass
    /// the congestion window but count in bytes in flight. Nothing was
    /// declared lost and the window is unchanged.
    Pto {
        /// The space to probe.
        space: Space,
        /// 1 or 2 datagrams ([`RecoveryConfig::pto_probes`](super::RecoveryConfig::pto_probes)).
        probes: u8,
    },
}

/// The result of [`LossDetector::on_timeout`](super::LossDetector::on_timeout).
#[derive(Clone, Debug)]
pub struct TimeoutOutcome<P> {
    /// What expired.
    pub kind: TimeoutKind,
    /// Packets declared lost (only for [`TimeoutKind::LossTimer`]).
    pub lost: Vec<SentPacket<P>>,
    /// Why each of `lost` was declared lost (same order).
    pub lost_by: Vec<LossTrigger>,
    /// The losses established persistent congestion (§7.6).
    pub persistent_congestion: bool,
}

impl<P> Default for TimeoutOutcome<P> {
    fn default() -> Self {
        TimeoutOutcome {
            kind: TimeoutKind::Idle,
            lost: Vec::new(),
            lost_by: Vec::new(),
            persistent_congestion: false,
        }
    }
}

impl<P> TimeoutOutcome<P> {
    /// An empty outcome.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties it, keeping the `Vec`'s capacity.
    pub fn clear(&mut self) {
        self.kind = TimeoutKind::Idle;
        self.lost.clear();
        self.lost_by.clear();
        self.persistent_congestion = false;
    }
}
