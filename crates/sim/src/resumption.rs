//! How a connection starts: a full handshake, or a resumed one whose
//! request leaves with the client's first flight (0-RTT, RFC 9001 §4.6;
//! RFC 8446 §2.3).
//!
//! - **Full** (the default): the client's Initial, padded to the datagram
//!   size; the server's flight (`[endpoint] server_flight`, 3000 B: one
//!   Initial and two Handshake packets carrying ServerHello, the
//!   certificate chain and Finished); the request after one RTT.
//! - **0-RTT**: the client's first datagram carries its Initial
//!   (ClientHello with a pre-shared key) and a 0-RTT packet with the
//!   request, padded to the datagram size (RFC 9000 §14.1). A PSK
//!   handshake sends no certificate (RFC 8446 §2.2), so the server's
//!   flight is one datagram — ServerHello, EncryptedExtensions and
//!   Finished, a few hundred bytes — padded to the datagram size, since it
//!   carries an ack-eliciting Initial (RFC 9000 §14.1). The response
//!   starts at once, in 1-RTT packets (0.5-RTT data), under the congestion
//!   window and the pacer like any response.
//!   - Without an address-validation token the server may send at most
//!     three times the bytes it has received until the client's address is
//!     validated (RFC 9000 §8.1), which a Handshake packet from the client
//!     does: its Finished, one RTT later. With a 1252-byte first datagram
//!     that is 3756 bytes: the 1252-byte flight and two full packets.
//!     Every client datagram that carries an Initial packet, its ACKs of
//!     the server's Initial included, is padded to the datagram size
//!     (RFC 9000 §14.1) and so adds three times its size to the credit.
//!   - With a token from a NEW_TOKEN frame of an earlier connection (RFC
//!     9000 §8.1.3) the address is validated by the client's first
//!     Initial, and no limit applies.
//!
//! **The client's RTT hint** (gQUIC's `IRTT`, `[endpoint] client_rtt_hint`):
//! a Google QUIC client sends the smoothed RTT it cached from its previous
//! connection to the server in its hello (Chromium's
//! `QuicSessionPool::ConfigureInitialRttEstimate` reads the `srtt` that
//! `ProcessGoingAwaySession` stored from the previous connection's
//! `srtt_us`, net/quic/quic_session_pool.cc at chromium/chromium b82aa1e5;
//! the `kIRTT` tag, "Estimated initial RTT in us"), and the server starts
//! its RTT estimate from it (`QuicSentPacketManager::SetFromConfig` →
//! `SetInitialRtt(rtt, /*trusted=*/false)`, clamped to [10 ms, 1 s],
//! quiche/quic/core/quic_sent_packet_manager.cc and quic_constants.h at
//! google/quiche f44fa9f3). A resumed connection's 0.5-RTT data is then
//! paced, and its PTO armed, at the path's RTT instead of RFC 9002 §6.2.2's
//! 333 ms (the same section allows a resumed connection the previous
//! connection's final smoothed RTT). A full handshake gets an RTT sample before its first data, so
//! the hint matters only with 0-RTT here. quicly (the Rapid Start arms'
//! stack) does not remember an RTT across connections: a new connection
//! starts at `QUICLY_DEFAULT_INITIAL_RTT`, with "FIXME remember
//! initial_rtt in session ticket" beside it (lib/quicly.c at 45bf8a37).
//!
//! The client then sends its Finished (a Handshake packet, 100 B) once it
//! has the server's flight. TTLB is still measured at the server from the
//! request's arrival, so the handshake RTT 0-RTT saves shows in
//! `client-ttlb-us` and `ttfb-us` (both from the client's first packet),
//! not in `ttlb-us`.

use core::time::Duration;

/// quiche's floor on an initial RTT a client suggests,
/// `kMinUntrustedInitialRoundTripTimeUs` (10 ms; quic_constants.h at
/// google/quiche f44fa9f3).
pub(crate) const MIN_UNTRUSTED_INITIAL_RTT: Duration = Duration::from_millis(10);

/// quiche's ceiling on any initial RTT, `kMaxInitialRoundTripTimeUs`
/// ("Don't allow a client to suggest an RTT longer than 1 second").
pub(crate) const MAX_INITIAL_RTT: Duration = Duration::from_secs(1);

/// The initial RTT a server takes from a client's hint: quiche's
/// `SetInitialRtt(hint, /*trusted=*/false)`, the hint clamped to
/// [`MIN_UNTRUSTED_INITIAL_RTT`, `MAX_INITIAL_RTT`].
pub fn server_initial_rtt(hint: Duration) -> Duration {
    hint.clamp(MIN_UNTRUSTED_INITIAL_RTT, MAX_INITIAL_RTT)
}

/// How a connection starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Resumption {
    /// A full 1-RTT handshake.
    #[default]
    Full,
    /// A resumed connection sending its request in 0-RTT.
    ZeroRtt {
        /// The server holds an address-validation token for the client
        /// (RFC 9000 §8.1.3), so anti-amplification does not apply.
        token: bool,
    },
}

/// The client's Handshake packet carrying only its Finished: long header
/// (about 50 B), TLS Finished (36 B with a 32-byte hash), AEAD tag (16 B).
pub(crate) const CLIENT_FINISHED_BYTES: u64 = 100;

impl Resumption {
    /// Whether the request leaves with the client's first flight.
    pub fn zero_rtt(self) -> bool {
        matches!(self, Resumption::ZeroRtt { .. })
    }

    /// Whether the server starts with the client's address validated.
    pub fn validated_at_start(self) -> bool {
        matches!(self, Resumption::ZeroRtt { token: true })
    }

    /// The record's `resumption` value; None for a full handshake, so its
    /// records keep their key set.
    pub fn record_value(self) -> Option<&'static str> {
        match self {
            Resumption::Full => None,
            Resumption::ZeroRtt { token: false } => Some("0rtt"),
            Resumption::ZeroRtt { token: true } => Some("0rtt-token"),
        }
    }

    /// Parses a scenario's `resumption` (`full`, `0rtt`, `0rtt-token`).
    pub fn parse(s: &str) -> Result<Resumption, UnknownResumption> {
        match s {
            "full" => Ok(Resumption::Full),
            "0rtt" => Ok(Resumption::ZeroRtt { token: false }),
            "0rtt-token" => Ok(Resumption::ZeroRtt { token: true }),
            other => Err(UnknownResumption(other.to_string())),
        }
    }
}

/// A `resumption` value [`Resumption::parse`] does not know; holds the
/// value as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownResumption(pub String);

impl core::fmt::Display for UnknownResumption {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "endpoint.resumption: unknown value `{}` (use full, 0rtt, 0rtt-token)",
            self.0
        )
    }
}

impl std::error::Error for UnknownResumption {}
