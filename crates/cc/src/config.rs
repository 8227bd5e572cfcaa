//! Connection-level congestion-control settings shared by every controller.
//!
//! These are the knobs of the Google QUIC experiments (the Google QUIC talk) and
//! the pacing assumptions Rapid Start rests on (docs/algorithms.md ambiguity #2). A
//! [`crate::spec::ControllerSpec`] may override any of them by name
//! (`iw=32`, `pacing=off`, `prr=on`, ...).

use core::fmt;

use crate::ratio::Ratio;

/// RFC 9002 §14.1: the smallest allowed maximum datagram size.
pub const DEFAULT_MAX_DATAGRAM_SIZE: u64 = 1200;

/// The initial congestion window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum InitialWindow {
    /// RFC 9002 §7.2 `kInitialWindow = min(10·mds, max(14720, 2·mds))`.
    #[default]
    Rfc9002,
    /// A fixed number of packets of `max_datagram_size` bytes (Google QUIC's
    /// IW10 / IW32 experiments, Fastly's IW30).
    Packets(u32),
    /// quicly's unit (spelled `30x1472`): `quicly_cc_calc_initial_cwnd`
    /// (lib/cc-reno.c at quicly 45bf8a37) counts `packets` (at least
    /// [`QUICLY_MIN_CWND`]) of `min(max_udp_payload_size,`
    /// [`QUICLY_MTU_MAX`]`)` bytes, where `max_udp_payload_size` is the
    /// endpoint's own transport parameter ([`QUICLY_MAX_UDP_PAYLOAD_SIZE`]
    /// by default), not the size of the packets it sends. quicly sizes the
    /// initial window and the jump window this way; an h2o server's record
    /// shows `"cc.cwnd-initial":44160`, 30 × 1472.
    Quicly {
        /// Window in packets.
        packets: u32,
        /// The endpoint's advertised max_udp_payload_size, bytes.
        max_udp_payload_size: u16,
    },
}

/// quicly's `QUICLY_MIN_CWND` (include/quicly/cc.h at 45bf8a37): the
/// fewest packets a window counts.
pub const QUICLY_MIN_CWND: u32 = 2;

/// quicly's `mtu_max` in `quicly_cc_calc_initial_cwnd` (lib/cc-reno.c at
/// 45bf8a37): the largest packet a window is counted in.
pub const QUICLY_MTU_MAX: u16 = 1472;

/// quicly's `DEFAULT_MAX_UDP_PAYLOAD_SIZE` (lib/defaults.c at 45bf8a37,
/// which h2o builds as its quicly): the max_udp_payload_size an endpoint
/// advertises unless configured.
pub const QUICLY_MAX_UDP_PAYLOAD_SIZE: u16 = 1472;

impl InitialWindow {
    /// The window in bytes for datagrams of `mds` bytes (never below the
    /// minimum window).
    pub fn bytes(self, mds: u64) -> u64 {
        match self {
            InitialWindow::Rfc9002 => rfc9002_initial_window(mds),
            InitialWindow::Packets(n) => u64::from(n).saturating_mul(mds).max(minimum_window(mds)),
            // The floor binds only for datagrams over 1472 bytes, where
            // quicly's window would be below RFC 9002's minimum.
            InitialWindow::Quicly {
                packets,
                max_udp_payload_size,
            } => quicly_initial_cwnd(packets, max_udp_payload_size).max(minimum_window(mds)),
        }
    }
}

impl fmt::Display for InitialWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InitialWindow::Rfc9002 => f.write_str("rfc"),
            InitialWindow::Packets(n) => write!(f, "{n}"),
            InitialWindow::Quicly {
                packets,
                max_udp_payload_size,
            } => write!(f, "{packets}x{max_udp_payload_size}"),
        }
    }
}

/// quicly's `quicly_cc_calc_initial_cwnd(max_packets,
/// max_udp_payload_size)` (lib/cc-reno.c at 45bf8a37): `max(max_packets,
/// 2) × min(max_udp_payload_size, 1472)` bytes, saturating at `u32::MAX`.
pub fn quicly_initial_cwnd(max_packets: u32, max_udp_payload_size: u16) -> u64 {
    let packets = u64::from(max_packets.max(QUICLY_MIN_CWND));
    let size = u64::from(max_udp_payload_size.min(QUICLY_MTU_MAX));
    packets.saturating_mul(size).min(u64::from(u32::MAX))
}

/// RFC 9002 §7.2 `kInitialWindow`: `min(10·mds, max(14720, 2·mds))` bytes.
pub fn rfc9002_initial_window(mds: u64) -> u64 {
    mds.saturating_mul(10)
        .min(14_720u64.max(mds.saturating_mul(2)))
}

/// RFC 9002 §7.2 `kMinimumWindow`: `2·mds` bytes.
pub fn minimum_window(mds: u64) -> u64 {
    mds.saturating_mul(2)
}

/// How the sending rate is regulated during an ordinary recovery period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PrrMode {
    /// No PRR: the window drops to ssthresh at once (RFC 9002 §7.3.2's
    /// pseudocode).
    #[default]
    Off,
    /// RFC 9937: conservative reduction bound (CRB) by default, slow-start
    /// reduction bound (SSRB, +1 mds) on "safe" ACKs that deliver data and
    /// reveal no new loss.
    Rfc9937,
    /// Always PRR-CRB: never send more than was delivered.
    Crb,
    /// Always PRR-SSRB: RFC 6937's recommended bound, Google QUIC's choice.
    Ssrb,
}

impl PrrMode {
    /// The spelling used in controller names (`prr=on`, `prr=crb`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            PrrMode::Off => "off",
            PrrMode::Rfc9937 => "on",
            PrrMode::Crb => "crb",
            PrrMode::Ssrb => "ssrb",
        }
    }
}

/// The order in which the caller reports one ACK frame's events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum EventOrder {
    /// RFC 9002 Appendix A (ramp's loss detector): ECN and losses first,
    /// then the acknowledged packets, then the frame end.
    #[default]
    Rfc9002,
    /// quinn 0.11: acknowledged packets and the frame end first, then the
    /// frame's congestion events. Controllers are written for the RFC
    /// order; [`crate::quinn_order::RfcOrder`] restores it for them.
    AcksFirst,
}

/// Settings every loss-based controller shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CcConfig {
    /// QUIC `max_datagram_size`, bytes (RFC 9002 §7.2).
    pub max_datagram_size: u64,
    /// The initial window.
    pub initial_window: InitialWindow,
    /// Whether the controller returns a pacing rate at all.
    pub pacing: bool,
    /// Pacing gain in slow start: rate = gain·cwnd/srtt. 2 is Linux's
    /// `tcp_pacing_ss_ratio = 200` and the "classic paced slow start" Rapid
    /// Start compares itself with (-02 §3.1; docs/algorithms.md ambiguity #2).
    pub slow_start_pacing_gain: Ratio,
    /// Pacing gain in congestion avoidance and recovery: RFC 9002 §7.7's
    /// example N = 1.25 (Linux uses 1.2).
    pub ca_pacing_gain: Ratio,
    /// Proportional Rate Reduction during ordinary recovery (RFC 9937).
    pub prr: PrrMode,
    /// Undo a reduction when the loss that caused it proves spurious
    /// (RFC 9438 §4.9; a MAY).
    pub undo: bool,
    /// RFC 9002 §7.3.2's MAY: on entering recovery, let one packet out
    /// whatever the window (docs/algorithms.md ambiguity #12). Off by default, which keeps
    /// Rapid Start's silence and matches a window-only sender such as quinn.
    pub recovery_send_one: bool,
    /// The caller knows this flow is alone on its bottleneck (a
    /// single-flow simulation). RFC 9438 §4.7: fast convergence SHOULD be
    /// on, and may be off only for a flow known to be alone, so CUBIC's
    /// `fast_convergence=auto` turns it off exactly then. This describes
    /// the integration (not part of a controller's name): real mode and
    /// multi-flow scenarios leave it `false`.
    pub alone_on_bottleneck: bool,
    /// A seed for this flow's own random draws (BBRv3's probe wait), so
    /// that concurrent flows of one simulation do not draw alike; a
    /// controller's own `seed=` option wins. `None`: the controller's
    /// default. Like `alone_on_bottleneck`, it describes the integration.
    pub flow_seed: Option<u64>,
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig {
            max_datagram_size: DEFAULT_MAX_DATAGRAM_SIZE,
            initial_window: InitialWindow::Rfc9002,
            pacing: true,
            slow_start_pacing_gain: DEFAULT_SS_PACING_GAIN,
            ca_pacing_gain: DEFAULT_CA_PACING_GAIN,
            prr: PrrMode::Off,
            undo: false,
            recovery_send_one: false,
            alone_on_bottleneck: false,
            flow_seed: None,
        }
    }
}

/// Default slow-start pacing gain, 2 (Linux `tcp_pacing_ss_ratio`).
pub const DEFAULT_SS_PACING_GAIN: Ratio = match Ratio::new(2, 1) {
    Some(r) => r,
    None => Ratio::ONE,
};
/// Default congestion-avoidance pacing gain, 5/4 (RFC 9002 §7.7).
pub const DEFAULT_CA_PACING_GAIN: Ratio = match Ratio::new(5, 4) {
    Some(r) => r,
    None => Ratio::ONE,
};

impl CcConfig {
    /// The initial window in bytes.
    pub fn initial_window_bytes(&self) -> u64 {
        self.initial_window.bytes(self.max_datagram_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc9002_7_2_initial_window_for_common_datagram_sizes() {
        assert_eq!(rfc9002_initial_window(1200), 12_000);
        assert_eq!(rfc9002_initial_window(1472), 14_720);
        assert_eq!(rfc9002_initial_window(1500), 14_720);
        assert_eq!(rfc9002_initial_window(9000), 18_000);
        assert_eq!(minimum_window(1200), 2_400);
    }

    #[test]
    fn initial_window_in_packets() {
        for n in [10u32, 30, 32, 3] {
            assert_eq!(InitialWindow::Packets(n).bytes(1200), u64::from(n) * 1200);
        }
        // Never below kMinimumWindow.
        assert_eq!(InitialWindow::Packets(1).bytes(1200), 2400);
    }

    /// quicly 45bf8a37 lib/cc-reno.c `quicly_cc_calc_initial_cwnd`: the
    /// packet count is raised to QUICLY_MIN_CWND, the payload size capped
    /// at 1472, and the product is the window whatever the packets' size.
    #[test]
    fn quicly_calc_initial_cwnd_arithmetic() {
        // h2o's record: IW 30 at the default 1472 is 44,160 B; the jump of
        // 60 packets (quicly's default_jumpstart_cwnd_packets in the
        // experiment) 88,320 B.
        assert_eq!(quicly_initial_cwnd(30, QUICLY_MAX_UDP_PAYLOAD_SIZE), 44_160);
        assert_eq!(quicly_initial_cwnd(60, QUICLY_MAX_UDP_PAYLOAD_SIZE), 88_320);
        // A larger advertised size is capped at mtu_max.
        assert_eq!(quicly_initial_cwnd(30, 9000), 44_160);
        assert_eq!(quicly_initial_cwnd(30, 65527), 44_160);
        // A smaller one counts as itself.
        assert_eq!(quicly_initial_cwnd(10, 1200), 12_000);
        // max_packets below QUICLY_MIN_CWND is raised to it.
        assert_eq!(quicly_initial_cwnd(0, 1472), 2_944);
        assert_eq!(quicly_initial_cwnd(1, 1280), 2_560);
        // Saturates at UINT32_MAX.
        assert_eq!(quicly_initial_cwnd(u32::MAX, 1472), u64::from(u32::MAX));
        // The window does not depend on the packets sent: 1252-byte packets
        // still get 44,160 B.
        let iw = InitialWindow::Quicly {
            packets: 30,
            max_udp_payload_size: 1472,
        };
        assert_eq!(iw.bytes(1252), 44_160);
        assert_eq!(iw.bytes(1280), 44_160);
        assert_eq!(iw.to_string(), "30x1472");
    }
}
