//! quinn transport settings shared by `ramp serve` and `ramp get`.
//!
//! - Flow control never limits a transfer: stream and connection receive
//!   windows and the send window are far above any emulated BDP (the
//!   quinn default stream window, 1.25 MB, is below 100 Mbit/s × 100 ms).
//! - Fixed 1200-byte UDP payloads (RFC 9000 §14: the minimum every path
//!   carries) with PMTU discovery off, so packet counts and windows compare
//!   one to one with the simulator's `max_datagram_size` of 1200.

use std::sync::Arc;
use std::time::Duration;

use quinn::{IdleTimeout, MtuDiscoveryConfig, TransportConfig, VarInt};

use crate::adapter::RampFactory;

/// UDP payload size used on every path (RFC 9000 §14.1 minimum).
pub(crate) const DATAGRAM_BYTES: u16 = 1200;

/// The largest UDP payload path MTU discovery searches up to: 6550 bytes,
/// the largest datagram a full GSO batch of quinn 0.11 still carries.
/// quinn sends up to 10 datagrams per batch (`MAX_TRANSMIT_SEGMENTS` in
/// quinn 0.11.12's `connection.rs`), and Linux sends the batch as one UDP
/// datagram split by the kernel, whose length field bounds the whole:
/// `(65 535 − 20 IPv4 − 8 UDP) / 10 = 6550`. quinn's own default bound,
/// 1452, is sized for Ethernet; above it, discovery finds what the path
/// carries (RFC 8899 §5.1.2: up to the local interface's MTU): 1472 on an
/// Ethernet path, the bound itself on loopback, where kernel TCP also runs
/// with 64 KB segments.
pub(crate) const PMTUD_UPPER_BOUND: u16 = 6550;

/// Receive windows: 1 GiB, far above any emulated BDP.
const RECEIVE_WINDOW_BYTES: u32 = 1 << 30;

/// Default idle timeout: a vanished peer is given up after this long.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(10);

/// A transport configuration with `factory` as its congestion controller
/// (`None`: quinn's default CUBIC, for the client side which only sends
/// requests and ACKs).
pub(crate) fn transport_config(
    factory: Option<Arc<RampFactory>>,
    idle: Duration,
) -> TransportConfig {
    let mut t = TransportConfig::default();
    t.stream_receive_window(VarInt::from_u32(RECEIVE_WINDOW_BYTES))
        .receive_window(VarInt::from_u32(RECEIVE_WINDOW_BYTES))
        .send_window(u64::from(RECEIVE_WINDOW_BYTES))
        .max_concurrent_bidi_streams(VarInt::from_u32(1000))
        .initial_mtu(DATAGRAM_BYTES)
        .min_mtu(DATAGRAM_BYTES)
        .mtu_discovery_config(None)
        .max_idle_timeout(IdleTimeout::try_from(idle).ok());
    if let Some(f) = factory {
        t.congestion_controller_factory(f);
    }
    t
}

/// quinn's path MTU discovery (DPLPMTUD, RFC 8899) searching up to
/// [`PMTUD_UPPER_BOUND`].
pub(crate) fn path_mtu_discovery() -> MtuDiscoveryConfig {
    let mut m = MtuDiscoveryConfig::default();
    m.upper_bound(PMTUD_UPPER_BOUND);
    m
}
