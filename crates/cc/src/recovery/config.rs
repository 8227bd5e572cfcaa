//! Loss-detection parameters.

use core::time::Duration;

use crate::config::EventOrder;
use crate::rtt::INITIAL_RTT;

/// RFC 9002 §6.1.1 `kPacketThreshold`: a packet is lost once a packet this
/// many numbers later is acknowledged (SHOULD NOT be below 3).
pub const PACKET_THRESHOLD: u64 = 3;

/// RFC 9002 §6.1.2 `kTimeThreshold` = 9/8, as (numerator, denominator).
pub const TIME_THRESHOLD: (u32, u32) = (9, 8);

/// RFC 9002 §7.6.1 `kPersistentCongestionThreshold`.
pub const PERSISTENT_CONGESTION_THRESHOLD: u32 = 3;

/// RFC 9000 §18.2 default `max_ack_delay`, 25 ms.
pub const DEFAULT_MAX_ACK_DELAY: Duration = Duration::from_millis(25);

/// How many declared-lost packets are remembered per space to recognise a
/// later ACK of one as a spurious loss (see `docs/recovery.md`).
pub const DEFAULT_SPURIOUS_MEMORY_PACKETS: usize = 4096;

/// Loss-detection parameters. `Default` is RFC 9002's recommendations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecoveryConfig {
    /// The peer's `max_ack_delay` transport parameter (RFC 9000 §18.2),
    /// used in the Application Data PTO and in the persistent-congestion
    /// duration. Default 25 ms.
    pub max_ack_delay: Duration,
    /// `kPacketThreshold` (§6.1.1). Default 3. Zero is treated as 1.
    pub packet_threshold: u64,
    /// `kTimeThreshold` as (numerator, denominator) (§6.1.2). Default
    /// `Some((9, 8))`. `None` turns the time threshold off: losses are found
    /// by packet threshold only and the loss timer is never armed (a knob of
    /// the Google QUIC experiments); tail losses are then repaired by PTO.
    /// A zero denominator is treated as 1.
    pub time_threshold: Option<(u32, u32)>,
    /// `kInitialRtt` (§6.2.2), the RTT assumed before the first sample.
    /// Default 333 ms.
    pub initial_rtt: Duration,
    /// `kPersistentCongestionThreshold` (§7.6.1). Default 3. Zero disables
    /// persistent-congestion detection.
    pub persistent_congestion_threshold: u32,
    /// Probe datagrams to send when a PTO expires (§6.2.4: at least one, MAY
    /// send two). Default 2; clamped to 1..=2.
    pub pto_probes: u8,
    /// Whether the handshake is already confirmed when the detector is made.
    /// RFC 9002 §6.2.1 does not arm the Application Data PTO before
    /// confirmation, and §5.3 caps the ACK delay at `max_ack_delay` only
    /// after it. A simulator that models no handshake sets this `true`;
    /// otherwise call [`LossDetector::set_handshake_confirmed`](super::LossDetector::set_handshake_confirmed).
    /// Default `false`.
    pub handshake_confirmed: bool,
    /// Reset `min_rtt` to the newest sample when persistent congestion is
    /// declared (§5.2: SHOULD). Default `true`.
    pub reset_min_rtt_on_persistent_congestion: bool,
    /// Declared-lost packets remembered per space for spurious-loss
    /// detection; the oldest are forgotten first. Default 4096.
    pub spurious_memory_packets: usize,
    /// The order in which one ACK frame's events reach the controller:
    /// RFC 9002 Appendix A's (default), or quinn 0.11's (acknowledgements
    /// and frame end first, then the RTT update, losses and ECN), so the
    /// simulator can run a controller exactly as quinn drives it; wrap the
    /// controller in [`crate::quinn_order::RfcOrder`] for the latter.
    pub event_order: EventOrder,
}

impl Default for RecoveryConfig {
    fn default() -> Self {
        RecoveryConfig {
            max_ack_delay: DEFAULT_MAX_ACK_DELAY,
            packet_threshold: PACKET_THRESHOLD,
            time_threshold: Some(TIME_THRESHOLD),
            initial_rtt: INITIAL_RTT,
            persistent_congestion_threshold: PERSISTENT_CONGESTION_THRESHOLD,
            pto_probes: 2,
            handshake_confirmed: false,
            reset_min_rtt_on_persistent_congestion: true,
            spurious_memory_packets: DEFAULT_SPURIOUS_MEMORY_PACKETS,
            event_order: EventOrder::Rfc9002,
        }
    }
}

impl RecoveryConfig {
    /// The configuration of a sender that models no handshake (a simulator
    /// endpoint sending 1-RTT data from the start): RFC defaults with the
    /// handshake already confirmed.
    pub fn confirmed() -> Self {
        RecoveryConfig {
            handshake_confirmed: true,
            ..RecoveryConfig::default()
        }
    }

    /// Checks values the detector would otherwise silently clamp; the
    /// error names the field.
    pub fn validate(&self) -> Result<(), InvalidRecoveryConfig> {
        if self.packet_threshold == 0 {
            return Err(InvalidRecoveryConfig::PacketThreshold);
        }
        if let Some((num, den)) = self.time_threshold {
            if num == 0 || den == 0 {
                return Err(InvalidRecoveryConfig::TimeThreshold(num, den));
            }
        }
        if !(1..=2).contains(&self.pto_probes) {
            return Err(InvalidRecoveryConfig::PtoProbes(self.pto_probes));
        }
        Ok(())
    }

    /// The packet threshold actually used (zero becomes 1).
    pub(crate) fn packet_threshold(&self) -> u64 {
        self.packet_threshold.max(1)
    }

    /// The time threshold actually used (a zero denominator becomes 1).
    pub(crate) fn time_threshold(&self) -> Option<(u32, u32)> {
        self.time_threshold.map(|(n, d)| (n, d.max(1)))
    }
}

/// A [`RecoveryConfig`] value the detector would have to clamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InvalidRecoveryConfig {
    /// `packet_threshold` is 0.
    PacketThreshold,
    /// `time_threshold` has a zero term.
    TimeThreshold(u32, u32),
    /// `pto_probes` is not 1 or 2 (RFC 9002 §6.2.4).
    PtoProbes(u8),
}

impl core::fmt::Display for InvalidRecoveryConfig {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            InvalidRecoveryConfig::PacketThreshold => {
                f.write_str("recovery.packet_threshold must be at least 1")
            }
            InvalidRecoveryConfig::TimeThreshold(num, den) => write!(
                f,
                "recovery.time_threshold {num}/{den}: both terms must be positive"
            ),
            InvalidRecoveryConfig::PtoProbes(n) => write!(
                f,
                "recovery.pto_probes {n} must be 1 or 2 (RFC 9002 §6.2.4)"
            ),
        }
    }
}

impl std::error::Error for InvalidRecoveryConfig {}
